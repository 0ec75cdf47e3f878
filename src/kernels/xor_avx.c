// SPDX-License-Identifier: GPL-3.0-or-later
/* xor template with AVX (256-bit ymm), the kernel's "avx" shape, in intrinsics. */
#include <immintrin.h>

#include "kernels/xor_internal.h"

/*
 * 512 bytes per iteration as sixteen 32-byte blocks, no prefetch; each block
 * loads the last source, xors the others and the destination into it from
 * memory (vxorps m256) and stores it. AVX1 only: vxorps, not vpxor.
 */
#define LD(p, i)	_mm256_load_ps((const float *)(p) + 8 * (i))
#define XO(v, p, i)	v = _mm256_xor_ps(v, LD(p, i))
#define ST(p, i, v)	_mm256_store_ps((float *)(p) + 8 * (i), v)

/*
 * Each routine ends with VZEROUPPER. The kernel's xor_avx.h has none: its
 * state stays dirty until the XRSTOR of the owner's registers, and no
 * SSE-encoded code runs in between. Here the harness and libc do run such
 * code after the call, and on Intel they would pay the dirty-upper penalty
 * (METHOD.md) for a state the kernel never exposes them to.
 */
#define LEAVE()		_mm256_zeroupper()

void fpl_xor_avx_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64) {
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			__m256 v = LD(s1, i);

			XO(v, d, i);
			ST(d, i, v);
		}
	}
	LEAVE();
}

void fpl_xor_avx_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		   const uint64_t *restrict s2)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64) {
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			__m256 v = LD(s2, i);

			XO(v, s1, i);
			XO(v, d, i);
			ST(d, i, v);
		}
	}
	LEAVE();
}

void fpl_xor_avx_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		   const uint64_t *restrict s2, const uint64_t *restrict s3)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64, s3 += 64) {
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			__m256 v = LD(s3, i);

			XO(v, s2, i);
			XO(v, s1, i);
			XO(v, d, i);
			ST(d, i, v);
		}
	}
	LEAVE();
}

void fpl_xor_avx_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		   const uint64_t *restrict s2, const uint64_t *restrict s3,
		   const uint64_t *restrict s4)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64, s3 += 64, s4 += 64) {
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			__m256 v = LD(s4, i);

			XO(v, s3, i);
			XO(v, s2, i);
			XO(v, s1, i);
			XO(v, d, i);
			ST(d, i, v);
		}
	}
	LEAVE();
}
