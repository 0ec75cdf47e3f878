/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The summary a person reads after `fpulab run`: the few figures that matter, then warnings. */
#ifndef FPULAB_SUMMARY_H
#define FPULAB_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "fpulab/result.h"

/*
 * Write the summary of r to f: XSAVE-family cost of the full state, context
 * switch with and without AVX-512 state, signal round trip, the best xor
 * routine, the cost of an FPU section, each as a median with its spread,
 * unit and method; then warnings (clock drift, VM, noisy samples, each
 * run's own). A benchmark absent from r is absent from the summary.
 * Returns 0, or -EIO when writing failed.
 */
int fpl_summary_write(const struct fpl_result *r, FILE *f);
/*
 * The same; all: every warning and skip line, for output with no results
 * document behind it (fpl_summary_write shows 6 of each and counts the rest,
 * which the document holds).
 */
int fpl_summary_write_all(const struct fpl_result *r, FILE *f, bool all);

/*
 * The "Ran:" line of fpulab run from host.ran: each step that ran with its
 * seconds ("(skipped)", "(failed or interrupted)"), the steps not run, the
 * total. Nothing when r has no host.ran. 0, or -EIO.
 */
int fpl_summary_ran(const struct fpl_result *r, FILE *f);

/* Relative spread above which a metric is called noisy: IQR / |median|. */
#define FPL_SUMMARY_NOISY_IQR 0.25

#endif
