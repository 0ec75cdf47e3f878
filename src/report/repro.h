/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The three reference experiments (DESIGN.md) as tables of the reports' own shapes. */
#ifndef FPULAB_REPRO_H
#define FPULAB_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
 * Write the RFBM tables of r: per table, each case's trimmed mean (10% from
 * each end), as a percentage of case 1, the difference with its 95%
 * interval and a sentence on what the figures mean. A case with a
 * "baseline" metric is tested paired (Yuen's trimmed t over the per-run
 * differences in percent of the baseline); one without (files written
 * before pairing) by Yuen's two-sample t through fpulab compare. Holm over
 * the table's comparisons. 0; -EINVAL with diag when r has no
 * RFBM cases or a case has too few values; -ENOMEM; -EIO.
 */
int fpl_repro_rfbm_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag);

/*
 * FNINIT and MXCSR (2021): the xor calibrations of r (bench xor,
 * mode=calibrate) without a section, with MXCSR and with 387|MXCSR, in the
 * 2021 report's layout (median MB/s per template, the chosen function),
 * then the ratios to no section with their 95% intervals. Errors as above.
 */
int fpl_repro_kfpu_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag);

/*
 * Lazy restore (2018): the section runs of r, inside versus outside, in the
 * 2018 report's layout (Inside, Outside, Percent speedup) per register width
 * and workload, eager and lazy restore. Errors as above.
 */
int fpl_repro_lazy_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag);

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

/*
 * The lines on the xcomp_bv the kernel used for the traced runs: whether
 * CET_S (when cet_s, the CPU has it) and AMX_TILEDATA (when amx) are in
 * it for the host tasks, or why there is nothing to say; and, where a
 * traced kvm run is among them, the guest fpstates' xcomp_bv against the
 * host task's (CET_S: guest-only since Linux 6.17).
 */
void fpl_repro_kernel_lines(const struct fpl_result *traced, bool cet_s, bool amx, FILE *f);

/* ---- measuring them (src/bench/repro.c) ---- */

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

/*
 * The tables of the experiments of what (FPL_REPRO_* bits) that r holds,
 * each under its "== ..." heading, as fpulab repro prints them; traced
 * (may be NULL) gives the rfbm table's kernel lines (fpl_repro_kernel_lines
 * with cet_s, amx). 0, or -errno with diag.
 */
int fpl_repro_write(const struct fpl_result *r, unsigned what, const struct fpl_result *traced,
		    bool cet_s, bool amx, FILE *f, struct fpl_diag *diag);

/* Whether r holds runs of each experiment. */
bool fpl_repro_has_rfbm(const struct fpl_result *r);
bool fpl_repro_has_kfpu(const struct fpl_result *r);
bool fpl_repro_has_lazy(const struct fpl_result *r);

#endif
