// SPDX-License-Identifier: GPL-3.0-or-later
/* The run as the unit of replication: a run's value, its spreads, the runs a target needs. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "fpulab/stats.h"

double fpl_run_value_sorted(const double *sorted, size_t n, double trim)
{
	if (!n)
		return NAN;
	return trim > 0 ? fpl_trimmed_mean_sorted(sorted, n, trim) :
			  fpl_quantile_sorted(sorted, n, 0.5);
}

double fpl_robust_cv_sorted(const double *sorted, size_t n, double *work)
{
	double med;

	if (n < 2)
		return NAN;
	med = fpl_quantile_sorted(sorted, n, 0.5);
	if (!med)
		return NAN;
	for (size_t i = 0; i < n; i++)
		work[i] = fabs(sorted[i] - med);
	fpl_sort(work, n);
	return 100 * 1.4826 * fpl_quantile_sorted(work, n, 0.5) / fabs(med);
}

/*
 * Welch's half-width for two cases of n runs each, equal spread: t(df = 2n - 2)
 * cv sqrt(2/n); paired, one-sample over n per-run differences of spread cv:
 * t(n - 1) cv / sqrt(n).
 */
static double half_width(double cv, size_t n, double conf, bool paired)
{
	double alpha = 1 - conf / 100;

	if (paired)
		return gsl_cdf_tdist_Qinv(alpha / 2, n - 1.0) * cv / sqrt((double)n);
	return gsl_cdf_tdist_Qinv(alpha / 2, 2.0 * n - 2) * cv * sqrt(2.0 / n);
}

#define RUNS_MAX 10000000

static size_t needed(double cv, double target, double conf, bool paired)
{
	size_t lo = FPL_MIN_RUNS, hi;

	if (!isfinite(cv) || cv < 0 || !(target > 0) || !(conf > 0 && conf < 100))
		return 0;
	if (half_width(cv, lo, conf, paired) <= target)
		return lo;
	/* the half-width falls with n: double to a bracket, then bisect */
	for (hi = lo * 2; half_width(cv, hi, conf, paired) > target; hi *= 2)
		if (hi > RUNS_MAX)
			return SIZE_MAX;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (half_width(cv, mid, conf, paired) <= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

size_t fpl_runs_needed(double cv, double target, double conf)
{
	return needed(cv, target, conf, false);
}

size_t fpl_pairs_needed(double sd, double target, double conf)
{
	return needed(sd, target, conf, true);
}

double fpl_max_dev_pct(double *v, size_t n)
{
	double med;

	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return NAN;
	fpl_sort(v, n);
	med = fpl_quantile_sorted(v, n, 0.5);
	if (!med)
		return NAN;
	return 100 * fmax(med - v[0], v[n - 1] - med) / fabs(med);
}

int fpl_repeatability(const double *dev, size_t n, double tol_pct, struct fpl_repeatability *r)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));
	size_t k = 0;

	if (!s)
		return -ENOMEM;
	*r = (struct fpl_repeatability){ .tol_pct = tol_pct };
	for (size_t i = 0; i < n; i++)
		if (isfinite(dev[i])) {
			s[k++] = dev[i];
			r->within += dev[i] <= tol_pct;
		}
	if (!k) {
		free(s);
		return -EINVAL;
	}
	fpl_sort(s, k);
	r->metrics = k;
	r->median_pct = fpl_quantile_sorted(s, k, 0.5);
	r->p90_pct = fpl_quantile_sorted(s, k, 0.9);
	r->max_pct = s[k - 1];
	free(s);
	return 0;
}
