// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the harness and clock: overhead removal, interleaving, stop, self-check bounds. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "near.h"
#include "taskstest.h"

#include "fpulab/harness.h"
#include "fpulab/stats.h"

/* A clock with round numbers, so conversions can be checked exactly. */
static struct fpl_clock fake_clock = {
	.cpu = -1, .tsc_hz = 1e9, .core_per_tsc = 2.0, .min_sample_tsc = 1000,
	.step_tsc = 1, .floor_tsc = 40,
};

/* A synthetic body: fixed cost F per call plus c per rep; the log records the call order. */
struct fake {
	uint64_t fixed, per_rep;
	char id;
	char *log;
	size_t *nlog;
	volatile sig_atomic_t *stop;
	size_t stop_after;
	size_t calls;
};

static uint64_t fake_timed(void *arg, uint64_t reps)
{
	struct fake *f = arg;

	if (f->log && *f->nlog < 4096)
		f->log[(*f->nlog)++] = f->id;
	if (f->stop && ++f->calls >= f->stop_after)
		*f->stop = 1;
	return f->fixed + f->per_rep * reps;
}

static uint64_t fake_empty(void *arg, uint64_t reps)
{
	struct fake *f = arg;

	return f->fixed + 2 * reps;	/* the loop alone costs 2 per rep */
}

static double median(const struct fpl_metric *m)
{
	struct fpl_summary s;

	assert_int_equal(fpl_summarize(m->samples, m->n, 0, &s), 0);
	return s.median;
}

static void test_n_vs_2n_removes_fixed_cost(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .min_samples = 5, .max_samples = 20, .budget_s = 100,
				       .ratio_at_start = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	struct fake f = { .fixed = 5000, .per_rep = 7 };
	struct fpl_variant v = { .name = "f", .timed = fake_timed, .arg = &f, .run = run,
				 .ops_per_rep = 1, .method = "fake" };

	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	/* N is the smallest power of two with F + 7N >= 1000: F alone passes, so N = 1. */
	assert_int_equal(v.reps, 1);
	assert_int_equal(v.m_tsc->n, 20);
	for (size_t i = 0; i < v.m_tsc->n; i++) {
		assert_near(v.m_tsc->samples[i], 7, 1e-12);
		assert_near(v.m_cycles->samples[i], 14, 1e-12);
		assert_near(v.m_ns->samples[i], 7, 1e-12);
	}
	assert_string_equal(v.m_tsc->unit, "tsc");
	assert_string_equal(v.m_cycles->unit, "cycles");
	assert_int_equal(json_integer_value(json_object_get(v.m_tsc->extra, "reps")), 1);
	assert_non_null(strstr(v.m_cycles->method, "N and 2N"));
	/* the facts beside the text: one figure in three units, how it was timed */
	for (int k = 0; k < 3; k++) {
		const struct fpl_metric *m = k == 0 ? v.m_cycles : k == 1 ? v.m_tsc : v.m_ns;
		struct fpl_method_parts p;

		assert_string_equal(fpl_metric_family(m), "time");
		assert_int_equal(fpl_metric_kind(m), FPL_KIND_SAMPLE);
		assert_int_equal(fpl_metric_how(m)->reps, 1);
		assert_int_equal(fpl_metric_how(m)->clock, FPL_MCLOCK_TSC);
		assert_int_equal(fpl_metric_how(m)->overhead, FPL_OVERHEAD_N_VS_2N);
		fpl_metric_method_parts(m, &p);
		assert_int_equal(p.what_len, 4);	/* "fake" */
		assert_int_equal(strncmp(p.timing, "N reps per sample", 17), 0);
	}
	assert_int_equal(fpl_metric_how(v.m_cycles)->conv, FPL_CONV_CYCLES_ESTIMATED);
	assert_int_equal(fpl_metric_how(v.m_tsc)->conv, FPL_CONV_NONE);
	assert_int_equal(fpl_metric_how(v.m_ns)->conv, FPL_CONV_NS_FROM_TSC);
	fpl_result_free(r);
}

