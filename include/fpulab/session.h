/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A measuring session: the one way to run a benchmark, the fpulab command's way. */
#ifndef FPULAB_SESSION_H
#define FPULAB_SESSION_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/bench.h"
#include "fpulab/harness.h"
#include "fpulab/result.h"

/*
 * A session holds what every result needs once per process: the CPU
 * snapshot, the pinned clock and its self-checks, the host object, the
 * AMX permission asked for, the kernel trace. Every figure of its result
 * comes with them. The simple use:
 *
 *	struct fpl_session_cfg cfg = FPL_SESSION_CFG_INIT;
 *	struct fpl_session *s;
 *	struct fpl_result *r;
 *	struct fpl_optval o[] = { { "state", "avx512" } };
 *
 *	err = fpl_session_open(&s, &cfg, &diag);	   snapshot, pin, clock, self-check
 *	err = fpl_session_run(s, "ctxsw", o, 1, &diag);	   as often as needed
 *	err = fpl_session_close(s, &r);		   clock again, drift; r is the caller's
 *
 * A command that must refuse bad options before it measures anything uses
 * the steps: fpl_session_new, fpl_session_ask_amx (before anything installs
 * a sigaltstack), fpl_session_prepare per benchmark, fpl_session_start,
 * fpl_session_call per benchmark, fpl_session_finish, fpl_session_free.
 * Nothing here prints or exits.
 */
struct fpl_session_cfg {
	int cpu;			/* pin to this CPU; -1: the CPU it runs on now */
	bool quick;			/* the suite's settings */
	double budget_s;		/* per benchmark run; 0: each benchmark's default */
	bool kernel_trace;		/* the kernel's x86_fpu events per run (root, tracefs) */
	const char *amx_by;		/* non-NULL: ask for AMX tile data first, asked by this */
	volatile sig_atomic_t *stop;	/* set asynchronously: stop soon, keep what was taken */
	char *const *argv;		/* the command line, for host.command; NULL: none */
	/* Optional: how far a benchmark is (0..1), what it does now. */
	void (*progress)(void *arg, const char *bench, double frac, const char *what);
	void *progress_arg;
};

#define FPL_SESSION_CFG_INIT { .cpu = -1 }

/* AMX tile-data permission: who asked, the answer, the permitted mask before and after. */
struct fpl_session_amx {
	bool asked;
	int err;			/* 0 granted, or -errno */
	char by[96];			/* "--amx", "xsave --mask tiledata", "xsave (the benchmark itself)" */
	char msg[sizeof(((struct fpl_diag *)0)->msg)];
	uint64_t before, after;
};

struct fpl_session {
	struct fpl_session_cfg cfg;
	struct fpl_cpu *cpu;		/* read when the session is made */
	struct fpl_clock *clock;	/* from fpl_session_start */
	struct fpl_result *result;	/* runs and host, filled as benchmarks run */
	struct fpl_selfcheck selfcheck;
	cpu_set_t cpus_start;		/* the affinity before the pin */
	bool have_cpus_start;
	struct fpl_session_amx amx;
	struct fpl_ktrace *ktrace;	/* open from start to finish with cfg.kernel_trace */
	char ktrace_skip[512];		/* why not, when it could not be opened */
	bool started, finished;
};

/* A session not yet measuring: the CPU read, an empty result. 0 or -ENOMEM. */
int fpl_session_new(struct fpl_session **out, const struct fpl_session_cfg *cfg);
void fpl_session_free(struct fpl_session *s);

/*
 * ARCH_REQ_XCOMP_PERM for AMX tile data, once, now: before any benchmark
 * installs a sigaltstack (the kernel refuses it with a small one), or
 * between two benchmarks (none leaves a sigaltstack installed; the default
 * suite asks just before its tile rows). A refusal is recorded (s->amx,
 * host.amx_permission and a warning at start, or at once when the session
 * has started), not an error: the cells needing tiles then skip.
 */
void fpl_session_ask_amx(struct fpl_session *s, const char *by);

/*
 * A benchmark with its options checked and parsed once, by its descriptor
 * and its own .check on this CPU, into the configuration its .run receives.
 */
