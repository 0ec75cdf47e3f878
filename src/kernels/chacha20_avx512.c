// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with AVX-512F: sixteen blocks a word per zmm; tails a row per lane, eight in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

/* no libc memcpy for the tail copies: its EVEX code would dirty other state */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#define V		__m512i
#define W		4
#define ADD(a, b)	_mm512_add_epi32(a, b)
#define XOR(a, b)	_mm512_xor_si512(a, b)
#define ROL(v, n)	_mm512_rol_epi32(v, n)
#define SHUF(v, i)	_mm512_shuffle_epi32(v, i)
#define ROW(p)		_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define LANES(k)	_mm512_setr_epi32((int)(k), 0, 0, 0, (int)((k) + 1), 0, 0, 0,	\
					  (int)((k) + 2), 0, 0, 0, (int)((k) + 3), 0, 0, 0)

/* lane j of a..d is block j: a 4x4 transpose of 128-bit lanes */
static inline void lanes4x4(__m512i a, __m512i b, __m512i c, __m512i d, __m512i k[4])
{
	const __m512i ab01 = _mm512_shuffle_i32x4(a, b, 0x44), cd01 = _mm512_shuffle_i32x4(c, d, 0x44);
	const __m512i ab23 = _mm512_shuffle_i32x4(a, b, 0xee), cd23 = _mm512_shuffle_i32x4(c, d, 0xee);

	k[0] = _mm512_shuffle_i32x4(ab01, cd01, 0x88);
	k[1] = _mm512_shuffle_i32x4(ab01, cd01, 0xdd);
	k[2] = _mm512_shuffle_i32x4(ab23, cd23, 0x88);
	k[3] = _mm512_shuffle_i32x4(ab23, cd23, 0xdd);
}

static inline void put(__m512i a, __m512i b, __m512i c, __m512i d, uint8_t *dst,
		       const uint8_t *src)
{
	__m512i k[4];

	lanes4x4(a, b, c, d, k);
	for (int i = 0; i < 4; i++) {
		__m512i s = _mm512_loadu_si512(src + 64 * i);

		_mm512_storeu_si512(dst + 64 * i, _mm512_xor_si512(s, k[i]));
	}
}
#define PUT(a, b, c, d, dst, src)	put(a, b, c, d, dst, src)

#include "kernels/chacha20_rows.h"

#define CV		__m512i
#define L		16
#define CADD		ADD
#define CXOR		XOR
#define CROL		ROL
#define SET1(x)		_mm512_set1_epi32((int)(x))
#define IOTA		_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define FN		fpl_chacha20_xor_avx512

/*
 * 4x4 word transposes inside each 128-bit lane give, per group g of four
 * words and j < 4, blocks j, j + 4, j + 8, j + 12 in the four lanes; a 4x4
 * transpose of lanes across the groups then makes whole blocks.
 */
static inline void putc16(const __m512i x[16], uint8_t *dst, const uint8_t *src)
{
	__m512i r[4][4];

	_Pragma("GCC unroll 4")
	for (int g = 0; g < 4; g++) {
		__m512i t0 = _mm512_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
		__m512i t1 = _mm512_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
		__m512i t2 = _mm512_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
		__m512i t3 = _mm512_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);

		r[g][0] = _mm512_unpacklo_epi64(t0, t2);
		r[g][1] = _mm512_unpackhi_epi64(t0, t2);
		r[g][2] = _mm512_unpacklo_epi64(t1, t3);
		r[g][3] = _mm512_unpackhi_epi64(t1, t3);
	}
	_Pragma("GCC unroll 4")
	for (int j = 0; j < 4; j++) {
		__m512i k[4];

		lanes4x4(r[0][j], r[1][j], r[2][j], r[3][j], k);
		_Pragma("GCC unroll 4")
		for (int i = 0; i < 4; i++) {
			size_t off = 64 * (j + 4 * i);

			_mm512_storeu_si512(dst + off, _mm512_xor_si512(_mm512_loadu_si512(src + off),
									 k[i]));
		}
	}
}
#define PUTC(x, dst, src)	putc16(x, dst, src)

/* zmm0-15 upper bits back to init (YMM, ZMM_Hi256), as the kernel's routines do */
#define LEAVE()		_mm256_zeroupper()

#include "kernels/chacha20_cols.h"
