// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Tests for one cell of fpulab xor's sweep (bench/xorsweep.h) with a
 * made-up interference reference: disturbed rounds dropped from the
 * template and memcpy alike and recorded, the derived figures (speed,
 * bytes_per_cycle, bound_pct) computed on the samples kept. No test here
 * asserts a measured speed.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/cpu.h"
#include "fpulab/result.h"
#include "fpulab/xor.h"
#include "fpulab/xstate.h"
#include "bench/xorsweep.h"

#define SIZE 4096

static struct fpl_clock *clk;
static struct fpl_cpu cpu;
static uint64_t *buf[FPL_XOR_MAX_SRCS + 1];

static int setup(void **state)
{
	struct fpl_diag d = { "" };

	(void)state;
	if (fpl_clock_create(&clk, -1, &d) || fpl_cpu_read(&cpu))
		return -1;
	for (size_t i = 0; i <= FPL_XOR_MAX_SRCS; i++) {
		buf[i] = fpl_xstate_alloc(SIZE);
		if (!buf[i])
			return -1;
		memset(buf[i], (int)i + 1, SIZE);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i <= FPL_XOR_MAX_SRCS; i++)
		free(buf[i]);
	fpl_clock_free(clk);
	return 0;
}

/* Made-up references: slow (130 ticks per op against 100) in every third block of four readings, never, or always. */
static unsigned ref_calls;

static uint64_t ref_thirds(void *arg, uint64_t reps)
{
	return reps * (ref_calls++ / 4 % 3 == 2 ? 130 : 100);
}

static uint64_t ref_quiet(void *arg, uint64_t reps)
{
	return reps * 100;
}

static uint64_t ref_slow(void *arg, uint64_t reps)
{
	return reps * 130;
}

/* One cell, do_2 of 8regs (every x86-64 CPU runs it) and memcpy, into r; the two runs in *x and *mc. */
static void run_cell(struct fpl_result *r, fpl_timed_fn ref, struct fpl_ref_floor *fl,
		     struct fpl_run **x, struct fpl_run **mc)
{
	const struct fpl_xor_impl *impl = fpl_xor_find("8regs");
	struct fpl_bench_env env = { .cpu = &cpu, .clock = clk };

	assert_non_null(impl);
	ref_calls = 0;
	assert_int_equal(fpl_xor_sweep_cell(&env, r, &(struct fpl_xor_cell){
		.impl = &impl, .nimpl = 1, .size = SIZE, .arity = 2, .buf = buf,
		.budget_s = 0.03, .hard_s = 0.1, .ref_floor = fl, .ref = ref }), 0);
	assert_int_equal(r->nruns, 2);
	*x = r->runs[0];
	*mc = r->runs[1];
	assert_string_equal(fpl_run_param_get_str(*mc, "template"), "memcpy");
}

static const json_t *interf(const struct fpl_run *run)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, "tsc");

	assert_non_null(m);
	return json_object_get(m->extra, "interference");
}

/* a and b the same figure: equal to 1e-9 of it, or both not a number (a zero-tick difference) */
static bool same(double a, double b)
{
	return (!isfinite(a) && !isfinite(b)) || fabs(a - b) <= 1e-9 * fabs(a);
}

static size_t nsamples(const struct fpl_run *run, const char *name)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, name);

	assert_non_null(m);
	return m->n;
}

/*
 * Every derived figure of a run from the same kept samples: as many as the
 * harness kept, sample k of speed and bytes_per_cycle from sample k of ns
 * and cycles, bound_pct from bytes_per_cycle; the method strings say how
 * samples were kept; bound_pct counts its samples outside 0-100.
 */
