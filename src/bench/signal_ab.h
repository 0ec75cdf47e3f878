/* SPDX-License-Identifier: GPL-3.0-or-later */
/* signal --ab: the difference of two interleaved states per round, with its intervals. */
#ifndef FPULAB_BENCH_SIGNAL_AB_H
#define FPULAB_BENCH_SIGNAL_AB_H

#include <stdbool.h>

#include "fpulab/result.h"

/*
 * From the two arms' per-round round trips (TSC ticks per signal, a[i] and
 * b[i] of the same round): metric "difference" (b - a per round, TSC
 * ticks, kind difference) with Welch, paired and Yuen in its extra, and
 * observed b_minus_a_paired (the figure to quote: the rounds alternate A B,
 * B A, so each round is a pair), b_minus_a_welch, b_minus_a_yuen, and
 * aa_control when both arms are one state. 0, -ENOMEM.
 */
int fpl_signal_ab_record(struct fpl_run *run, const struct fpl_metric *a,
			 const struct fpl_metric *b, bool aa);

#endif
