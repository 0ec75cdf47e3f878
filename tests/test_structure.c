// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests of the code's shape: layers, file cycles, a thin src/cli (scripts/layers.sh), short functions (scripts/funclen.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runcmd.h"

/* A script of scripts/ with one argument: exit 0, or fail with what it printed. */
static void script_passes(const char *script, const char *arg)
{
	const char *argv[] = { script, arg, NULL };
	struct cmd_out o;

	if (!cmd_exists(script)) {
		print_message("  no %s: not run from the source tree\n", script);
		skip();
	}
	assert_int_equal(cmd_run(argv, 120, &o), 0);
	print_message("  %s", o.out);
	if (cmd_code(&o) != 0)
		fail_msg("%s exited %d:\n%s%s", script, cmd_code(&o), o.out, o.err);
	cmd_out_free(&o);
}

/* On $FPL_BUILD (make test sets it): the objects say who calls whom. */
static void test_layers(void **state)
{
	const char *build = getenv("FPL_BUILD");

	script_passes("scripts/layers.sh", build && *build ? build : "build");
}

/* STYLE: no function over ~80 lines, in src/ and tests/. */
static void test_functions_short(void **state)
{
	script_passes("scripts/funclen.sh", "80");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_functions_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
