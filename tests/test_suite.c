// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests of the commands run, repro and plot: every benchmark in the JSON, bad input, interruptions. */
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
#include <unistd.h>
#include <cmocka.h>

#include "fpulab/bench.h"
#include "report/repro.h"
#include "runcmd.h"

CMD_TMPDIR(dir, "fpl-test-suite")

/* A whole suite with a tiny budget: every benchmark built in has a run with samples or a reason. */
static void run_tiny_budget_has_every_bench(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/suite.json", dir);
	snprintf(args, sizeof(args), "run --budget 1 -q -o '%s'", path);
	rc = fplrun(NULL, args, &out, &err);
	if (rc != 0)
		fail_msg("fpulab run exited %d: %s", rc, err);
	assert_non_null(strstr(out, "Summary:"));
	assert_non_null(strstr(out, "Ran:"));
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	for (size_t b = 0; b < fpl_nbenches; b++) {
		size_t runs = 0, measured = 0;

		for (size_t i = 0; i < r->nruns; i++) {
			const struct fpl_run *run = r->runs[i];
			bool samples = false;

			if (strcmp(run->bench, fpl_benches[b]->name))
				continue;
			runs++;
			for (size_t m = 0; m < run->nmetrics; m++)
				samples |= run->metrics[m]->n > 0;
			if (run->skipped)
				assert_true(run->skip_reason && *run->skip_reason);
			else
				assert_true(samples);
			measured += !run->skipped;
		}
		if (!runs)
			fail_msg("benchmark %s has no run in %s", fpl_benches[b]->name, path);
		(void)measured;
	}
	for (size_t i = 0; i < r->nruns; i++)
		assert_non_null(fpl_bench_find(r->runs[i]->bench));
	fpl_result_free(r);
	free(out);
	free(err);
}

/* Whether every run of bench later comes after every run of bench earlier (both present). */
static bool all_after(const struct fpl_result *r, const char *later, const char *earlier)
{
	size_t first_later = r->nruns, last_earlier = 0;
	bool seen = false;

	for (size_t i = 0; i < r->nruns; i++) {
		if (!strcmp(r->runs[i]->bench, later) && i < first_later)
			first_later = i;
		if (!strcmp(r->runs[i]->bench, earlier)) {
			last_earlier = i;
			seen = true;
		}
	}
	return seen && first_later < r->nruns && first_later > last_earlier;
}

/*
 * With --amx, the default suite measures xsave (whose tile cells make the
 * process use tile data) after the other benchmarks, so that theirs are
 * figures of a task without tile state, as without --amx; without --amx,
 * xsave comes first. Checked by the order of the runs in the file, on any
 * CPU (the order follows the request, granted or not).
 */
/* host.ran's steps name their runs: each step's runs are of its benchmark, and they cover every run. */
static void ran_steps_own_their_runs(const struct fpl_result *r, const char *path)
{
	json_t *ran = json_object_get(r->host, "ran"), *e;
	size_t i, next = 0;

	assert_true(json_array_size(ran) > 0);
	json_array_foreach(ran, i, e) {
		const char *what = json_string_value(json_object_get(e, "what"));
		json_int_t first = json_integer_value(json_object_get(e, "first_run"));
		json_int_t n = json_integer_value(json_object_get(e, "runs"));

		assert_non_null(what);
		if (first != (json_int_t)next || n < 1)
			fail_msg("%s: step %zu (%s) has runs %lld..+%lld, expected from %zu", path, i,
				 what, (long long)first, (long long)n, next);
		for (json_int_t k = first; k < first + n; k++)
			if (strncmp(r->runs[k]->bench, what, strcspn(what, " ")))
				fail_msg("%s: run %lld is %s, in step %s", path, (long long)k,
					 r->runs[k]->bench, what);
		next += (size_t)n;
	}
	assert_int_equal(next, r->nruns);
}

static void run_amx_measures_xsave_after_the_rest(void **state)
{
	static const char *const argl[2] = { "run", "--amx run" };
	struct fpl_diag diag = { "" };

	(void)state;
	for (int amx = 0; amx < 2; amx++) {
		struct fpl_result *r = NULL;
		char args[256], path[128], *out, *err;
		int rc;

		snprintf(path, sizeof(path), "%s/order%d.json", dir, amx);
		snprintf(args, sizeof(args), "%s --budget 0.5 -q -o '%s'", argl[amx], path);
		rc = fplrun(NULL, args, &out, &err);
		if (rc != 0)
			fail_msg("fpulab %s exited %d: %s", args, rc, err);
		assert_int_equal(fpl_result_load(path, &r, &diag), 0);
		ran_steps_own_their_runs(r, path);
		if (amx && (!all_after(r, "xsave", "section") || !all_after(r, "xsave", "ctxsw")))
			fail_msg("fpulab --amx run: xsave not after section and ctxsw (%s)", path);
		if (!amx && !all_after(r, "ctxsw", "xsave"))
			fail_msg("fpulab run: xsave not first (%s)", path);
		fpl_result_free(r);
		free(out);
		free(err);
	}
}

