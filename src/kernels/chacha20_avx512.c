// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 with AVX-512F: four blocks per zmm (a row per 128-bit lane), eight in flight. */
#include <immintrin.h>

#include "kernels/chacha20_internal.h"

#pragma GCC optimize("no-tree-loop-distribute-patterns")

#define V		__m512i
#define W		4
#define ADD(a, b)	_mm512_add_epi32(a, b)
#define XOR(a, b)	_mm512_xor_si512(a, b)
#define ROL(v, n)	_mm512_rol_epi32(v, n)
#define SHUF(v, i)	_mm512_shuffle_epi32(v, i)
#define ROW(p)		_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define LANES(k)	_mm512_setr_epi32((int)(k), 0, 0, 0, (int)((k) + 1), 0, 0, 0,	\
					  (int)((k) + 2), 0, 0, 0, (int)((k) + 3), 0, 0, 0)
#define FN		fpl_chacha20_xor_avx512

/* lane j of a..d is block j: a 4x4 transpose of 128-bit lanes */
static inline void put(__m512i a, __m512i b, __m512i c, __m512i d, uint8_t *dst,
		       const uint8_t *src)
{
	const __m512i ab01 = _mm512_shuffle_i32x4(a, b, 0x44), cd01 = _mm512_shuffle_i32x4(c, d, 0x44);
	const __m512i ab23 = _mm512_shuffle_i32x4(a, b, 0xee), cd23 = _mm512_shuffle_i32x4(c, d, 0xee);
	const __m512i k[4] = {
		_mm512_shuffle_i32x4(ab01, cd01, 0x88), _mm512_shuffle_i32x4(ab01, cd01, 0xdd),
		_mm512_shuffle_i32x4(ab23, cd23, 0x88), _mm512_shuffle_i32x4(ab23, cd23, 0xdd),
	};

	for (int i = 0; i < 4; i++) {
		__m512i s = _mm512_loadu_si512(src + 64 * i);

		_mm512_storeu_si512(dst + 64 * i, _mm512_xor_si512(s, k[i]));
	}
}
#define PUT(a, b, c, d, dst, src)	put(a, b, c, d, dst, src)

#include "kernels/chacha20_rows.h"
