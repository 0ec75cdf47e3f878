// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: fpulab compare on awkward input: values near DBL_MAX, a pipe, a negative baseline, --ministat reading as ministat does. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "clitest.h"

/* Values near DBL_MAX: (v - x0) / dx overflowed to inf and (int)inf indexed the histogram. */
static void test_compare_near_dbl_max(void **state)
{
	static const char *const modes[] = { "--format=table", "--ministat", "--kernel" };
	char *dir = tmpdir(), good[600], huge[600];
	struct cmd_out o;

	write_text(dir, "good.txt", "10\n11\n12\n10.5\n");
	write_text(dir, "huge.txt", "1.7976931348623157e308\n1.7976931348623157e308\n"
		   "1.7976931348623157e308\n");
	snprintf(good, sizeof(good), "%s/good.txt", dir);
	snprintf(huge, sizeof(huge), "%s/huge.txt", dir);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int rc = fpl(&o, 60, "compare", modes[i], good, huge, NULL);

		if (WIFSIGNALED(o.status))
			fail_msg("compare %s good huge: killed by signal %d", modes[i],
				 WTERMSIG(o.status));
		if (rc != 0 && rc != 1)
			fail_msg("compare %s good huge: exit %d\n%s", modes[i], rc, o.err);
		cmd_out_free(&o);
	}
	tmpdir_done(dir);
}

/* compare reads each file once: a pipe (<(cat A.json)) holds its bytes only once. */
static void test_compare_reads_pipe_once(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	int rc;

	rc = sh(NULL, "%s run -q --budget 0.05 -o %s/a.json signal >/dev/null 2>&1",
		cmd_fpl_bin(), dir);
	if (rc == 77) {
		print_unsupported("run signal", NULL, NULL);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	rc = sh(&out, "cd %s && mkfifo p && (timeout 60 cat a.json > p &) && timeout 60 %s compare a.json p 2>&1",
		dir, cmd_fpl_bin());
	if (rc != 0)
		fail_msg("compare a.json <fifo of a.json>: exit %d\n%s", rc, out);
	free(out);
	tmpdir_done(dir);
}

/*
 * A baseline at or below zero has no percentages: the difference in its
 * unit (--format json: 21.75, percentages null), in the table as +21.8,
 * never as -200%.
 */
static void test_compare_negative_baseline(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	json_t *j, *m, *t;
	json_error_t e;
	int rc;

	write_text(dir, "neg.txt", "-10\n-11\n-12\n-10.5\n");
	write_text(dir, "pos.txt", "10\n11\n12\n10.5\n");
	rc = sh(&out, "cd %s && %s compare -f json neg.txt pos.txt", dir, cmd_fpl_bin());
	assert_int_equal(rc, 0);
	j = json_loads(out, 0, &e);
	if (!j)
		fail_msg("compare -f json: %s\n%s", e.text, out);
	m = json_array_get(json_object_get(j, "metrics"), 0);
	t = json_array_get(json_object_get(m, "comparisons"), 0);
	assert_true(json_number_value(json_object_get(json_array_get(json_object_get(m, "cases"), 0),
						      "center")) == -10.875);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(m, "cases"), 1),
						 "pct_of_base")));
	assert_true(json_number_value(json_object_get(t, "diff")) == 21.75);
	assert_true(json_is_null(json_object_get(t, "diff_pct")));
	assert_true(json_is_null(json_object_get(t, "ci_half_pct")));
	assert_true(json_is_true(json_object_get(t, "different")));
	json_decref(j);
	free(out);
	rc = sh(&out, "cd %s && %s compare neg.txt pos.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 0);
	if (strstr(out, "-200"))
		fail_msg("a percentage of a negative baseline:\n%s", out);
	assert_non_null(strstr(out, "+21.8"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --bootstrap=99999999999 pos.txt pos.txt 2>&1", dir,
		cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "--bootstrap"));
	free(out);
	tmpdir_done(dir);
}

/* --ministat reads as ministat does: the first field, -C N, at least 3 points. */
static void test_ministat_reading(void **state)
{
	char *dir = tmpdir(), *out = NULL, *ref = NULL;
	int rc;

	write_text(dir, "m1.txt", "1 a\n2 b\n3 c\n4 d\n");
	write_text(dir, "four.txt", "5\n6\n7\n8\n");
	write_text(dir, "two.txt", "5\n6\n");
	write_text(dir, "c2.txt", "1 10\n2 20\n3 30\n9\n");
	rc = sh(&out, "cd %s && %s compare --ministat m1.txt four.txt 2>&1", dir, cmd_fpl_bin());
	if (rc)
		fail_msg("--ministat on '1 a' lines: exit %d\n%s", rc, out);
	assert_non_null(strstr(out, "x   4             1             4"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --ministat two.txt four.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "at least 3 data points"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --ministat -C 2 c2.txt c2.txt 2>&1", dir,
		cmd_fpl_bin());
	assert_int_equal(rc, 0);
	/* 10, 20, 30: the line "9" has no second field and is skipped */
	assert_non_null(strstr(out, "x   3            10            30            20"));
	if (!sh(NULL, "command -v ministat >/dev/null")) {
		assert_int_equal(sh(&ref, "cd %s && ministat -C 2 c2.txt c2.txt 2>&1", dir), 0);
		assert_string_equal(out, ref);
		free(ref);
	}
	free(out);
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_near_dbl_max),
		cmocka_unit_test(test_compare_reads_pipe_once),
		cmocka_unit_test(test_compare_negative_baseline),
		cmocka_unit_test(test_ministat_reading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
