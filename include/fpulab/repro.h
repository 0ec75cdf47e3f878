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
 * Write the RFBM tables of r: per table, each case's trimmed mean (10% from
 * each end), as a percentage of case 1, the difference with its 95%
 * interval (Yuen's t through fpulab compare, Holm over the table) and a
 * sentence on what the figures mean. 0; -EINVAL with diag when r has no
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

/* Whether r holds runs of each experiment. */
bool fpl_repro_has_rfbm(const struct fpl_result *r);
bool fpl_repro_has_kfpu(const struct fpl_result *r);
bool fpl_repro_has_lazy(const struct fpl_result *r);

#endif
