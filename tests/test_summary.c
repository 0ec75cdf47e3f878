// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/report/summary.c: what fpulab run's summary says of results made by hand. */
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

#include "fpulab/result.h"
#include "report/summary.h"
#include "handmade.h"

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

/* A run of bench with params key=value (NULL: none) and metric name of eleven samples from from. */
static struct fpl_run *run_with(struct fpl_result *r, const char *bench, const char *key,
				const char *value, const char *name, double from)
{
	struct fpl_run *run = fpl_result_add_run(r, bench);

	assert_non_null(run);
	if (key)
		assert_int_equal(fpl_run_param_str(run, key, value), 0);
	add_samples(run, name, "ns", from);
	return run;
}

/*
 * What summary_has_what_is_there_only finds missing is there once there
 * are runs of it: the blocks of ctxsw, signal and section, and a sweep's
 * template once it is the best.
 */
static void blocks_when_there(void)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run;
	char *s;

	add_xor_sweep(r, "8regs", 50000);
	run_with(r, "ctxsw", "state", "none", "switch", 2000);
	run_with(r, "signal", "state", "init", "round_trip_ns", 3000);
	run = run_with(r, "section", "policy", "eager", "section_cycles", 500);
	assert_int_equal(fpl_run_param_str(run, "workload", "xor"), 0);
	s = summary_of(r);
	if (!strstr(s, "8regs 50005 [50002, 50008]") || !strstr(s, "\nContext switch (") ||
	    !strstr(s, "\nSignal round trip (") || !strstr(s, "\nFPU section ("))
		fail_msg("a block missing:\n%s", s);
	free(s);
	fpl_result_free(r);
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
	blocks_when_there();
}

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
	/* vzeroupper's cell, as noisy away from zero, is named as the other is */
	m = r->runs[0]->metrics[0];
	for (size_t i = 0; i < m->n; i++)
		m->samples[i] = i < 5 ? 80 : 120;
	s = summary_of(r);
	if (!strstr(s, "noisy samples: 2 of 2 metrics") ||
	    !strstr(s, "xsave insn=vzeroupper method=latency: cycles 33%"))
		fail_msg("%s", s);
	free(s);
	fpl_result_free(r);
}

/*
 * Noise is judged by what a metric is, not by its name: a difference
 * between variants or a cost net of a baseline is left out whatever it is
 * called, a sample in (even one named like a difference). Named samples,
 * the same two are named noisy.
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
	for (size_t k = 0; k < run->nmetrics; k++)
		fpl_metric_set_kind(run->metrics[k], FPL_KIND_SAMPLE);
	s = summary_of(r);
	if (!strstr(s, "noisy samples: 3 of 3 metrics") || !strstr(s, "gap 40%") ||
	    !strstr(s, "cost 40%"))
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
	/* the same quiet share for the xsave cells, kept by sample: a suspect run */
	fpl_run_obs_json(r->runs[0], "interference",
			 json_pack("{s:f, s:f}", "quiet_share", 0.1, "floor_tsc", 59.3125));
	s = summary_of(r);
	if (!strstr(s, "quiet in 10% of them, floor 59.3 TSC ticks; under half: a suspect run"))
		fail_msg("%s", s);
	free(s);
	fpl_result_free(r);
}

/*
 * The summary says how often the xsave cells' FXSAVE64 reference was quiet,
 * and calls a run under half quiet suspect; without the record, no line.
 */
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
	/* the cells used all of XCR0: the heading says so */
	r = fpl_result_new();
	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0xe7"));
	add_xsave_cell(r, "0xe7", 190);
	buf = summary_of(r);
	if (!strstr(buf, "RFBM = XCR0 = 0xe7"))
		fail_msg("summary heading for the whole of XCR0:\n%s", buf);
	free(buf);
	fpl_result_free(r);
}

/* An interrupted run may hold a benchmark with no figure yet: no heading over nothing. */
static void test_summary_no_empty_heading(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	run = fpl_result_add_run(r, "ctxsw");
	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "mode", "processes"), 0);
	assert_int_equal(fpl_run_param_str(run, "placement", "same"), 0);
	assert_int_equal(fpl_summary_write(r, f), 0);
	fclose(f);
	/* the summary is there, without the block of a run that has no figure */
	if (!strstr(text, "Summary: ") || strstr(text, "Context switch"))
		fail_msg("a heading with nothing under it:\n%s", text);
	free(text);
	/* with a figure the run has its block, under that heading */
	add_samples(run, "switch", "ns", 2000);
	text = summary_of(r);
	if (!strstr(text, "\nContext switch (pipe ping-pong, processes, placement same), ns per "
		    "switch") || !strstr(text, "2005 [2002, 2008] ns"))
		fail_msg("no block for a run with its figure:\n%s", text);
	free(text);
	fpl_result_free(r);
}

