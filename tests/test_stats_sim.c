// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests of compare's method by seeded simulation: false claims across runs, power, run counts. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "near.h"

#include "fpulab/stats.h"

/* Between-run spread 1%, within-run 0.2% (issue 12), 4 metrics under Holm, 95%. */
static struct fpl_sim_opts base(size_t runs, double effect)
{
	return (struct fpl_sim_opts){ .trials = 1000, .runs = runs, .samples = 30, .metrics = 4,
				      .between_cv = 1, .within_cv = 0.2, .effect = effect,
				      .conf = 95, .seed = 12 };
}

static struct fpl_sim_result sim(const struct fpl_sim_opts *o)
{
	struct fpl_sim_result r;

	assert_int_equal(fpl_sim_runs(o, &r), 0);
	assert_int_equal(r.trials, o->trials);
	print_message("  runs %zu, effect %g%%, outliers %g, trim %g, %s: false claims %zu/%zu, "
		      "found %zu, half-width %.3f%%\n", o->runs, o->effect, o->outliers, o->trim,
		      o->pooled ? "pooled samples" : "run values", r.false_claims, r.trials,
		      r.found, r.half_pct);
	return r;
}

/* A/A: the family-wise false-claim rate stays at most 7% with 3 and with 10 runs per case. */
static void test_aa_false_claims(void **state)
{
	static const size_t runs[] = { 3, 10 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct fpl_sim_opts o = base(runs[i], 0);
		struct fpl_sim_result r = sim(&o);

		assert_true(r.trials >= 200);
		assert_true(r.false_claims <= 0.07 * r.trials);
		assert_int_equal(r.found, 0);
	}
}

/* 10 runs per case find a planted 2% difference in at least 90% of trials, either sign. */
static void test_power(void **state)
{
	struct fpl_sim_opts o = base(10, 2);
	struct fpl_sim_result r = sim(&o);

	(void)state;
	assert_true(r.found >= 0.9 * r.trials);
	/* the other three metrics have no effect: still at most 7% */
	assert_true(r.false_claims <= 0.07 * r.trials);
	o.effect = -2;
	r = sim(&o);
	assert_true(r.found >= 0.9 * r.trials);
}

/*
 * 3% preempted samples (-3x), 400 trials, runs valued with trim percent cut
 * at each end: at most 7% false claims A/A, a planted 2% found in at least
 * found_min of the trials.
 */
static void outlier_rates(double trim, double found_min)
{
	struct fpl_sim_opts o = base(10, 0);
	struct fpl_sim_result r;

	o.trim = trim;
	o.outliers = 0.03;
	o.trials = 400;
	r = sim(&o);
	assert_true(r.false_claims <= 0.07 * r.trials);
	o.effect = 2;
	r = sim(&o);
	assert_true(r.found >= found_min * r.trials);
}

/* Preempted samples do not move run medians: the rates hold. */
static void test_outliers(void **state)
{
	(void)state;
	outlier_rates(0, 0.9);
}

/* --trim 10: runs valued by trimmed means, Yuen on the run values (1 of 10 cut each end). */
static void test_trimmed(void **state)
{
	(void)state;
	/* Yuen on 8 of 10 runs has less power than Welch on 10: 80%, not 90% */
	outlier_rates(10, 0.8);
}

/*
 * Why: pooling the samples of runs treats 300 samples as independent when
 * they share 10 offsets; the A/A false-claim rate is then far above 5%.
 */
static void test_pooled_samples_mislead(void **state)
{
	struct fpl_sim_opts o = base(10, 0);
	struct fpl_sim_result r;

	(void)state;
	o.pooled = true;
	o.trials = 200;
	r = sim(&o);
	assert_true(r.false_claims > 0.5 * r.trials);
}

/*
 * Runs needed: cv 1% and a 2% half-width need few runs, 0.2% many; more
 * spread needs more; the answer meets the target and one run fewer does not.
 */
static void test_runs_needed(void **state)
{
	size_t n5 = fpl_runs_needed(1, 0.5, 95), n2 = fpl_runs_needed(1, 0.2, 95);

	(void)state;
	assert_int_equal(fpl_runs_needed(0, 0.2, 95), FPL_MIN_RUNS);
	assert_int_equal(fpl_runs_needed(1, 5, 95), FPL_MIN_RUNS);
	assert_true(n5 > FPL_MIN_RUNS && n2 > n5);
	/* 1.96 sqrt(2/n) <= 0.2 wants n >= 192; t quantiles make it a little more */
	assert_true(n2 >= 192 && n2 < 200);
	assert_true(fpl_runs_needed(2, 0.2, 95) > 3 * n2);
	assert_int_equal(fpl_runs_needed(NAN, 0.2, 95), 0);
	assert_int_equal(fpl_runs_needed(1e9, 1e-9, 95), SIZE_MAX);
}

/* A run's value is its median (or its trimmed mean); the robust CV ignores one outlier. */
static void test_run_value(void **state)
{
	double x[] = { -257, 74, 75, 75, 76 }, w[5];

	(void)state;
	assert_true(fpl_run_value_sorted(x, 5, 0) == 75);
	assert_near(fpl_run_value_sorted(x, 5, 20), (74 + 75 + 75) / 3.0, 1e-12);
	assert_true(isnan(fpl_run_value_sorted(x, 0, 0)));
	/* MAD = 1: 1.4826 / 75 */
	assert_near(fpl_robust_cv_sorted(x, 5, w), 100 * 1.4826 / 75, 1e-12);
	assert_true(isnan(fpl_robust_cv_sorted(x, 1, w)));
}

static void test_bad_opts(void **state)
{
	struct fpl_sim_opts o = base(1, 0);
	struct fpl_sim_result r;

	(void)state;
	assert_int_equal(fpl_sim_runs(&o, &r), -EINVAL);
	o = base(3, 0);
	o.conf = 100;
	assert_int_equal(fpl_sim_runs(&o, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_false_claims),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_trimmed),
		cmocka_unit_test(test_pooled_samples_mislead),
		cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_run_value),
		cmocka_unit_test(test_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
