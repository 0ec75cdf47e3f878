// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests of the code's shape on this build: no call or include up a layer, no file cycle (scripts/layers.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runcmd.h"

/* A script of scripts/ on $FPL_BUILD (make test sets it): exit 0, or fail with what it printed. */
static void script_passes(const char *script)
{
	const char *build = getenv("FPL_BUILD");
	const char *argv[] = { script, build && *build ? build : "build", NULL };
	struct cmd_out o;

	if (!cmd_exists(script))
		skip();	/* not run from the source tree */
	assert_int_equal(cmd_run(argv, 120, &o), 0);
	print_message("  %s", o.out);
	if (cmd_code(&o) != 0)
		fail_msg("%s exited %d:\n%s%s", script, cmd_code(&o), o.out, o.err);
	cmd_out_free(&o);
}

static void test_layers(void **state)
{
	script_passes("scripts/layers.sh");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
