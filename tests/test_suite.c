// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: fpulab run (every benchmark in the JSON), repro and plot, the summary. */
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
#include "fpulab/section_work.h"
#include "fpulab/plot.h"
#include "fpulab/repro.h"
#include "fpulab/summary.h"
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

/* A metric of eleven samples, from..from + 10, on run. */
static void add_samples(struct fpl_run *run, const char *name, const char *unit, double from)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, "test");

	for (int i = 0; i < 11; i++)
		fpl_metric_add(m, from + i);
}

/* An xsave cell (mask NULL: none recorded) whose cycles start at from. */
static void add_xsave_cell(struct fpl_result *r, const char *mask, double from)
{
	struct fpl_run *run = fpl_result_add_run(r, "xsave");

	fpl_run_param_str(run, "insn", "xsave");
	if (mask)
		fpl_run_param_str(run, "mask", mask);
	fpl_run_param_str(run, "mask_name", "all");
	fpl_run_param_str(run, "state", "live");
	fpl_run_param_str(run, "method", "throughput");
	add_samples(run, "cycles", "cycles", from);
}

static void add_xor_sweep(struct fpl_result *r, const char *template, double from)
{
	struct fpl_run *run = fpl_result_add_run(r, "xor");

	fpl_run_param_str(run, "mode", "sweep");
	fpl_run_param_str(run, "template", template);
	fpl_run_param_int(run, "size", 4096);
	fpl_run_param_int(run, "arity", 2);
	add_samples(run, "speed", "MB/s", from);
}

/* A small result made by hand: an xsave cell and a sweep of two templates. */
static struct fpl_result *handmade(void)
{
	struct fpl_result *r = fpl_result_new();

	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0xe7"));
	json_object_set_new(r->host, "name", json_string("Test CPU"));
	add_xsave_cell(r, NULL, 140);
	add_xor_sweep(r, "avx", 100000);
	add_xor_sweep(r, "8regs", 50000);
	return r;
}

static char *summary_of(const struct fpl_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fpl_summary_write(r, f), 0);
	fclose(f);
	return buf;
}

static void summary_has_what_is_there_only(void **state)
{
	struct fpl_result *r = handmade();
	char *s = summary_of(r);

	(void)state;
	assert_non_null(strstr(s, "Test CPU"));
	assert_non_null(strstr(s, "registers live 145 [142, 148]"));
	assert_non_null(strstr(s, "avx 100005 [100002, 100008]"));
	assert_null(strstr(s, "8regs 5000"));	/* not the best */
	assert_null(strstr(s, "Context switch"));
	assert_null(strstr(s, "Signal"));
	assert_null(strstr(s, "FPU section"));
	assert_non_null(strstr(s, "Warnings:\n  none"));
	free(s);
	fpl_result_warn(r, "suspect run: core clock drifted +3.00%%");
	s = summary_of(r);
	assert_non_null(strstr(s, "core clock drifted +3.00%"));
	assert_null(strstr(s, "  none"));
	free(s);
	fpl_result_free(r);
}

/*
 * The summary says how often the xsave cells' FXSAVE64 reference was quiet,
 * and calls a run under half quiet suspect; without the record, no line.
 */
/*
 * The noisy-samples warning names the cells by their params (every xsave
 * cell's metric is "cycles": "worst: xsave cycles 768%" named none) and
 * leaves out figures about zero by design, whose spread is no share of them
 * (that 768% was vzeroupper's latency, a median of -0.01 cycles).
 */
static void summary_noisy_names_cells(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "xsave");
	struct fpl_metric *m;
	char *s;

	(void)state;
	fpl_run_param_str(run, "insn", "vzeroupper");
	fpl_run_param_str(run, "method", "latency");
	m = fpl_run_add_metric(run, "cycles", "cycles", "test");
	for (int i = 0; i < 11; i++)
		fpl_metric_add(m, (i - 6) * 0.02);
	run = fpl_result_add_run(r, "xsave");
	fpl_run_param_str(run, "insn", "fxsave");
	fpl_run_param_str(run, "method", "throughput");
	m = fpl_run_add_metric(run, "cycles", "cycles", "test");
	for (int i = 0; i < 11; i++)
		fpl_metric_add(m, i < 5 ? 80 : 120);
	s = summary_of(r);
	if (!strstr(s, "noisy samples: 1 of 1 metrics") ||
	    !strstr(s, "worst: xsave insn=fxsave method=throughput: cycles 33%") ||
	    strstr(s, "vzeroupper"))
		fail_msg("%s", s);
	free(s);
	fpl_result_free(r);
}

