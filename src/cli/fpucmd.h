/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers for the tables of benchmark commands that print their own (section, xor). */
#ifndef FPULAB_CLI_FPUCMD_H
#define FPULAB_CLI_FPUCMD_H

#include <stdio.h>

#include "cli.h"

/* Helpers for printers. */
const struct fpl_metric *fpl_fpucmd_metric(const struct fpl_run *run, const char *name);
double fpl_fpucmd_median(const struct fpl_metric *m);	/* NAN when no samples */
/* extra.estimate, ci95_lo, ci95_hi of a metric; false when absent. */
bool fpl_fpucmd_ci(const struct fpl_metric *m, double *est, double *lo, double *hi);
const char *fpl_fpucmd_param_str(const struct fpl_run *run, const char *key);
long long fpl_fpucmd_param_int(const struct fpl_run *run, const char *key);

#endif
