/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared inside src/xstate: the XRSTOR variants chosen at run time. */
#ifndef FPULAB_XSTATE_INTERNAL_H
#define FPULAB_XSTATE_INTERNAL_H

#include <stdint.h>

/* Built with AVX-512 flags so that xmm16-31 and k0-7 can be named as clobbered. */
void fpl_xrstor64_avx512(const void *buf, uint64_t rfbm);
/* For CPUs (or OSes) without AVX-512 state: xmm0-15 are all there is. */
void fpl_xrstor64_base(const void *buf, uint64_t rfbm);

#endif
