/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The three reference experiments (DESIGN.md) as tables of the reports' own shapes; bench/repro.h measures them. */
#ifndef FPULAB_REPORT_REPRO_H
#define FPULAB_REPORT_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fpulab/base.h"
#include "fpulab/result.h"
#include "bench/repro.h"

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
 * The lines on the xcomp_bv the kernel used for the traced runs: whether
 * CET_S (when cet_s, the CPU has it) and AMX_TILEDATA (when amx) are in
 * it for the host tasks, or why there is nothing to say; and, where a
 * traced kvm run is among them, the guest fpstates' xcomp_bv against the
 * host task's (CET_S: guest-only since Linux 6.17).
 */
void fpl_repro_kernel_lines(const struct fpl_result *traced, bool cet_s, bool amx, FILE *f);

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
