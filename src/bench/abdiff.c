// SPDX-License-Identifier: GPL-3.0-or-later
/* A/B differences with t intervals (Welch and paired) through GSL's t distribution. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "abdiff.h"

static void finish(struct fpl_abdiff *d)
{
	d->t = gsl_cdf_tdist_Pinv(1 - (1 - d->conf) / 2, d->df);
	d->lo = d->diff - d->t * d->se;
	d->hi = d->diff + d->t * d->se;
	d->pct = 100 * d->diff / d->mean_a;
	d->pct_lo = 100 * d->lo / d->mean_a;
	d->pct_hi = 100 * d->hi / d->mean_a;
}

static void from_ttest(struct fpl_abdiff *d, const struct fpl_ttest *t)
{
	d->mean_a = t->center_a;
	d->mean_b = t->center_b;
	d->diff = t->diff;
	d->se = t->se;
	d->df = t->df;
	d->t = t->tcrit;
	d->lo = t->lo;
	d->hi = t->hi;
	d->pct = 100 * d->diff / d->mean_a;
	d->pct_lo = 100 * d->lo / d->mean_a;
	d->pct_hi = 100 * d->hi / d->mean_a;
}

int fpl_abdiff_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
		     struct fpl_abdiff *d)
{
	struct fpl_ttest t;
	int err = fpl_welch(a, na, b, nb, conf * 100, &t);

	if (err)
		return err;
	d->test = "Welch two-sample t";
	d->step = 0;
	d->na = na;
	d->nb = nb;
	d->conf = conf;
	from_ttest(d, &t);
	return 0;
}

int fpl_abdiff_yuen(const double *a, size_t na, const double *b, size_t nb, double trim,
		    double conf, struct fpl_abdiff *d)
{
	double *sa = malloc(na * sizeof(*sa)), *sb = malloc(nb * sizeof(*sb));
	struct fpl_ttest t;
	int err = -ENOMEM;

	if (sa && sb) {
		memcpy(sa, a, na * sizeof(*sa));
		memcpy(sb, b, nb * sizeof(*sb));
		fpl_sort(sa, na);
		fpl_sort(sb, nb);
		err = fpl_yuen_sorted(sa, na, sb, nb, trim, conf * 100, &t);
	}
	free(sa);
	free(sb);
	if (err)
		return err;
	d->test = trim == 20 ? "Yuen trimmed t (20% each end)" : "Yuen trimmed t";
	d->step = 0;
	d->na = na;
	d->nb = nb;
	d->conf = conf;
	from_ttest(d, &t);
	return 0;
}

int fpl_abdiff_paired(const double *a, const double *b, size_t n, double conf,
		      struct fpl_abdiff *d)
{
	double *x;

	if (n < 2)
		return -EINVAL;
	x = malloc(n * sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		x[i] = b[i] - a[i];
	d->test = "paired t (per-round differences)";
	d->step = 0;
	d->na = d->nb = n;
	d->conf = conf;
	d->mean_a = gsl_stats_mean(a, 1, n);
	d->mean_b = gsl_stats_mean(b, 1, n);
	d->diff = gsl_stats_mean(x, 1, n);
	d->se = gsl_stats_sd_m(x, 1, n, d->diff) / sqrt((double)n);
	d->df = (double)(n - 1);
	free(x);
	finish(d);
	return 0;
}

int fpl_abdiff_medians(const double *a, size_t na, const double *b, size_t nb, double step,
		       double conf, struct fpl_abdiff *d)
{
	int err = fpl_abdiff_welch(a, na, b, nb, conf, d);

	if (err || !(step > 0))
		return err;
	d->test = "Welch two-sample t on batch medians, +/- one timer step";
	d->step = step;
	d->lo -= step;
	d->hi += step;
	d->pct_lo = 100 * d->lo / d->mean_a;
	d->pct_hi = 100 * d->hi / d->mean_a;
	return 0;
}

int fpl_abdiff_resolved(const struct fpl_abdiff *d)
{
	return d->lo > 0 || d->hi < 0;
}

void fpl_abdiff_verdict(const struct fpl_abdiff *d, char *buf, size_t len)
{
	int level = (int)lround(d->conf * 100);

	char step[80] = "";

	if (d->step > 0)
		snprintf(step, sizeof(step), "; one timer step, %.3f%%, at each end",
			 100 * d->step / d->mean_a);
	if (fpl_abdiff_resolved(d))
		snprintf(buf, len, "%+.3f%% (%d%% CI %+.3f%% .. %+.3f%%%s)", fpl_shown(d->pct, 3),
			 level, fpl_shown(d->pct_lo, 3), fpl_shown(d->pct_hi, 3), step);
	else
		snprintf(buf, len, "no difference proven at %d%% (CI %+.3f%% .. %+.3f%%%s)", level,
			 fpl_shown(d->pct_lo, 3), fpl_shown(d->pct_hi, 3), step);
}

json_t *fpl_abdiff_json(const struct fpl_abdiff *d, const char *unit)
{
	char verdict[160];

	fpl_abdiff_verdict(d, verdict, sizeof(verdict));
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
			      "s:f, s:s}",
			      "test", d->test, "unit", unit, "n_a", (json_int_t)d->na,
			      "n_b", (json_int_t)d->nb, "mean_a", d->mean_a, "mean_b", d->mean_b,
			      "diff", d->diff, "ci_lo", d->lo, "ci_hi", d->hi, "pct", d->pct,
			      "pct_lo", d->pct_lo, "pct_hi", d->pct_hi, "df", d->df,
			      "conf", d->conf, "verdict", verdict);

	if (o && d->step > 0)
		json_object_set_new(o, "timer_step", json_real(d->step));
	return o;
}

struct fpl_metric *fpl_abdiff_metric(struct fpl_run *run, const struct fpl_metric *a,
				     const struct fpl_metric *b, const char *unit,
				     const char *method)
{
	size_t n = a->n < b->n ? a->n : b->n;
	struct fpl_metric *d = fpl_run_add_metric(run, "difference", unit, method);

	if (!d || !(d->extra = json_object()))
		return NULL;
	fpl_metric_set_how(d, fpl_metric_how(a));
	fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(d, b->samples[i] - a->samples[i]))
			return NULL;
	return d;
}

void fpl_abdiff_note(struct fpl_run *run, struct fpl_metric *d, const char *key,
		     const char *obs_key, const struct fpl_abdiff *t, const char *unit)
{
	char text[600];

	json_object_set_new(d->extra, key, fpl_abdiff_json(t, unit));
	if (!obs_key)
		return;
	fpl_abdiff_verdict(t, text, sizeof(text));
	fpl_run_obs_str(run, obs_key, text);
}
