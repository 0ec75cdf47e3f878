// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the repro tables (src/report/repro_*.c): the reports' own figures, pairs by run and round, anomalies. */
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

#include "report/repro.h"
#include "report/summary.h"
#include "report/views.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "bench/section_work.h"

static void read_numbers(const char *path, double *v, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[128];

	assert_non_null(f);
	*n = 0;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && *n < 64)
			v[(*n)++] = strtod(line, NULL);
	fclose(f);
}

typedef int (*repro_writer)(const struct fpl_result *r, FILE *f, struct fpl_diag *diag);

/* What write prints for r (the caller frees); write must return rc. */
static char *repro_text(repro_writer write, const struct fpl_result *r, int rc)
{
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(write(r, f, &diag), rc);
	fclose(f);
	return buf;
}

/* The 2024 report's own figures come back from its kind of data. */
static void rfbm_table_reproduces_report_shape(void **state)
{
	struct fpl_result *r = fpl_result_new();
	const char *labels[] = { "stock", "RFBM[12] = 0", "RFBM[12] = 1" };
	char *buf, path[128];
	double v[64];
	size_t n;

	(void)state;
	for (int k = 1; k <= 3; k++) {
		snprintf(path, sizeof(path), "tests/data/compare/rfbm-cv0.1/case%d.txt", k);
		read_numbers(path, v, &n);
		assert_int_equal(n, 10);
		assert_int_equal(fpl_repro_add_case(r, "test table", k, labels[k - 1], "ops/s",
						    "synthetic", v, n), 0);
	}
	assert_true(fpl_repro_has_rfbm(r));
	buf = repro_text(fpl_repro_rfbm_write, r, 0);
	assert_non_null(strstr(buf, "16444675.45  Set as 1"));
	assert_non_null(strstr(buf, "~99.80%"));
	assert_non_null(strstr(buf, "~99.76%"));
	assert_non_null(strstr(buf, "Meaning:"));
	free(buf);
	fpl_result_free(r);
}

/* The "+/- X%" half-width of case 2's line in a repro rfbm table. */
static double case2_half(const char *buf)
{
	const char *l = strstr(buf, "case 2: "), *pm = l ? strstr(l, "+/- ") : NULL;

	assert_non_null(pm);
	assert_true(strchr(l, '\n') > pm);
	return strtod(pm + 4, NULL);
}

/*
 * Ten runs whose level moves by up to 6% while case 2 is 0.2% above case 1
 * in every run (with a little noise of its own): paired by run, the
 * difference is proven with an interval of a few hundredths of a percent;
 * the same figures as independent samples (a file written before pairing)
 * prove nothing, their interval the width of the run levels.
 */
static void rfbm_table_pairs_runs(void **state)
{
	static const double level[] = { 0, 5.1, -0.7, 3.3, 6.0, 1.2, -2.4, 4.4, 0.8, 2.9 };
	static const double noise[] = { 1, -2, 0, 2, -1, 1, -1, 0, 2, -2 };
	struct fpl_result *paired = fpl_result_new(), *unpaired = fpl_result_new();
	double a[10], b[10], paired_half, unpaired_half;
	char *buf;

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = 200 * (1 + level[i] / 100);
		b[i] = a[i] * (1.002 + noise[i] * 1e-4);
	}
	assert_int_equal(fpl_repro_add_case(paired, "t", 1, "without", "cycles", "m", a, 10), 0);
	assert_int_equal(fpl_repro_add_paired_case(paired, "t", 2, "with", "cycles", "m", b, a,
						   "without, same run", 10), 0);
	buf = repro_text(fpl_repro_rfbm_write, paired, 0);
	paired_half = case2_half(buf);
	assert_non_null(strstr(buf, "+0.20% +/- "));
	assert_non_null(strstr(buf, "(proven)"));
	assert_non_null(strstr(buf, "paired: each run's value"));
	assert_non_null(strstr(buf, "(without, same run)"));
	assert_non_null(strstr(buf, "a 95% interval of +/- 0.2% needs about 3 runs"));
	assert_null(strstr(buf, "independent samples"));
	/* its baseline is case 1's own values: nothing more to say on its line */
	assert_null(strstr(buf, "case 1 in its runs"));
	free(buf);
	assert_int_equal(fpl_repro_add_case(unpaired, "t", 1, "without", "cycles", "m", a, 10), 0);
	assert_int_equal(fpl_repro_add_case(unpaired, "t", 2, "with", "cycles", "m", b, 10), 0);
	buf = repro_text(fpl_repro_rfbm_write, unpaired, 0);
	unpaired_half = case2_half(buf);
	assert_non_null(strstr(buf, "(not proven)"));
	assert_non_null(strstr(buf, "independent samples"));
	assert_null(strstr(buf, "paired: each run's value"));
	free(buf);
	print_message("  half-widths: paired %.3f%%, unpaired %.3f%%\n", paired_half,
		      unpaired_half);
	assert_true(paired_half > 0 && paired_half < 0.05);
	assert_true(unpaired_half > 1);
	fpl_result_free(paired);
	fpl_result_free(unpaired);
}

