// SPDX-License-Identifier: GPL-3.0-or-later
/* A measurement's own clock figures (core/TSC ratio around it) and its metrics in the other time units. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runclock.h"

void fpl_runclock_begin(struct fpl_clock *c, struct fpl_runclock *rc)
{
	rc->before = fpl_clock_core_ratio(c);
	rc->after = NAN;
	rc->ratio = NAN;
	rc->fallback = false;
}

int fpl_runclock_end(struct fpl_clock *c, struct fpl_runclock *rc, struct fpl_run *run)
{
	bool b, a;

	rc->after = fpl_clock_core_ratio(c);
	b = isfinite(rc->before) && rc->before > 0;
	a = isfinite(rc->after) && rc->after > 0;
	rc->ratio = b && a ? (rc->before + rc->after) / 2 : b ? rc->before : rc->after;
	rc->fallback = !b && !a;
	if (rc->fallback)
		rc->ratio = c->core_per_tsc;
	if ((b && fpl_run_obs_real(run, "core_per_tsc_before", rc->before)) ||
	    (a && fpl_run_obs_real(run, "core_per_tsc_after", rc->after)))
		return -ENOMEM;
	return 0;
}

void fpl_runclock_cycles_text(const struct fpl_clock *c, const struct fpl_runclock *rc,
			      const char *from, char *buf, size_t size)
{
	if (rc->fallback)
		snprintf(buf, size, "; core cycles %s: %sTSC ticks x %.4f, the clock's start "
			 "figure (no estimate around this measurement)", fpl_clock_core_method(c),
			 from, rc->ratio);
	else if (isfinite(rc->before) && rc->before > 0 && isfinite(rc->after) && rc->after > 0)
		snprintf(buf, size, "; core cycles %s: %sTSC ticks x the core/TSC ratio estimated "
			 "right before and after the measurement on the measuring task's CPU, "
			 "their mean (observed core_per_tsc_before, core_per_tsc_after)",
			 fpl_clock_core_method(c), from);
	else
		snprintf(buf, size, "; core cycles %s: %sTSC ticks x %.4f, the core/TSC ratio "
			 "estimated %s the measurement on the measuring task's CPU (observed "
			 "core_per_tsc_%s; the other estimate failed)", fpl_clock_core_method(c),
			 from, rc->ratio, isfinite(rc->before) && rc->before > 0 ? "right before" :
			 "right after", isfinite(rc->before) && rc->before > 0 ? "before" : "after");
}

struct fpl_metric *fpl_metric_scaled(struct fpl_run *run, const struct fpl_metric *src,
				     const char *name, const char *unit, double factor,
				     const char *how)
{
	struct fpl_metric *m;
	char *meth;

	if (asprintf(&meth, "%s%s", src->method ? src->method : "", how) < 0)
		return NULL;
	m = fpl_run_add_metric(run, name, unit, meth);
	free(meth);
	for (size_t i = 0; m && i < src->n; i++)
		if (fpl_metric_add(m, src->samples[i] * factor))
			return NULL;
	return m;
}