static void test_empty_body_and_ops(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .min_samples = 3, .max_samples = 3, .ratio_at_start = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	struct fake f = { .fixed = 0, .per_rep = 42 };
	struct fpl_variant v = { .name = "f", .timed = fake_timed, .empty = fake_empty, .arg = &f,
				 .run = run, .ops_per_rep = 4, .prefix = "x_" };

	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	/* 42N >= 1000 first at N = 32 */
	assert_int_equal(v.reps, 32);
	assert_near(median(v.m_tsc), (42.0 - 2.0) / 4, 1e-12);
	assert_non_null(fpl_run_find_metric(run, "x_cycles"));
	assert_non_null(strstr(v.m_tsc->method, "empty body"));
	assert_string_equal(fpl_metric_family(v.m_ns), "x");
	assert_int_equal(fpl_metric_how(v.m_ns)->overhead, FPL_OVERHEAD_EMPTY_BODY);
	assert_int_equal(fpl_metric_how(v.m_ns)->reps, 32);
	fpl_result_free(r);
}

static void test_interleaved(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 1, .min_samples = 4, .max_samples = 4,
				       .ratio_at_start = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	char log[4096];
	size_t nlog = 0;
	struct fake f[3] = {
		{ .per_rep = 1, .id = 'A', .log = log, .nlog = &nlog },
		{ .per_rep = 2, .id = 'B', .log = log, .nlog = &nlog },
		{ .per_rep = 3, .id = 'C', .log = log, .nlog = &nlog },
	};
	struct fpl_variant v[3];
	const char *tail;

	for (int i = 0; i < 3; i++)
		v[i] = (struct fpl_variant){ .name = "v", .timed = fake_timed, .arg = &f[i],
					     .run = run, .prefix = (const char *[]){ "a", "b", "c" }[i] };
	assert_int_equal(fpl_harness_run(&env, &cfg, v, 3), 0);
	log[nlog] = 0;
	/*
	 * The kept samples are the last 4 rounds (N then 2N per sample), each
	 * round starting one variant later: ABC, BCA, CAB, ABC.
	 */
	assert_true(nlog >= 24);
	tail = log + nlog - 24;
	assert_string_equal(tail, "AABBCCBBCCAACCAABBAABBCC");
	assert_near(median(v[2].m_tsc), 3, 0);
	fpl_result_free(r);
}

/*
 * cfg->shuffle: each round's order a permutation, and no variant always
 * follows the same one (rotated, B always follows A within a round, and
 * the arm after a slow or fast one is biased the same way every round).
 */
static void test_shuffled_rounds(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 1, .min_samples = 60, .max_samples = 60,
				       .ratio_at_start = true, .shuffle = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	char log[4096];
	size_t nlog = 0, before[4][4] = { { 0 } };
	struct fake f[4];
	struct fpl_variant v[4];
	const char *tail;

	for (int i = 0; i < 4; i++) {
		f[i] = (struct fake){ .per_rep = (uint64_t)i + 1, .id = (char)('A' + i), .log = log,
				      .nlog = &nlog };
		v[i] = (struct fpl_variant){ .name = "v", .timed = fake_timed, .arg = &f[i],
					     .run = run,
					     .prefix = (const char *[]){ "a", "b", "c", "d" }[i] };
	}
	assert_int_equal(fpl_harness_run(&env, &cfg, v, 4), 0);
	assert_true(nlog >= 60 * 8);
	tail = log + nlog - 60 * 8;
	for (size_t round = 0; round < 60; round++) {
		const char *o = tail + 8 * round;
		unsigned seen = 0;

		for (int k = 0; k < 4; k++) {
			assert_int_equal(o[2 * k], o[2 * k + 1]);	/* N then 2N of one variant */
			seen |= 1u << (o[2 * k] - 'A');
			if (k)
				before[o[2 * k] - 'A'][o[2 * k - 2] - 'A']++;
		}
		assert_int_equal(seen, 0xf);	/* every variant once a round */
	}
	/* each variant came right after each of the other three at least once */
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			if (a != b && !before[a][b])
				fail_msg("%c never followed %c", 'A' + a, 'A' + b);
	/* the samples still each variant's own */
	assert_near(median(v[3].m_tsc), 4, 0);
	assert_int_equal(v[0].m_tsc->n, 60);
	fpl_result_free(r);
}