/*
 * Issue 32 item 2: runs of two levels, case 2 1% above case 1 in the eight
 * low runs and level with it in the two high ones. The ratio of the
 * trimmed means is about 100.4%, outside the interval of the per-run
 * differences (about +0.9% +/- 0.3%); "~" must be that interval's centre.
 */
static void rfbm_table_tilde_inside_interval(void **state)
{
	static const double lvl[] = { 100, 100, 100, 100, 100, 100, 100, 100, 1000, 1000 };
	static const double pct[] = { 1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.02, 0.98, 0, 0.02 };
	struct fpl_result *r = fpl_result_new();
	double a[10], b[10], tilde, diff, half;
	const char *line, *pm;
	char *buf;

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = lvl[i];
		b[i] = lvl[i] * (1 + pct[i] / 100);
	}
	assert_int_equal(fpl_repro_add_case(r, "t", 1, "without", "cycles", "m", a, 10), 0);
	assert_int_equal(fpl_repro_add_paired_case(r, "t", 2, "with", "cycles", "m", b, a,
						   "without, same run", 10), 0);
	buf = repro_text(fpl_repro_rfbm_write, r, 0);
	line = strstr(buf, "case 2: ");
	assert_non_null(line);
	assert_non_null(strchr(line, '~'));
	tilde = strtod(strchr(line, '~') + 1, NULL);
	pm = strstr(line, "% +/- ");
	assert_non_null(pm);
	half = strtod(pm + 6, NULL);
	while (pm > line && pm[-1] != ' ')
		pm--;
	diff = strtod(pm, NULL);
	print_message("  ~%.2f%%, %+.2f%% +/- %.2f%%\n", tilde, diff, half);
	assert_true(half > 0);
	assert_true(tilde - 100 >= diff - half && tilde - 100 <= diff + half);
	assert_true(fabs(tilde - 100 - diff) < 0.011);
	assert_non_null(strstr(buf, "the centre of the interval"));
	free(buf);
	fpl_result_free(r);
}

/*
 * ctxsw's cases: each wider state paired with init's arm of its own A/B
 * runs, whose level need not be case 1's line (the mean of the arms): the
 * case's line says what case 1 was in its runs, so that a value above case
 * 1's next to "~99%" reads right.
 */
static void rfbm_table_names_own_baseline(void **state)
{
	static const double init[] = { 100, 104, 98, 102, 101 }, own[] = { 110, 114, 108, 112, 111 };
	struct fpl_result *r = fpl_result_new();
	double v[5];
	char *buf, *line;

	(void)state;
	for (int i = 0; i < 5; i++)
		v[i] = own[i] * 0.99;
	assert_int_equal(fpl_repro_add_case(r, "ctx", 1, "state init", "ops/s", "m", init, 5), 0);
	assert_int_equal(fpl_repro_add_paired_case(r, "ctx", 2, "AVX-512 live", "ops/s", "m", v,
						   own, "init's arm of the same run", 5), 0);
	buf = repro_text(fpl_repro_rfbm_write, r, 0);
	line = strstr(buf, "case 2: ");
	assert_non_null(line);
	assert_non_null(strstr(line, "~99.00%"));
	assert_non_null(strstr(line, "-1.00% +/- "));
	assert_non_null(strstr(line, "; case 1 in its runs 111.000\n"));
	assert_true(strchr(line, '\n') > strstr(line, "case 1 in its runs"));
	free(buf);
	fpl_result_free(r);
}

