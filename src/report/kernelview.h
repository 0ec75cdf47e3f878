/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel's view for people: model against kernel trace counts, dmesg against CPUID. */
#ifndef FPULAB_KERNELVIEW_H
#define FPULAB_KERNELVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "fpulab/cpu.h"
#include "fpulab/ktrace.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"

/*
 * The model-against-kernel table of every run with an observed.kernel
 * object: per benchmark and operation the kernel's events per operation,
 * by class (fpl_kt_class), next to what the kernel source says they are
 * for the kernel that ran (fpl_kexpect_find(), with the releases it holds
 * for), and where they differ; the xcomp_bv seen with components; the
 * reasons, naming the kernel functions, as notes. Runs whose trace was
 * skipped give their reason. Nothing when no run was traced. Returns the
 * number of passes that differ, or -EIO.
 */
int fpl_table_kernel(const struct fpl_result *r, FILE *f);

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
 * The kernel's view for fpulab info: {"dmesg": the boot lines checked (or a
 * {"status", "reason"} why not), "own_task": with trace, the xcomp_bv of
 * this task from tracefs (or why not)}. NULL only on ENOMEM.
 */
json_t *fpl_kview_info_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs, bool trace);

/*
 * One line for repro rfbm: the xcomp_bv the kernel used for the measured
 * tasks (every traced run of r) and whether component bit is in it.
 * Returns 1 when a traced run was found, 0 when none.
 */
int fpl_kview_xcomp_line(const struct fpl_result *r, unsigned bit, const char *name,
			 char *buf, size_t len);

#endif