/*
 * Noise is judged by what a metric is, not by its name: a difference
 * between variants or a cost net of a baseline is left out whatever it is
 * called, a sample in (even one named like a difference).
 */
static void summary_noisy_by_kind(void **state)
{
	static const struct { const char *name; enum fpl_metric_kind kind; } ms[] = {
		{ "diff_like", FPL_KIND_SAMPLE }, { "gap", FPL_KIND_DIFFERENCE },
		{ "cost", FPL_KIND_NET },
	};
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "demo");
	char *s;

	(void)state;
	for (size_t k = 0; k < FPL_ARRAY_SIZE(ms); k++) {
		struct fpl_metric *m = fpl_run_add_metric(run, ms[k].name, "ns", "test");

		assert_non_null(m);
		fpl_metric_set_kind(m, ms[k].kind);
		/* IQR 40 of a median 100: 40%, noisy */
		for (int i = 0; i < 11; i++)
			fpl_metric_add(m, i < 3 ? 60 : i < 8 ? 100 : 140);
	}
	s = summary_of(r);
	if (!strstr(s, "noisy samples: 1 of 1 metrics") || !strstr(s, "diff_like 40%") ||
	    strstr(s, "gap") || strstr(s, "cost"))
		fail_msg("%s", s);
	free(s);
	fpl_result_free(r);
}

/*
 * The best xor routine's line says how its samples were kept: the rounds
 * between quiet readings, how many of how many; a low quiet share is no
 * suspect run there (the sweep waits for quiet rounds).
 */
static void summary_says_xor_rounds_kept(void **state)
{
	struct fpl_result *r = handmade();
	struct fpl_metric *m = fpl_run_add_metric(r->runs[1], "tsc", "tsc", "test");
	char *s;

	(void)state;
	fpl_metric_add(m, 100);
	m->extra = json_pack("{s:{s:i, s:i, s:b}}", "interference", "samples_quiet", 583,
			     "samples_taken", 1000, "applied", 1);
	fpl_run_obs_json(r->runs[1], "interference",
			 json_pack("{s:f, s:f, s:s}", "quiet_share", 0.1, "floor_tsc", 59.3125,
				   "kept_by", "round"));
	s = summary_of(r);
	if (!strstr(s, "(rounds kept between quiet readings of an FXSAVE64 reference, floor "
		       "59.3 TSC ticks: 583 of 1000)") || strstr(s, "suspect run"))
		fail_msg("%s", s);
	free(s);
	/* 7 quiet of 8 taken, all 8 kept (too few to drop any): not "kept 7" */
	for (int k = 0; k < 7; k++)
		fpl_metric_add(m, 100);
	json_object_set_new(json_object_get(m->extra, "interference"), "samples_quiet",
			    json_integer(7));
	json_object_set_new(json_object_get(m->extra, "interference"), "samples_taken",
			    json_integer(8));
	s = summary_of(r);
	if (!strstr(s, "too few rounds between quiet readings of an FXSAVE64 reference, floor "
		    "59.3 TSC ticks: 7 of 8, so every round kept") || strstr(s, "rounds kept between"))
		fail_msg("%s", s);
	free(s);
	fpl_result_free(r);
}

