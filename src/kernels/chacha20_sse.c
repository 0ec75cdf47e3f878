// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with SSE2: one block per xmm (a row per register), two blocks in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

#pragma GCC optimize("no-tree-loop-distribute-patterns")

#define V		__m128i
#define W		1
#define ADD(a, b)	_mm_add_epi32(a, b)
#define XOR(a, b)	_mm_xor_si128(a, b)
#define SHUF(v, i)	_mm_shuffle_epi32(v, i)
#define ROW(p)		_mm_loadu_si128((const __m128i *)(p))
#define LANES(k)	_mm_setr_epi32((int)(k), 0, 0, 0)
#define FN		fpl_chacha20_xor_sse

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