/* A case of the report this CPU cannot measure is said, with why, not dropped silently. */
static void rfbm_table_says_left_out_case(void **state)
{
	static const double init[] = { 100, 104, 98, 102, 101 }, own[] = { 110, 114, 108, 112, 111 };
	struct fpl_result *r = fpl_result_new();
	char *buf;

	(void)state;
	assert_int_equal(fpl_repro_add_case(r, "ctx", 1, "state init", "ops/s", "m", init, 5), 0);
	assert_int_equal(fpl_repro_add_paired_case(r, "ctx", 2, "AVX registers live", "ops/s", "m",
						   own, init, "init's arm", 5), 0);
	assert_int_equal(fpl_repro_add_left_out(r, "ctx", 3, "AVX-512 registers live",
						"no AVX-512 on this CPU (XCR0 0x207)"), 0);
	buf = repro_text(fpl_repro_rfbm_write, r, 0);
	if (!strstr(buf, "case 2: AVX registers live") ||
	    !strstr(buf, "(the report's case 3, AVX-512 registers live: left out: no AVX-512 on "
		    "this CPU (XCR0 0x207))\n"))
		fail_msg("the left-out case is not said:\n%s", buf);
	free(buf);
	fpl_result_free(r);
}

/*
 * Calibrations paired by round: the section costs 5% in every round while
 * the rounds' speeds move by 20%; the per-round ratio is 0.950 with an
 * interval that excludes 1 (ratios of independent samples could not).
 */
static void kfpu_ratios_pair_rounds(void **state)
{
	static const double f[] = { 1.0, 1.2, 0.9, 1.1, 0.85, 1.15, 1.05 };
	struct fpl_result *r = fpl_result_new();
	static const char *const sec[] = { "no section", "MXCSR", "387|MXCSR" };
	static const double cost[] = { 1, 0.95, 0.70 };
	struct fpl_metric *m[3];
	char *buf;

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "xor");

		fpl_run_param_str(run, "mode", "calibrate");
		fpl_run_param_str(run, "template", "avx");
		fpl_run_param_str(run, "section", sec[k]);
		m[k] = fpl_run_add_metric(run, "speed", "MB/s", "synthetic");
		for (int i = 0; i < 7; i++)
			fpl_metric_add(m[k], 40000 * f[i] * (cost[k] + (k && i % 2 ? 1e-3 : 0)));
	}
	buf = repro_text(fpl_repro_kfpu_write, r, 0);
	assert_non_null(strstr(buf, "avx              0.950 [0.950, 0.951]"));
	assert_non_null(strstr(buf, "0.700 [0.700, 0.701]"));
	assert_non_null(strstr(buf, "per-round ratios, paired"));
	assert_non_null(strstr(buf, "costs avx 30% here, and LDMXCSR alone still 5%."));
	free(buf);
	fpl_result_free(r);
}

static void calib(struct fpl_result *r, const char *tmpl, const char *sec, double mbs)
{
	struct fpl_run *run = fpl_result_add_run(r, "xor");
	struct fpl_metric *m;

	fpl_run_param_str(run, "mode", "calibrate");
	fpl_run_param_str(run, "template", tmpl);
	fpl_run_param_str(run, "section", sec);
	fpl_run_param_str(run, "kernel_era", "pre-5.10");
	m = fpl_run_add_metric(run, "speed", "MB/s", "synthetic");
	for (int i = 0; i < 7; i++)
		fpl_metric_add(m, mbs);
}

