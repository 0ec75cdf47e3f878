// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with AVX2: eight blocks a word per ymm; tails a row per 128-bit lane, four in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

/* no libc memcpy for the tail copies: its EVEX code would dirty other state */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#define V		__m256i
#define W		2
#define ADD(a, b)	_mm256_add_epi32(a, b)
#define XOR(a, b)	_mm256_xor_si256(a, b)
#define SHUF(v, i)	_mm256_shuffle_epi32(v, i)
#define ROW(p)		_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define LANES(k)	_mm256_setr_epi32((int)(k), 0, 0, 0, (int)((k) + 1), 0, 0, 0)

/* byte rotations by 16 and 8 are one vpshufb */
static inline __m256i rol(__m256i v, int n)
{
	if (n == 16)
		return _mm256_shuffle_epi8(v, _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
			14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
	if (n == 8)
		return _mm256_shuffle_epi8(v, _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10,
			15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14));
	return _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - n));
}
#define ROL(v, n)	rol(v, n)

/* lane 0 of a..d is block 0, lane 1 block 1 */
static inline void put(__m256i a, __m256i b, __m256i c, __m256i d, uint8_t *dst,
		       const uint8_t *src)
{
	const __m256i k[4] = {
		_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(c, d, 0x20),
		_mm256_permute2x128_si256(a, b, 0x31), _mm256_permute2x128_si256(c, d, 0x31),
	};

	for (int i = 0; i < 4; i++) {
		__m256i s = _mm256_loadu_si256((const __m256i *)(src + 32 * i));

		_mm256_storeu_si256((__m256i *)(dst + 32 * i), _mm256_xor_si256(s, k[i]));
	}
}
#define PUT(a, b, c, d, dst, src)	put(a, b, c, d, dst, src)

#include "kernels/chacha20_rows.h"

#define CV		__m256i
#define L		8
#define CADD		ADD
#define CXOR		XOR
#define CROL		ROL
#define SET1(x)		_mm256_set1_epi32((int)(x))
#define IOTA		_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define FN		fpl_chacha20_xor_avx2

/* 4x4 transposes inside each 128-bit lane, then lane halves joined: blocks j and j + 4 */
static inline void putc8(const __m256i x[16], uint8_t *dst, const uint8_t *src)
{
	__m256i r[4][4];	/* [g][j]: words 4g.. of block j (low lane) and j + 4 (high lane) */

	_Pragma("GCC unroll 4")
	for (int g = 0; g < 4; g++) {
		__m256i t0 = _mm256_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
		__m256i t1 = _mm256_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
		__m256i t2 = _mm256_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
		__m256i t3 = _mm256_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);

		r[g][0] = _mm256_unpacklo_epi64(t0, t2);
		r[g][1] = _mm256_unpackhi_epi64(t0, t2);
		r[g][2] = _mm256_unpacklo_epi64(t1, t3);
		r[g][3] = _mm256_unpackhi_epi64(t1, t3);
	}
	_Pragma("GCC unroll 4")
	for (int j = 0; j < 4; j++) {
		const __m256i k[4] = {
			_mm256_permute2x128_si256(r[0][j], r[1][j], 0x20),
			_mm256_permute2x128_si256(r[2][j], r[3][j], 0x20),
			_mm256_permute2x128_si256(r[0][j], r[1][j], 0x31),
			_mm256_permute2x128_si256(r[2][j], r[3][j], 0x31),
		};

		_Pragma("GCC unroll 4")
		for (int h = 0; h < 4; h++) {
			size_t off = 64 * (j + 4 * (h / 2)) + 32 * (h % 2);
			__m256i s = _mm256_loadu_si256((const __m256i *)(src + off));

			_mm256_storeu_si256((__m256i *)(dst + off), _mm256_xor_si256(s, k[h]));
		}
	}
}
#define PUTC(x, dst, src)	putc8(x, dst, src)

/* YMM upper halves back to init, as the kernel's chacha routines do on return */
#define LEAVE()		_mm256_zeroupper()

#include "kernels/chacha20_cols.h"
