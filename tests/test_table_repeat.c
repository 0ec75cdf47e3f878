// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/report/table_repeat.c: how far the runs of --runs repeat, by unit, and its table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "near.h"

#include "fpulab/report.h"
#include "fpulab/result.h"

/*
 * Three runs of two configurations: the cycles metric of xsave A repeats
 * within 1%, of xsave B moves 5%; the ns metric of A moves 3%. A metric in
 * one run only (signal) is left out, and so is the run index: runs are told
 * apart by record, configurations by bench, params and metric name.
 */
static struct fpl_metric *add_rec(struct fpl_result *r, const char *bench, const char *cfg,
				  const char *metric, const char *unit, double v)
{
	struct fpl_run *run = fpl_result_add_run(r, bench);
	struct fpl_metric *m;

	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "cfg", cfg), 0);
	m = fpl_run_add_metric(run, metric, unit, "test");
	assert_non_null(m);
	/* samples around v: the run's median is v */
	assert_int_equal(fpl_metric_add(m, v - 1), 0);
	assert_int_equal(fpl_metric_add(m, v), 0);
	assert_int_equal(fpl_metric_add(m, v + 1), 0);
	return m;
}

static void test_repeatability_by_unit(void **state)
{
	const double a[] = { 100, 101, 100.5 }, b[] = { 200, 210, 205 }, ns[] = { 50, 51.5, 50 };
	struct fpl_result *r = fpl_result_new();
	struct fpl_unit_repeat u[4];
	struct fpl_metric *m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(r);
	for (int i = 0; i < 3; i++) {
		add_rec(r, "xsave", "A", "cycles", "cycles", a[i]);
		add_rec(r, "xsave", "B", "cycles", "cycles", b[i]);
		add_rec(r, "xsave", "A", "ns", "ns", ns[i]);
	}
	add_rec(r, "signal", "A", "cycles", "cycles", 7);
	/* a record whose samples are all NaN has no figure: no distance of NaN spoils A's */
	m = add_rec(r, "xsave", "A", "cycles", "cycles", 0);
	for (size_t i = 0; i < m->n; i++)
		m->samples[i] = NAN;
	/* a difference between variants is left out, however it moves */
	fpl_metric_set_kind(add_rec(r, "xsave", "A", "diff_cycles", "cycles", 1),
			    FPL_KIND_DIFFERENCE);
	fpl_metric_set_kind(add_rec(r, "xsave", "A", "diff_cycles", "cycles", -3),
			    FPL_KIND_DIFFERENCE);
	assert_int_equal(fpl_result_repeatability(r, 2, u, 4), 2);
	assert_string_equal(u[0].unit, "cycles");	/* most metrics first */
	assert_int_equal(u[0].rep.metrics, 2);
	assert_int_equal(u[0].rep.within, 1);
	/* A: |101 - 100.5| / 100.5; B: 5 / 205 */
	assert_near(u[0].rep.max_pct, 500.0 / 205, 1e-9);
	assert_near(u[0].rep.median_pct, (50.0 / 100.5 + 500.0 / 205) / 2, 1e-9);
	assert_string_equal(u[0].worst, "xsave cfg=B: cycles");
	assert_string_equal(u[1].unit, "ns");
	assert_int_equal(u[1].rep.metrics, 1);
	assert_int_equal(u[1].rep.within, 0);
	assert_near(u[1].rep.max_pct, 3, 1e-9);
	assert_int_equal(fpl_result_repeatability(r, 2, u, 1), 1);	/* max respected */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_table_repeatability(r, 2, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "worst in cycles: xsave cfg=B: cycles"));
	assert_non_null(strstr(buf, "1 (50%)"));
	free(buf);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeatability_by_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
