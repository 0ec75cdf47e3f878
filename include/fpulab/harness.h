/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The timing harness: warm-up, overhead removal by difference, interleaved variants, raw samples. */
#ifndef FPULAB_HARNESS_H
#define FPULAB_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/result.h"

/*
 * Runs reps bodies and returns the TSC ticks they took, timed inside with
 * fpl_tsc_begin()/fpl_tsc_end(). Set-up that must not be counted (state,
 * buffers) goes before fpl_tsc_begin(). Called many times, with different
 * reps; must not print, allocate in the timed region, or fail.
 */
typedef uint64_t (*fpl_timed_fn)(void *arg, uint64_t reps);

/*
 * One variant: one row of a table, one cell of a matrix. Its figures go into
 * run as metrics "<prefix>cycles", "<prefix>tsc", "<prefix>ns" (prefix may be
 * NULL). With empty set, a sample is (body(N) - empty(N)) / N: the empty body
 * is the same loop and set-up without the operation (the latency method's
 * state re-establishment, for instance). Without it, a sample is
 * (body(2N) - body(N)) / N, which removes everything that does not scale with N
 * (timer reads, call, set-up before the timed region) but keeps per-rep loop
 * cost, which is one predicted branch and a decrement.
 */
struct fpl_variant {
	const char *name;	/* for progress and diagnostics */
	fpl_timed_fn timed;
	fpl_timed_fn empty;	/* optional baseline */
	void *arg;
	double ops_per_rep;	/* operations in one body; 0 means 1 */
	struct fpl_run *run;	/* where the metrics go */
	const char *prefix;
	const char *method;	/* what one body is, for the method strings: "256 back-to-back XSAVEC" */
	/*
	 * The same with the cell's instruction and component written INSN and
	 * COMP, shared by the cells of one kind (the metrics' what_generic);
	 * NULL: none.
	 */
	const char *method_generic;
	/* Filled by the harness */
	uint64_t reps;		/* N per sample, chosen by calibration when cfg->reps is 0 */
	struct fpl_metric *m_cycles, *m_tsc, *m_ns;
};

/* The interference reference's floor, carried between harness calls (cfg->ref_floor). */
struct fpl_ref_floor {
	double tsc;		/* TSC ticks per reference op; 0: none yet */
	uint64_t reps;		/* reference ops per reading it was read with; 0: none yet */
};

