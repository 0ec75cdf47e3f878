// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: Welch, pooled Student, Yuen's trimmed t, paired (trimmed) t, Mann-Whitney U, Holm. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "fpulab/stats.h"

static int conf_ok(double conf)
{
	return conf > 0 && conf < 100;
}

/*
 * Student's t quantile and tail. Values near DBL_MAX make the variances inf
 * and df NaN or inf, and GSL then fails through its error handler, whose
 * default aborts the process. Beyond 1e7 degrees of freedom the normal
 * distribution is the same to 7 digits.
 */
static double t_qinv(double q, double df)
{
	if (!(df > 0))
		return NAN;
	return df > 1e7 ? gsl_cdf_ugaussian_Qinv(q) : gsl_cdf_tdist_Qinv(q, df);
}

static double t_q(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	return df > 1e7 ? gsl_cdf_ugaussian_Q(t) : gsl_cdf_tdist_Q(t, df);
}

/* Fill t, p, tcrit and the interval from diff, se and df. */
static void interval(struct fpl_ttest *r, double conf)
{
	double alpha = 1.0 - conf / 100.0;

	r->tcrit = t_qinv(alpha / 2, r->df);
	if (r->se > 0) {
		r->t = r->diff / r->se;
		r->p = 2 * t_q(fabs(r->t), r->df);
	} else {
		r->t = NAN;
		r->p = NAN;
	}
	r->lo = r->diff - r->tcrit * r->se;
	r->hi = r->diff + r->tcrit * r->se;
}

/* The same for two centres: diff is center_b - center_a. */
static void finish(struct fpl_ttest *r, double conf)
{
	r->diff = r->center_b - r->center_a;
	interval(r, conf);
}

/* Both t tests: the means into r, the variances into *va and *vb; -EINVAL on too few values. */
static int means_vars(const double *a, size_t na, const double *b, size_t nb, double conf,
		      struct fpl_ttest *r, double *va, double *vb)
{
	if (na < 2 || nb < 2 || !conf_ok(conf))
		return -EINVAL;
	r->center_a = gsl_stats_mean(a, 1, na);
	r->center_b = gsl_stats_mean(b, 1, nb);
	*va = gsl_stats_variance_m(a, 1, na, r->center_a);
	*vb = gsl_stats_variance_m(b, 1, nb, r->center_b);
	return 0;
}

int fpl_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
	      struct fpl_ttest *r)
{
	double va, vb, qa, qb;

	if (means_vars(a, na, b, nb, conf, r, &va, &vb))
		return -EINVAL;
	qa = va / na;
	qb = vb / nb;
	r->se = sqrt(qa + qb);
	r->df = qa + qb > 0 ? (qa + qb) * (qa + qb) /
		(qa * qa / (na - 1.0) + qb * qb / (nb - 1.0)) : na + nb - 2.0;
	finish(r, conf);
	return 0;
}

int fpl_student(const double *a, size_t na, const double *b, size_t nb, double conf,
		struct fpl_ttest *r)
{
	double va, vb, sp2;

	if (means_vars(a, na, b, nb, conf, r, &va, &vb))
		return -EINVAL;
	r->df = na + nb - 2.0;
	sp2 = ((na - 1.0) * va + (nb - 1.0) * vb) / r->df;
	r->se = sqrt(sp2 * (1.0 / na + 1.0 / nb));
	finish(r, conf);
	return 0;
}

double fpl_winsorized_var_sorted(const double *x, size_t n, size_t g)
{
	double lo = x[g], hi = x[n - g - 1], mean = 0, ss = 0;

	/* Two passes over the winsorized values without building them. */
	for (size_t i = 0; i < n; i++)
		mean += i < g ? lo : i >= n - g ? hi : x[i];
	mean /= n;
	for (size_t i = 0; i < n; i++) {
		double v = (i < g ? lo : i >= n - g ? hi : x[i]) - mean;

		ss += v * v;
	}
	return ss / (n - 1.0);
}

int fpl_yuen_sorted(const double *a, size_t na, const double *b, size_t nb, double trim,
		    double conf, struct fpl_ttest *r)
{
	return fpl_yuen_sorted_step(a, na, b, nb, trim, conf, 0, r);
}

int fpl_yuen_sorted_step(const double *a, size_t na, const double *b, size_t nb, double trim,
			 double conf, double q, struct fpl_ttest *r)
{
	size_t ga = fpl_trim_count(na, trim), gb = fpl_trim_count(nb, trim);
	size_t ha = na - 2 * ga, hb = nb - 2 * gb;
	double da, db;

	if (!(trim >= 0 && trim < 50) || !conf_ok(conf) || na < 2 || nb < 2 || ha < 2 || hb < 2)
		return -EINVAL;
	r->center_a = fpl_trimmed_mean_sorted(a, na, trim);
	r->center_b = fpl_trimmed_mean_sorted(b, nb, trim);
	/* Wilcox (2012), 5.3: d = (n - 1) s_w^2 / (h (h - 1)). */
	da = (na - 1.0) * fpl_winsorized_var_sorted(a, na, ga) / (ha * (ha - 1.0));
	db = (nb - 1.0) * fpl_winsorized_var_sorted(b, nb, gb) / (hb * (hb - 1.0));
	/* the rounding of each of the h values the trimmed mean keeps */
	if (q > 0) {
		da += q * q / 12 / ha;
		db += q * q / 12 / hb;
	}
	r->se = sqrt(da + db);
	r->df = da + db > 0 ? (da + db) * (da + db) /
		(da * da / (ha - 1.0) + db * db / (hb - 1.0)) : ha + hb - 2.0;
	finish(r, conf);
	return 0;
}

