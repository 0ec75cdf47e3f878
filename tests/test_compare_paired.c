// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for fpulab compare's pairs: --variants of one document, --paired files, the note, bad input. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "near.h"

#include "fpulab/compare.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "runcmd.h"

CMD_TMPDIR(tmp, "fpl-cmp-paired")

/*
 * Six runs whose level moves by several percent (as the host's does from
 * run to run, issue 25: 5-7%) and, inside each, a variant 0.2% dearer with
 * a little noise of its own.
 */
#define NRUNS 6
static const double level[NRUNS] = { 100, 105, 97, 103, 99, 106 };
static const double noise[NRUNS] = { 0.0002, -0.0001, 0.0003, -0.0002, 0.0001, 0 };

static double value_a(size_t k)
{
	return level[k];
}

static double value_b(size_t k)
{
	return level[k] * (1.002 + noise[k]);
}

/* Run a shell command with its stderr; its output into *out; the exit code. */
static int compare(const char *args, char **out)
{
	char cmd[2048];
	struct cmd_out o;

	snprintf(cmd, sizeof(cmd), "%s compare %s 2>&1", cmd_fpl_bin(), args);
	assert_int_equal(cmd_sh(cmd, FPLRUN_LIMIT_S, &o), 0);
	*out = o.out;
	free(o.err);
	return WIFEXITED(o.status) && !o.timed_out ? WEXITSTATUS(o.status) : -1;
}

static json_t *compare_json(const char *args)
{
	char *out;
	int rc = compare(args, &out);
	json_t *root = json_loads(out, 0, NULL);

	if (rc || !root)
		fail_msg("compare %s: exit %d:\n%s", args, rc, out);
	free(out);
	return root;
}

static json_t *comparison(json_t *root, size_t metric)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(root, "metrics"),
							     metric), "comparisons"), 0);
}

static double jnum(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* 11 samples around v whose median is v exactly, with no ties (no lattice step). */
static void add_samples(struct fpl_run *run, const char *name, const char *unit, double v)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, "synthetic runs");

	assert_non_null(m);
	for (int i = 0; i < 11; i++)
		assert_int_equal(fpl_metric_add(m, v * (1 + (i - 5) * 1e-5)), 0);
}

/* What --runs writes into each run: its identity (pid_base + k; pid_bad for run bad_run). */
static void stamp(struct fpl_run *run, size_t k, long pid)
{
	char when[64];

	snprintf(when, sizeof(when), "2026-12-03T10:00:%02zu.000Z", k);
	assert_int_equal(fpl_run_obs_int(run, "run_index", (long long)k + 1), 0);
	assert_int_equal(fpl_run_obs_int(run, "run_pid", pid), 0);
	assert_int_equal(fpl_run_obs_str(run, "run_started", when), 0);
}

static void emit(struct fpl_result *r, const char *path)
{
	struct fpl_diag diag = { "" };

	if (fpl_emit_file(r, FPL_FMT_JSON, path, &diag))
		fail_msg("%s", diag.msg);
	fpl_result_free(r);
}

/* An xsave --part rfbm --runs document: without_cycles and with_cycles in every run. */
static void write_rfbm(const char *path, size_t runs)
{
	struct fpl_result *r = fpl_result_new();

	assert_non_null(r);
	for (size_t k = 0; k < runs; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "xsave");

		assert_non_null(run);
		assert_int_equal(fpl_run_param_str(run, "experiment", "rfbm"), 0);
		assert_int_equal(fpl_run_param_str(run, "component", "AVX512_Hi16_ZMM"), 0);
		stamp(run, k, 4000 + (long)k);
		add_samples(run, "with_cycles", "cycles", value_b(k));
		add_samples(run, "without_cycles", "cycles", value_a(k));
		add_samples(run, "diff_cycles", "cycles", value_b(k) - value_a(k));
	}
	emit(r, path);
}

/*
 * One variant's runs as their own file (b: the dearer one), as a script
 * that split an --runs document by params would leave: runs carry their
 * identity (pid_base + k), run bad_run (if < runs) another pid; ids false:
 * none (files from runs without --runs).
 */
