/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AMX for the benchmarks: permission, the palette, a valid TILECFG, and the tile instructions timed one by one. */
#ifndef FPULAB_BENCH_AMX_OPS_H
#define FPULAB_BENCH_AMX_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"

/* arch_prctl codes (arch/x86/include/uapi/asm/prctl.h). */
#define FPL_ARCH_GET_XCOMP_SUPP		0x1021
#define FPL_ARCH_GET_XCOMP_PERM		0x1022
#define FPL_ARCH_REQ_XCOMP_PERM		0x1023

/* Palette 1 as CPUID 0x1D.1 describes it. */
struct fpl_amxb_palette {
	unsigned tiles;		/* 0x1D.1 EBX[31:16] max_names */
	unsigned rows;		/* 0x1D.1 ECX[15:0] max_rows */
	unsigned colsb;		/* 0x1D.1 EBX[15:0] bytes_per_row */
	unsigned tile_bytes;	/* 0x1D.1 EAX[31:16] */
	unsigned total_bytes;	/* 0x1D.1 EAX[15:0] */
};

/*
 * 1 when this CPU and OS can run tile code here: AMX-TILE in CPUID, both
 * tile components enabled in XCR0, palette 1 enumerated. 0 with *why
 * ("no AMX on this CPU ...") otherwise. XFD is reported by fpl_amxb_xfd().
 */
int fpl_amxb_usable(const struct fpl_cpu *cpu, const char **why);
bool fpl_amxb_xfd(const struct fpl_cpu *cpu);
/* Palette 1 from the snapshot. 0, or -ENOTSUP when 0x1D.1 is missing or empty. */
int fpl_amxb_palette(const struct fpl_cpu *cpu, struct fpl_amxb_palette *p);
/*
 * A valid palette-1 configuration using every tile at full size (XRSTOR
 * loads an invalid one silently as init, LDTILECFG raises #GP: never
 * produce one). cfg is 64 bytes. Returns false (cfg zeroed) when the
 * palette does not fit the 64-byte format.
 */
bool fpl_amxb_tilecfg(const struct fpl_amxb_palette *p, unsigned char cfg[64]);
/* Pure check of a 64-byte configuration against the palette: what LDTILECFG accepts. */
bool fpl_amxb_tilecfg_valid(const struct fpl_amxb_palette *p, const unsigned char cfg[64]);

/* ARCH_GET_XCOMP_PERM: 0 and *mask, or -errno. */
int fpl_amxb_get_perm(uint64_t *mask);
/* ARCH_REQ_XCOMP_PERM for tile data: 0 or -errno (-ENOSPC: an alternate stack too small). */
int fpl_amxb_req_perm(void);

/*
 * The tile instructions (amx_ops_amx.c). Call only where fpl_amxb_usable()
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