static void test_stop_keeps_samples(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fpl_bench_env env = { .clock = &fake_clock, .stop = &stop };
	struct fpl_harness_cfg cfg = { .reps = 1, .min_samples = 1000, .max_samples = 1000,
				       .budget_s = 100, .ratio_at_start = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	struct fake f = { .per_rep = 5, .stop = &stop, .stop_after = 30 };
	struct fpl_variant v = { .name = "f", .timed = fake_timed, .arg = &f, .run = run };

	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), -EINTR);
	assert_true(v.m_tsc->n > 0 && v.m_tsc->n < 1000);
	assert_int_equal(v.m_tsc->n, v.m_ns->n);
	fpl_result_free(r);
}

/* A body of about 20 ms whatever N: the budget is spent long before min_samples. */
static uint64_t slow_body(void *arg, uint64_t reps)
{
	(void)arg;
	(void)reps;
	usleep(20000);
	return 5000;
}

static double progress_seen[64];
static size_t nprogress;

static void record_progress(void *arg, const char *bench, double frac, const char *what)
{
	(void)arg;
	(void)bench;
	(void)what;
	if (nprogress < 64)
		progress_seen[nprogress++] = frac;
}

/* The fractions one harness call reports, lo and span its share (0, 0: the whole). */
static void slow_progress(double lo, double span)
{
	struct fpl_bench_env env = { .clock = &fake_clock, .progress = record_progress };
	struct fpl_harness_cfg cfg = { .min_samples = 8, .max_samples = 8, .budget_s = 0.001,
				       .ratio_at_start = true };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	struct fpl_variant v = { .name = "slow", .timed = slow_body, .run = run };

	cfg.progress_lo = lo;
	cfg.progress_span = span;
	nprogress = 0;
	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	assert_int_equal(v.m_tsc->n, 8);
	fpl_result_free(r);
}

/*
 * Progress says how far a call is from done: done when both the budget is
 * spent and min_samples are taken. A call whose budget went in its first
 * round said 100% for the rest of its rounds (xor --quick's 64 MiB cells:
 * "xor 100%" for 10 of its 12 s).
 */
static void test_progress_counts_min_samples(void **state)
{
	slow_progress(0, 0);
	assert_true(nprogress >= 3);
	for (size_t i = 0; i < nprogress; i++) {
		if (i && progress_seen[i] < progress_seen[i - 1])
			fail_msg("progress fell: %g after %g", progress_seen[i], progress_seen[i - 1]);
		/* each report follows a round: only the 8th may say done */
		if (i + 1 < nprogress && progress_seen[i] > 7.0 / 8 + 1e-9)
			fail_msg("report %zu of %zu says %.0f%% done", i + 1, nprogress,
				 100 * progress_seen[i]);
	}
	assert_true(progress_seen[0] <= 0.5);
	/* a call that is a quarter of the benchmark, after half of it: inside [50%, 75%] */
	slow_progress(0.5, 0.25);
	assert_true(nprogress >= 3);
	for (size_t i = 0; i < nprogress; i++)
		assert_true(progress_seen[i] >= 0.5 && progress_seen[i] <= 0.75);
}

/*
 * The real clock and a real body with a known fixed cost: a 300-cycle IMUL
 * chain per rep plus one call-level overhead of about 2000 cycles, at N = 8.
 * Without overhead removal a rep would read near 550 cycles; the bounds are
 * wide enough for a loaded machine and still exclude that.
 */
static uint64_t imul_plus_fixed(void *arg, uint64_t reps)
{
	return fpl_chain_imul100(NULL, reps) + fpl_chain_add100(NULL, 20);
}

