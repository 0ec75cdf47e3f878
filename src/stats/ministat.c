// SPDX-License-Identifier: GPL-3.0-or-later
/* ministat's statistics, reproduced so that `fpulab compare --ministat` can be checked. */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "fpulab/stats.h"

void fpl_ministat_set(const double *x, const double *sorted, size_t n, struct fpl_ministat *s)
{
	s->n = n;
	s->sy = 0;
	s->syy = 0;
	/* Running sums in input order: the rounding then matches ministat's. */
	for (size_t i = 0; i < n; i++) {
		s->sy += x[i];
		s->syy += x[i] * x[i];
	}
	s->min = sorted[0];
	s->max = sorted[n - 1];
	/* Debian's ministat (20150715) reports the upper median for even n. */
	s->median = sorted[n / 2];
}

double fpl_ministat_avg(const struct fpl_ministat *s)
{
	return s->sy / s->n;
}

double fpl_ministat_stddev(const struct fpl_ministat *s)
{
	return sqrt((s->syy - s->sy * s->sy / s->n) / (s->n - 1.0));
}

/*
 * Its levels and the one-sided tail each uses. 99.5% is looked up at 0.001,
 * not 0.0025: that is what ministat's table holds in that column.
 */
static const struct {
	double conf, tail;
} levels[] = {
	{ 80, 0.10 }, { 90, 0.05 }, { 95, 0.025 }, { 98, 0.01 }, { 99, 0.005 }, { 99.5, 0.001 },
};

double fpl_ministat_t(double conf, size_t df)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		double q;

		if (levels[i].conf != conf)
			continue;
		/* Beyond 100 degrees of freedom ministat uses the normal quantile. */
		q = df > 100 ? gsl_cdf_ugaussian_Qinv(levels[i].tail) :
			gsl_cdf_tdist_Qinv(levels[i].tail, (double)df);
		return round(q * 1000) / 1000;
	}
	return NAN;
}

void fpl_ministat_relative(const struct fpl_ministat *ds, const struct fpl_ministat *rs,
			   double conf, struct fpl_ministat_rel *r)
{
	double t = fpl_ministat_t(conf, ds->n + rs->n - 2);
	double vd = (ds->syy - ds->sy * ds->sy / ds->n) / (ds->n - 1.0);
	double vr = (rs->syy - rs->sy * rs->sy / rs->n) / (rs->n - 1.0);
	double s;

	r->spool = sqrt(((ds->n - 1.0) * vd + (rs->n - 1.0) * vr) / (ds->n + rs->n - 2.0));
	s = r->spool * sqrt(1.0 / ds->n + 1.0 / rs->n);
	r->d = fpl_ministat_avg(ds) - fpl_ministat_avg(rs);
	r->e = t * s;
	r->pct = r->d * 100 / fpl_ministat_avg(rs);
	r->pct_e = r->e * 100 / fpl_ministat_avg(rs);
	r->different = fabs(r->d) > r->e;
}