static void write_variant(const char *path, bool b, long pid_base, size_t bad_run, bool ids)
{
	struct fpl_result *r = fpl_result_new();

	assert_non_null(r);
	for (size_t k = 0; k < NRUNS; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "signal");

		assert_non_null(run);
		assert_int_equal(fpl_run_param_str(run, "batch", "64"), 0);
		if (ids)
			stamp(run, k, k == bad_run ? 999 : pid_base + (long)k);
		add_samples(run, "round_trip", "tsc", b ? value_b(k) : value_a(k));
	}
	emit(r, path);
}

static char *tmp_path(const char *name)
{
	static char paths[8][128];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", tmp, name);
	return p;
}

/*
 * The paired interval by hand: d_k = b_k - a_k, its mean, and
 * t(0.975, n - 1) s_d / sqrt(n) (the one-sample t, as R's t.test(b, a,
 * paired = TRUE)), the quantile from GSL.
 */
static void paired_by_hand(double *mean, double *half)
{
	double m = 0, ss = 0;

	for (size_t k = 0; k < NRUNS; k++)
		m += (value_b(k) - value_a(k)) / NRUNS;
	for (size_t k = 0; k < NRUNS; k++) {
		double e = value_b(k) - value_a(k) - m;

		ss += e * e;
	}
	*mean = m;
	*half = gsl_cdf_tdist_Qinv(0.025, NRUNS - 1) * sqrt(ss / (NRUNS - 1) / NRUNS);
}

/*
 * --variants without,with on an xsave-rfbm-like document: two cases of one
 * file, tested as pairs; the interval is the one-sample t on the per-run
 * differences (by hand), a fraction of the unpaired one, and proves the
 * 0.2% that the unpaired test on the same values cannot.
 */
static void test_variants_rfbm(void **state)
{
	char *x = tmp_path("rfbm.json"), args[512];
	char *paths[] = { x };
	struct fpl_cmp_opts o = { .confidence = 95, .variants = "without,with" };
	struct fpl_diag diag = { "" };
	double mean, half;
	struct fpl_cmp *c;
	json_t *root, *t, *u;

	(void)state;
	write_rfbm(x, NRUNS);
	assert_int_equal(fpl_cmp_run(paths, 1, &o, &c, &diag), 0);
	assert_int_equal(c->ncases, 2);
	assert_int_equal(c->nm, 1);	/* diff_cycles has neither word as a pair: left out */
	assert_int_equal(c->pairing, FPL_CMP_PAIRED_VARIANTS);
	assert_non_null(strstr(c->m[0].label, ": {without,with}_cycles"));
	paired_by_hand(&mean, &half);
	assert_true(c->m[0].t[1].paired);
	assert_int_equal(c->m[0].t[1].pairs, NRUNS);
	assert_near(c->m[0].t[1].t.diff, mean, 1e-9);
	assert_near(c->m[0].t[1].t.hi - c->m[0].t[1].t.diff, half, 1e-9);
	assert_true(c->m[0].t[1].proven);
	assert_false(c->m[0].t[1].unpaired.lo > 0);
	assert_true(c->m[0].t[1].unpaired.hi - c->m[0].t[1].unpaired.diff > 50 * half);
	assert_string_equal(fpl_cmp_test_name(c), "paired t");
	fpl_cmp_free(c);
	snprintf(args, sizeof(args), "-f json --variants without,with %s", x);
	root = compare_json(args);
	t = comparison(root, 0);
	u = json_object_get(t, "unpaired");
	assert_string_equal(json_string_value(json_object_get(root, "pairing")), "variants");
	assert_string_equal(json_string_value(json_object_get(t, "test")), "paired t");
	assert_true(json_is_true(json_object_get(t, "paired")));
	assert_true(json_is_true(json_object_get(t, "different")));
	assert_string_equal(json_string_value(json_object_get(u, "test")), "Welch");
	assert_true(jnum(u, "p") > 0.05);
	assert_true(jnum(u, "ci_half_pct") > 50 * jnum(t, "ci_half_pct"));
	json_decref(root);
}

