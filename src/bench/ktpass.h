/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A traced pass: the kernel's x86_fpu events over exactly one bracketed batch of a benchmark. */
#ifndef FPULAB_BENCH_KTPASS_H
#define FPULAB_BENCH_KTPASS_H

#include <stdbool.h>
#include <sys/types.h>

#include "fpulab/bench.h"
#include "fpulab/ktrace.h"

/*
 * What fpulab's own model did per operation, where a benchmark has one
 * (section: its saves and restores of the owner, done in user space). It
 * is recorded next to the kernel's count, never compared with it: what the
 * kernel should show comes from fpl_kexpect_find() (model/kexpect.c).
 */
struct fpl_kt_model {
	double saves, restores;
	const char *why;
};

struct fpl_ktpass {
	pid_t tids[FPL_KT_MAX_TASKS];
	size_t ntids;
	char tag[64];
	bool on;
	long switches;			/* the calling thread's at the start (getrusage) */
};

/*
 * Start a pass when the session traces (env->ktrace): the calling thread's
 * id is listed; add other tasks' ids (reported by them) before the batch.
 * Returns true when tracing; false when not (or it failed: the run says why).
 */
bool fpl_ktpass_begin(const struct fpl_bench_env *env, struct fpl_ktpass *p, struct fpl_run *run,
		      const char *tag);
void fpl_ktpass_add_tid(struct fpl_ktpass *p, pid_t tid);
/*
 * End it: the events between the markers become the run's observed.kernel
 * (the first pass of a run) or observed.kernel.variants.NAME (later ones),
 * with ops operations named op, the calling thread's context switches over
 * the pass, what the kernel source says the counts should be for op on
 * this kernel (fpl_kexpect_find()) and model (may be NULL). 0 or -ENOMEM;
 * a trace that cannot be read is a note in the object, never a failure.
 */
int fpl_ktpass_end(const struct fpl_bench_env *env, struct fpl_ktpass *p, struct fpl_run *run,
		   const char *name, double ops, const char *op, const struct fpl_kt_model *model);

#endif
