// SPDX-License-Identifier: GPL-3.0-or-later
/* fpl_fpu_clobber(): overwrite every user register a section's SIMD work could touch. */
#include <stdint.h>

#include "fpulab/model.h"
#include "clobber.h"

#define FPL_NOVEC __attribute__((target("general-regs-only")))

FPL_NOVEC static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * A full x87 stack of seeded integers under a control word that is not
 * FNINIT's. Not general-regs-only: the clobber list must name the x87 stack.
 */
static __attribute__((noinline)) void clobber_x87(uint64_t *s)
{
	int64_t st[8];
	uint16_t cw = (uint16_t)(0x027f | (splitmix64(s) & 3) << 10);

	for (int i = 0; i < 8; i++)
		st[i] = (int64_t)(splitmix64(s) >> 8) | 1;
	__asm__ volatile("fninit\n\t"
			 "fldcw %1\n\t"
			 "fildq 0(%0)\n\t"  "fildq 8(%0)\n\t"  "fildq 16(%0)\n\t" "fildq 24(%0)\n\t"
			 "fildq 32(%0)\n\t" "fildq 40(%0)\n\t" "fildq 48(%0)\n\t" "fildq 56(%0)\n\t"
			 : : "r"(st), "m"(cw), "m"(st)
			 : "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)");
}

/* Flush-to-zero and a non-default rounding mode: valid on every SSE CPU, never 0x1f80. */
FPL_NOVEC static void clobber_mxcsr(uint64_t *s)
{
	uint32_t mxcsr = FPL_MXCSR_DEFAULT | 0x8000 | (uint32_t)(splitmix64(s) % 3 + 1) << 13;

	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
}

FPL_NOVEC void fpl_fpu_clobber(const struct fpl_cpu *cpu, uint64_t mask, uint64_t seed)
{
	uint8_t v[FPL_CLOBBER_VEC_BYTES] __attribute__((aligned(64)));
	uint64_t k[8], s = seed;

	for (unsigned i = 0; i < sizeof(v); i += 8) {
		uint64_t x = splitmix64(&s);

		for (unsigned j = 0; j < 8; j++)
			v[i + j] = (uint8_t)(x >> (8 * j));
	}
	for (unsigned i = 0; i < 8; i++)
		k[i] = splitmix64(&s) | 1;
	if (mask & FPL_XFEATURE_MASK_FP)
		clobber_x87(&s);
	if (mask & FPL_XFEATURE_MASK_SSE)
		clobber_mxcsr(&s);
	if ((mask & (FPL_XFEATURE_MASK_AVX512 | FPL_XFEATURE_MASK_YMM)) &&
	    fpl_cpu_has(cpu, FPL_FEAT_AVX512F))
		fpl_clobber_avx512(v, k, fpl_cpu_has(cpu, FPL_FEAT_AVX512BW));
	else if ((mask & FPL_XFEATURE_MASK_YMM) && fpl_cpu_has(cpu, FPL_FEAT_AVX))
		fpl_clobber_avx(v);
	else if (mask & FPL_XFEATURE_MASK_SSE)
		fpl_clobber_sse(v);
}

uint64_t fpl_fpu_clobber_mask(const struct fpl_cpu *cpu, uint64_t mask)
{
	uint64_t m = mask & FPL_XFEATURE_MASK_FPSSE;

	if ((mask & (FPL_XFEATURE_MASK_AVX512 | FPL_XFEATURE_MASK_YMM)) &&
	    fpl_cpu_has(cpu, FPL_FEAT_AVX512F))
		m |= mask & (FPL_XFEATURE_MASK_AVX512 | FPL_XFEATURE_MASK_YMM);
	else if ((mask & FPL_XFEATURE_MASK_YMM) && fpl_cpu_has(cpu, FPL_FEAT_AVX))
		m |= mask & FPL_XFEATURE_MASK_YMM;
	return m;
}
