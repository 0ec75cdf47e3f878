// SPDX-License-Identifier: GPL-3.0-or-later
/* Medians and paired speedups with distribution-free 95% intervals (order statistics); a mean with its t interval. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "fpulab/stats.h"

#define CI_MIN_N 6

/* Sorts x in place. */
static int median_interval(double *x, size_t n, struct fpl_ci *ci)
{
	size_t j = 0;

	if (n < CI_MIN_N)
		return -EINVAL;
	fpl_sort(x, n);
	/* Largest j (1-based) with P(B <= j - 1) <= 0.025. */
	while (j + 1 <= n / 2 && gsl_cdf_binomial_P((unsigned)j, 0.5, (unsigned)n) <= 0.025)
		j++;
	ci->n = n;
	ci->estimate = fpl_quantile_sorted(x, n, 0.5);
	ci->lo = x[j - 1];
	ci->hi = x[n - j];
	return 0;
}

int fpl_speedup_ci(const double *slow, const double *fast, size_t n, struct fpl_ci *ci)
{
	double *r = malloc((n ? n : 1) * sizeof(*r));
	size_t k = 0;
	int err;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (slow[i] > 0 && fast[i] > 0 && isfinite(slow[i]) && isfinite(fast[i]))
			r[k++] = 100 * (slow[i] / fast[i] - 1);
	err = median_interval(r, k, ci);
	free(r);
	return err;
}

int fpl_median_ci(const double *x, size_t n, struct fpl_ci *ci)
{
	double *f = malloc((n ? n : 1) * sizeof(*f));
	size_t k = 0;
	int err;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			f[k++] = x[i];
	err = median_interval(f, k, ci);
	free(f);
	return err;
}

int fpl_mean_t_ci(const double *x, size_t n, double conf, struct fpl_ci *ci)
{
	double mean = 0, ss = 0, half;

	if (n < 2 || !(conf > 0 && conf < 100))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		mean += x[i] / (double)n;
	}
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	half = gsl_cdf_tdist_Qinv((1 - conf / 100) / 2, (double)(n - 1)) *
	       sqrt(ss / (double)(n - 1) / (double)n);
	*ci = (struct fpl_ci){ .n = n, .estimate = mean, .lo = mean - half, .hi = mean + half };
	return 0;
}
