// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: XSAVEOPT after a write to an AMX component (LDTILECFG, TILELOADD). Run only with tiles permitted and used. */
#include "internal.h"

/*
 * No -m flag: the assembler knows the tile mnemonics and the compiler never
 * uses tile registers. The restores may change any vector register; rcx
 * holds TILELOADD's stride.
 */
#define XS_CLOBBERS "memory", "cc", "rax", "rcx", "rdx", \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
	"xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
	"st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "fpsr"

#define XS_LOOP(fname, pre, body) XS_LOOP_DEF(static, fname, pre, body)

/*
 * The modify loops' state operand is free (they restore from the save
 * target): here it points at what the write reads. TILECFG: a valid
 * palette-1 configuration (LDTILECFG of it; tile data stays init when it was).
 * TILEDATA: one tile's rows, 64 bytes apart, none zero (TILELOADD of tmm0).
 */
#define MOD_TILECFG	"ldtilecfg (%[s])\n\t"
#define MOD_TILEDATA	"mov $64, %%ecx\n\ttileloadd (%[s],%%rcx,1), %%tmm0\n\t"

XS_MODIFY(mod_tilecfg, MOD_TILECFG)
XS_MODIFY(mod_tiledata, MOD_TILEDATA)
/* The writes alone, back to back: neither is ~1 cycle, so throughput removes them by difference. */
XS_LOOP(mod_tilecfg_w, "", MOD_TILECFG)
XS_LOOP(mod_tiledata_w, "", MOD_TILEDATA)

const struct fpl_xs_modify fpl_xs_modify_amx[2] = {
	{ mod_tilecfg_tp, mod_tilecfg_lat, mod_tilecfg_lat0, mod_tilecfg_w },
	{ mod_tiledata_tp, mod_tiledata_lat, mod_tiledata_lat0, mod_tiledata_w },
};