struct fpl_harness_cfg {
	uint64_t reps;		/* N; 0: smallest N with body(N) >= clock->min_sample_tsc */
	size_t min_samples;	/* at least this many per variant, even past the budget */
	size_t max_samples;	/* at most this many per variant */
	double budget_s;	/* wall time for the whole call, warm-up included */
	double warmup_s;	/* spent running every variant before the first kept sample */
	double hard_s;		/* 0, or stop here even short of min_samples (3 at least) */
	/*
	 * 0, or after the warm-up read the core/TSC ratio and an IMUL
	 * reference loop until both are stable (harness.c), at most this long;
	 * each run gets observed settle_s and settled.
	 */
	double settle_s;
	/*
	 * false (default): convert to core cycles with the core/TSC ratio
	 * measured once per round (running median of 7); true: with the
	 * clock's start figure (tests with a made-up clock).
	 */
	bool ratio_at_start;
	/*
	 * With env->ktrace (default true): after the samples, one more body(N)
	 * of each variant bracketed by trace markers, its x86_fpu events in the
	 * run's observed.kernel, against the prediction that a body without
	 * system calls makes the kernel save and restore nothing.
	 */
	bool kernel_trace;
	/*
	 * true: between the samples of every round, read a save-path
	 * reference (FXSAVE64, or ref when set) and keep only the samples
	 * between quiet readings (bench/interference.h) where at least
	 * min_samples are, rounds going on past the budget and past
	 * max_samples (to hard_s, when set) until quiet_rounds (0:
	 * min_samples) rounds were quiet; false (default): keep every sample.
	 * Per-variant dropping breaks the pairing of variants by round: only
	 * for unpaired variants (the xsave cells), unless drop_rounds.
	 */
	bool drop_disturbed;
	/*
	 * With drop_disturbed: keep or drop whole rounds, a round kept when
	 * every sample of it lies between quiet readings, so that every
	 * variant keeps the same rounds and sample k of one variant is still
	 * from the round of sample k of another (the xor sweep: a template
	 * against memcpy in the same rounds).
	 */
	bool drop_rounds;
	/*
	 * With drop_disturbed and hard_s: the quiet rounds to wait for (0:
	 * min_samples), a round quiet when every reading of it is within 4%
	 * of the lowest so far.
	 */
	size_t quiet_rounds;
	/*
	 * false (default): the order rotated by one each round, so each
	 * variant always follows the same one; true: each round a fresh
	 * pseudo-random order (fixed seed), so each follows every other one
	 * about equally often. A variant's time depends on what ran just
	 * before it: in section's rotated rounds on a Zen 3 guest two copies
	 * of one arm differed by 100-1,700 cycles of an 85,000-cycle call.
	 */
	bool shuffle;
	fpl_timed_fn ref;	/* NULL: FXSAVE64; tests give a made-up reference */
	/*
	 * Where the reference's warnings about the whole call go (too few
	 * quiet samples, a suspect run): NULL, the first variant's run; else
	 * this result, "BENCH: " before them (xsave: they are about every cell
	 * of the group, not the first one the table marks).
	 */
	struct fpl_result *warn_to;
	/*
	 * NULL, or the reference's floor carried from call to call (a
	 * benchmark of many short calls): a call reads the reference with the
	 * reps it was read with, judges its readings against the lower of it
	 * and its own floor, and lowers it. Without it, a call spent wholly in
	 * a slow episode finds its floor there and takes every round for quiet.
	 */
	struct fpl_ref_floor *ref_floor;
	/*
	 * Where this call lies in the benchmark's progress: it reports
	 * progress_lo + progress_span x its own fraction (0 and 0: the whole,
	 * 0 to 1; a benchmark of many calls gives each its share).
	 */
	double progress_lo, progress_span;
};

/* Defaults for an environment: quick 0.3 s, else env->budget_s or 1 s; 11..1000 samples. */
void fpl_harness_defaults(const struct fpl_bench_env *env, struct fpl_harness_cfg *cfg);

/*
 * Calibrate N for each variant, warm up (and settle, with cfg->settle_s),
 * then take samples in rounds: one sample of each variant per round, the
 * order rotated by one each round (A B C, B C A, C A B ...) or shuffled
 * (cfg->shuffle), and one core/TSC
 * ratio sample per round, until max_samples, or
 * the budget is spent and min_samples are taken, or env->stop. Every sample
 * is kept unless cfg->drop_disturbed. Metrics are created in each variant's
 * run with a method string naming the body, N, the overhead removal, how
 * samples were kept and the core-clock source.
 * 0, -EINTR when stopped (samples so far are kept), -ENOMEM.
 */
int fpl_harness_run(const struct fpl_bench_env *env, const struct fpl_harness_cfg *cfg,
		    struct fpl_variant *v, size_t nv);

/*
 * Self-checks (METHOD.md: not circular). 100 dependent IMULs must measure
 * 300 core cycles within 2% when the core clock came from the add chain; the
 * empty body (dec; jnz) at most FPL_SELFCHECK_EMPTY_MAX cycles per rep: its
 * own branch, 1.00 or 1.6-1.9 on the Zen 4 guest from one process to the
 * next (docs/method.md), so 2 failed now and then with nothing wrong.
 */
#define FPL_SELFCHECK_IMUL_EXPECT	300.0
#define FPL_SELFCHECK_IMUL_TOL_PCT	2.0
#define FPL_SELFCHECK_EMPTY_MAX		3.0

struct fpl_selfcheck {
	double imul100_cycles;		/* median, estimated core cycles */
	double imul100_tsc;
	double imul_err_pct;		/* (measured - 300) / 300 * 100 */
	bool imul_ok;
	double empty_cycles;		/* median of the empty body's per-rep cost, N vs 2N */
	bool empty_ok;
	bool ok;
	char text[256];			/* one line for people */
};

/* About 0.1 s. 0 or -errno. */
int fpl_selfcheck_run(struct fpl_clock *c, struct fpl_selfcheck *sc);
json_t *fpl_selfcheck_json(const struct fpl_selfcheck *sc);

#endif