static void check_derived(const struct fpl_run *run, bool dropped)
{
	const struct fpl_metric *ns = fpl_run_find_metric(run, "ns");
	const struct fpl_metric *cyc = fpl_run_find_metric(run, "cycles");
	const struct fpl_metric *mb = fpl_run_find_metric(run, "speed");
	const struct fpl_metric *bpc = fpl_run_find_metric(run, "bytes_per_cycle");
	const struct fpl_metric *pct = fpl_run_find_metric(run, "bound_pct");
	size_t n = nsamples(run, "tsc"), outside = 0;
	double bound;

	assert_true(ns && cyc && mb && bpc);
	assert_int_equal(ns->n, n);
	assert_int_equal(cyc->n, n);
	assert_int_equal(mb->n, n);
	assert_int_equal(bpc->n, n);
	for (size_t k = 0; k < n; k++) {
		assert_true(same(mb->samples[k], SIZE / ns->samples[k] * 1000));
		assert_true(same(bpc->samples[k], SIZE / cyc->samples[k]));
	}
	assert_non_null(strstr(mb->method, dropped ? "per kept sample" : "every one kept"));
	assert_non_null(strstr(bpc->method, dropped ? "per kept sample" : "every one kept"));
	if (!pct)
		return;
	bound = json_number_value(json_object_get(pct->extra, "bound_bytes_per_cycle"));
	assert_true(bound > 0);
	assert_int_equal(pct->n, n);
	for (size_t k = 0; k < n; k++) {
		assert_true(same(pct->samples[k], 100 * bpc->samples[k] / bound));
		outside += isfinite(pct->samples[k]) && (pct->samples[k] < 0 ||
							 pct->samples[k] > 100);
	}
	assert_int_equal(json_integer_value(json_object_get(pct->extra, "outside_0_100")), outside);
	assert_non_null(strstr(pct->method, dropped ? "per kept sample" : "every one kept"));
}

/*
 * A third of the readings slow: the rounds beside them are dropped from the
 * template and memcpy alike (the same number kept, by round), recorded in
 * extra.interference and observed.interference, and every derived figure
 * is computed on what was kept.
 */
static void test_disturbed_rounds_dropped(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *x, *mc;
	const json_t *ix, *im, *ox;
	size_t taken;

	(void)state;
	run_cell(r, ref_thirds, NULL, &x, &mc);
	ix = interf(x);
	im = interf(mc);
	assert_non_null(ix);
	assert_non_null(im);
	taken = (size_t)json_integer_value(json_object_get(ix, "samples_taken"));
	assert_true(json_is_true(json_object_get(ix, "applied")));
	assert_true(json_is_true(json_object_get(im, "applied")));
	assert_string_equal(json_string_value(json_object_get(ix, "kept_by")), "round");
	assert_int_equal(json_integer_value(json_object_get(ix, "samples_quiet")), nsamples(x, "tsc"));
	assert_int_equal(json_integer_value(json_object_get(im, "samples_quiet")),
			 nsamples(mc, "tsc"));
	/* the same rounds for both: as many kept, as many taken */
	assert_int_equal(nsamples(x, "tsc"), nsamples(mc, "tsc"));
	assert_int_equal(json_integer_value(json_object_get(im, "samples_taken")), taken);
	/* a third of the readings slow, two readings a round: well under all kept */
	assert_true(nsamples(x, "tsc") >= 11 && nsamples(x, "tsc") < taken * 0.8);
	ox = fpl_run_obs_get(x, "interference");
	assert_non_null(ox);
	assert_non_null(fpl_run_obs_get(mc, "interference"));
	assert_true(json_real_value(json_object_get(ox, "floor_tsc")) == 100);
	assert_true(json_real_value(json_object_get(ox, "quiet_share")) < 0.8);
	assert_non_null(strstr(fpl_run_find_metric(x, "tsc")->method, "whole rounds dropped"));
	check_derived(x, true);
	check_derived(mc, true);
	fpl_result_free(r);
}

/* Never disturbed: nothing dropped, every sample kept, and said so. */
static void test_quiet_keeps_all(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *x, *mc;

	(void)state;
	run_cell(r, ref_quiet, NULL, &x, &mc);
	assert_false(json_is_true(json_object_get(interf(x), "applied")));
	assert_int_equal(json_integer_value(json_object_get(interf(x), "samples_quiet")),
			 nsamples(x, "tsc"));
	assert_int_equal(nsamples(x, "tsc"), nsamples(mc, "tsc"));
	check_derived(x, true);
	check_derived(mc, true);
	fpl_result_free(r);
}

/*
 * Slow throughout, with the floor of the cells before (100) carried in: no
 * round is quiet, so the cell waits to its hard limit, keeps every sample
 * and says so in a warning; alone it would have found its floor at 130 and
 * called every round quiet.
 */