static void test_real_overhead_removal(void **state)
{
	struct fpl_clock *c;
	struct fpl_diag d;
	struct fpl_bench_env env;
	struct fpl_harness_cfg cfg = { .reps = 8, .min_samples = 41, .max_samples = 41 };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "t");
	struct fpl_variant v = { .name = "imul", .timed = imul_plus_fixed, .run = run };
	double cyc;

	assert_int_equal(fpl_clock_create(&c, -1, &d), 0);
	env = (struct fpl_bench_env){ .clock = c };
	assert_true(c->tsc_hz > 1e8 && c->tsc_hz < 1e10);
	assert_true(c->core_per_tsc > 0.2 && c->core_per_tsc < 5);
	assert_true(c->step_tsc >= 1 && c->floor_tsc >= 0);
	/*
	 * A real measurement: a preempted or throttled vCPU can spoil one
	 * attempt, so up to five are made. Broken overhead removal leaves the
	 * ~2000-cycle fixed cost in (about 550 per rep at N=8) every time.
	 */
	for (int attempt = 0; attempt < 5; attempt++) {
		run = fpl_result_add_run(r, "t");
		v = (struct fpl_variant){ .name = "imul", .timed = imul_plus_fixed, .run = run };
		assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
		cyc = median(v.m_cycles);
		print_message("100 IMULs with a ~2000-cycle fixed cost at N=8: %.1f cycles per rep\n",
			      cyc);
		if (cyc > 200 && cyc < 420)
			break;
	}
	assert_true(cyc > 200 && cyc < 420);
	assert_int_equal(fpl_clock_finish(c), 0);
	assert_true(c->finished && c->core_per_tsc_end > 0);
	fpl_clock_free(c);
	fpl_result_free(r);
}

/*
 * Interference made up: the reference reads 100 ticks per op when quiet
 * and 130 when disturbed, disturbed in every third block of ten calls;
 * the body costs 10 per rep quiet and 13 disturbed (the same host episode
 * slows both). Time is the count of calls of either. Kept samples must all
 * be quiet ones.
 */
static unsigned ref_calls, episode = 10, disturbed_blocks = 1;

static bool world_disturbed(void)
{
	return ref_calls / episode % 3 >= 3 - disturbed_blocks;
}

static uint64_t fake_ref(void *arg, uint64_t reps)
{
	ref_calls++;
	return reps * (world_disturbed() ? 130 : 100);
}

static uint64_t world_body(void *arg, uint64_t reps)
{
	ref_calls++;
	return 1000 + reps * (world_disturbed() ? 13 : 10);
}

static size_t world_min_samples = 5;
static struct fpl_result *world_warn_to;

static void run_world(bool drop, struct fpl_result *r, struct fpl_variant *v)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 4, .min_samples = world_min_samples,
				       .warn_to = world_warn_to, .max_samples = 90,
				       .budget_s = 100, .ratio_at_start = true,
				       .drop_disturbed = drop, .ref = fake_ref };

	ref_calls = 0;
	*v = (struct fpl_variant){ .name = "w", .timed = world_body,
				   .run = fpl_result_add_run(r, "t"), .method = "made up" };
	assert_int_equal(fpl_harness_run(&env, &cfg, v, 1), 0);
}

static void test_disturbed_samples_dropped(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v;
	const json_t *inf, *obs;
	size_t slow = 0;

	run_world(true, r, &v);
	inf = json_object_get(v.m_tsc->extra, "interference");
	assert_non_null(inf);
	assert_true(json_is_true(json_object_get(inf, "applied")));
	assert_int_equal(json_integer_value(json_object_get(inf, "samples_taken")), 90);
	assert_int_equal(json_integer_value(json_object_get(inf, "samples_quiet")), v.m_tsc->n);
	/* about a third disturbed, and the readings beside them: well under 90 kept, more than 5 */
	assert_true(v.m_tsc->n >= 5 && v.m_tsc->n < 70);
	assert_int_equal(v.m_cycles->n, v.m_tsc->n);
	assert_int_equal(v.m_ns->n, v.m_tsc->n);
	for (size_t i = 0; i < v.m_tsc->n; i++)
		assert_near(v.m_tsc->samples[i], 10, 1e-12);
	assert_near(json_real_value(json_object_get(inf, "disturbed_median_tsc")), 13, 1e-12);
	obs = fpl_run_obs_get(v.run, "interference");
	assert_non_null(obs);
	assert_near(json_real_value(json_object_get(obs, "floor_tsc")), 100, 1e-12);
	assert_true(json_real_value(json_object_get(obs, "quiet_share")) < 0.8);
	assert_non_null(strstr(v.m_tsc->method, "FXSAVE64 reference"));

	/* without the filter every sample stays, the disturbed ones with it */
	run_world(false, r, &v);
	assert_int_equal(v.m_tsc->n, 90);
	for (size_t i = 0; i < v.m_tsc->n; i++)
		slow += v.m_tsc->samples[i] > 12;
	assert_true(slow >= 20 && slow <= 40);
	assert_null(strstr(v.m_tsc->method, "FXSAVE64"));
	assert_null(fpl_run_obs_get(v.run, "interference"));
	fpl_result_free(r);
}