/* The table: the header names the test, the verdict uses the paired interval, the unpaired alongside. */
static void test_variants_table(void **state)
{
	char *x = tmp_path("rfbm-table.json"), args[512], *out;

	(void)state;
	write_rfbm(x, NRUNS);
	snprintf(args, sizeof(args), "--variants without,with %s", x);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "paired t on the per-run differences (case N - case 1 in the same run)") ||
	    !strstr(out, ":without (6 runs); case 2: ") || !strstr(out, ":with (6 runs)\n") ||
	    !strstr(out, "Pairs: each metric named with 'without' (case 1) with the one named "
		    "with 'with'") ||
	    !strstr(out, "Different: 1 of 1 comparison, by effect:\n  +0.2") ||
	    !strstr(out, "(paired t p ") || !strstr(out, " DIFFERENT (unpaired +/- ") ||
	    !strstr(out, "note: --variants without,with: 1 metric of ") ||
	    !strstr(out, "diff_cycles"))
		fail_msg("%s", out);
	free(out);
	snprintf(args, sizeof(args), "-v --variants without,with %s", x);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "verdict: case 2: +0.2") || !strstr(out, "(paired t, 95%)") ||
	    !strstr(out, "    paired t: t = ") || !strstr(out, "; 6 pairs, ") ||
	    !strstr(out, "    unpaired: Welch's t [") ||
	    /* the unpaired interval carries the metric's unit, as the line above does */
	    !strstr(out, "] cycles, +/- "))
		fail_msg("%s", out);
	free(out);
	/* CSV: the test per row, the pairs and the unpaired interval after the rest */
	snprintf(args, sizeof(args), "-f csv --trim 10 --variants without,with %s", x);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, ",runs_needed_0.2pct,pairs,unpaired_test,unpaired_diff_lo,"
		    "unpaired_diff_hi,unpaired_diff_pct_half,unpaired_p\n") ||
	    !strstr(out, ",\"paired Yuen\",6,") || !strstr(out, ",6,\"Yuen\","))
		fail_msg("%s", out);
	free(out);
}

/* A ctxsw --ab-like document: round_trip_a against round_trip_b (and _cycles) by --variants _a,_b. */
static void test_variants_ab(void **state)
{
	static const char *const names[] = { "round_trip_a", "round_trip_b", "round_trip_a_cycles",
					     "round_trip_b_cycles", "difference" };
	struct fpl_result *r = fpl_result_new();
	char *x = tmp_path("ab.json"), args[512];
	json_t *root, *metrics;

	(void)state;
	assert_non_null(r);
	for (size_t k = 0; k < NRUNS; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "ctxsw");

		assert_non_null(run);
		assert_int_equal(fpl_run_param_str(run, "state_a", "init"), 0);
		assert_int_equal(fpl_run_param_str(run, "state_b", "avx512"), 0);
		stamp(run, k, 7000 + (long)k);
		for (size_t j = 0; j < 5; j++)
			add_samples(run, names[j], j < 2 || j == 4 ? "ns" : "cycles",
				    j == 4 ? value_b(k) - value_a(k) : j % 2 ? value_b(k) :
				    value_a(k));
	}
	emit(r, x);
	snprintf(args, sizeof(args), "-f json --variants _a,_b %s", x);
	root = compare_json(args);
	metrics = json_object_get(root, "metrics");
	assert_int_equal(json_array_size(metrics), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(metrics, 0), "name")),
			    "round_trip{_a,_b}");
	assert_string_equal(json_string_value(json_object_get(json_array_get(metrics, 1), "name")),
			    "round_trip{_a,_b}_cycles");
	assert_true(json_is_true(json_object_get(comparison(root, 0), "different")));
	assert_int_equal(json_integer_value(json_object_get(root, "holm_family")), 2);
	json_decref(root);
}

/*
 * Two files from the same runs: without --paired the unpaired test cannot
 * tell them apart and a note says that pairs were possible; with --paired
 * each run of case 1 meets its run in case 2 and the 0.2% is proven.
 */
