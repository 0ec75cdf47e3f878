/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Entry points of the per-ISA xor files, for the table in xor.c only. */
#ifndef FPULAB_KERNELS_XOR_INTERNAL_H
#define FPULAB_KERNELS_XOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define FPL_XOR_DECLARE(p)							\
	void p##_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1);	\
	void p##_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
		   const uint64_t *restrict s2);					\
	void p##_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
		   const uint64_t *restrict s2, const uint64_t *restrict s3);		\
	void p##_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
		   const uint64_t *restrict s2, const uint64_t *restrict s3,		\
		   const uint64_t *restrict s4)

FPL_XOR_DECLARE(fpl_xor_8regs);
FPL_XOR_DECLARE(fpl_xor_32regs);
FPL_XOR_DECLARE(fpl_xor_sse);
FPL_XOR_DECLARE(fpl_xor_sse_pf64);
FPL_XOR_DECLARE(fpl_xor_avx);
FPL_XOR_DECLARE(fpl_xor_avx512);

#endif
