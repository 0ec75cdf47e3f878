// SPDX-License-Identifier: GPL-3.0-or-later
/* Sample summaries through GSL's order statistics. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fpulab/stats.h"

void fpl_sort(double *x, size_t n)
{
	gsl_sort(x, 1, n);
}

double fpl_quantile_sorted(const double *sorted, size_t n, double p)
{
	return gsl_stats_quantile_from_sorted_data(sorted, 1, n, p);
}

/*
 * Not gsl_stats_trmean_from_sorted_data(): its floor(alpha * n) cuts 28 of
 * 100 at 29% (0.29 * 100 < 29 in binary). One cut count, fpl_trim_count(),
 * serves the trimmed mean, Yuen's test and the bootstrap alike.
 */
double fpl_trimmed_mean_sorted(const double *sorted, size_t n, double trim)
{
	size_t g = fpl_trim_count(n, trim);

	if (n <= 2 * g)
		return NAN;
	return gsl_stats_mean(sorted + g, 1, n - 2 * g);
}

int fpl_summarize_sorted(const double *sorted, size_t n, double trim, struct fpl_summary *s)
{
	double *work;

	if (!n || !(trim >= 0 && trim < 50))
		return -EINVAL;
	work = malloc(n * sizeof(*work));
	if (!work)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->q1 = fpl_quantile_sorted(sorted, n, 0.25);
	s->median = fpl_quantile_sorted(sorted, n, 0.5);
	s->q3 = fpl_quantile_sorted(sorted, n, 0.75);
	s->mean = gsl_stats_mean(sorted, 1, n);
	s->stddev = n > 1 ? gsl_stats_sd_m(sorted, 1, n, s->mean) : 0.0;
	s->mad = gsl_stats_mad0(sorted, 1, n, work);
	s->trim = trim;
	s->trimmed_mean = fpl_trimmed_mean_sorted(sorted, n, trim);
	free(work);
	return 0;
}

int fpl_summarize(const double *x, size_t n, double trim, struct fpl_summary *s)
{
	double *copy;
	int err;

	if (!n)
		return -EINVAL;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, x, n * sizeof(*copy));
	fpl_sort(copy, n);
	err = fpl_summarize_sorted(copy, n, trim, s);
	free(copy);
	return err;
}
