/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The ping-pong behind ctxsw: two tasks, two pipes, one byte, optional live state before each write. */
#ifndef FPULAB_BENCH_PINGPONG_H
#define FPULAB_BENCH_PINGPONG_H

#include <stdbool.h>
#include <stdint.h>

#include "livestate.h"
#include "tasks.h"

#define FPL_PP_QUIT	0xff	/* the byte that ends the echo task */

/* What each task saw, written by the task itself (shared memory for processes). */
struct fpl_pp_seen {
	char cpus[64];			/* sched_getaffinity at start, as a CPU list */
	int ncpus;
	int cpu_end;			/* sched_getcpu when it stopped */
	int tid;			/* its thread id (for the kernel trace) */
	uint64_t xin_and[FPL_LIVE_MAX], xin_or[FPL_LIVE_MAX], checks[FPL_LIVE_MAX];
	int amx_first_use;		/* fpl_live_first_use() in this task: 0, -errno; 1: not run */
	/* This task's own signal frame after the run (its active state's size); 0: not probed. */
	uint32_t frame_xstate_size;
	uint64_t frame_xfeatures;
};

struct fpl_pp_shared {
	struct fpl_pp_seen seen[2];		/* 0: initiator, 1: echo */
};

struct fpl_pp {
	int p1[2], p2[2];		/* initiator -> echo, echo -> initiator */
	int p3[2];			/* the anchor's self-pipe, in the initiator alone */
	bool threads;
	unsigned nstates;		/* 0: no state set at all */
	bool each;			/* set the state before every write (else once per batch) */
	struct fpl_live live;
	struct fpl_pp_shared *sh;
	struct fpl_task echo;
};

/*
 * Echo task body: read a byte (the state index), put that state live (before
 * every write, or when it changes with each false), write it back. Samples
 * XINUSE every 64th round trip per state. Ends on FPL_PP_QUIT or EOF.
 */
int fpl_pp_echo(void *arg);
/*
 * One sample in the calling (initiating) task: n round trips in state st;
 * *ns the mean in ns (CLOCK_MONOTONIC_RAW around the batch), ticks[i] (when
 * not NULL) each round trip in TSC ticks (lfence;rdtsc between them).
 */
int fpl_pp_batch(struct fpl_pp *pp, unsigned st, unsigned long n, double *ns, uint32_t *ticks);
/*
 * The in-run anchor: n times, the initiator writes one byte to its own pipe
 * (p3, opened here on first use) and reads it back: the system calls and
 * pipe code of a round trip without the context switch, no state set. *ns
 * per write+read pair. 0 or -errno.
 */
int fpl_pp_anchor(struct fpl_pp *pp, unsigned long n, double *ns);
/* 2 n XRSTORs of state st back to back: ns per round trip's worth. */
double fpl_pp_set_cost(struct fpl_pp *pp, unsigned st, unsigned long n);
/* The calling task's affinity into s (CPU list and count). */
void fpl_pp_seen_start(struct fpl_pp_seen *s);
/* Send the quit byte, reap the echo task (killed if it does not end within 1 s). */
void fpl_pp_stop_echo(struct fpl_pp *pp);
/* Close the pipes, free the images and the shared page. */
void fpl_pp_free(struct fpl_pp *pp);
/* CLOCK_MONOTONIC_RAW in ns. */
uint64_t fpl_pp_now_ns(void);

#endif