/*
 * Ten variants in rotated rounds, three readings a round (before the 1st
 * and the 9th sample, after the last), episodes of 100 calls: longer than
 * the 17 calls between two readings, so a sample between two quiet
 * readings is a quiet one. Each variant keeps only quiet samples, which
 * holds only if each sample is matched with the readings of its own round
 * and position.
 */
static void test_disturbed_rotated_variants(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 4, .min_samples = 5, .max_samples = 90,
				       .budget_s = 100, .ratio_at_start = true,
				       .drop_disturbed = true, .ref = fake_ref };
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v[10];

	(void)state;
	ref_calls = 0;
	episode = 100;
	for (size_t i = 0; i < 10; i++)
		v[i] = (struct fpl_variant){ .name = "w", .timed = world_body,
					     .run = fpl_result_add_run(r, "t"), .method = "made up" };
	assert_int_equal(fpl_harness_run(&env, &cfg, v, 10), 0);
	episode = 10;
	for (size_t i = 0; i < 10; i++) {
		const json_t *inf = json_object_get(v[i].m_tsc->extra, "interference");

		assert_true(json_is_true(json_object_get(inf, "applied")));
		assert_true(v[i].m_tsc->n >= 5 && v[i].m_tsc->n < 90);
		assert_int_equal(v[i].m_cycles->n, v[i].m_tsc->n);
		for (size_t k = 0; k < v[i].m_tsc->n; k++)
			if (v[i].m_tsc->samples[k] != 10)
				fail_msg("variant %zu kept a disturbed sample: %g", i,
					 v[i].m_tsc->samples[k]);
	}
	fpl_result_free(r);
}

/* Quiet in a third of the readings: a suspect run, said in a warning; in two thirds, no warning. */
static void test_mostly_disturbed_is_suspect(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v;

	disturbed_blocks = 2;
	run_world(true, r, &v);
	disturbed_blocks = 1;
	assert_true(json_real_value(json_object_get(fpl_run_obs_get(v.run, "interference"),
						    "quiet_share")) < 0.5);
	assert_true(tt_warned(v.run, "suspect run: the FXSAVE64 reference was quiet in only"));
	run_world(true, r, &v);
	assert_true(json_real_value(json_object_get(fpl_run_obs_get(v.run, "interference"),
						    "quiet_share")) > 0.5);
	assert_false(tt_warned(v.run, "suspect run"));
	fpl_result_free(r);
}

/*
 * Too few quiet samples to drop any (every sample kept) in a mostly
 * disturbed run: both warnings, the second with its share and how many
 * measurements it covers. The first used to stand alone, and the suite's
 * only share then came from xsave's other group (48% against the matrix's
 * 13%, which no warning gave).
 */
static void test_short_and_suspect_both_said(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v;

	disturbed_blocks = 2;
	world_min_samples = 80;
	run_world(true, r, &v);
	disturbed_blocks = 1;
	world_min_samples = 5;
	assert_true(tt_warned(v.run, "1 of 1 measurements had fewer than 80 samples"));
	assert_true(tt_warned(v.run, "suspect run: the FXSAVE64 reference was quiet in only"));
	assert_true(tt_warned(v.run, "of its readings between the samples of 1 measurement "));
	fpl_result_free(r);
}

/*
 * With warn_to, those warnings are the result's, named by the bench: they
 * are about every variant of the call (xsave's group), and on the first
 * one's run the table marked that cell alone ('!' on fxsave).
 */
static void test_call_warnings_to_result(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v;
	size_t i, said = 0;
	json_t *w;

	disturbed_blocks = 2;
	world_min_samples = 80;
	world_warn_to = r;
	run_world(true, r, &v);
	disturbed_blocks = 1;
	world_min_samples = 5;
	world_warn_to = NULL;
	assert_int_equal(json_array_size(v.run->warnings), 0);
	json_array_foreach(r->warnings, i, w) {
		const char *t = json_string_value(w);

		said += !strncmp(t, "t: ", 3) && (strstr(t, "suspect run: the FXSAVE64") ||
						  strstr(t, "measurements had fewer than 80"));
	}
	assert_int_equal(said, 2);
	fpl_result_free(r);
}