static void test_paired_files(void **state)
{
	char *a = tmp_path("a.json"), *b = tmp_path("b.json"), *k2 = tmp_path("k2.json");
	char args[512], *out;
	double mean, half;
	json_t *root, *t;

	(void)state;
	write_variant(a, false, 4000, NRUNS, true);
	write_variant(b, true, 4000, NRUNS, true);
	snprintf(args, sizeof(args), "%s %s", a, b);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "Welch's t on them") || strstr(out, "DIFFERENT") ||
	    !strstr(out, "these cases come from the same runs (the same run_index, run_pid and "
		    "run_started): --paired tests them as pairs"))
		fail_msg("%s", out);
	free(out);
	snprintf(args, sizeof(args), "-f json --paired %s %s", a, b);
	root = compare_json(args);
	t = comparison(root, 0);
	paired_by_hand(&mean, &half);
	assert_string_equal(json_string_value(json_object_get(root, "pairing")), "run identity");
	assert_string_equal(json_string_value(json_object_get(root, "test")), "paired t");
	assert_near(jnum(t, "diff"), mean, 1e-9);
	assert_near(json_number_value(json_array_get(json_object_get(t, "ci"), 1)), mean + half,
		    1e-9);
	assert_true(json_is_true(json_object_get(t, "different")));
	assert_int_equal(json_integer_value(json_object_get(t, "pairs")), NRUNS);
	assert_true(json_array_size(json_object_get(root, "notes")) == 0);
	json_decref(root);
	/* the table of the pairs says DIFFERENT, the word the unpaired one above did not say */
	snprintf(args, sizeof(args), "--paired %s %s", a, b);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "Different: 1 of 1 comparison") || !strstr(out, " DIFFERENT "))
		fail_msg("%s", out);
	free(out);
	/* another boot's runs (two kernels): other identities, no note, no pairs */
	write_variant(k2, true, 9000, NRUNS, true);
	snprintf(args, sizeof(args), "%s %s", a, k2);
	assert_int_equal(compare(args, &out), 0);
	if (strstr(out, "same runs") || !strstr(out, "Welch's t on them"))
		fail_msg("%s", out);
	free(out);
}

static void expect_bad(const char *args, const char *msg, const char *msg2)
{
	char *out;
	int rc = compare(args, &out);

	if (rc != 2 || !strstr(out, msg) || (msg2 && !strstr(out, msg2)))
		fail_msg("'%s': exit %d, wanted 2 and '%s' in:\n%s", args, rc, msg, out);
	free(out);
}

