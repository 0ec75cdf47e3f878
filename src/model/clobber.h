/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internal to src/model: the ISA parts of fpl_fpu_clobber(), one file per ISA. */
#ifndef FPULAB_MODEL_CLOBBER_H
#define FPULAB_MODEL_CLOBBER_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes of values one clobber needs: 32 ZMM registers and 8 opmask registers. */
#define FPL_CLOBBER_VEC_BYTES	(32 * 64)
#define FPL_CLOBBER_K_BYTES	(8 * 8)

/* xmm0-15 from v (256 bytes). */
void fpl_clobber_sse(const uint8_t *v);
/* ymm0-15 from v (512 bytes). */
void fpl_clobber_avx(const uint8_t *v);
/* zmm0-31 from v (2048 bytes), and k0-k7 from k (64-bit with AVX512BW, else 16-bit). */
void fpl_clobber_avx512(const uint8_t *v, const uint64_t *k, bool bw);

#endif
