// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A section run's figure that cannot be true: a cost whose whole 95%
 * interval lies below zero, and not by chance among the many intervals
 * one section table holds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "section_work.h"
#include "fpulab/stats.h"

static const char *const costs[] = { "section_cycles", "one_section_cycles" };

/* The 95% interval of cost i of run in lo, hi; false without one. */
static bool cost_ci(const struct fpl_run *run, size_t i, double *lo, double *hi)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, costs[i]);
	json_t *l = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_lo") : NULL;
	json_t *h = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_hi") : NULL;

	if (!json_is_number(l) || !json_is_number(h))
		return false;
	*lo = json_number_value(l);
	*hi = json_number_value(h);
	return true;
}

static bool in_family(const struct fpl_run *run)
{
	return !run->skipped && !strcmp(run->bench, "section");
}

/*
 * The family: every cost interval of r's section runs (run itself when r
 * is NULL). For cost i of run, *adj gets its sign test's Holm-adjusted
 * p-value and *m the family's size. 0, or -ENOENT when run has no such
 * interval, -ENOMEM.
 */
static int family_p(const struct fpl_result *r, const struct fpl_run *run, size_t i,
		    double *adj, size_t *m)
{
	size_t cap = (r ? r->nruns : 1) * FPL_ARRAY_SIZE(costs), n = 0, at = SIZE_MAX;
	double *p = malloc(cap * sizeof(*p)), *a = malloc(cap * sizeof(*a)), lo, hi;
	int err = -ENOMEM;

	if (p && a) {
		for (size_t k = 0; k < (r ? r->nruns : 1); k++) {
			const struct fpl_run *x = r ? r->runs[k] : run;

			for (size_t j = 0; in_family(x) && j < FPL_ARRAY_SIZE(costs); j++) {
				const struct fpl_metric *c = fpl_run_find_metric(x, costs[j]);

				if (!c || !cost_ci(x, j, &lo, &hi))
					continue;
				if (x == run && j == i)
					at = n;
				p[n++] = fpl_sign_p_below(c->samples, c->n, 0);
			}
		}
		err = at == SIZE_MAX ? -ENOENT : fpl_holm(p, n, a);
		if (!err) {
			*adj = a[at];
			*m = n;
		}
	}
	free(p);
	free(a);
	return err;
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

/*
 * Below zero beyond chance: the interval below zero and the sign test's
 * adjusted p under 2.5% (the one side of a two-sided 95%). A cost stored
 * without samples (NaN p, Holm's 1) has only its interval to go by.
 */
static bool beyond_chance(const struct fpl_result *r, const struct fpl_run *run, size_t i,
			  double *lo, double *hi, double *adj, size_t *m)
{
	const struct fpl_metric *c = fpl_run_find_metric(run, costs[i]);

	if (!in_family(run) || !cost_ci(run, i, lo, hi) || !(*hi < 0))
		return false;
	if (isnan(fpl_sign_p_below(c->samples, c->n, 0)) ||
	    (family_p(r, run, i, adj, m) && (!r || family_p(NULL, run, i, adj, m)))) {
		*adj = NAN;	/* no samples, or no memory for the test: the interval alone */
		return true;
	}
	return *adj < 0.025;
}

const char *fpl_section_anomaly(const struct fpl_result *r, const struct fpl_run *run, char *buf,
				size_t size)
{
	double lo, hi, adj = NAN, pct;
	size_t m = 0;
	char test[160] = "";

	for (size_t i = 0; run && i < FPL_ARRAY_SIZE(costs); i++) {
		if (!beyond_chance(r, run, i, &lo, &hi, &adj, &m))
			continue;
		if (m && isfinite(adj))
			snprintf(test, sizeof(test), " (sign test, Holm-adjusted over the %zu cost "
				 "intervals of this result: p = %.2g)", m, adj);
		pct = call_diff_pct(run);
		if (isfinite(pct) && pct < 1)
			snprintf(buf, size, "%s [%.0f, %.0f] cycles lies below zero%s: a section "
				 "cannot cost less than none. Likely cause: inside and outside "
				 "differ by %.2f%% of a call, less than code placement and "
				 "interference move two loops; the method does not resolve this "
				 "cost here. A fault of the measurement, not a speedup",
				 costs[i], lo, hi, test, pct);
		else
			snprintf(buf, size, "%s [%.0f, %.0f] cycles lies below zero%s: a section "
				 "cannot cost less than none. Likely cause: interference that hit "
				 "the modes unequally (the run's load and preemptions are in its "
				 "observations); in a file from an fpulab whose workloads did not end "
				 "with VZEROUPPER, Intel's dirty-upper penalty: each section's XRSTOR "
				 "of init owner state cleaned the upper state, so the code around the "
				 "work ran faster (METHOD.md). A fault of the measurement, not a "
				 "speedup", costs[i], lo, hi, test);
		return buf;
	}
	return NULL;
}

size_t fpl_section_below_zero(const struct fpl_result *r, const struct fpl_run *run,
			      size_t *family)
{
	size_t below = 0, n = 0;
	double lo, hi;

	for (size_t k = 0; k < r->nruns; k++)
		for (size_t j = 0; in_family(r->runs[k]) && j < FPL_ARRAY_SIZE(costs); j++)
			if (cost_ci(r->runs[k], j, &lo, &hi)) {
				n++;
				below += hi < 0 && (!run || run == r->runs[k]);
			}
	*family = n;
	return below;
}

bool fpl_section_warning_stale(const struct fpl_result *r, const struct fpl_run *run,
			       const char *text)
{
	const char *stored = fpl_run_obs_get_str(run, "anomaly");
	char buf[768];

	return stored && text && !strcmp(stored, text) &&
	       !fpl_section_anomaly(r, run, buf, sizeof(buf));
}
