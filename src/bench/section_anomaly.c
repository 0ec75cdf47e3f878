// SPDX-License-Identifier: GPL-3.0-or-later
/* A section run's figure that cannot be true: a cost whose whole 95% interval lies below zero. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "section_work.h"
#include "fpulab/stats.h"

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
				 "cannot cost less than none. Likely cause: interference that hit "
				 "the modes unequally (the run's load and preemptions are in its "
				 "observations); in a file from an fpulab whose workloads did not end "
				 "with VZEROUPPER, Intel's dirty-upper penalty: each section's XRSTOR "
				 "of init owner state cleaned the upper state, so the code around the "
				 "work ran faster (METHOD.md). A fault of the measurement, not a "
				 "speedup", costs[i], lo, hi);
		return buf;
	}
	return NULL;
}
