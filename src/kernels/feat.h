/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Feature predicates shared by the kernel tables (xor.c, chacha20.c). */
#ifndef FPULAB_KERNELS_FEAT_H
#define FPULAB_KERNELS_FEAT_H

#include <stdbool.h>

#include "fpulab/cpu.h"

/* The shape of every table row's .supported: true, or false with *why set. */
bool fpl_kernel_always(const struct fpl_cpu *cpu, const char **why);
bool fpl_kernel_need(const struct fpl_cpu *cpu, enum fpl_feature f, const char **why,
		     const char *msg);
bool fpl_kernel_has_sse2(const struct fpl_cpu *cpu, const char **why);
/* F, BW, VL and DQ: what the Makefile's ISA_avx512 lets gcc use in an _avx512.c file. */
bool fpl_kernel_has_avx512(const struct fpl_cpu *cpu, const char **why);

#endif
