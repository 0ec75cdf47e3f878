// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/bench/anchor.c and the schedstat reader: the in-run anchor's arithmetic, contention flags. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "bench/anchor.h"
#include "fpulab/sysinfo.h"

static void test_schedstat_parse(void **state)
{
	struct fpl_schedstat s;

	(void)state;
	assert_int_equal(fpl_schedstat_parse("176030 5211045 2\n", &s), 0);
	assert_true(s.run_ns == 176030 && s.wait_ns == 5211045 && s.slices == 2);
	assert_int_equal(fpl_schedstat_parse("1 2 3", &s), 0);
	assert_int_equal(fpl_schedstat_parse("1 2\n", &s), -EINVAL);
	assert_int_equal(fpl_schedstat_parse("1 2 3 4\n", &s), -EINVAL);
	assert_int_equal(fpl_schedstat_parse("a b c\n", &s), -EINVAL);
	/*
	 * this thread's own file: after a sleep (the kernel updates the figures
	 * when a task leaves the CPU; a task that has not yet may read 0) it has
	 * run and been switched out at least once
	 */
	usleep(2000);
	assert_int_equal(fpl_schedstat_read(0, (int)syscall(SYS_gettid), &s), 0);
	assert_true(s.run_ns > 0 && s.slices > 0);
	assert_int_equal(fpl_schedstat_read(0, 0x7ffffff0, &s), -ENOENT);
}

/*
 * Synthetic run delays: the ping-pong's own hand-offs at 400 ns per round
 * trip, two rounds where another task held the CPU. Flagged: exactly those
 * above 3 x the median + 50 ns; an unread wait (NaN) never.
 */
static void test_flag_rule(void **state)
{
	struct fpl_anchor_round r[10];
	bool flag[10];
	static const double wait[10] = { 400, 390, 410, 405, 1249, 1251, 395, 9000, NAN, 402 };

	(void)state;
	for (int i = 0; i < 10; i++)
		r[i] = (struct fpl_anchor_round){ { 8000, NAN }, 900, wait[i] };
	/* median of the 9 finite waits: 405; the line 3 x 405 + 50 = 1265 */
	assert_int_equal(fpl_anchor_flag(r, 10, flag), 1);
	for (int i = 0; i < 10; i++)
		assert_int_equal(flag[i], i == 7);
	r[4].wait = 1266;
	assert_int_equal(fpl_anchor_flag(r, 10, flag), 2);
	assert_true(flag[4] && flag[7]);
	/* no wait read at all: nothing flagged */
	for (int i = 0; i < 10; i++)
		r[i].wait = NAN;
	assert_int_equal(fpl_anchor_flag(r, 10, flag), 0);
}

/* The recorded figures: every round's anchor and delay; each state's ratio over the kept rounds. */
static void test_record(void **state)
{
	struct fpl_result *res = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(res, "ctxsw");
	struct fpl_anchor_round r[4] = {
		{ { 9000, 9100 }, 1000, 400 }, { { 8000, 8200 }, 800, 410 },
		{ { 30000, 30000 }, 1000, 99999 }, { { 9900, 9900 }, 1100, 405 },
	};
	const struct fpl_metric *a, *b, *an, *rd;
	const json_t *o;

	(void)state;
	assert_int_equal(fpl_anchor_record(run, r, 4, 2), 0);
	a = fpl_run_find_metric(run, "round_trip_per_anchor_a");
	b = fpl_run_find_metric(run, "round_trip_per_anchor_b");
	an = fpl_run_find_metric(run, "anchor_ns");
	rd = fpl_run_find_metric(run, "run_delay_ns");
	assert_true(a && b && an && rd);
	assert_int_equal(an->n, 4);
	assert_int_equal(rd->n, 4);
	/* round 2 waited (99999 > 3 x 407.5 + 50): out of the ratios */
	assert_int_equal(a->n, 3);
	assert_int_equal(b->n, 3);
	assert_true(fabs(a->samples[0] - 9.0) < 1e-12 && fabs(a->samples[1] - 10.0) < 1e-12 &&
		    fabs(a->samples[2] - 9.0) < 1e-12);
	assert_true(fabs(b->samples[1] - 10.25) < 1e-12);
	assert_string_equal(a->unit, "ratio");
	o = fpl_run_obs_get(run, "anchor");
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "rounds")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "flagged_rounds")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(o, "cannot")), "the ratio hides"));
	fpl_result_free(res);
	/* one state: the ratio without a suffix */
	res = fpl_result_new();
	run = fpl_result_add_run(res, "ctxsw");
	assert_int_equal(fpl_anchor_record(run, r, 2, 1), 0);
	assert_non_null(fpl_run_find_metric(run, "round_trip_per_anchor"));
	assert_null(fpl_run_find_metric(run, "round_trip_per_anchor_b"));
	fpl_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat_parse),
		cmocka_unit_test(test_flag_rule),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
