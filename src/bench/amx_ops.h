/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AMX for the benchmarks: the tile instructions, timed one by one. */
#ifndef FPULAB_BENCH_AMX_OPS_H
#define FPULAB_BENCH_AMX_OPS_H

#include <stdint.h>

/*
 * The tile instructions (amx_ops_amx.c). Call only where fpl_amx_supported()
 * said yes and, for anything touching tile data, after permission: without
 * it the first tile-data use is SIGILL. Each _timed one returns the TSC
 * ticks between lfence;rdtsc before and lfence;rdtsc;lfence after the one
 * instruction (the timer's floor included). The raw permission calls that
 * fpulab amx times are fpl_arch_req_xcomp_perm() and
 * fpl_arch_get_xcomp_perm() (sysinfo.h); the untimed TILERELEASE is
 * fpl_tilerelease() (amx.h).
 */
void fpl_amxb_ldtilecfg(const void *cfg);
void fpl_amxb_tileload0(const void *buf, long stride);	/* TILELOADD tmm0 */
uint64_t fpl_amxb_ldtilecfg_timed(const void *cfg);
uint64_t fpl_amxb_tileload0_timed(const void *buf, long stride);
uint64_t fpl_amxb_tilerelease_timed(void);

#endif
