/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared between the live reader and the dump reader of src/cpu. */
#ifndef FPULAB_CPU_INTERNAL_H
#define FPULAB_CPU_INTERNAL_H

#include "fpulab/cpu.h"

int fpl_cpu_add_leaf(struct fpl_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		     const uint32_t r[4]);
void fpl_cpu_decode(struct fpl_cpu *cpu);

#endif
