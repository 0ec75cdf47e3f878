/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Summaries of samples (median, quartiles, trimmed mean, ...) and tests between cases. */
#ifndef FPULAB_STATS_H
#define FPULAB_STATS_H

#include <stddef.h>

/*
 * Quantiles interpolate linearly between order statistics (Hyndman-Fan type
 * 7, GSL's and R's default). stddev is the sample standard deviation (n-1).
 * mad is the raw median absolute deviation (not scaled by 1.4826).
 * trimmed_mean drops floor(n * trim / 100) values from each end.
 */
struct fpl_summary {
	size_t n;
	double min, q1, median, q3, max;
	double mean, stddev, mad;
	double trim;		/* percent cut from each end for trimmed_mean */
	double trimmed_mean;
};

/* Summarise n values (not modified). 0, -EINVAL when n == 0 or trim outside [0, 50), -ENOMEM. */
int fpl_summarize(const double *x, size_t n, double trim, struct fpl_summary *s);
/* The same on data already sorted ascending. */
int fpl_summarize_sorted(const double *sorted, size_t n, double trim, struct fpl_summary *s);

void fpl_sort(double *x, size_t n);
double fpl_quantile_sorted(const double *sorted, size_t n, double p);
double fpl_trimmed_mean_sorted(const double *sorted, size_t n, double trim);

#endif
