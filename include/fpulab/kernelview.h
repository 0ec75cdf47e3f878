/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel's view for people: model against kernel trace counts, dmesg against CPUID. */
#ifndef FPULAB_KERNELVIEW_H
#define FPULAB_KERNELVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "fpulab/ktrace.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"

/* A kernel count agrees with the model within this share of an operation (preemption noise). */
#define FPL_KVIEW_TOL		0.05

/*
 * The model-against-kernel table of every run with an observed.kernel
 * object: per pass the kernel's saves and restores per operation next to
 * the model's, and where they differ; the xcomp_bv seen with components.
 * Runs whose trace was skipped give their reason. Nothing when no run was
 * traced. Returns the number of differences found, or -EIO.
 */
int fpl_table_kernel(const struct fpl_result *r, FILE *f);

/* True when a kernel figure agrees with the model's (both per operation). */
bool fpl_kview_agrees(double kernel, double model);

/*
 * The kernel's boot lines against the layout fpulab computes from CPUID:
 * features, each printed offset and size, the context size, the format.
 * *out: {"lines", "enabled", "context_size", "format", "checks": [...],
 * "mismatches": N}. 0 or -ENOMEM.
 */
int fpl_kview_dmesg_check(const struct fpl_kt_dmesg *d, const struct fpl_xstate *xs,
			  json_t **out);
/* That check for people, one line per finding. */
void fpl_kview_dmesg_print(const json_t *check, FILE *f);

/*
 * One line for repro rfbm: the xcomp_bv the kernel used for the measured
 * tasks (every traced run of r) and whether component bit is in it.
 * Returns 1 when a traced run was found, 0 when none.
 */
int fpl_kview_xcomp_line(const struct fpl_result *r, unsigned bit, const char *name,
			 char *buf, size_t len);

#endif
