/* SPDX-License-Identifier: GPL-3.0-or-later */
/* will-it-scale test cases (context_switch1, signal1): tasks, placement and per-second counts. */
#ifndef FPULAB_WIS_H
#define FPULAB_WIS_H

#include <signal.h>
#include <stdbool.h>

#include "fpulab/base.h"

#define FPL_WIS_MAX_TASKS	2048	/* as will-it-scale's MAX_TASKS */
#define FPL_WIS_WARMUP		5	/* its WARMUP_ITERATIONS: 6 lines before "measurement" */

enum fpl_wis_case {
	FPL_WIS_CONTEXT_SWITCH1,	/* pipe ping-pong, 2 per round trip on the initiating task */
	FPL_WIS_SIGNAL1,		/* raise(SIGUSR1) to an empty handler, 1 per signal */
};

enum fpl_wis_bind {
	FPL_WIS_BIND_CORE,	/* task i on core i % cores (will-it-scale's default) */
	FPL_WIS_BIND_PU,	/* on hardware thread i % threads (-m) */
	FPL_WIS_BIND_NONE,	/* -n */
};

struct fpl_wis_cfg {
	enum fpl_wis_case tcase;
	bool threads;		/* _threads: pthreads; else _processes: fork */
	unsigned tasks;		/* -t: counting tasks (context_switch1: pairs) */
	enum fpl_wis_bind bind;
};

/* "Context switch via pipes", "signal delivery": will-it-scale's testcase_description. */
const char *fpl_wis_description(enum fpl_wis_case c);

/*
 * Called with seq 0 (counts NULL) once every task is running, then once a
 * second with seq 1, 2, ... and each counting task's total so far. Return
 * nonzero to stop. The benchmark never prints: the caller formats.
 */
typedef int (*fpl_wis_tick_fn)(void *arg, unsigned seq, const unsigned long long *counts,
			       unsigned n);

/*
 * Start the tasks, placed as will-it-scale places them (hwloc: core or PU
 * number i % count; a context_switch1 pair shares its place), tick until the
 * callback or *stop says so, end and reap every task. 0; -EINTR when stopped
 * by *stop; -errno with diag naming the call that failed (fork, pipe, ...).
 */
int fpl_wis_run(const struct fpl_wis_cfg *cfg, fpl_wis_tick_fn tick, void *arg,
		volatile sig_atomic_t *stop, struct fpl_diag *diag);

#endif
