// SPDX-License-Identifier: GPL-3.0-or-later
/* Two clusters in one set of samples: an Otsu split judged by a robust Ashman's D and the gap between the medians. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"

/* Median absolute deviation of a sorted run, scaled to a normal sigma. */
static double mad_sorted(const double *x, size_t n, double med)
{
	double *d = malloc(n * sizeof(*d)), m;

	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	fpl_sort(d, n);
	m = 1.4826 * fpl_quantile_sorted(d, n, 0.5);
	free(d);
	return m;
}

int fpl_bimodal(const double *x, size_t n, struct fpl_bimodal *b)
{
	double *s, *pre, best = -1, tot;
	size_t k = 0, min_side, m = 0;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < n; i++)
		m += isfinite(x[i]) != 0;
	if (m < FPL_BIMODAL_MIN_N)
		return -EINVAL;
	s = malloc(m * sizeof(*s));
	pre = malloc((m + 1) * sizeof(*pre));
	if (!s || !pre) {
		free(s);
		free(pre);
		return -ENOMEM;
	}
	m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			s[m++] = x[i];
	fpl_sort(s, m);
	pre[0] = 0;
	for (size_t i = 0; i < m; i++)
		pre[i + 1] = pre[i] + s[i];
	tot = pre[m];
	min_side = (size_t)ceil(FPL_BIMODAL_MIN_SHARE * (double)m);
	/*
	 * Otsu: the split with the largest between-class variance over every
	 * split point; a side then smaller than min_side (a few outliers) is no
	 * mode. Forcing the split to leave min_side each side would instead pull
	 * ordinary samples into a side of outliers and give it a narrow MAD.
	 */
	for (size_t i = 1; i < m; i++) {
		double mu1 = pre[i] / (double)i, mu2 = (tot - pre[i]) / (double)(m - i);
		double v = (double)i * (double)(m - i) * (mu2 - mu1) * (mu2 - mu1);

		if (v > best) {
			best = v;
			k = i;
		}
	}
	b->n = m;
	if (!k || k < min_side || m - k < min_side) {
		free(s);
		free(pre);
		return 0;
	}
	b->lower_median = fpl_quantile_sorted(s, k, 0.5);
	b->upper_median = fpl_quantile_sorted(s + k, m - k, 0.5);
	b->lower_share = (double)k / (double)m;
	{
		double s1 = mad_sorted(s, k, b->lower_median);
		double s2 = mad_sorted(s + k, m - k, b->upper_median);
		double gap = b->upper_median - b->lower_median;
		double sd = sqrt(s1 * s1 + s2 * s2);

		b->gap_pct = b->lower_median > 0 ? gap / b->lower_median * 100 : NAN;
		b->ashman_d = sd > 0 ? M_SQRT2 * gap / sd : gap > 0 ? INFINITY : 0;
		b->bimodal = b->ashman_d > FPL_BIMODAL_D && isfinite(b->gap_pct) &&
			     b->gap_pct > FPL_BIMODAL_GAP_PCT;
	}
	free(s);
	free(pre);
	return 0;
}

static double med3(double a, double b, double c)
{
	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

double fpl_floor_med3(const double *x, size_t n)
{
	double best = INFINITY, a = NAN, b = NAN, lo = INFINITY;
	size_t m = 0;

	/* over the finite readings in order; a and b the two before this one */
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		lo = fmin(lo, x[i]);
		if (++m >= 3)
			best = fmin(best, med3(a, b, x[i]));
		a = b;
		b = x[i];
	}
	if (m < 3)
		best = lo;
	return isfinite(best) ? best : NAN;
}
