// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/report/views.c: one row per benchmark, looked up by every command's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/bench.h"
#include "fpulab/result.h"
#include "report/views.h"

/* Every row names a benchmark that is built in, once. */
static void test_rows_name_benchmarks(void **state)
{
	(void)state;
	assert_true(fpl_nviews >= 5);
	for (size_t i = 0; i < fpl_nviews; i++) {
		if (!fpl_bench_find(fpl_views[i].bench))
			fail_msg("view %s: no such benchmark", fpl_views[i].bench);
		assert_ptr_equal(fpl_view_find(fpl_views[i].bench), &fpl_views[i]);
	}
	assert_null(fpl_view_find("nosuch"));
	assert_null(fpl_view_find(NULL));
}

static struct fpl_run *run_of(struct fpl_result *r, const char *bench, long index)
{
	struct fpl_run *run = fpl_result_add_run(r, bench);

	assert_non_null(run);
	assert_int_equal(fpl_run_obs_int(run, "run_index", index), 0);
	return run;
}

/* An xor sweep row of run index with the given MB/s. */
static void xor_row(struct fpl_result *r, long index, const char *tmpl, double mbs)
{
	struct fpl_run *run = run_of(r, "xor", index);
	struct fpl_metric *m;

	assert_int_equal(fpl_run_param_str(run, "mode", "sweep") ||
			 fpl_run_param_str(run, "template", tmpl) ||
			 fpl_run_param_str(run, "isa", "AVX") ||
			 fpl_run_param_int(run, "size", 4096) ||
			 fpl_run_param_int(run, "arity", 2), 0);
	m = fpl_run_add_metric(run, "speed", "MB/s", "synthetic");
	assert_non_null(m);
	assert_int_equal(fpl_metric_add(m, mbs), 0);
}

static char *text_of(int (*fn)(const struct fpl_result *, const struct fpl_table_opts *,
			       FILE *), const struct fpl_result *r)
{
	struct fpl_table_opts o = { .warnings = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(r, &o, f), 0);
	fclose(f);
	return buf;
}

/* One benchmark with a table of its own: that table; several benchmarks: the generic one. */
static void test_table_by_benchmark(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *t;

	(void)state;
	xor_row(r, 1, "avx", 123456);
	t = text_of(fpl_view_table, r);
	assert_non_null(strstr(t, "do_N template"));
	{
		/* the row: size, do_N, template, ISA, then the run's median MB/s */
		char size[16], n[8], tmpl[16], isa[16], bpc[16];
		double mbs = 0;
		const char *row = strstr(t, "\n") + 1;

		assert_int_equal(sscanf(row, "%15s %7s %15s %15s %lf %15s", size, n, tmpl, isa, &mbs,
					bpc), 6);
		assert_string_equal(size, "4096");
		assert_string_equal(n, "do_2");
		assert_string_equal(tmpl, "avx");
		assert_string_equal(isa, "AVX");
		assert_true(mbs == 123456);
		/* no B/cycle metric in this run: a dash, never "nan" */
		assert_string_equal(bpc, "-");
	}
	free(t);
	run_of(r, "signal", 1);
	t = text_of(fpl_view_table, r);
	assert_null(strstr(t, "do_N template"));
	assert_non_null(strstr(t, "xor mode=sweep template=avx"));
	assert_non_null(strstr(t, "signal"));
	free(t);
	fpl_result_free(r);
}

/* ctxsw's A/B verdicts come under its run in the generic table, through its view only. */
static void test_run_lines(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = run_of(r, "ctxsw", 1);
	struct fpl_table_opts bare = { .warnings = true };
	char *t, *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(fpl_run_obs_str(run, "b_minus_a_median", "+1.000% (95% CI +0.5% .. "
					 "+1.5%)"), 0);
	t = text_of(fpl_view_generic_table, r);
	assert_non_null(strstr(t, "B - A, batch medians (the figure to quote): +1.000%"));
	/* a single run's interval says that it leaves out what changes between runs */
	assert_non_null(strstr(t, "(these intervals cover this run's batches only;"));
	free(t);
	/* and a run without an A/B verdict does not say it */
	{
		struct fpl_result *r2 = fpl_result_new();

		run_of(r2, "ctxsw", 1);
		t = text_of(fpl_view_generic_table, r2);
		assert_null(strstr(t, "this run's batches only"));
		free(t);
		fpl_result_free(r2);
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_emit_table(r, &bare, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "ctxsw"));
	assert_null(strstr(buf, "B - A"));
	free(buf);
	fpl_result_free(r);
}

