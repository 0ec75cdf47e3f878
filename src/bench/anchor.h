/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The in-run anchor of the ping-pong: a self-pipe per round, the ratio to it, rounds that waited. */
#ifndef FPULAB_BENCH_ANCHOR_H
#define FPULAB_BENCH_ANCHOR_H

#include <stdbool.h>
#include <stddef.h>

#include "fpulab/result.h"

/*
 * One round of a ping-pong: the batch mean of each state (ns per round
 * trip), the anchor (ns per self-pipe write+read in the same round) and the
 * run delay both tasks accumulated over the round (schedstat's second
 * field: runnable while another task ran), ns per round trip; NaN where
 * unread.
 */
struct fpl_anchor_round {
	double rt[2];
	double anchor;
	double wait;
};

/*
 * Rounds that waited for the CPU beyond the ping-pong's own hand-offs:
 * wait above FPL_ANCHOR_WAIT_X times the run's median wait plus
 * FPL_ANCHOR_WAIT_NS. A round with an unread wait is not flagged. flag[i]
 * set per round; returns the count flagged.
 */
#define FPL_ANCHOR_WAIT_X	3.0
#define FPL_ANCHOR_WAIT_NS	50.0
size_t fpl_anchor_flag(const struct fpl_anchor_round *r, size_t n, bool *flag);

/*
 * The anchored figures into run: anchor_ns and run_delay_ns (every round),
 * round_trip_per_anchor (or _a and _b for nst 2: each state's batch over
 * the round's anchor) over the rounds not flagged, and observed.anchor
 * (what the anchor is, what it cancels and cannot, rounds, flagged, the
 * rule). 0 or -ENOMEM.
 */
int fpl_anchor_record(struct fpl_run *run, const struct fpl_anchor_round *r, size_t n,
		      unsigned nst);

#endif
