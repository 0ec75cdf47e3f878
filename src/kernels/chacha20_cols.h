/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ChaCha20 for long input, shared by the SIMD files: one state word per vector, L blocks wide. */
/*
 * Included by chacha20_{sse,avx2,avx512}.c after chacha20_rows.h, with
 * these defined: CV (vector type), L (blocks per vector), CADD, CXOR,
 * CROL(v, n), SET1(x), IOTA (lanes 0, 1, ... L - 1), PUTC(x, dst, src)
 * (transpose the 16 words of L blocks, dst = src ^ them, L * 64 bytes) and
 * FN (the exported name), and LEAVE() (what the routine does last: VZEROUPPER
 * in the AVX files, as the kernel's chacha-avx2/avx512vl routines end, so that
 * code after the call does not run with dirty upper state). No shuffles in the rounds: each quarter round
 * works on L blocks at once and the four of a round are independent.
 */
#define CQR(a, b, c, d)							\
	do {								\
		x[a] = CADD(x[a], x[b]); x[d] = CROL(CXOR(x[d], x[a]), 16);	\
		x[c] = CADD(x[c], x[d]); x[b] = CROL(CXOR(x[b], x[c]), 12);	\
		x[a] = CADD(x[a], x[b]); x[d] = CROL(CXOR(x[d], x[a]), 8);	\
		x[c] = CADD(x[c], x[d]); x[b] = CROL(CXOR(x[b], x[c]), 7);	\
	} while (0)

static inline void cols(const uint32_t st[16], uint32_t ctr, uint8_t *dst, const uint8_t *src)
{
	CV x[16];

	_Pragma("GCC unroll 16")
	for (int i = 0; i < 16; i++)
		x[i] = SET1(st[i]);
	x[12] = CADD(SET1(ctr), IOTA);
	for (int i = 0; i < 10; i++) {
		CQR(0, 4, 8, 12);
		CQR(1, 5, 9, 13);
		CQR(2, 6, 10, 14);
		CQR(3, 7, 11, 15);
		CQR(0, 5, 10, 15);
		CQR(1, 6, 11, 12);
		CQR(2, 7, 8, 13);
		CQR(3, 4, 9, 14);
	}
	/* the input again from memory: kept in registers it would spill the rounds */
	_Pragma("GCC unroll 16")
	for (int i = 0; i < 16; i++)
		x[i] = CADD(x[i], i == 12 ? CADD(SET1(ctr), IOTA) : SET1(st[i]));
	PUTC(x, dst, src);
}

void FN(const uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	uint32_t ctr = state[12];

	for (; len >= L * 64; len -= L * 64, dst += L * 64, src += L * 64, ctr += L)
		cols(state, ctr, dst, src);
	if (len)
		rows_xor(state, ctr, dst, src, len);
	LEAVE();
}
