/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Entry points of the per-ISA ChaCha20 files, for the table in chacha20.c only. */
#ifndef FPULAB_KERNELS_CHACHA20_INTERNAL_H
#define FPULAB_KERNELS_CHACHA20_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

void fpl_chacha20_xor_scalar(const uint32_t state[16], uint8_t *dst, const uint8_t *src,
			     size_t len);
void fpl_chacha20_xor_sse(const uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void fpl_chacha20_xor_avx2(const uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void fpl_chacha20_xor_avx512(const uint32_t state[16], uint8_t *dst, const uint8_t *src,
			     size_t len);

#endif