static void summary_says_interference(void **state)
{
	struct fpl_result *r = handmade();
	char *s = summary_of(r);

	(void)state;
	assert_null(strstr(s, "FXSAVE64 reference"));
	free(s);
	fpl_run_obs_json(r->runs[0], "interference",
			 json_pack("{s:f, s:f}", "quiet_share", 0.46, "floor_tsc", 59.3125));
	s = summary_of(r);
	if (!strstr(s, "quiet in 46% of them, floor 59.3 TSC ticks; under half: a suspect run"))
		fail_msg("no interference line for a 46%% quiet run:\n%s", s);
	free(s);
	fpl_run_obs_json(r->runs[0], "interference",
			 json_pack("{s:f, s:f}", "quiet_share", 0.9, "floor_tsc", 59.3125));
	s = summary_of(r);
	assert_non_null(strstr(s, "quiet in 90% of them, floor 59.3 TSC ticks)"));
	assert_null(strstr(s, "suspect run"));
	free(s);
	fpl_result_free(r);
}

/* The summary's xsave heading names the RFBM its cells used (permitted), not XCR0. */
static void summary_names_the_mask_used(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf;

	(void)state;
	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0x600e7"));
	add_xsave_cell(r, "0x200e7", 390);
	buf = summary_of(r);
	if (!strstr(buf, "RFBM = the permitted mask 0x200e7, XCR0 0x600e7"))
		fail_msg("summary heading does not name the mask used:\n%s", buf);
	assert_null(strstr(buf, "RFBM = XCR0 = 0x600e7"));
	free(buf);
	fpl_result_free(r);
}

static void plot_script_of_handmade_result(void **state)
{
	struct fpl_result *r = handmade();
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(fpl_plot_available(r), FPL_PLOT_XSAVE | FPL_PLOT_XOR);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_ALL, FPL_PLOT_SVG, "x.svg", f, &diag), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set terminal svg"));
	assert_non_null(strstr(buf, "set multiplot layout 3,1"));	/* 2 xsave + xor */
	assert_non_null(strstr(buf, "4096 100005"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_CTXSW, FPL_PLOT_PNG, "x.png", f, &diag),
			 -EINVAL);
	fclose(f);
	free(buf);
	assert_int_equal(fpl_plot_term_of("a/b.PNG"), FPL_PLOT_PNG);
	assert_int_equal(fpl_plot_term_of("a.svgz"), -1);
	fpl_result_free(r);
}

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
	fpl_metric_add(m, -300);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -300.0, "ci95_lo", -310.0,
			     "ci95_hi", -290.0);
	section_run(r, "lazy", 46000, 45900, 0.2);
	assert_non_null(fpl_section_anomaly(r->runs[0], why, sizeof(why)));
	assert_non_null(strstr(why, "section_cycles [-310, -290]"));
	assert_non_null(strstr(why, "VZEROUPPER"));
	assert_null(fpl_section_anomaly(r->runs[1], why, sizeof(why)));
	/* inside and outside 0.1% apart: the cause named is the method's resolution */
	for (int i = 0; i < 7; i++) {
		fpl_metric_add(r->runs[1]->metrics[0], 46046);
		fpl_metric_add(r->runs[1]->metrics[1], 46000);
	}
	m = fpl_run_add_metric(r->runs[1], "section_cycles", "cycles", "synthetic");
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -9.0, "ci95_lo", -12.0,
			     "ci95_hi", -7.0);
	assert_non_null(fpl_section_anomaly(r->runs[1], why, sizeof(why)));
	assert_non_null(strstr(why, "0.10% of a call"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_amx_measures_xsave_after_the_rest),
		cmocka_unit_test(summary_has_what_is_there_only),
		cmocka_unit_test(summary_says_interference),
		cmocka_unit_test(summary_says_xor_rounds_kept),
		cmocka_unit_test(summary_noisy_names_cells),
		cmocka_unit_test(summary_noisy_by_kind),
		cmocka_unit_test(summary_names_the_mask_used),
		cmocka_unit_test(plot_script_of_handmade_result),
		cmocka_unit_test(rfbm_table_reproduces_report_shape),
		cmocka_unit_test(kfpu_table_has_report_lines_and_ratios),
		cmocka_unit_test(rfbm_table_pairs_runs),
		cmocka_unit_test(kfpu_ratios_pair_rounds),
		cmocka_unit_test(lazy_table_has_report_lines),
		cmocka_unit_test(lazy_table_refuses_negative_cost),
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
