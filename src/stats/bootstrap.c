// SPDX-License-Identifier: GPL-3.0-or-later
/* Percentile bootstrap of the ratio of two central values (trimmed means), seeded. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fpulab/stats.h"

/*
 * One resample's trimmed mean without sorting it: draw n indices into the
 * sorted data, count how often each is drawn, then walk the counts in order
 * skipping g at each end. O(n) per resample instead of O(n log n).
 */
static double resample_center(const double *x, size_t n, size_t g, uint32_t *count,
			      gsl_rng *rng)
{
	size_t skip = g, keep = n - 2 * g, taken = 0;
	double sum = 0;

	memset(count, 0, n * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[gsl_rng_uniform_int(rng, n)]++;
	for (size_t i = 0; i < n && taken < keep; i++) {
		size_t c = count[i];

		if (skip) {
			size_t s = c < skip ? c : skip;

			skip -= s;
			c -= s;
		}
		if (c > keep - taken)
			c = keep - taken;
		sum += c * x[i];
		taken += c;
	}
	return sum / keep;
}

int fpl_bootstrap_ratio_sorted(const double *a, size_t na, const double *b, size_t nb,
			       double trim, double conf, size_t reps, unsigned long seed,
			       struct fpl_boot *r)
{
	size_t ga = fpl_trim_count(na, trim), gb = fpl_trim_count(nb, trim);
	double alpha = 1 - conf / 100, *ratio = NULL;
	uint32_t *count = NULL;
	gsl_rng *rng = NULL;
	int err = -ENOMEM;

	if (!(trim >= 0 && trim < 50) || !(conf > 0 && conf < 100) || reps < 2 ||
	    na < 2 * ga + 1 || nb < 2 * gb + 1)
		return -EINVAL;
	ratio = malloc(reps * sizeof(*ratio));
	count = malloc((na > nb ? na : nb) * sizeof(*count));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!ratio || !count || !rng)
		goto out;
	gsl_rng_set(rng, seed);
	r->reps = reps;
	r->seed = seed;
	r->ratio = fpl_trimmed_mean_sorted(b, nb, trim) / fpl_trimmed_mean_sorted(a, na, trim);
	for (size_t k = 0; k < reps; k++) {
		double ca = resample_center(a, na, ga, count, rng);
		double cb = resample_center(b, nb, gb, count, rng);

		ratio[k] = cb / ca;
	}
	gsl_sort(ratio, 1, reps);
	r->lo = gsl_stats_quantile_from_sorted_data(ratio, 1, reps, alpha / 2);
	r->hi = gsl_stats_quantile_from_sorted_data(ratio, 1, reps, 1 - alpha / 2);
	err = 0;
out:
	gsl_rng_free(rng);
	free(count);
	free(ratio);
	return err;
}
