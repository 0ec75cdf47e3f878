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

#include <ctype.h>
#include <math.h>
#include <jansson.h>

#include "fpulab/bench.h"
#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "bench/abdiff.h"
#include "report/repro.h"
#include "report/table_internal.h"
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

/* A "-0" or "-0.0..." in text (a minus, zeros and a point, then no other digit): its line. */
static const char *negative_zero(const char *text)
{
	for (const char *p = strchr(text, '-'); p; p = strchr(p + 1, '-')) {
		const char *q = p + 1;

		if (*q != '0')
			continue;
		while (*q == '0' || *q == '.')
			q++;
		if (!isdigit((unsigned char)*q))
			return p;
	}
	return NULL;
}

static void no_negative_zero(const char *what, const char *text)
{
	const char *p = negative_zero(text);

	if (p) {
		const char *b = p, *e = strchr(p, '\n');

		while (b > text && b[-1] != '\n')
			b--;
		fail_msg("%s prints a negative zero: %.*s", what, (int)(e ? e - b : 120), b);
	}
}

/*
 * Issue 32 item 3: no formatter prints "-0" or "-0.0" (fpl_shown), and an
 * xsave cell whose median cannot be told from zero says "below resolution"
 * (vzeroupper after a dirty upper state, Zen 3: "0.0 (0.0)" and "-0.0"
 * while 21 of 43 samples were negative, down to -238 cycles).
 */
static void test_no_negative_zero(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "xsave");
	struct fpl_metric *m;
	struct fpl_abdiff d;
	struct fpl_summary s = { .median = -0.001, .q1 = -0.004, .q3 = 0.002 };
	double a[20], b[20];
	char *t, buf[200];

	(void)state;
	/* the helper itself */
	snprintf(buf, sizeof(buf), "%.1f %.2f %.0f %g %.2f", fpl_shown(-0.04, 1),
		 fpl_shown(-0.004, 2), fpl_shown(-0.4, 0), fpl_shown(-0.0, 6), fpl_shown(-0.006, 2));
	assert_string_equal(buf, "0.0 0.00 0 0 -0.01");
	assert_true(isnan(fpl_shown(NAN, 2)));
	/* an xsave misc row: 21 samples of 0 to +0.012, 22 negative down to -238: median -0.003 */
	assert_int_equal(fpl_run_param_str(run, "insn", "vzeroupper") ||
			 fpl_run_param_str(run, "pattern", "upper state dirty") ||
			 fpl_run_param_str(run, "method", "latency"), 0);
	m = fpl_run_add_metric(run, "cycles", "cycles", "latency: synthetic");
	assert_non_null(m);
	for (int i = 0; i < 43; i++)
		assert_int_equal(fpl_metric_add(m, i < 21 ? 0.002 * (i % 7) :
						i == 21 ? -238 : -0.003 * (i % 5 + 1)), 0);
	/* and one clearly above zero */
	run = fpl_result_add_run(r, "xsave");
	assert_int_equal(fpl_run_param_str(run, "insn", "xgetbv0") ||
			 fpl_run_param_str(run, "pattern", "") ||
			 fpl_run_param_str(run, "method", "throughput"), 0);
	m = fpl_run_add_metric(run, "cycles", "cycles", "throughput: synthetic");
	for (int i = 0; i < 43; i++)
		assert_int_equal(fpl_metric_add(m, 47.5 + 0.01 * (i % 5)), 0);
	/* a noisy cell of few samples, two of them preempted far below zero: a figure, not unresolved */
	run = fpl_result_add_run(r, "xsave");
	assert_int_equal(fpl_run_param_str(run, "insn", "fninit") ||
			 fpl_run_param_str(run, "pattern", "") ||
			 fpl_run_param_str(run, "method", "throughput"), 0);
	m = fpl_run_add_metric(run, "cycles", "cycles", "throughput: synthetic");
	{
		static const double v[] = { 120, 121, 119, 122, -300, -350, 118, 9000 };

		for (size_t i = 0; i < 8; i++)
			assert_int_equal(fpl_metric_add(m, v[i]), 0);
	}
	t = text_of(fpl_view_table, r);
	no_negative_zero("the xsave table", t);
	assert_non_null(strstr(t, "fninit                                       throughput       "
			    "119.5 ("));
	assert_non_null(strstr(t, "vzeroupper, upper state dirty                latency     "
			    "below resolution: < 0.1"));
	assert_non_null(strstr(t, "47.5 (0.0)"));
	assert_non_null(strstr(t, "below resolution: < N: the cell's median cannot be told"));
	free(t);
	/* the generic table of the same runs */
	{
		struct fpl_table_opts o = { .warnings = true };
		char *g = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&g, &len);

		assert_non_null(f);
		assert_int_equal(fpl_emit_table(r, &o, f), 0);
		fclose(f);
		no_negative_zero("the generic table", g);
		free(g);
	}
	fpl_result_free(r);
	/* median [q1, q3] */
	fpl_tbl_mq(buf, sizeof(buf), &s);
	no_negative_zero("fpl_tbl_mq", buf);
	/* an A/B verdict whose interval starts a hair below zero */
	for (int i = 0; i < 20; i++) {
		a[i] = 10000 + (i % 4);
		b[i] = 10000 + (i % 4) + (i % 2 ? 0.00002 : -0.00001);
	}
	assert_int_equal(fpl_abdiff_welch(a, 20, b, 20, 0.95, &d), 0);
	fpl_abdiff_verdict(&d, buf, sizeof(buf));
	no_negative_zero("the A/B verdict", buf);
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
		cmocka_unit_test(test_no_negative_zero),
		cmocka_unit_test(test_series_first_run),
		cmocka_unit_test(test_series_cv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
