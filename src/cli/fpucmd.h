/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark commands: options, extra checks, run, then their own table (section, xor) or an emitter. */
#ifndef FPULAB_CLI_FPUCMD_H
#define FPULAB_CLI_FPUCMD_H

#include <stdio.h>

#include "cli.h"

struct fpl_fpucmd {
	const char *bench;
	/* Checks beyond the descriptor's (size lists, names); -EINVAL with diag: exit 2. */
	int (*check)(const struct fpl_bench_env *env, struct fpl_diag *diag);
	/* The table for people (--format table, the default); other formats use the emitters. */
	void (*print)(const struct fpl_result *r, FILE *f);
};

/* Parse, check, run the benchmark once, print or emit. Returns the exit code. */
int fpl_fpucmd_main(const struct fpl_fpucmd *cmd, int argc, char **argv);

/* Helpers for printers. */
const struct fpl_metric *fpl_fpucmd_metric(const struct fpl_run *run, const char *name);
double fpl_fpucmd_median(const struct fpl_metric *m);	/* NAN when no samples */
/* extra.estimate, ci95_lo, ci95_hi of a metric; false when absent. */
bool fpl_fpucmd_ci(const struct fpl_metric *m, double *est, double *lo, double *hi);
const char *fpl_fpucmd_param_str(const struct fpl_run *run, const char *key);
long long fpl_fpucmd_param_int(const struct fpl_run *run, const char *key);

#endif
