// SPDX-License-Identifier: GPL-3.0-or-later
/* xor template with AVX-512F (512-bit zmm, vpternlogq for three inputs), in intrinsics. */
#include <immintrin.h>

#include "kernels/xor_internal.h"

/*
 * Not a kernel template (x86 has none with AVX-512): same 512-byte line as
 * "avx", eight zmm blocks. vpternlogq with imm 0x96 is a ^ b ^ c, so two
 * sources cost one instruction; do_4 adds a vpxorq, do_5 a second ternlog.
 */
#define LD(p, i)	_mm512_load_si512((const void *)((p) + 8 * (i)))
#define ST(p, i, v)	_mm512_store_si512((void *)((p) + 8 * (i)), v)
#define X3(a, b, c)	_mm512_ternarylogic_epi64(a, b, c, 0x96)

/*
 * Each routine ends with VZEROUPPER. The kernel's xor_avx.h has none: its
 * state stays dirty until the XRSTOR of the owner's registers, and no
 * SSE-encoded code runs in between. Here the harness and libc do run such
 * code after the call, and on Intel they would pay the dirty-upper penalty
 * (METHOD.md) for a state the kernel never exposes them to.
 */
#define LEAVE()		_mm256_zeroupper()

void fpl_xor_avx512_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64)
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 8; i++)
			ST(d, i, _mm512_xor_si512(LD(s1, i), LD(d, i)));
	LEAVE();
}

void fpl_xor_avx512_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64)
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 8; i++)
			ST(d, i, X3(LD(d, i), LD(s1, i), LD(s2, i)));
	LEAVE();
}

void fpl_xor_avx512_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2, const uint64_t *restrict s3)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64, s3 += 64)
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 8; i++) {
			__m512i v = X3(LD(d, i), LD(s1, i), LD(s2, i));

			ST(d, i, _mm512_xor_si512(v, LD(s3, i)));
		}
	LEAVE();
}

void fpl_xor_avx512_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2, const uint64_t *restrict s3,
		      const uint64_t *restrict s4)
{
	for (size_t n = bytes >> 9; n; n--, d += 64, s1 += 64, s2 += 64, s3 += 64, s4 += 64)
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 8; i++) {
			__m512i v = X3(LD(d, i), LD(s1, i), LD(s2, i));

			ST(d, i, X3(v, LD(s3, i), LD(s4, i)));
		}
	LEAVE();
}