/*
 * Pairing by round (drop_rounds, the xor sweep's template against memcpy):
 * ten variants, three readings a round (before the 1st and the 9th sample,
 * after the last), the reference slow for 10 of every 30 calls of either.
 * A sample's value is the number of reference readings before it, so two
 * samples come from one round exactly when they differ by 1 at most: kept
 * samples k of all variants must. Per sample (drop_rounds false) variants
 * at positions 8 and 9 of a round are judged by other readings than the
 * first eight, so they keep other rounds: the pairs break there.
 */
static unsigned pair_calls, pair_reads;

static uint64_t pair_ref(void *arg, uint64_t reps)
{
	bool slow = pair_calls++ / 10 % 3 == 2;

	pair_reads++;
	return reps * (slow ? 130 : 100);
}

static uint64_t pair_body(void *arg, uint64_t reps)
{
	pair_calls++;
	return 1000 + reps * pair_reads;
}

static void run_pairs(bool rounds, struct fpl_result *r, struct fpl_variant *v)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 4, .min_samples = 5, .max_samples = 90,
				       .budget_s = 100, .ratio_at_start = true,
				       .drop_disturbed = true, .drop_rounds = rounds,
				       .ref = pair_ref };

	pair_calls = pair_reads = 0;
	for (size_t i = 0; i < 10; i++)
		v[i] = (struct fpl_variant){ .name = "p", .timed = pair_body,
					     .run = fpl_result_add_run(r, "t"), .method = "made up" };
	assert_int_equal(fpl_harness_run(&env, &cfg, v, 10), 0);
}

/* The largest spread of the variants' k-th kept samples; SIZE_MAX when their counts differ. */
static double pair_spread(const struct fpl_variant *v)
{
	double worst = 0;

	for (size_t i = 1; i < 10; i++)
		if (v[i].m_tsc->n != v[0].m_tsc->n)
			return (double)SIZE_MAX;
	for (size_t k = 0; k < v[0].m_tsc->n; k++) {
		double lo = v[0].m_tsc->samples[k], hi = lo;

		for (size_t i = 1; i < 10; i++) {
			lo = fmin(lo, v[i].m_tsc->samples[k]);
			hi = fmax(hi, v[i].m_tsc->samples[k]);
		}
		worst = fmax(worst, hi - lo);
	}
	return worst;
}

static void test_drop_rounds_keeps_pairs(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v[10];
	const json_t *inf;

	(void)state;
	run_pairs(true, r, v);
	inf = json_object_get(v[0].m_tsc->extra, "interference");
	assert_true(json_is_true(json_object_get(inf, "applied")));
	assert_string_equal(json_string_value(json_object_get(inf, "kept_by")), "round");
	assert_true(v[0].m_tsc->n >= 5 && v[0].m_tsc->n < 90);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(v[i].m_cycles->n, v[i].m_tsc->n);
		assert_int_equal(v[i].m_ns->n, v[i].m_tsc->n);
		assert_non_null(strstr(v[i].m_tsc->method, "whole rounds dropped"));
	}
	if (pair_spread(v) > 1)
		fail_msg("by round, kept samples of one index come from different rounds "
			 "(spread %g readings)", pair_spread(v));
	run_pairs(false, r, v);
	assert_true(pair_spread(v) > 1);
	fpl_result_free(r);
}

/*
 * A call that begins in a slow episode and would reach max_samples inside
 * it: the reference is quiet for its first 10 calls (the floor), slow for
 * calls 10-399, quiet after. With a hard limit the rounds go on past
 * max_samples until min_samples rounds were quiet, and only those are kept;
 * stopping at max_samples (20 rounds, 1 quiet) kept every slow sample.
 */
static unsigned wait_calls;

static uint64_t wait_ref(void *arg, uint64_t reps)
{
	unsigned c = wait_calls++;

	return reps * (c >= 10 && c < 400 ? 130 : 100);
}

static uint64_t wait_body(void *arg, uint64_t reps)
{
	unsigned c = wait_calls++;

	return 1000 + reps * (c >= 10 && c < 400 ? 13 : 10);
}

