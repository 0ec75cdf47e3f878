// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with AVX2: two blocks per ymm (a row per 128-bit lane), four blocks in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

#pragma GCC optimize("no-tree-loop-distribute-patterns")

#define V		__m256i
#define W		2
#define ADD(a, b)	_mm256_add_epi32(a, b)
#define XOR(a, b)	_mm256_xor_si256(a, b)
#define SHUF(v, i)	_mm256_shuffle_epi32(v, i)
#define ROW(p)		_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define LANES(k)	_mm256_setr_epi32((int)(k), 0, 0, 0, (int)((k) + 1), 0, 0, 0)
#define FN		fpl_chacha20_xor_avx2

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
