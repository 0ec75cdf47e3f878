// SPDX-License-Identifier: GPL-3.0-or-later
/* ChaCha20 in plain C on general registers: the reference the SIMD rows are checked against. */
#include "fpulab/chacha20.h"
#include "kernels/chacha20_internal.h"

/* As the xor templates: keep the compiler from vectorizing, so this touches no vector state. */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("no-sse"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("general-regs-only")
/* nor turn copy loops into libc calls, whose EVEX code would dirty ZMM state */
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

static inline uint32_t rol32(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define QR(a, b, c, d)							\
	do {								\
		x[a] += x[b]; x[d] = rol32(x[d] ^ x[a], 16);		\
		x[c] += x[d]; x[b] = rol32(x[b] ^ x[c], 12);		\
		x[a] += x[b]; x[d] = rol32(x[d] ^ x[a], 8);		\
		x[c] += x[d]; x[b] = rol32(x[b] ^ x[c], 7);		\
	} while (0)

void fpl_chacha20_init(uint32_t state[16], const uint8_t key[FPL_CHACHA20_KEY_SIZE],
		       uint32_t counter, const uint8_t nonce[FPL_CHACHA20_NONCE_SIZE])
{
	state[0] = 0x61707865;	/* "expand 32-byte k" */
	state[1] = 0x3320646e;
	state[2] = 0x79622d32;
	state[3] = 0x6b206574;
	for (int i = 0; i < 8; i++)
		state[4 + i] = le32(key + 4 * i);
	state[12] = counter;
	for (int i = 0; i < 3; i++)
		state[13 + i] = le32(nonce + 4 * i);
}

void fpl_chacha20_block(const uint32_t state[16], uint8_t out[FPL_CHACHA20_BLOCK_SIZE])
{
	uint32_t x[16];

	for (int i = 0; i < 16; i++)
		x[i] = state[i];
	for (int i = 0; i < 10; i++) {
		QR(0, 4, 8, 12);
		QR(1, 5, 9, 13);
		QR(2, 6, 10, 14);
		QR(3, 7, 11, 15);
		QR(0, 5, 10, 15);
		QR(1, 6, 11, 12);
		QR(2, 7, 8, 13);
		QR(3, 4, 9, 14);
	}
	for (int i = 0; i < 16; i++) {
		uint32_t v = x[i] + state[i];

		out[4 * i] = (uint8_t)v;
		out[4 * i + 1] = (uint8_t)(v >> 8);
		out[4 * i + 2] = (uint8_t)(v >> 16);
		out[4 * i + 3] = (uint8_t)(v >> 24);
	}
}

void fpl_chacha20_xor_scalar(const uint32_t state[16], uint8_t *dst, const uint8_t *src,
			     size_t len)
{
	uint32_t s[16];
	uint8_t ks[FPL_CHACHA20_BLOCK_SIZE];

	for (int i = 0; i < 16; i++)
		s[i] = state[i];
	while (len) {
		size_t n = len < sizeof(ks) ? len : sizeof(ks);

		fpl_chacha20_block(s, ks);
		for (size_t i = 0; i < n; i++)
			dst[i] = src[i] ^ ks[i];
		s[12]++;
		dst += n;
		src += n;
		len -= n;
	}
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
