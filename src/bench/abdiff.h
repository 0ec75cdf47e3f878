/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The difference between two interleaved variants with its confidence interval. */
#ifndef FPULAB_BENCH_ABDIFF_H
#define FPULAB_BENCH_ABDIFF_H

#include <stddef.h>

#include <jansson.h>

/*
 * diff = mean(b) - mean(a), an interval at level conf, and the same as a
 * percentage of mean(a). Welch: two samples, unequal variances,
 * Welch-Satterthwaite degrees of freedom (fpl_welch in fpulab/stats.h). Paired: one-sample t on d[i] =
 * b[i] - a[i] (a and b taken side by side in the same round).
 */
struct fpl_abdiff {
	const char *test;
	size_t na, nb;
	double mean_a, mean_b;
	double diff, se, df, t, lo, hi;
	double pct, pct_lo, pct_hi;
	double conf;
	double step;		/* the timer's step in the unit, in lo and hi; 0: none */
};

/* 0, -EINVAL with fewer than 2 values on a side. */
int fpl_abdiff_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
		     struct fpl_abdiff *d);
int fpl_abdiff_paired(const double *a, const double *b, size_t n, double conf,
		      struct fpl_abdiff *d);
/* Yuen's trimmed t (trim percent cut from each end): robust to the odd preempted batch. */
int fpl_abdiff_yuen(const double *a, size_t na, const double *b, size_t nb, double trim,
		    double conf, struct fpl_abdiff *d);
/*
 * Welch on per-batch medians of single timings read with a timer of step
 * step (in their unit, > 0), with that step added to each end of the
 * interval. The median of values on a lattice is off the true median by
 * up to half a step, by the same amount in every batch where the batch's
 * spread is narrower than the step: that error does not shrink with more
 * batches, and two arms a fraction of a step apart can read a whole step
 * apart (ctxsw --ab init,init on the Zen 3 guest, TSC step 20 ns: +11.0
 * [9.8, 12.3] ns, issue 32 item 7). So a difference of medians is
 * resolved only beyond one step. step <= 0: fpl_abdiff_welch.
 */
int fpl_abdiff_medians(const double *a, size_t na, const double *b, size_t nb, double step,
		       double conf, struct fpl_abdiff *d);
struct fpl_run;
struct fpl_metric;
/*
 * An A/B run's "difference" metric: b's sample minus a's of the same round
 * (as many as the shorter has), in unit, a's timing facts, kind
 * difference, an empty extra for the tests the caller adds (the one A/B
 * recording of ctxsw and signal). NULL on -ENOMEM.
 */
struct fpl_metric *fpl_abdiff_metric(struct fpl_run *run, const struct fpl_metric *a,
				     const struct fpl_metric *b, const char *unit,
				     const char *method);
/*
 * One test into the difference's extra as key, and, with obs_key, its
 * verdict in words into the run's observed.
 */
void fpl_abdiff_note(struct fpl_run *run, struct fpl_metric *d, const char *key,
		     const char *obs_key, const struct fpl_abdiff *t, const char *unit);

/* True when the interval excludes 0. */
int fpl_abdiff_resolved(const struct fpl_abdiff *d);
/* {"test", "diff", "ci_lo", "ci_hi", "pct", "pct_lo", "pct_hi", "df", "conf", "verdict"} */
json_t *fpl_abdiff_json(const struct fpl_abdiff *d, const char *unit);
/*
 * "+0.21% (95% CI +0.05% .. +0.37%)" or "no difference proven at 95% (CI -0.1% .. +0.2%)";
 * with a step, "...; one timer step, 0.185%, at each end" inside the parentheses.
 */
void fpl_abdiff_verdict(const struct fpl_abdiff *d, char *buf, size_t len);

#endif
