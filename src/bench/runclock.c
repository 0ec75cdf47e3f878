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

/*
 * The ratio that converts is the run's one figure (c->core_per_tsc, the
 * summary's core clock), so that ctxsw's and signal's cycles are those of
 * every other table of the run (issue 32 item 4). The estimates around
 * the measurement are its evidence: observed, and a warning where their
 * mean is more than FPL_CLOCK_DRIFT_MAX_PCT from the run's figure.
 */
int fpl_runclock_end(struct fpl_clock *c, struct fpl_runclock *rc, struct fpl_run *run)
{
	bool b, a;
	double around, off;

	rc->after = fpl_clock_core_ratio(c);
	b = isfinite(rc->before) && rc->before > 0;
	a = isfinite(rc->after) && rc->after > 0;
	around = b && a ? (rc->before + rc->after) / 2 : b ? rc->before : rc->after;
	rc->fallback = !b && !a;
	rc->ratio = c->core_per_tsc;
	if ((b && fpl_run_obs_real(run, "core_per_tsc_before", rc->before)) ||
	    (a && fpl_run_obs_real(run, "core_per_tsc_after", rc->after)) ||
	    fpl_run_obs_real(run, "core_per_tsc", rc->ratio))
		return -ENOMEM;
	off = (around / rc->ratio - 1) * 100;
	if (!rc->fallback && fabs(off) > FPL_CLOCK_DRIFT_MAX_PCT)
		return fpl_run_warn(run, "the core/TSC ratio estimated around this measurement "
				    "(%.4f, observed core_per_tsc_before/after) is %+.1f%% from the "
				    "run's figure %.4f (%.2f GHz, the summary's core clock), which "
				    "converts it to cycles: the core clock moved, or the add chain was "
				    "contended; TSC ticks and ns are as measured", around, off,
				    rc->ratio, rc->ratio * c->tsc_hz / 1e9);
	return 0;
}

void fpl_runclock_cycles_text(const struct fpl_clock *c, const struct fpl_runclock *rc,
			      const char *from, char *buf, size_t size)
{
	snprintf(buf, size, "core cycles %s: %sTSC ticks x %.4f, the run's core/TSC figure "
		 "(observed core_per_tsc = host.clock.core_per_tsc_start, the summary's core "
		 "clock), the same for every table of the run; %s", fpl_clock_core_method(c), from,
		 rc->ratio, rc->fallback ? "no estimate around this measurement succeeded" :
		 "the estimates right before and after it on the measuring task's CPU are "
		 "observed core_per_tsc_before and core_per_tsc_after");
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
