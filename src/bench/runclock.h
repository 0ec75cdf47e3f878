/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A measurement's own clock figures (core/TSC ratio around it) and its metrics in the other time units. */
#ifndef FPULAB_BENCH_RUNCLOCK_H
#define FPULAB_BENCH_RUNCLOCK_H

#include "fpulab/clock.h"
#include "fpulab/result.h"

/*
 * Core cycles per TSC tick estimated right before and right after a
 * measurement (fpl_clock_core_ratio, about 20 ms each) on the calling
 * thread's CPU, for benchmarks that time with the TSC or a system clock
 * rather than the harness (ctxsw, signal).
 */
struct fpl_runclock {
	double before, after;	/* evidence: observed, a warning where far from ratio */
	double ratio;		/* what converts: the run's figure, c->core_per_tsc */
	bool fallback;		/* neither estimate succeeded */
};

void fpl_runclock_begin(struct fpl_clock *c, struct fpl_runclock *rc);
/* The estimate after; both and the ratio in use (core_per_tsc) in observed. 0 or -ENOMEM. */
int fpl_runclock_end(struct fpl_clock *c, struct fpl_runclock *rc, struct fpl_run *run);

/*
 * "core cycles ...: <from>TSC ticks x the core/TSC ratio ..." for a
 * method's unit part: how rc's ratio was obtained; from says how TSC ticks came from the samples ("" for samples
 * in TSC ticks).
 */
void fpl_runclock_cycles_text(const struct fpl_clock *c, const struct fpl_runclock *rc,
			      const char *from, char *buf, size_t size);

/* How core cycles come from TSC ticks with c: the add chain's estimate, or counted. */
enum fpl_metric_conv fpl_runclock_cycles_conv(const struct fpl_clock *c);

/*
 * A new metric name in unit: every sample of src times factor, src's
 * family, kind and how but conv, method "<src's method>; <how>" with how
 * its unit part (after src's own, if any). NULL on ENOMEM.
 */
struct fpl_metric *fpl_metric_scaled(struct fpl_run *run, const struct fpl_metric *src,
				     const char *name, const char *unit, double factor,
				     const char *how, enum fpl_metric_conv conv);

#endif
