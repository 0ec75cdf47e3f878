/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ChaCha20 (RFC 8439) stream xor: a scalar reference and SIMD implementations, one row each. */
#ifndef FPULAB_CHACHA20_H
#define FPULAB_CHACHA20_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/cpu.h"

#define FPL_CHACHA20_KEY_SIZE	32
#define FPL_CHACHA20_NONCE_SIZE	12
#define FPL_CHACHA20_BLOCK_SIZE	64

struct fpl_chacha20_impl {
	const char *name;	/* "scalar", "sse", "avx2", "avx512" */
	const char *isa;
	const char *shape;	/* one line: how blocks are laid out in registers */
	unsigned blocks;	/* blocks computed per batch (64 bytes each) */
	uint64_t xfeatures;	/* FPL_XFEATURE_MASK_* it writes; 0 for general registers only */
	bool (*supported)(const struct fpl_cpu *cpu, const char **why);
	/*
	 * dst = src ^ keystream for any len, starting at the block counter in
	 * state[12], which wraps at 2^32 as the RFC's 32-bit counter does.
	 * dst may equal src; otherwise they must not overlap.
	 */
	void (*xor_stream)(const uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
};

const struct fpl_chacha20_impl *fpl_chacha20_impls(size_t *n);
const struct fpl_chacha20_impl *fpl_chacha20_find(const char *name);

/* RFC 8439 2.3: constants, key, block counter, nonce (all little endian). */
void fpl_chacha20_init(uint32_t state[16], const uint8_t key[FPL_CHACHA20_KEY_SIZE],
		       uint32_t counter, const uint8_t nonce[FPL_CHACHA20_NONCE_SIZE]);
/* One 64-byte keystream block, the scalar reference (the RFC's block function). */
void fpl_chacha20_block(const uint32_t state[16], uint8_t out[FPL_CHACHA20_BLOCK_SIZE]);

/*
 * Checked entry point: -EINVAL for a NULL impl/key/nonce, or NULL buffers
 * with len > 0; -ENOTSUP when cpu is given and cannot run impl.
 */
int fpl_chacha20_xor(const struct fpl_chacha20_impl *impl, const struct fpl_cpu *cpu,
		     const uint8_t key[FPL_CHACHA20_KEY_SIZE], uint32_t counter,
		     const uint8_t nonce[FPL_CHACHA20_NONCE_SIZE], uint8_t *dst, const uint8_t *src,
		     size_t len);

#endif