static void test_slow_cell_judged_by_carried_floor(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_ref_floor fl = { .tsc = 100, .reps = 64 };
	struct fpl_run *x, *mc;
	size_t nw = 0;

	(void)state;
	run_cell(r, ref_slow, &fl, &x, &mc);
	assert_int_equal(json_integer_value(json_object_get(interf(x), "samples_quiet")), 0);
	assert_false(json_is_true(json_object_get(interf(x), "applied")));
	for (size_t i = 0; i < json_array_size(x->warnings); i++)
		nw += strstr(json_string_value(json_array_get(x->warnings, i)),
			     "rounds lay between quiet readings") != NULL;
	assert_int_equal(nw, 1);
	assert_true(fl.tsc == 100);
	check_derived(x, true);
	fpl_result_free(r);
}

/*
 * The sweep's first cell measured wholly inside a slow episode (the
 * reference reads 120 until the cell ends, then 100): alone it finds its
 * floor at 120 and takes every round for quiet. The next cell finds 100;
 * then the first is measured again against it, its runs saying so
 * (observed first_floor_tsc 120, floor 100), in their place in the order.
 */
static bool episode;

static uint64_t ref_episode(void *arg, uint64_t reps)
{
	return reps * (episode ? 120 : 100);
}

/* The sweep reports "sweep" after each cell: the episode ends with the first. */
static void end_episode(void *arg, const char *bench, double frac, const char *what)
{
	if (!strcmp(what, "sweep"))
		episode = false;
}

static void test_cell_in_episode_measured_again(void **state)
{
	static const struct fpl_optval opts[] = {
		{ "sizes", "4k" }, { "arities", "2,3" }, { "impl", "8regs" },
	};
	struct fpl_bench_env env = { .bench = fpl_bench_find("xor"), .cpu = &cpu, .clock = clk,
				     .budget_s = 0.1, .opts = opts, .nopts = 3,
				     .progress = end_episode };
	struct fpl_result *r = fpl_result_new();
	const json_t *o;

	(void)state;
	episode = true;
	assert_int_equal(fpl_xor_sweep(&env, r, ref_episode), 0);
	assert_int_equal(r->nruns, 4);
	for (size_t i = 0; i < 4; i++) {
		o = fpl_run_obs_get(r->runs[i], "interference");
		assert_int_equal(fpl_run_param_get_int(r->runs[i], "arity", 0), i < 2 ? 2 : 3);
		assert_true(json_real_value(json_object_get(o, "floor_tsc")) == 100);
		if (i < 2) {
			assert_true(json_real_value(fpl_run_obs_get(r->runs[i],
								    "first_floor_tsc")) == 120);
			assert_true(json_real_value(json_object_get(o, "carried_floor_tsc")) == 100);
		} else {
			assert_null(fpl_run_obs_get(r->runs[i], "first_floor_tsc"));
		}
	}
	fpl_result_free(r);
}

/*
 * A cell's buffers lie back to back, its own size rounded up to a page
 * apart, page-aligned, whatever the sweep's largest size: with buffers of
 * the largest size allocated one by one, a 4 KiB cell's pages lay 64 MiB
 * apart, and on Zen 4 do_5 read 43-72% of the L1 bound by where ASLR put
 * them (95% a page apart).
 */
static void test_cell_buffers_back_to_back(void **state)
{
	static const struct fpl_optval opts[] = {
		{ "sizes", "1k,4k,2M" }, { "arities", "2" }, { "impl", "8regs" },
	};
	static const long long apart[] = { 4096, 4096, 2 << 20 };
	struct fpl_bench_env env = { .bench = fpl_bench_find("xor"), .cpu = &cpu, .clock = clk,
				     .budget_s = 0.1, .opts = opts, .nopts = 3 };
	struct fpl_result *r = fpl_result_new();

	(void)state;
	assert_int_equal(fpl_xor_sweep(&env, r, ref_quiet), 0);
	assert_int_equal(r->nruns, 6);		/* 8regs and memcpy per size */
	for (size_t i = 0; i < r->nruns; i++) {
		long long size = fpl_run_param_get_int(r->runs[i], "size", 0);

		assert_int_equal(size, i < 2 ? 1024 : i < 4 ? 4096 : 2 << 20);
		assert_int_equal(fpl_run_obs_get_int(r->runs[i], "buffers_apart_bytes", -1),
				 apart[i / 2]);
		assert_int_equal(fpl_run_obs_get_int(r->runs[i], "buffer_page_offset", -1), 0);
	}
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disturbed_rounds_dropped),
		cmocka_unit_test(test_quiet_keeps_all),
		cmocka_unit_test(test_slow_cell_judged_by_carried_floor),
		cmocka_unit_test(test_cell_in_episode_measured_again),
		cmocka_unit_test(test_cell_buffers_back_to_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