/* The 2021 report's figures in, its lines and ratios out. */
static void kfpu_table_has_report_lines_and_ratios(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf;

	(void)state;
	calib(r, "avx", "no section", 33764);
	calib(r, "avx", "MXCSR", 23576);
	calib(r, "avx", "387|MXCSR", 21072);
	calib(r, "generic_sse", "no section", 21036);
	calib(r, "generic_sse", "MXCSR", 20880);
	calib(r, "generic_sse", "387|MXCSR", 18572);
	buf = repro_text(fpl_repro_kfpu_write, r, 0);
	assert_non_null(strstr(buf, "   avx       : 21072.000 MB/sec\n"));
	assert_non_null(strstr(buf, "xor: using function: avx (33764.000 MB/sec)"));
	assert_non_null(strstr(buf, "0.698 [0.698, 0.698]"));
	assert_non_null(strstr(buf, "0.624 [0.624, 0.624]"));
	free(buf);
	fpl_result_free(r);
	r = fpl_result_new();
	free(repro_text(fpl_repro_kfpu_write, r, -EINVAL));
	fpl_result_free(r);
}

static void section_run(struct fpl_result *r, const char *policy, double in, double out,
			double pct)
{
	struct fpl_run *run = fpl_result_add_run(r, "section");
	struct fpl_metric *m;

	fpl_run_param_str(run, "workload", "chacha20");
	fpl_run_param_str(run, "impl", "avx2");
	fpl_run_param_str(run, "isa", "AVX2");
	fpl_run_param_int(run, "chunk", 1024);
	fpl_run_param_int(run, "sections_inside", 64);
	fpl_run_param_str(run, "policy", policy);
	fpl_run_param_str(run, "insn", "xsavec");
	fpl_run_param_str(run, "owner", "init");
	m = fpl_run_add_metric(run, "inside_cycles", "cycles", "synthetic");
	fpl_metric_add(m, in);
	m = fpl_run_add_metric(run, "outside_cycles", "cycles", "synthetic");
	fpl_metric_add(m, out);
	m = fpl_run_add_metric(run, "speedup_pct", "percent", "synthetic");
	fpl_metric_add(m, pct);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", pct, "ci95_lo", pct - 1,
			     "ci95_hi", pct + 1);
}

static void lazy_table_has_report_lines(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf;

	(void)state;
	section_run(r, "eager", 684617437, 547710093, 24.99);
	section_run(r, "lazy", 547710100, 547710093, 0.2);
	buf = repro_text(fpl_repro_lazy_write, r, 0);
	assert_non_null(strstr(buf, "Inside: 684617437\nOutside: 547710093\n"
				    "Percent speedup: 25 [95% CI 24, 26]"));
	assert_non_null(strstr(buf, "Percent speedup: 0 [95% CI -1, 1]   (lazy"));
	free(buf);
	fpl_result_free(r);
}

