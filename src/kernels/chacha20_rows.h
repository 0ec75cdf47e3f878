/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ChaCha20 for short input, shared by the SIMD files: a state row per 128-bit lane. */
/*
 * Included by chacha20_{sse,avx2,avx512}.c after they define:
 *   V, W (blocks per vector), ADD, XOR, ROL(v, n), SHUF(v, imm) (32-bit
 *   shuffle inside each 128-bit lane), ROW(p) (four words into every lane),
 *   LANES(k) (per lane j: {k + j, 0, 0, 0}), PUT(a, b, c, d, dst, src)
 *   (dst = src ^ the W keystream blocks held in rows a..d).
 * Two independent sets of W blocks are in flight per batch: the rounds are
 * one long dependency chain, so one set alone leaves the ALUs idle.
 */
#define QR(a, b, c, d)							\
	do {								\
		a = ADD(a, b); d = ROL(XOR(d, a), 16);			\
		c = ADD(c, d); b = ROL(XOR(b, c), 12);			\
		a = ADD(a, b); d = ROL(XOR(d, a), 8);			\
		c = ADD(c, d); b = ROL(XOR(b, c), 7);			\
	} while (0)

/* rows b, c, d turned so that the columns become the diagonals, and back */
#define DIAG(b, c, d)	do { b = SHUF(b, 0x39); c = SHUF(c, 0x4e); d = SHUF(d, 0x93); } while (0)
#define UNDIAG(b, c, d)	do { b = SHUF(b, 0x93); c = SHUF(c, 0x4e); d = SHUF(d, 0x39); } while (0)

#define BATCH	(2 * W * 64)

/* Two sets of W blocks from counter ctr: dst = src ^ keystream, BATCH bytes. */
static inline void batch(const uint32_t st[16], uint32_t ctr, uint8_t *dst, const uint8_t *src)
{
	const V a0 = ROW(st), b0 = ROW(st + 4), c0 = ROW(st + 8);
	const V d0 = ADD(ROW(st + 12), LANES(ctr - st[12]));
	const V d1 = ADD(ROW(st + 12), LANES(ctr - st[12] + W));
	V a = a0, b = b0, c = c0, d = d0, e = a0, f = b0, g = c0, h = d1;

	for (int i = 0; i < 10; i++) {
		QR(a, b, c, d);
		QR(e, f, g, h);
		DIAG(b, c, d);
		DIAG(f, g, h);
		QR(a, b, c, d);
		QR(e, f, g, h);
		UNDIAG(b, c, d);
		UNDIAG(f, g, h);
	}
	PUT(ADD(a, a0), ADD(b, b0), ADD(c, c0), ADD(d, d0), dst, src);
	PUT(ADD(e, a0), ADD(f, b0), ADD(g, c0), ADD(h, d1), dst + W * 64, src + W * 64);
}

/* One set of W blocks: a short tail needs no second set. */
static inline void single(const uint32_t st[16], uint32_t ctr, uint8_t *dst, const uint8_t *src)
{
	const V a0 = ROW(st), b0 = ROW(st + 4), c0 = ROW(st + 8);
	const V d0 = ADD(ROW(st + 12), LANES(ctr - st[12]));
	V a = a0, b = b0, c = c0, d = d0;

	for (int i = 0; i < 10; i++) {
		QR(a, b, c, d);
		DIAG(b, c, d);
		QR(a, b, c, d);
		UNDIAG(b, c, d);
	}
	PUT(ADD(a, a0), ADD(b, b0), ADD(c, c0), ADD(d, d0), dst, src);
}

/* Whole batches, then the tail through a buffer (one set when it fits in one). */
static void rows_xor(const uint32_t state[16], uint32_t ctr, uint8_t *dst, const uint8_t *src,
		     size_t len)
{
	for (; len >= BATCH; len -= BATCH, dst += BATCH, src += BATCH, ctr += 2 * W)
		batch(state, ctr, dst, src);
	if (len) {
		/* byte loops, not memcpy (see the pragma in the including file) */
		uint8_t buf[BATCH];

		for (size_t i = 0; i < len; i++)
			buf[i] = src[i];
		if (len <= W * 64)
			single(state, ctr, buf, buf);
		else
			batch(state, ctr, buf, buf);
		for (size_t i = 0; i < len; i++)
			dst[i] = buf[i];
	}
}
