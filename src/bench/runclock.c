// SPDX-License-Identifier: GPL-3.0-or-later
/* A measurement's own clock figures (core/TSC ratio around it) and its metrics in the other time units. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		snprintf(buf, size, "core cycles %s: %sTSC ticks x %.4f, the clock's start "
			 "figure (no estimate around this measurement)", fpl_clock_core_method(c),
			 from, rc->ratio);
	else if (isfinite(rc->before) && rc->before > 0 && isfinite(rc->after) && rc->after > 0)
		snprintf(buf, size, "core cycles %s: %sTSC ticks x the core/TSC ratio estimated "
			 "right before and after the measurement on the measuring task's CPU, "
			 "their mean (observed core_per_tsc_before, core_per_tsc_after)",
			 fpl_clock_core_method(c), from);
	else
		snprintf(buf, size, "core cycles %s: %sTSC ticks x %.4f, the core/TSC ratio "
			 "estimated %s the measurement on the measuring task's CPU (observed "
			 "core_per_tsc_%s; the other estimate failed)", fpl_clock_core_method(c),
			 from, rc->ratio, isfinite(rc->before) && rc->before > 0 ? "right before" :
			 "right after", isfinite(rc->before) && rc->before > 0 ? "before" : "after");
}

enum fpl_metric_conv fpl_runclock_cycles_conv(const struct fpl_clock *c)
{
	return c->core_source == FPL_CORE_RDPMC ? FPL_CONV_CYCLES_COUNTED :
						  FPL_CONV_CYCLES_ESTIMATED;
}

struct fpl_metric *fpl_metric_scaled(struct fpl_run *run, const struct fpl_metric *src,
				     const char *name, const char *unit, double factor,
				     const char *how, enum fpl_metric_conv conv)
{
	struct fpl_method_parts p;
	char *what = NULL, *timing = NULL, *up = NULL;
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, NULL);
	struct fpl_metric_how h = *fpl_metric_how(src);
	int err = -ENOMEM;

	fpl_metric_method_parts(src, &p);
	/* the unit part goes on from src's: "TSC ticks per signal ...; ns from TSC ticks ..." */
	if (!m || !(what = strndup(p.what, p.what_len)) ||
	    !(timing = strndup(p.timing ? p.timing : "", p.timing_len)) ||
	    asprintf(&up, "%.*s%s%s", (int)p.unit_len, p.unit, p.unit_len ? "; " : "", how) < 0) {
		up = NULL;
		goto out;
	}
	h.conv = conv;
	err = fpl_metric_set_method(m, what, timing, up) || fpl_metric_copy_facts(m, src);
	fpl_metric_set_how(m, &h);
	for (size_t i = 0; !err && i < src->n; i++)
		err = fpl_metric_add(m, src->samples[i] * factor);
out:
	free(what);
	free(timing);
	free(up);
	return err ? NULL : m;
}