/*
 * Without AVX-512 the live-state rows measure AVX: said once under the
 * header, naming the benchmarks; nothing of it where XCR0 has AVX-512.
 */
static void test_summary_says_widest_once(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run;
	char *buf;
	const char *p;
	int n = 0;

	(void)state;
	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0x207"));
	run = run_with(r, "ctxsw", "state_a", "init", "switch", 2000);
	assert_int_equal(fpl_run_param_str(run, "state_b", "avx"), 0);
	run_with(r, "signal", "state", "init", "round_trip_ns", 3000);
	run_with(r, "signal", "state", "avx", "round_trip_ns", 3100);
	buf = summary_of(r);
	for (p = buf; (p = strstr(p, "No AVX-512 here")); p++)
		n++;
	if (n != 1 || !strstr(buf, "No AVX-512 here (XCR0 0x207): ctxsw, signal measure avx, "
			      "the widest state this CPU has."))
		fail_msg("the widest state not said once:\n%s", buf);
	free(buf);
	fpl_result_free(r);
	r = fpl_result_new();
	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0xe7"));
	run_with(r, "signal", "state", "avx512", "round_trip_ns", 3100);
	buf = summary_of(r);
	assert_null(strstr(buf, "No AVX-512"));
	free(buf);
	fpl_result_free(r);
}

/*
 * Eight runs skipped for eight reasons: with a results document behind the
 * summary, six lines and the rest counted with where they are; without one
 * (fpulab run with no -o), every line: there is no "results file" to see
 * (issue 32 item 8).
 */
static void summary_more_lines_name_their_place(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf = NULL, *s;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < 8; i++) {
		struct fpl_run *run = fpl_result_add_run(r, "xsave");

		assert_non_null(run);
		fpl_run_skip(run, "reason number %d", i);
	}
	s = summary_of(r);
	assert_non_null(strstr(s, "reason number 5"));
	assert_null(strstr(s, "reason number 6"));
	assert_non_null(strstr(s, "... and 2 more skips (in the results document: each run's "
			      "skip_reason)"));
	assert_null(strstr(s, "results file"));
	free(s);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_summary_write_all(r, f, true), 0);
	fclose(f);
	for (int i = 0; i < 8; i++) {
		char want[32];

		snprintf(want, sizeof(want), "reason number %d\n", i);
		assert_non_null(strstr(buf, want));
	}
	assert_null(strstr(buf, "more skips"));
	free(buf);
	fpl_result_free(r);
}

/* A signal --ab run in the summary: both states from the same run, and its paired verdict. */
static void summary_signal_ab(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "signal");
	char *s;

	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "state_a", "init") ||
			 fpl_run_param_str(run, "state_b", "avx"), 0);
	add_samples(run, "round_trip_a_ns", "ns", 4000);
	add_samples(run, "round_trip_b_ns", "ns", 4100);
	assert_int_equal(fpl_run_obs_str(run, "b_minus_a_paired", "+2.50% (95% CI +1.00% .. "
					 "+4.00%)"), 0);
	s = summary_of(r);
	assert_non_null(strstr(s, "  state init     4005 ["));
	assert_non_null(strstr(s, "  state avx      4105 ["));
	assert_non_null(strstr(s, "B minus A: +2.50% (95% CI +1.00% .. +4.00%) (paired per round"));
	free(s);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_has_what_is_there_only),
		cmocka_unit_test(summary_says_interference),
		cmocka_unit_test(summary_says_xor_rounds_kept),
		cmocka_unit_test(summary_noisy_names_cells),
		cmocka_unit_test(summary_noisy_by_kind),
		cmocka_unit_test(summary_names_the_mask_used),
		cmocka_unit_test(test_summary_no_empty_heading),
		cmocka_unit_test(test_summary_says_widest_once),
		cmocka_unit_test(summary_more_lines_name_their_place),
		cmocka_unit_test(summary_signal_ab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