/* The finite pairs as d (and their a and b), in input order; how many. */
static size_t pair_values(const double *a, const double *b, size_t n, enum fpl_pair_scale scale,
			  double *d, double *ka, double *kb)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(a[i]) || !isfinite(b[i]) || (scale == FPL_PAIR_PCT && !(a[i] > 0)))
			continue;
		d[k] = scale == FPL_PAIR_PCT ? 100 * (b[i] / a[i] - 1) : b[i] - a[i];
		ka[k] = a[i];
		kb[k] = b[i];
		k++;
	}
	return k;
}

/* The rounding variance of one d: 2 q^2 / 12, in percent of a for PCT (its mean over the pairs). */
static double step_var(const double *ka, size_t n, enum fpl_pair_scale scale, double q)
{
	double v = 0;

	if (!(q > 0))
		return 0;
	if (scale == FPL_PAIR_DIFF)
		return 2 * q * q / 12;
	for (size_t i = 0; i < n; i++) {
		double qp = 100 * q / ka[i];

		v += 2 * qp * qp / 12 / (double)n;
	}
	return v;
}

int fpl_paired_t(const double *a, const double *b, size_t n, enum fpl_pair_scale scale,
		 double trim, double conf, double q, struct fpl_paired *r)
{
	double *d, *ka, *kb;
	size_t k, g, h;
	int err = -EINVAL;

	if (!(trim >= 0 && trim < 50) || !conf_ok(conf) || n < 2)
		return -EINVAL;
	d = malloc(3 * n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	ka = d + n;
	kb = d + 2 * n;
	k = pair_values(a, b, n, scale, d, ka, kb);
	g = fpl_trim_count(k, trim);
	h = k - 2 * g;
	if (k >= 2 && h >= 2) {
		struct fpl_ttest *t = &r->t;
		double var;

		fpl_sort(d, k);
		var = (k - 1.0) * fpl_winsorized_var_sorted(d, k, g) / (h * (h - 1.0)) +
		      step_var(ka, k, scale, q) / (double)h;
		r->n = k;
		r->scale = scale;
		fpl_sort(ka, k);
		fpl_sort(kb, k);
		t->center_a = fpl_trimmed_mean_sorted(ka, k, trim);
		t->center_b = fpl_trimmed_mean_sorted(kb, k, trim);
		t->diff = fpl_trimmed_mean_sorted(d, k, trim);
		t->se = sqrt(var);
		t->df = h - 1.0;
		interval(t, conf);
		err = 0;
	}
	free(d);
	return err;
}

int fpl_mann_whitney_sorted(const double *a, size_t na, const double *b, size_t nb,
			    struct fpl_mwu *r)
{
	size_t i = 0, j = 0, rank = 0;
	double rb = 0, ties = 0, n = (double)na + nb, dev, corr;

	if (!na || !nb)
		return -EINVAL;
	/* Merge the sorted samples; a run of equal values shares its mean rank. */
	while (i < na || j < nb) {
		double v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
		size_t ca = 0, cb = 0, t;

		while (i < na && a[i] == v)
			i++, ca++;
		while (j < nb && b[j] == v)
			j++, cb++;
		t = ca + cb;
		rb += cb * (rank + (t + 1) / 2.0);
		rank += t;
		ties += (double)t * t * t - t;
	}
	r->u = rb - nb * (nb + 1.0) / 2;
	r->mean = na * (double)nb / 2;
	r->sd = sqrt(na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1))));
	dev = r->u - r->mean;
	corr = dev > 0 ? 0.5 : dev < 0 ? -0.5 : 0;
	if (r->sd > 0) {
		r->z = (dev - corr) / r->sd;
		r->p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(fabs(r->z)));
	} else {
		r->z = NAN;
		r->p = NAN;
	}
	return 0;
}

static int holm_cmp(const void *x, const void *y, void *ctx)
{
	const double *p = ctx;
	double a = p[*(const size_t *)x], b = p[*(const size_t *)y];

	a = isnan(a) ? 1 : a;
	b = isnan(b) ? 1 : b;
	return a < b ? -1 : a > b;
}

double fpl_sign_p_below(const double *x, size_t n, double mu)
{
	unsigned int below = 0, differ = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] != mu) {
			differ++;
			below += x[i] < mu;
		}
	if (!differ)
		return NAN;
	/* P(X >= below) = P(X > below - 1); below = 0 gives 1 */
	return below ? gsl_cdf_binomial_Q(below - 1, 0.5, differ) : 1.0;
}

int fpl_holm(const double *p, size_t n, double *adj)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	double run = 0;

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), holm_cmp, (void *)p);
	for (size_t k = 0; k < n; k++) {
		double v = isnan(p[idx[k]]) ? 1 : p[idx[k]];

		v = fmin(1.0, (double)(n - k) * v);
		run = fmax(run, v);
		adj[idx[k]] = run;
	}
	free(idx);
	return 0;
}