static void expect_usage(const char *env, const char *args, const char *says)
{
	char *out, *err;
	int rc = fplrun(env, args, &out, &err);

	if (rc != 2)
		fail_msg("fpulab %s: exit %d, expected 2 (stderr: %s)", args, rc, err);
	if (says && !strstr(err, says))
		fail_msg("fpulab %s: stderr does not say '%s': %s", args, says, err);
	free(out);
	free(err);
}

static void run_bad_input_exits_2_and_writes_nothing(void **state)
{
	char args[256], path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/never.json", dir);
	snprintf(args, sizeof(args), "run nosuchbench -o '%s'", path);
	expect_usage(NULL, args, "nosuchbench");
	snprintf(args, sizeof(args), "run --budget 0 -o '%s'", path);
	expect_usage(NULL, args, "--budget");
	snprintf(args, sizeof(args), "run --nosuch -o '%s'", path);
	expect_usage(NULL, args, "--nosuch");
	if (fpl_bench_find("xsave")) {
		snprintf(args, sizeof(args), "run xsave --nosuch -o '%s'", path);
		expect_usage(NULL, args, "--nosuch");
		snprintf(args, sizeof(args), "run xsave --method sideways -o '%s'", path);
		expect_usage(NULL, args, "sideways");
	}
	assert_false(cmd_exists(path));
}

/* Named benchmarks with options: only those run, with the options given. */
static void run_named_bench_with_options(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err;

	(void)state;
	if (!fpl_bench_find("xsave"))
		skip();
	snprintf(path, sizeof(path), "%s/named.json", dir);
	snprintf(args, sizeof(args), "run xsave --part misc --budget 0.3 -q -o '%s'", path);
	assert_int_equal(fplrun(NULL, args, &out, &err), 0);
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	assert_true(r->nruns > 0);
	for (size_t i = 0; i < r->nruns; i++) {
		assert_string_equal(r->runs[i]->bench, "xsave");
		assert_null(json_object_get(r->runs[i]->params, "mask_name")); /* no matrix */
	}
	fpl_result_free(r);
	free(out);
	free(err);
}

/* A real, tiny rfbm repro: its tables print and its saved cases hold one value per run. */
static void repro_rfbm_tiny_saves_cases(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err;
	size_t cases = 0;
	int rc;

	(void)state;
	if (!fpl_bench_find("ctxsw") && !fpl_bench_find("xsave"))
		skip();
	snprintf(path, sizeof(path), "%s/rfbm.json", dir);
	snprintf(args, sizeof(args), "repro rfbm --runs 3 --budget 0.05 -q -o '%s'", path);
	rc = fplrun(NULL, args, &out, &err);
	if (rc != 0)
		fail_msg("fpulab %s exited %d: %s", args, rc, err);
	assert_non_null(strstr(out, "Set as 1"));
	assert_non_null(strstr(out, "Meaning:"));
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_metric *m = fpl_run_find_metric(r->runs[i], "value");

		assert_string_equal(r->runs[i]->bench, FPL_REPRO_BENCH);
		/* a case of the report this CPU lacks (AVX-512): kept with why, no values */
		if (r->runs[i]->skipped) {
			assert_non_null(r->runs[i]->skip_reason);
			assert_true(fpl_run_param_get_int(r->runs[i], "report_case", 0) > 0);
			continue;
		}
		assert_non_null(m);
		assert_int_equal(m->n, 3);
		cases++;
	}
	assert_true(cases >= 2);
	fpl_result_free(r);
	free(out);
	free(err);
}

/*
 * repro's warnings reach stderr, quiet or not (stderr not a terminal makes
 * it quiet): a repro stopped by SIGINT said nothing at all (exit 1, an
 * empty stderr), and its self-check failures and clock drift were in the
 * -o file only.
 */
static void repro_interrupted_says_so(void **state)
{
	const char *argv[] = { cmd_fpl_bin(), "repro", "rfbm", "--runs", "200", "--budget", "0.05",
			       NULL };
	struct cmd_out o;

	(void)state;
	if (!fpl_bench_find("ctxsw") && !fpl_bench_find("xsave"))
		skip();
	assert_int_equal(cmd_run_sig(argv, 120, SIGINT, 1.0, &o), 0);
	if (cmd_code(&o) != 1 || !strstr(o.err, "fpulab repro: warning: interrupted"))
		fail_msg("exit %d, stderr:\n%s", cmd_code(&o), o.err);
	cmd_out_free(&o);
}