struct fpl_bench_call {
	const struct fpl_bench *bench;
	const struct fpl_optval *opts;	/* the caller's, kept as they are */
	size_t nopts;
	void *cfg;			/* bench->cfg_size bytes, or NULL */
};

/*
 * Check and parse a benchmark's options before any measurement (a command
 * refuses bad input here). 0; -EINVAL with diag naming the option; -ENOENT
 * when no benchmark has that name; -ENOTSUP with the reason in diag when
 * nothing asked for can be measured on this CPU (a state, mask or
 * implementation it lacks: exit 77 before anything is measured); -ENOMEM.
 * 0 with diag->msg set: one notice to show (what "widest" is here).
 * fpl_bench_call_free after.
 */
int fpl_session_prepare(const struct fpl_session *s, const char *bench,
			const struct fpl_optval *opts, size_t nopts, struct fpl_bench_call *call,
			struct fpl_diag *diag);
void fpl_bench_call_free(struct fpl_bench_call *call);
/*
 * A benchmark that prepare refused with -ENOTSUP, recorded as one skipped
 * run with the options given as its params: -ENOTSUP (or -ENOMEM).
 */
int fpl_session_skip(struct fpl_session *s, const char *bench, const struct fpl_optval *opts,
		      size_t nopts, const char *why);
/*
 * Started without measuring anything (every benchmark asked for refused
 * with -ENOTSUP): the host object without a clock, no pin, no self-check,
 * so that the result document still says what was skipped and why. 0 or
 * -ENOMEM with diag.
 */
int fpl_session_start_unmeasured(struct fpl_session *s, struct fpl_diag *diag);

/*
 * Pin, create the clock, run the self-checks, build the host object, note
 * the load, open the kernel trace. 0; -EINVAL with diag when cfg.cpu cannot
 * be had (bad input); other -errno with diag.
 */
int fpl_session_start(struct fpl_session *s, struct fpl_diag *diag);

/*
 * Run one benchmark by name into s->result (prepare, call, free). A
 * benchmark this CPU cannot run is recorded as a skipped run with its
 * reason. 0 when something was measured; -ENOTSUP when everything it added
 * was skipped; -EINVAL with diag for bad options (the benchmark's own
 * word); -EINTR when cfg.stop was set (what was taken is kept, a warning
 * says so); -ENOENT for an unknown name; other -errno with diag.
 * s->cfg.budget_s may be changed between runs.
 */
int fpl_session_run(struct fpl_session *s, const char *bench, const struct fpl_optval *opts,
		    size_t nopts, struct fpl_diag *diag);
/* The same for a prepared call (it may be called again). */
int fpl_session_call(struct fpl_session *s, const struct fpl_bench_call *call,
		     struct fpl_diag *diag);

/*
 * The end of the measurement: the clock and the self-checks again (drift,
 * contention that came during the run), the load, the masks; the kernel
 * trace closed (its tracefs instance removed). Once; the result stays in
 * s->result.
 */
void fpl_session_finish(struct fpl_session *s);

/* new, ask_amx (cfg.amx_by), start; on failure nothing is left open. */
int fpl_session_open(struct fpl_session **out, const struct fpl_session_cfg *cfg,
		     struct fpl_diag *diag);
/* finish, hand the result to the caller (*out, to free), free the session. 0. */
int fpl_session_close(struct fpl_session *s, struct fpl_result **out);

/*
 * Lines for people, for a command to show at start: how the clock was set
 * up ("pinned to CPU 1; TSC 2.5961 GHz (...); ... core clock 3.667 GHz,
 * estimated (...)"), and the kernel trace ("kernel trace: INSTANCE
 * (trace_clock x86-tsc)" or "--kernel-trace skipped: why"; "" without it).
 */
void fpl_session_clock_line(const struct fpl_session *s, char *buf, size_t n);
void fpl_session_ktrace_line(const struct fpl_session *s, char *buf, size_t n);

/*
 * Where a result goes: path, or, when the measurement was interrupted and
 * a regular file is already there, "<path>.interrupted" beside it (a good
 * file from an earlier run is kept). Into buf (n bytes); NULL for no path.
 */
const char *fpl_session_out_file(const char *path, bool interrupted, char *buf, size_t n);

#endif
