// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with SSE2: four blocks a word per xmm; tails a row per xmm, two blocks in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

/* no libc memcpy for the tail copies: its EVEX code would dirty other state */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#define V		__m128i
#define W		1
#define ADD(a, b)	_mm_add_epi32(a, b)
#define XOR(a, b)	_mm_xor_si128(a, b)
#define SHUF(v, i)	_mm_shuffle_epi32(v, i)
#define ROW(p)		_mm_loadu_si128((const __m128i *)(p))
#define LANES(k)	_mm_setr_epi32((int)(k), 0, 0, 0)

/* SSE2 has no byte shuffle: 16 is two word swaps, the rest shifts */
static inline __m128i rol(__m128i v, int n)
{
	if (n == 16)
		return _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1);
	return _mm_or_si128(_mm_slli_epi32(v, n), _mm_srli_epi32(v, 32 - n));
}
#define ROL(v, n)	rol(v, n)

static inline void put(__m128i a, __m128i b, __m128i c, __m128i d, uint8_t *dst,
		       const uint8_t *src)
{
	const __m128i r[4] = { a, b, c, d };

	for (int i = 0; i < 4; i++) {
		__m128i s = _mm_loadu_si128((const __m128i *)(src + 16 * i));

		_mm_storeu_si128((__m128i *)(dst + 16 * i), _mm_xor_si128(s, r[i]));
	}
}
#define PUT(a, b, c, d, dst, src)	put(a, b, c, d, dst, src)

#include "kernels/chacha20_rows.h"

#define CV		__m128i
#define L		4
#define CADD		ADD
#define CXOR		XOR
#define CROL		ROL
#define SET1(x)		_mm_set1_epi32((int)(x))
#define IOTA		_mm_setr_epi32(0, 1, 2, 3)
#define FN		fpl_chacha20_xor_sse

/* 4x4 transposes of 32-bit words: group g of words of block j lands at dst + 64 j + 16 g */
static inline void putc4(const __m128i x[16], uint8_t *dst, const uint8_t *src)
{
	_Pragma("GCC unroll 4")
	for (int g = 0; g < 4; g++) {
		__m128i t0 = _mm_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
		__m128i t1 = _mm_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
		__m128i t2 = _mm_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
		__m128i t3 = _mm_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
		const __m128i r[4] = {
			_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2),
			_mm_unpacklo_epi64(t1, t3), _mm_unpackhi_epi64(t1, t3),
		};

		_Pragma("GCC unroll 4")
		for (int j = 0; j < 4; j++) {
			const __m128i *s = (const __m128i *)(src + 64 * j + 16 * g);

			_mm_storeu_si128((__m128i *)(dst + 64 * j + 16 * g),
					 _mm_xor_si128(_mm_loadu_si128(s), r[j]));
		}
	}
}
#define PUTC(x, dst, src)	putc4(x, dst, src)

/* legacy SSE leaves the upper halves as they were: nothing to clean */
#define LEAVE()		do { } while (0)

#include "kernels/chacha20_cols.h"
