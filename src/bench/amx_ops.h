/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AMX for the benchmarks: raw permission calls and the tile instructions, timed one by one. */
#ifndef FPULAB_BENCH_AMX_OPS_H
#define FPULAB_BENCH_AMX_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"

/* arch_prctl codes (arch/x86/include/uapi/asm/prctl.h). */
#define FPL_ARCH_GET_XCOMP_SUPP		0x1021
#define FPL_ARCH_GET_XCOMP_PERM		0x1022
#define FPL_ARCH_REQ_XCOMP_PERM		0x1023

/* ARCH_GET_XCOMP_PERM: 0 and *mask, or -errno. */
int fpl_amxb_get_perm(uint64_t *mask);
/* ARCH_REQ_XCOMP_PERM for tile data: 0 or -errno (-ENOSPC: an alternate stack too small). */
int fpl_amxb_req_perm(void);

/*
 * The permission calls above are raw (no caching, unlike
 * fpl_amx_request_perm()): what fpulab amx times, in children of its own.
 * The tile instructions (amx_ops_amx.c). Call only where fpl_amx_supported()
 * said yes and, for anything touching tile data, after permission: without
 * it the first tile-data use is SIGILL. Each _timed one returns the TSC
 * ticks between lfence;rdtsc before and lfence;rdtsc;lfence after the one
 * instruction (the timer's floor included).
 */
void fpl_amxb_ldtilecfg(const void *cfg);
void fpl_amxb_tileload0(const void *buf, long stride);	/* TILELOADD tmm0 */
void fpl_amxb_tilerelease(void);
uint64_t fpl_amxb_ldtilecfg_timed(const void *cfg);
uint64_t fpl_amxb_tileload0_timed(const void *buf, long stride);
uint64_t fpl_amxb_tilerelease_timed(void);

#endif