/*
 * run without its summary (--format csv, --json) says its warnings on
 * stderr: CSV has no place for them, and they were nowhere (a cross
 * placement with one CPU, run alone on the last CPU, warns on any machine).
 */
static void run_csv_warns_on_stderr(void **state)
{
	char line[256];
	struct cmd_out o;
	long last = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	(void)state;
	if (!fpl_bench_find("ctxsw"))
		skip();
	snprintf(line, sizeof(line), "taskset -c %ld '%s' run ctxsw --placement cross "
		 "--budget 0.1 --format csv", last, cmd_fpl_bin());
	assert_int_equal(cmd_sh(line, 120, &o), 0);
	if (cmd_code(&o) == 127 || strstr(o.err, "taskset: not found")) {
		cmd_out_free(&o);
		skip();
	}
	if (cmd_code(&o) != 0 || !strstr(o.out, "bench,params,metric") ||
	    !strstr(o.err, "fpulab run: warning (ctxsw): only one CPU usable"))
		fail_msg("exit %d, stderr:\n%s", cmd_code(&o), o.err);
	cmd_out_free(&o);
}

static void repro_bad_input_exits_2(void **state)
{
	(void)state;
	expect_usage(NULL, "repro", "which experiment");
	expect_usage(NULL, "repro bogus", "bogus");
	expect_usage(NULL, "repro rfbm --runs 1", "--runs");
	expect_usage(NULL, "repro rfbm --runs x", "--runs");
	expect_usage(NULL, "repro kfpu-mask --cpu -3", "--cpu");
}

static void plot_bad_input_exits_2(void **state)
{
	char args[512], bad[128], svg[128];
	FILE *f;

	(void)state;
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	snprintf(svg, sizeof(svg), "%s/out.svg", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("{ not json\n", f);
	fclose(f);
	expect_usage(NULL, "plot", "results");
	snprintf(args, sizeof(args), "plot '%s'", bad);
	expect_usage(NULL, args, "-o");
	snprintf(args, sizeof(args), "plot '%s' -o '%s/out.txt'", bad, dir);
	expect_usage(NULL, args, ".svg or .png");
	/* plot looks for gnuplot (optional) before it reads its inputs */
	if (cmd_have_gnuplot()) {
		snprintf(args, sizeof(args), "plot '%s' -o '%s'", bad, svg);
		expect_usage(NULL, args, bad);
		snprintf(args, sizeof(args), "plot '%s/none.json' -o '%s'", dir, svg);
		expect_usage(NULL, args, "none.json");
	} else {
		print_message("  no gnuplot here (optional): plot's inputs are not reached\n");
	}
	snprintf(args, sizeof(args), "plot '%s' -o '%s' --chart pie", bad, svg);
	expect_usage(NULL, args, "pie");
	snprintf(args, sizeof(args), "plot '%s' -o '%s'", bad, svg);
	expect_usage("FPL_GNUPLOT=/nonexistent/gnuplot ", args, "apt-get install");
	assert_false(cmd_exists(svg));
}

/* A benchmark's own option check (descriptor .check) refuses under `run` before any calibration. */
static void run_bench_check_before_calibration(void **state)
{
	static const char *const lines[][2] = {
		{ "run xor --impl nosuch", "--impl" },
		{ "run section --chunks 100", "--chunks" },
		{ "run ctxsw --state nosuch", "--state" },
		{ "xor --impl nosuch", "--impl" },
	};
	char *why;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!fplrun_rejected_early(lines[i][0], lines[i][1], &why))
			fail_msg("%s: %s", lines[i][0], why ? why : "(no stderr)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_amx_measures_xsave_after_the_rest),
		cmocka_unit_test(run_bad_input_exits_2_and_writes_nothing),
		cmocka_unit_test(run_bench_check_before_calibration),
		cmocka_unit_test(repro_bad_input_exits_2),
		cmocka_unit_test(repro_interrupted_says_so),
		cmocka_unit_test(run_csv_warns_on_stderr),
		cmocka_unit_test(repro_rfbm_tiny_saves_cases),
		cmocka_unit_test(plot_bad_input_exits_2),
		cmocka_unit_test(run_named_bench_with_options),
		cmocka_unit_test(run_tiny_budget_has_every_bench),
	};

	return cmocka_run_group_tests(tests, cmd_tmp_setup, cmd_tmp_teardown);
}
