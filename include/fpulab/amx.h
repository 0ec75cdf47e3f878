/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AMX: permission (ARCH_REQ_XCOMP_PERM), the tile palette, TILECFG/TILEDATA decoding and control.
 */
#ifndef FPULAB_AMX_H
#define FPULAB_AMX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

/*
 * Everything here is a clean -ENOTSUP (diag: "no AMX on this CPU" or why)
 * where AMX is absent (CPUID AMX-TILE, or XCR0 without TILECFG|TILEDATA):
 * no function executes an AMX instruction then.
 */

/* 1 when xs has AMX tile state enabled by the OS and a usable palette; 0 with *why otherwise. */
int fpl_amx_supported(const struct fpl_xstate *xs, const char **why);

/*
 * The palette from a CPUID snapshot (live or a dump): -ENOTSUP without
 * AMX-TILE, -EINVAL (diag) when 0x1D does not describe a sane palette 1.
 * fpl_xstate_init() stores the same in xs->amx.
 */
int fpl_amx_palette(const struct fpl_cpu *cpu, struct fpl_amx_palette *p, struct fpl_diag *diag);

/*
 * arch_prctl(ARCH_REQ_XCOMP_PERM, 18) for TILEDATA, at most once per
 * process (asked again only if it failed). 0 when permitted (also when it
 * already was), -EOPNOTSUPP without AMX (no syscall then), otherwise the
 * kernel's -errno: -ENOSPC when a sigaltstack smaller than the AMX frame
 * is installed (ask before any sigaltstack), -EPERM or -EINVAL elsewhere. diag
 * says it in words. before and after (either may be NULL) get the permitted
 * mask around the call.
 */
int fpl_amx_request_perm(const struct fpl_xstate *xs, uint64_t *before, uint64_t *after,
			 struct fpl_diag *diag);
/*
 * What fpl_amx_request_perm() did for this process so far (requests with a
 * dump are not counted): calls is 0 when nothing asked, whoever the caller
 * (the command's --amx, or a benchmark asking by itself); err and msg are
 * the last call's answer (0 and "granted", or -errno and the diag text),
 * before the permitted mask at the first call and after it at the last.
 * One log per process (a forked child starts with its parent's); not for
 * concurrent callers.
 */
struct fpl_amx_perm_log {
	unsigned calls;
	int err;
	char msg[sizeof(((struct fpl_diag *)0)->msg)];
	uint64_t before, after;
};
void fpl_amx_perm_log(struct fpl_amx_perm_log *log);

/*
 * TILEDATA is in fpl_xstate_permitted() (cached once true: permission is
 * never revoked). Always false for xs from a dump.
 */
bool fpl_amx_permitted(const struct fpl_xstate *xs);

/*
 * Touch tile data once (XRSTOR of a TILEDATA pattern under a valid
 * palette-1 TILECFG: the XFD #NM, the kernel enlarges this task's fpstate
 * and disarms XFD), verify XINUSE bit 18 where XINUSE is readable, then
 * TILERELEASE: tiles end in init. Call it outside every timed region, and
 * again in each forked child (XFD is re-armed there) and each new thread.
 * 0, -ENOTSUP without AMX, -EPERM without permission (no instruction run:
 * that would be SIGILL), -EIO when XINUSE did not show the tiles live,
 * -EINVAL for xs from a dump.
 */
int fpl_amx_first_use(const struct fpl_xstate *xs, struct fpl_diag *diag);

/*
 * TILERELEASE: TILECFG and TILEDATA to init. Without TILEDATA permission it
 * is an XRSTOR of TILECFG's init instead (TILEDATA is init then anyway, and
 * TILERELEASE would meet armed XFD). 0, -ENOTSUP without AMX, -EINVAL for
 * xs from a dump.
 */
int fpl_amx_release(const struct fpl_xstate *xs);

/*
 * TILERELEASE itself (tiles_amx.c), no check: only where fpl_amx_supported()
 * and fpl_amx_permitted() say yes (fpl_amx_release() checks both). The one
 * definition, for the library and the benchmarks.
 */
void fpl_tilerelease(void);

/* The 64-byte TILECFG component (SDM "LDTILECFG"). */
#define FPL_TILECFG_SIZE 64
#define FPL_AMX_TILES_MAX 16

struct fpl_tilecfg {
	uint8_t palette;
	uint8_t start_row;
	uint16_t colsb[FPL_AMX_TILES_MAX]; /* bytes per row, tile i */
	uint8_t rows[FPL_AMX_TILES_MAX];
	bool reserved_zero; /* bytes 2..15 all zero */
};

void fpl_tilecfg_decode(const void *raw, struct fpl_tilecfg *cfg);
/*
 * Check raw against the palette as LDTILECFG would. 1: a valid non-init
 * configuration (XRSTOR makes it live); 0: palette 0, the init
 * configuration, whatever bytes 1..63 hold (no fault); -EINVAL with *why:
 * invalid, XRSTOR silently loads it as init (and LDTILECFG raises #GP).
 * Invalid: a palette above p->max_palette; a nonzero byte in 2..15; a tile
 * at or past p->max_names configured (bytes 32..47, 56..63 for palette 1);
 * colsb (u16) above bytes_per_row or rows above max_rows; exactly one of a
 * tile's rows and colsb zero. start_row is not checked, colsb need not be a
 * multiple of 4. These are the 64 variants of tests/data/amx/tilecfg-truth.txt,
 * as a Sapphire Rapids guest judged them. p may be NULL (palette unknown:
 * only palette 1 of 8 tiles x 16 rows x 64 bytes, the only one shipped, is known).
 */
int fpl_tilecfg_check(const struct fpl_amx_palette *p, const void *raw, const char **why);
/* A valid palette-1 configuration: every tile max_rows x bytes_per_row. -ENOTSUP without a valid
 * palette. */
int fpl_tilecfg_make(const struct fpl_amx_palette *p, void *raw);

/* One tile of a TILEDATA image (standard layout: tile i at i * bytes_per_tile). */
struct fpl_tile_summary {
	uint64_t nonzero_rows; /* bit r: row r holds a non-zero byte */
	unsigned rows;	       /* rows looked at (max_rows) */
	uint32_t checksum;     /* FNV-1a 32 over the tile's bytes_per_tile bytes */
};
/*
 * Summarise up to max tiles of data (n bytes) with palette p (NULL: 8 x 16
 * x 64). Returns the number of tiles summarised (>= 0) or -EINVAL when n is
 * shorter than one tile.
 */
int fpl_tiledata_summarise(const struct fpl_amx_palette *p, const void *data, size_t n,
			   struct fpl_tile_summary *out, unsigned max);
/* FNV-1a 32, as used for the tile checksums. */
uint32_t fpl_fnv1a32(const void *data, size_t n);

#endif