/* A per-section cost whose interval lies below zero (Intel, issue 14): an anomaly, never a speedup. */
static void lazy_table_refuses_negative_cost(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_metric *m;
	char *buf, why[512];

	(void)state;
	/* AVX-512, 1 KiB chunks, eager: inside 12.1 us, outside 16.8 us on the Intel machine */
	section_run(r, "eager", 46000, 64000, -25.3);
	m = fpl_run_add_metric(r->runs[0], "section_cycles", "cycles", "synthetic");
	/* 12 rounds all below zero: sign test 2^-12, far beyond chance */
	for (int i = 0; i < 12; i++)
		fpl_metric_add(m, -300 + i % 3);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -300.0, "ci95_lo", -310.0,
			     "ci95_hi", -290.0);
	section_run(r, "lazy", 46000, 45900, 0.2);
	assert_non_null(fpl_section_anomaly(r, r->runs[0], why, sizeof(why)));
	assert_non_null(strstr(why, "section_cycles [-310, -290]"));
	assert_non_null(strstr(why, "VZEROUPPER"));
	assert_null(fpl_section_anomaly(r, r->runs[1], why, sizeof(why)));
	/* inside and outside 0.1% apart: the cause named is the method's resolution */
	for (int i = 0; i < 7; i++) {
		fpl_metric_add(r->runs[1]->metrics[0], 46046);
		fpl_metric_add(r->runs[1]->metrics[1], 46000);
	}
	m = fpl_run_add_metric(r->runs[1], "section_cycles", "cycles", "synthetic");
	for (int i = 0; i < 12; i++)
		fpl_metric_add(m, -9 - i % 3);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -9.0, "ci95_lo", -12.0,
			     "ci95_hi", -7.0);
	assert_non_null(fpl_section_anomaly(r, r->runs[1], why, sizeof(why)));
	assert_non_null(strstr(why, "0.10% of a call"));
	assert_non_null(strstr(why, "Holm-adjusted over the 2 cost intervals of this result"));
	json_object_set_new(m->extra, "ci95_hi", json_real(3.0));
	buf = repro_text(fpl_repro_lazy_write, r, 0);
	assert_null(strstr(buf, "Percent speedup: -25"));
	assert_non_null(strstr(buf, "Percent speedup: none shown: anomaly   (eager"));
	assert_non_null(strstr(buf, "dirty-upper penalty"));
	assert_non_null(strstr(buf, "1 case above shows no speedup"));
	/* the lazy run, with a cost that can be true, keeps its line */
	assert_non_null(strstr(buf, "Percent speedup: 0 [95% CI -1, 1]   (lazy"));
	free(buf);
	fpl_result_free(r);
}

/* A lazy cell of chunk: rounds costs, below of them under zero; interval [hi - 500, hi]. */
static struct fpl_metric *cost_cell(struct fpl_result *r, long chunk, int below, int rounds,
				    double hi)
{
	struct fpl_metric *m;

	section_run(r, "lazy", 46000, 45990, 0.0);
	fpl_run_param_int(r->runs[r->nruns - 1], "chunk", chunk);
	m = fpl_run_add_metric(r->runs[r->nruns - 1], "section_cycles", "cycles", "synthetic");
	for (int i = 0; i < rounds; i++)
		fpl_metric_add(m, i < below ? -100.0 - i : 100.0 + i);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -1.0, "ci95_lo", hi - 500,
			     "ci95_hi", hi);
	return m;
}

enum { SUITE = 1, SUITE_SECTION = 2, SECTION_TABLE = 4 };