static void test_episode_waited_out(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_harness_cfg cfg = { .reps = 4, .min_samples = 5, .max_samples = 20,
				       .budget_s = 0, .hard_s = 100, .ratio_at_start = true,
				       .drop_disturbed = true, .ref = wait_ref };
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v = { .name = "w", .timed = wait_body, .run = fpl_result_add_run(r, "t"),
				 .method = "made up" };
	const json_t *inf;

	(void)state;
	wait_calls = 0;
	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	inf = json_object_get(v.m_tsc->extra, "interference");
	assert_true(json_integer_value(json_object_get(inf, "samples_taken")) > 20);
	assert_true(json_is_true(json_object_get(inf, "applied")));
	assert_true(v.m_tsc->n >= 5);
	for (size_t i = 0; i < v.m_tsc->n; i++)
		if (v.m_tsc->samples[i] != 10)
			fail_msg("kept a slow sample: %g (of %zu kept)", v.m_tsc->samples[i],
				 v.m_tsc->n);
	assert_false(tt_warned(v.run, "fewer than"));
	fpl_result_free(r);
}

/*
 * A call spent wholly in a slow episode finds its own floor there (130) and
 * would take every reading for quiet. With the floor of earlier calls
 * carried (100, read with the same reps) it is judged against that: no
 * round is quiet, every sample is kept and a warning says why; the carried
 * floor stays 100. A later call whose readings go lower lowers it.
 */
static uint64_t slow_ref(void *arg, uint64_t reps)
{
	return reps * 130;
}

static uint64_t low_ref(void *arg, uint64_t reps)
{
	return reps * 90;
}

static void test_carried_floor(void **state)
{
	struct fpl_bench_env env = { .clock = &fake_clock };
	struct fpl_ref_floor fl = { .tsc = 100, .reps = 64 };
	struct fpl_harness_cfg cfg = { .reps = 4, .min_samples = 5, .max_samples = 30,
				       .budget_s = 0, .hard_s = 0.02, .ratio_at_start = true,
				       .drop_disturbed = true, .drop_rounds = true,
				       .ref = slow_ref, .ref_floor = &fl };
	struct fpl_result *r = fpl_result_new();
	struct fpl_variant v = { .name = "c", .timed = world_body, .run = fpl_result_add_run(r, "t"),
				 .method = "made up" };
	const json_t *obs, *inf;

	(void)state;
	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	obs = fpl_run_obs_get(v.run, "interference");
	inf = json_object_get(v.m_tsc->extra, "interference");
	assert_near(json_real_value(json_object_get(obs, "floor_tsc")), 100, 1e-12);
	assert_near(json_real_value(json_object_get(obs, "carried_floor_tsc")), 100, 1e-12);
	assert_near(json_real_value(json_object_get(obs, "call_floor_tsc")), 130, 1e-12);
	assert_int_equal(json_integer_value(json_object_get(obs, "reps")), 64);
	assert_int_equal(json_integer_value(json_object_get(inf, "samples_quiet")), 0);
	assert_false(json_is_true(json_object_get(inf, "applied")));
	assert_true(tt_warned(v.run, "rounds lay between quiet readings"));
	assert_near(fl.tsc, 100, 1e-12);

	cfg.ref = low_ref;
	v = (struct fpl_variant){ .name = "c", .timed = world_body, .run = fpl_result_add_run(r, "t"),
				  .method = "made up" };
	assert_int_equal(fpl_harness_run(&env, &cfg, &v, 1), 0);
	assert_near(fl.tsc, 90, 1e-12);
	assert_int_equal(fl.reps, 64);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n_vs_2n_removes_fixed_cost),
		cmocka_unit_test(test_empty_body_and_ops),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_stop_keeps_samples),
		cmocka_unit_test(test_progress_counts_min_samples),
		cmocka_unit_test(test_real_overhead_removal),
		cmocka_unit_test(test_disturbed_samples_dropped),
		cmocka_unit_test(test_disturbed_rotated_variants),
		cmocka_unit_test(test_mostly_disturbed_is_suspect),
		cmocka_unit_test(test_short_and_suspect_both_said),
		cmocka_unit_test(test_call_warnings_to_result),
		cmocka_unit_test(test_drop_rounds_keeps_pairs),
		cmocka_unit_test(test_episode_waited_out),
		cmocka_unit_test(test_carried_floor),
		cmocka_unit_test(test_shuffled_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
