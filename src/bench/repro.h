/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The three reference experiments (DESIGN.md) measured: their cases as runs of bench "repro". */
#ifndef FPULAB_BENCH_REPRO_H
#define FPULAB_BENCH_REPRO_H

#include <stdbool.h>
#include <stddef.h>

#include "fpulab/base.h"
#include "fpulab/result.h"

/* The benchmark name of the runs that hold one value per repeated run of a case. */
#define FPL_REPRO_BENCH "repro"

/*
 * RFBM (2024): one case of one table, as a run of bench "repro" with params
 * experiment=rfbm, table, case (1 is the baseline), label; metric "value"
 * holding one figure per repeated run (unit, method as given). Cases of a
 * table are compared in the order of their case numbers. 0 or -ENOMEM.
 */
int fpl_repro_add_case(struct fpl_result *r, const char *table, int case_no, const char *label,
		       const char *unit, const char *method, const double *v, size_t n);

/*
 * A case of the report this CPU cannot measure (AVX-512 registers live on
 * an AVX2 CPU): a skipped run of bench "repro" with params experiment=rfbm,
 * table, report_case (its number in the report), label, and why; the table
 * says it was left out and why. 0 or -ENOMEM.
 */
int fpl_repro_add_left_out(struct fpl_result *r, const char *table, int report_case,
			   const char *label, const char *why);

/*
 * The same for a case measured in the same runs as its baseline: base[i]
 * is the baseline's figure from the run that gave v[i] (metric "baseline",
 * base_method saying how the two shared the run), so that the table tests
 * the per-run differences (fpl_paired_t). 0 or -ENOMEM.
 */
int fpl_repro_add_paired_case(struct fpl_result *r, const char *table, int case_no,
			      const char *label, const char *unit, const char *method,
			      const double *v, const double *base, const char *base_method,
			      size_t n);

/*
 * RFBM's context-switch cases: state init, then each wider state the CPU
 * has. A wider state is measured against init in one interleaved run per
 * round (ctxsw --ab init,STATE: their batches alternate), so each round
 * gives a pair; init's own figure per round is the mean of its arms.
 */
struct fpl_repro_ctx_case {
	const char *state, *label;	/* ctxsw state, the case's label */
	double *v;			/* one switches-per-second figure per round */
	double *base;			/* init's figure in the same run (wider states) */
	size_t n;
	bool skip;			/* not on this CPU (or the benchmark said so) */
	char why[256];			/* then why, for the table's line */
};

/* RFBM's XSAVEC and XRSTOR of a compacted image, RFBM with and without the highest component. */
struct fpl_repro_xs_case {
	const char *insn, *title;	/* xsave --part rfbm's insn param, the table's words */
	const char *want;		/* this component's row; NULL: the highest one */
	char comp[40];			/* the component in question, from the runs' params */
	char with[24], without[24];	/* the two RFBMs */
	double *v[2];			/* median cycles per round: without, with */
	size_t n;
};

/*
 * Room for rounds figures in each of the nx cases (0, or -ENOMEM when some
 * did not get it), and its release (also after a failed alloc).
 */
int fpl_repro_xs_alloc(struct fpl_repro_xs_case *xc, size_t nx, size_t rounds);
void fpl_repro_xs_free(struct fpl_repro_xs_case *xc, size_t nx);

/* A ctxsw run's figure for RFBM: 1e9 / its median ns per switch (NaN without samples). */
double fpl_repro_ctx_value(const struct fpl_run *run);
/* The same for the two arms of a ctxsw --ab run (switch_a, switch_b). */
void fpl_repro_ctx_ab_values(const struct fpl_run *run, double *a, double *b);

/*
 * Take one round's figures from the xsave --part rfbm runs [from, nruns) of
 * r: per case, the last unskipped run of its insn (and component want)
 * with a with_cycles metric gives comp, with, without and one value of
 * each. Cases without such a run are left as they are.
 */
void fpl_repro_xs_round(const struct fpl_result *r, size_t from, struct fpl_repro_xs_case *xc,
			size_t nx);

/*
 * The RFBM cases into out: one table of the context switch cases that have
 * figures (budget: seconds per run, for the method), two cases per xsave
 * case; every case after the first paired with its baseline's figures of
 * the same runs (fpl_repro_add_paired_case). 0 or -ENOMEM.
 */
int fpl_repro_rfbm_cases(struct fpl_result *out, const struct fpl_repro_ctx_case *cc, size_t nc,
			 const struct fpl_repro_xs_case *xc, size_t nx, double budget);

/*
 * The upstream sequel's table: KVM_RUN round trips with the guest's state
 * init (kc[0], case 1) and live (kc[1], paired with init's figure of the
 * same fpulab kvm --ab run), value the run's median core cycles per round
 * trip; ab the runs' --ab, label the backend's words for the method (PVM's).
 * Nothing when kc[1] was skipped or has no figure. 0 or -ENOMEM.
 */
int fpl_repro_kvm_cases(struct fpl_result *out, const struct fpl_repro_ctx_case *kc, size_t nk,
			const char *ab, const char *label, double budget);

struct fpl_session;

/* The experiments, as bits of what fpl_repro_measure runs. */
enum {
	FPL_REPRO_RFBM = 1,	/* 2024: RFBM and context switches (AMX last, where it exists) */
	FPL_REPRO_KFPU = 2,	/* 2021: FNINIT and MXCSR in kernel_fpu_begin */
	FPL_REPRO_LAZY = 4,	/* 2018: lazy restore inside versus outside a loop */
	FPL_REPRO_ALL = 7,
};

struct fpl_repro_cfg {
	long runs;			/* rfbm: rounds; kfpu-mask: calibrations; 0: the default */
	double budget_s;		/* seconds per run (rfbm), the section budget (lazy); 0 */
	struct fpl_result *traced;	/* NULL, or where the first rfbm round's traced runs go */
	/* Optional: a line on how far it is ("repro rfbm: round 3 of 10"); NULL: done. */
	void (*say)(void *arg, const char *line);
	void *arg;
};

/*
 * Why an experiment of what cannot run with the benchmarks built in (NULL:
 * it can): "rfbm needs the ctxsw and xsave benchmarks".
 */
const char *fpl_repro_missing(unsigned what);

/*
 * Measure the experiments of what through the started session s, one after
 * the other (AMX's RFBM rows last: tile use changes the process for good),
 * the figures into out (repro cases, the xor and section runs), *done the
 * experiments measured. One this CPU cannot run is left out with its
 * reason as a warning of out. 0; -EINTR when s->cfg.stop was set (what was
 * measured is in out); other -errno with diag.
 */
int fpl_repro_measure(struct fpl_session *s, unsigned what, const struct fpl_repro_cfg *cfg,
		      struct fpl_result *out, unsigned *done, struct fpl_diag *diag);

#endif