/* The suite's summary, its section block, the section table (what's bits): the caller frees. */
static char *section_text(const struct fpl_result *r, unsigned what)
{
	struct fpl_table_opts o = { .warnings = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (what & SUITE)
		assert_int_equal(fpl_summary_write(r, f), 0);
	if (what & SUITE_SECTION)
		fpl_summary_section(r, f);
	if (what & SECTION_TABLE)
		assert_int_equal(fpl_table_section(r, &o, f), 0);
	fclose(f);
	return buf;
}

/*
 * A verdict stored when a run was measured alone (a --runs child, a file
 * from before the family test) that the document's family does not uphold:
 * the tables leave that warning out, as their own verdict stands; the
 * run's other warnings stay.
 */
static void section_stale_warning_left_out(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf;

	(void)state;
	for (int i = 0; i < 39; i++)
		cost_cell(r, 64 + i, 12, 25, 200);
	cost_cell(r, 4096, 19, 25, -1107);
	fpl_run_obs_str(r->runs[39], "anomaly", "section_cycles [-1607, -1107] cycles lies below "
			"zero: stored");
	fpl_run_warn(r->runs[39], "section_cycles [-1607, -1107] cycles lies below zero: stored");
	fpl_run_warn(r->runs[39], "another warning of that run");
	assert_true(fpl_section_warning_stale(r, r->runs[39], "section_cycles [-1607, -1107] "
					      "cycles lies below zero: stored"));
	assert_false(fpl_section_warning_stale(r, r->runs[39], "another warning of that run"));
	buf = section_text(r, SUITE | SECTION_TABLE);
	assert_null(strstr(buf, "lies below zero: stored"));
	assert_non_null(strstr(buf, "another warning of that run"));
	free(buf);
	fpl_result_free(r);
}

/*
 * Many cells whose cost is near zero: some 95% intervals lie below zero by
 * chance (the default suite's 112 intervals gave one: 19 of 25 rounds
 * below zero, sign test p 0.0073, Holm-adjusted 0.82). Not an anomaly,
 * and the table says why; a cost below zero in every round of every cell
 * that has it still is one.
 */
static void section_below_zero_by_chance(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char why[768], *buf;
	size_t family = 0;

	(void)state;
	/* 40 cells, their intervals holding 0; one of them below zero, 19 of 25 rounds */
	for (int i = 0; i < 39; i++)
		cost_cell(r, 64 + i, 12, 25, 200);
	cost_cell(r, 4096, 19, 25, -1107);
	assert_int_equal(fpl_section_below_zero(r, NULL, &family), 1);
	assert_int_equal(family, 40);
	/* the suite's summary line for a lazy row says the same (the fallback row: cell 40 first) */
	{
		struct fpl_result *one = fpl_result_new();

		cost_cell(one, 4096, 19, 25, -1107);
		for (int i = 0; i < 39; i++)
			cost_cell(one, 64 + i, 12, 25, 200);
		buf = section_text(one, SUITE_SECTION);
		assert_non_null(strstr(buf, "lazy  restore -1 [95% CI -1607, -1107]: below zero, "
					    "within chance"));
		free(buf);
		fpl_result_free(one);
	}
	/* alone it would be one (p 0.0073 < 2.5%); among 40 it is chance */
	assert_non_null(fpl_section_anomaly(NULL, r->runs[39], why, sizeof(why)));
	assert_null(fpl_section_anomaly(r, r->runs[39], why, sizeof(why)));
	buf = section_text(r, SECTION_TABLE);
	assert_null(strstr(buf, "Anomalies:"));
	assert_non_null(strstr(buf, "1 of the 40 section cost intervals lies below zero, not beyond "
				    "chance"));
	assert_non_null(strstr(buf, "That cost is below what this run resolves, not a speedup."));
	free(buf);
	/* a 41st cell below zero in all its 25 rounds: 2^-25 x 41 is still far below 2.5% */
	cost_cell(r, 8192, 25, 25, -50);
	assert_non_null(fpl_section_anomaly(r, r->runs[40], why, sizeof(why)));
	assert_non_null(strstr(why, "Holm-adjusted over the 41 cost intervals"));
	/* an upheld verdict's stored warning stays */
	fpl_run_obs_str(r->runs[40], "anomaly", "section_cycles [-550, -50] cycles: upheld");
	fpl_run_warn(r->runs[40], "section_cycles [-550, -50] cycles: upheld");
	assert_false(fpl_section_warning_stale(r, r->runs[40], "section_cycles [-550, -50] "
					       "cycles: upheld"));
	buf = section_text(r, SECTION_TABLE);
	assert_non_null(strstr(buf, "Anomalies: no speedup is shown for 1 row,"));
	assert_non_null(strstr(buf, "1 of the 41 section cost intervals lies below zero, not beyond"));
	free(buf);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfbm_table_reproduces_report_shape),
		cmocka_unit_test(kfpu_table_has_report_lines_and_ratios),
		cmocka_unit_test(rfbm_table_pairs_runs),
		cmocka_unit_test(rfbm_table_tilde_inside_interval),
		cmocka_unit_test(rfbm_table_names_own_baseline),
		cmocka_unit_test(rfbm_table_says_left_out_case),
		cmocka_unit_test(kfpu_ratios_pair_rounds),
		cmocka_unit_test(lazy_table_has_report_lines),
		cmocka_unit_test(lazy_table_refuses_negative_cost),
		cmocka_unit_test(section_below_zero_by_chance),
		cmocka_unit_test(section_stale_warning_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
