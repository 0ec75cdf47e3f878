// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers the section and xor benchmarks share with their commands: size lists, paired intervals, impossible costs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "fpulab/fpubench.h"
#include "fpulab/stats.h"

int fpl_parse_sizes(const char *s, size_t lo, size_t hi, size_t unit, size_t *out, size_t max,
		    size_t *n, struct fpl_diag *diag)
{
	char item[64];
	size_t k = 0;

	if (!s || !*s)
		return fpl_diag_set(diag, -EINVAL, "an empty list of sizes");
	while (*s) {
		size_t len = strcspn(s, ",");
		long long v;

		if (len == 0 || len >= sizeof(item))
			return fpl_diag_set(diag, -EINVAL, "'%.*s' is not a size", (int)len, s);
		memcpy(item, s, len);
		item[len] = 0;
		if (fpl_parse_int(item, &v) || v <= 0)
			return fpl_diag_set(diag, -EINVAL, "'%s' is not a size in bytes", item);
		if ((size_t)v < lo || (size_t)v > hi)
			return fpl_diag_set(diag, -EINVAL, "size %s is outside [%zu, %zu] bytes",
					    item, lo, hi);
		if (unit > 1 && (size_t)v % unit)
			return fpl_diag_set(diag, -EINVAL, "size %s is not a multiple of %zu bytes",
					    item, unit);
		if (k == max)
			return fpl_diag_set(diag, -EINVAL, "more than %zu sizes", max);
		out[k++] = (size_t)v;
		s += len;
		if (*s == ',' && !*++s)
			return fpl_diag_set(diag, -EINVAL, "a size list ends with ','");
	}
	*n = k;
	return 0;
}

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

static bool below_zero(const struct fpl_run *run, const char *name, double *lo, double *hi)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, name);
	json_t *l = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_lo") : NULL;
	json_t *h = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_hi") : NULL;

	if (!json_is_number(l) || !json_is_number(h))
		return false;
	*lo = json_number_value(l);
	*hi = json_number_value(h);
	return *hi < 0;
}

/* |median inside - median outside| as a percentage of outside; NaN without both. */
static double call_diff_pct(const struct fpl_run *run)
{
	const struct fpl_metric *in = fpl_run_find_metric(run, "inside_cycles");
	const struct fpl_metric *out = fpl_run_find_metric(run, "outside_cycles");
	struct fpl_ci a, b;

	if (!in || !out || fpl_median_ci(in->samples, in->n, &a) ||
	    fpl_median_ci(out->samples, out->n, &b) || !(b.estimate > 0))
		return NAN;
	return fabs(a.estimate - b.estimate) / b.estimate * 100;
}

const char *fpl_section_anomaly(const struct fpl_run *run, char *buf, size_t size)
{
	static const char *const costs[] = { "section_cycles", "one_section_cycles" };
	double lo, hi, pct;

	for (size_t i = 0; run && i < FPL_ARRAY_SIZE(costs); i++) {
		if (!below_zero(run, costs[i], &lo, &hi))
			continue;
		pct = call_diff_pct(run);
		if (isfinite(pct) && pct < 1)
			snprintf(buf, size, "%s [%.0f, %.0f] cycles lies below zero: a section "
				 "cannot cost less than none. Likely cause: inside and outside "
				 "differ by %.2f%% of a call, less than code placement and "
				 "interference move two loops; the method does not resolve this "
				 "cost here. A fault of the measurement, not a speedup",
				 costs[i], lo, hi, pct);
		else
			snprintf(buf, size, "%s [%.0f, %.0f] cycles lies below zero: a section "
				 "cannot cost less than none. Likely cause: the work left the upper "
				 "vector state dirty (no VZEROUPPER) and each section's XRSTOR of "
				 "init owner state cleaned it, so the code around the work ran "
				 "faster (Intel's dirty-upper penalty, METHOD.md); otherwise "
				 "interference that hit the modes unequally. A fault of the "
				 "measurement, not a speedup", costs[i], lo, hi);
		return buf;
	}
	return NULL;
}