/* A series shows its first run in the benchmark's own table, then the runs' table. */
static void test_series_first_run(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_table_opts o = { .warnings = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	xor_row(r, 1, "avx", 111111);
	xor_row(r, 2, "avx", 222222);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_view_series(r, &o, 2, 2, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "xor's own table, run 1"));
	assert_non_null(strstr(buf, "111111"));
	assert_null(strstr(buf, "222222"));	/* run 2 is in the runs' table as a median */
	assert_non_null(strstr(buf, "2 of 2 runs"));
	assert_true(strstr(buf, "xor's own table") < strstr(buf, "2 of 2 runs"));
	free(buf);
	fpl_result_free(r);
}

/*
 * The runs' table: a sample metric's CV over the run medians (10 and 20:
 * mean 15, sd 7.0711, 47.14%), none for a difference, whose mean sits near
 * zero (compare's n/a).
 */
static void test_series_cv(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (long k = 1; k <= 2; k++) {
		struct fpl_run *run = run_of(r, "signal", k);
		struct fpl_metric *a = fpl_run_add_metric(run, "round_trip", "ns", "synthetic");
		struct fpl_metric *d = fpl_run_add_metric(run, "difference", "ns", "synthetic");

		fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
		assert_int_equal(fpl_metric_add(a, 10.0 * (double)k), 0);
		assert_int_equal(fpl_metric_add(d, 10.0 * (double)k), 0);
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_table_runs(r, 2, 2, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "round_trip              2           15   47.14"));
	assert_non_null(strstr(buf, "difference              2           15       -"));
	free(buf);
	fpl_result_free(r);
}

/*
 * Skipped runs of one reason (the cells of an RFBM the CPU lacks) are one
 * line with their count and what they differ in; a lone skip keeps its
 * block; every reason is there once.
 */
static void test_skips_one_line_per_reason(void **state)
{
	static const char *const insns[] = { "xsave", "xsavec", "xrstor" };
	struct fpl_result *r = fpl_result_new();
	char *t;
	const char *p;
	int n = 0;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		for (int lat = 0; lat < 2; lat++) {
			struct fpl_run *run = fpl_result_add_run(r, "xsave");

			assert_non_null(run);
			assert_int_equal(fpl_run_param_str(run, "insn", insns[i]), 0);
			assert_int_equal(fpl_run_param_str(run, "mask", "0xe0"), 0);
			assert_int_equal(fpl_run_param_str(run, "method", lat ? "latency" :
							   "throughput"), 0);
			assert_int_equal(fpl_run_skip(run, "RFBM 0xe0 has components outside"), 0);
		}
	assert_int_equal(fpl_run_skip(fpl_result_add_run(r, "xsave"), "no XSAVEC"), 0);
	t = text_of(fpl_emit_table, r);
	/* the table wraps long lines, indented by four: one logical line again */
	for (char *w = t; (w = strstr(w, "\n    components"));)
		memmove(w, w + 4, strlen(w + 4) + 1), *w = ' ';
	for (p = t; (p = strstr(p, "RFBM 0xe0 has components outside")); p++)
		n++;
	if (n != 1 || !strstr(t, "xsave: 6 runs skipped (insn xsave|xsavec|xrstor; method "
			      "throughput|latency): RFBM 0xe0 has components outside\n") ||
	    !strstr(t, "    skipped: no XSAVEC\n"))
		fail_msg("skips not one line per reason:\n%s", t);
	free(t);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_name_benchmarks),
		cmocka_unit_test(test_skips_one_line_per_reason),
		cmocka_unit_test(test_table_by_benchmark),
		cmocka_unit_test(test_run_lines),
		cmocka_unit_test(test_series_first_run),
		cmocka_unit_test(test_series_cv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