/* Files whose runs do not match are refused with both names and the first run that differs. */
static void test_paired_mismatch(void **state)
{
	char *a = tmp_path("ma.json"), *b = tmp_path("mb.json"), *n = tmp_path("mn.json");
	char *same = tmp_path("mc.json");
	char *num = tmp_path("num.txt"), args[512], want[512], *out;
	struct cmd_out o;
	FILE *f;

	(void)state;
	write_variant(a, false, 4000, NRUNS, true);
	write_variant(b, true, 4000, 2, true);	/* run 3 from another process */
	write_variant(n, true, 4000, NRUNS, false);
	snprintf(args, sizeof(args), "--paired %s %s", a, b);
	snprintf(want, sizeof(want), "--paired: case 1 (%s) and case 2 (%s) are not from the "
		 "same runs: signal batch=64: round_trip: run 3 of case 1 (run_index 3, run_pid "
		 "4002, run_started 2026-12-03T10:00:02.000Z) is not in %s", a, b, b);
	expect_bad(args, want, NULL);
	/* not paired: no note, the unpaired test */
	snprintf(args, sizeof(args), "%s %s", a, b);
	assert_int_equal(compare(args, &out), 0);
	assert_non_null(strstr(out, "Welch's t on them"));
	assert_null(strstr(out, "same runs"));
	free(out);
	/* the note, where all of the other file's runs are a's */
	write_variant(same, true, 4000, NRUNS, true);
	snprintf(args, sizeof(args), "%s %s", a, same);
	assert_int_equal(compare(args, &out), 0);
	assert_non_null(strstr(out, "these cases come from the same runs"));
	free(out);
	snprintf(args, sizeof(args), "--paired %s %s", a, n);
	snprintf(want, sizeof(want), "case 2 (%s): signal batch=64: round_trip: its run 1 has no "
		 "run identity", n);
	expect_bad(args, want, NULL);
	/* the same runs twice in a case: pairs would be ambiguous */
	snprintf(args, sizeof(args), "--paired %s,%s %s", a, a, b);
	expect_bad(args, "two of its runs are one run (run_index 1, run_pid 4000", NULL);
	f = fopen(num, "w");
	assert_non_null(f);
	fputs("1\n2\n3\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "--paired %s %s", num, num);
	expect_bad(args, "is plain numbers, which records no run identity", num);
	/* nothing on stdout */
	snprintf(args, sizeof(args), "%s compare --paired %s %s 2>/dev/null", cmd_fpl_bin(), a, b);
	assert_int_equal(cmd_sh(args, FPLRUN_LIMIT_S, &o), 0);
	assert_string_equal(o.out, "");
	cmd_out_free(&o);
}

/* Bad input for --variants and --paired: exit 2, a message naming it. */
static void test_pair_bad_input(void **state)
{
	char *x = tmp_path("bad.json"), *num = tmp_path("bad.txt"), args[512];
	FILE *f;

	(void)state;
	write_rfbm(x, 3);
	f = fopen(num, "w");
	assert_non_null(f);
	fputs("1\n2\n3\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "--variants without %s", x);
	expect_bad(args, "--variants wants two words joined by a comma", "'without'");
	snprintf(args, sizeof(args), "--variants with,with %s", x);
	expect_bad(args, "--variants wants two different words around one comma", "'with,with'");
	snprintf(args, sizeof(args), "--variants ,with %s", x);
	expect_bad(args, "--variants wants two different words", "',with'");
	snprintf(args, sizeof(args), "--variants a,b,c %s", x);
	expect_bad(args, "--variants wants two different words", "'a,b,c'");
	snprintf(args, sizeof(args), "--variants without,with %s %s", x, x);
	expect_bad(args, "--variants makes two cases of one results file: give one file, not 2",
		   NULL);
	snprintf(args, sizeof(args), "--variants foo,bar %s", x);
	expect_bad(args, "--variants foo,bar: no metric of ", "has 'foo' in its name");
	snprintf(args, sizeof(args), "--variants without,with %s", num);
	expect_bad(args, "is plain numbers: variants are metrics of an fpulab results document",
		   num);
	snprintf(args, sizeof(args), "--paired --within-run %s %s", x, x);
	expect_bad(args, "--paired pairs run values by run: not with --within-run", NULL);
	snprintf(args, sizeof(args), "--ministat --variants without,with %s", x);
	expect_bad(args, "--variants pairs run values by run: not with --ministat", NULL);
}

/* Two runs: no verdict, and the line counts pairs from the differences' spread. */
static void test_paired_two_runs(void **state)
{
	char *x = tmp_path("two.json"), args[512], *out;

	(void)state;
	write_rfbm(x, 2);
	snprintf(args, sizeof(args), "--variants without,with %s", x);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "No verdict for 1 of 1 comparisons: fewer than 3 pairs of runs. The "
		    "per-run differences' spread seen (stddev median ") || strstr(out, "DIFFERENT"))
		fail_msg("%s", out);
	free(out);
	/* with 6 runs the same 0.2% is proven, and the table says DIFFERENT */
	write_rfbm(x, NRUNS);
	assert_int_equal(compare(args, &out), 0);
	if (!strstr(out, "Different: 1 of 1 comparison") || !strstr(out, " DIFFERENT "))
		fail_msg("%s", out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants_rfbm),
		cmocka_unit_test(test_variants_table),
		cmocka_unit_test(test_variants_ab),
		cmocka_unit_test(test_paired_files),
		cmocka_unit_test(test_paired_mismatch),
		cmocka_unit_test(test_pair_bad_input),
		cmocka_unit_test(test_paired_two_runs),
	};

	return cmocka_run_group_tests(tests, cmd_tmp_setup, cmd_tmp_teardown);
}
