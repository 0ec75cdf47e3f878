/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fpulab info: the kernel's own view (dmesg x86/fpu lines, the xcomp_bv of fpulab's task). */
#ifndef FPULAB_CLI_INFO_KERNEL_H
#define FPULAB_CLI_INFO_KERNEL_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

/* The kernel's view as JSON ({"dmesg": ..., "own_task": ...}); never NULL but on ENOMEM. */
json_t *fpl_info_kernel_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs, bool trace);
/* The same for people. */
void fpl_info_kernel_print(FILE *f, const json_t *view);

#endif
