/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Extended-state components, layouts (standard and compacted), XSAVE-family wrappers, register state control. */
#ifndef FPULAB_XSTATE_H
#define FPULAB_XSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"

/* Component numbers as in the SDM and arch/x86/include/asm/fpu/types.h. */
enum fpl_xfeature {
	FPL_XFEATURE_FP,
	FPL_XFEATURE_SSE,
	FPL_XFEATURE_YMM,
	FPL_XFEATURE_BNDREGS,
	FPL_XFEATURE_BNDCSR,
	FPL_XFEATURE_OPMASK,
	FPL_XFEATURE_ZMM_Hi256,
	FPL_XFEATURE_Hi16_ZMM,
	FPL_XFEATURE_PT,
	FPL_XFEATURE_PKRU,
	FPL_XFEATURE_PASID,
	FPL_XFEATURE_CET_USER,
	FPL_XFEATURE_CET_KERNEL,
	FPL_XFEATURE_HDC,
	FPL_XFEATURE_UINTR,
	FPL_XFEATURE_LBR,
	FPL_XFEATURE_HWP,
	FPL_XFEATURE_XTILE_CFG,
	FPL_XFEATURE_XTILE_DATA,
	FPL_XFEATURE_APX,
	FPL_XFEATURE_MAX
};

#define FPL_XFEATURE_MASK(x)		(1ull << FPL_XFEATURE_##x)
#define FPL_XFEATURE_MASK_FP		FPL_XFEATURE_MASK(FP)
#define FPL_XFEATURE_MASK_SSE		FPL_XFEATURE_MASK(SSE)
#define FPL_XFEATURE_MASK_YMM		FPL_XFEATURE_MASK(YMM)
#define FPL_XFEATURE_MASK_OPMASK	FPL_XFEATURE_MASK(OPMASK)
#define FPL_XFEATURE_MASK_ZMM_Hi256	FPL_XFEATURE_MASK(ZMM_Hi256)
#define FPL_XFEATURE_MASK_Hi16_ZMM	FPL_XFEATURE_MASK(Hi16_ZMM)
#define FPL_XFEATURE_MASK_PKRU		FPL_XFEATURE_MASK(PKRU)
#define FPL_XFEATURE_MASK_XTILE_CFG	FPL_XFEATURE_MASK(XTILE_CFG)
#define FPL_XFEATURE_MASK_XTILE_DATA	FPL_XFEATURE_MASK(XTILE_DATA)
#define FPL_XFEATURE_MASK_FPSSE		(FPL_XFEATURE_MASK_FP | FPL_XFEATURE_MASK_SSE)
#define FPL_XFEATURE_MASK_AVX512	(FPL_XFEATURE_MASK_OPMASK | FPL_XFEATURE_MASK_ZMM_Hi256 | \
					 FPL_XFEATURE_MASK_Hi16_ZMM)
#define FPL_XFEATURE_MASK_XTILE		(FPL_XFEATURE_MASK_XTILE_CFG | FPL_XFEATURE_MASK_XTILE_DATA)

/* The XSAVE area: legacy region, header, then components. */
#define FPL_XSAVE_LEGACY_SIZE	512
#define FPL_XSAVE_HDR_OFFSET	512
#define FPL_XSAVE_HDR_SIZE	64
#define FPL_XSAVE_ALIGN		64
#define FPL_XCOMP_BV_COMPACTED	(1ull << 63)

struct fpl_xcomp {
	bool enumerated;	/* CPUID 0xD lists it (user in 0xD.0, supervisor in 0xD.1) */
	bool supervisor;	/* 0xD.n ECX bit 0 */
	bool align64;		/* 0xD.n ECX bit 1: 64-byte aligned in compacted form */
	bool xfd;		/* 0xD.n ECX bit 2: XFD can arm it */
	uint32_t size;		/* 0xD.n EAX; 0 and 1 are fixed by the legacy area */
	uint32_t offset;	/* 0xD.n EBX, standard form; 0 for supervisor components */
};

struct fpl_xstate {
	bool xsave;			/* false: FXSAVE only; xcr0 then reads x87|SSE */
	uint64_t xcr0;			/* user components the OS enabled */
	uint64_t user;			/* user components enumerated (0xD.0 EDX:EAX) */
	uint64_t supervisor;		/* supervisor components enumerated (0xD.1 EDX:ECX) */
	uint32_t size_std_xcr0;		/* 0xD.0 EBX: standard size for the XCR0 in force */
	uint32_t size_std_max;		/* 0xD.0 ECX: standard size for every user component */
	uint32_t size_compacted_xss;	/* 0xD.1 EBX: compacted size for XCR0 | IA32_XSS */
	struct fpl_xcomp comp[FPL_XFEATURE_MAX];
};

/* Short kernel-style names: "x87", "SSE", "AVX", "MPX_BNDREGS", ... "AMX_TILEDATA", "APX". */
const char *fpl_xfeature_name(unsigned id);
/* "x87|SSE|AVX" for a mask ("none" for 0); truncated to n. Returns buf. */
char *fpl_xfeature_mask_names(uint64_t mask, char *buf, size_t n);

/*
 * Fill the table from a snapshot (live or a dump). Without usable XSAVE the
 * table describes FXSAVE's state: xsave false, xcr0 = x87|SSE, sizes 512.
 */
int fpl_xstate_init(struct fpl_xstate *xs, const struct fpl_cpu *cpu);

/*
 * Layout as pure functions of the table and a component mask. Sizes include
 * the legacy area and the header. The compacted offset walks the mask in
 * ascending order from 576, aligning to 64 where align64 says so.
 * Offsets of components outside mask (or not enumerated) are -1.
 */
uint32_t fpl_xstate_size_std(const struct fpl_xstate *xs, uint64_t mask);
uint32_t fpl_xstate_size_compacted(const struct fpl_xstate *xs, uint64_t mask);
int64_t fpl_xstate_offset_std(const struct fpl_xstate *xs, unsigned id);
int64_t fpl_xstate_offset_compacted(const struct fpl_xstate *xs, uint64_t mask, unsigned id);

/*
 * Parse a component mask: a hex/decimal number, "all" (XCR0), or names
 * joined by ',' or '+': x87, sse, avx (or ymm), opmask, zmm_hi256, hi16_zmm,
 * avx512 (the three), pkru, tilecfg, tiledata, amx, ... Unknown names:
 * -EINVAL with diag.
 */
int fpl_xstate_parse_mask(const struct fpl_xstate *xs, const char *s, uint64_t *mask,
			  struct fpl_diag *diag);

/* 64-byte-aligned, zeroed buffer for an image; free with free(). */
void *fpl_xstate_alloc(size_t size);

/* The save instructions fpulab knows; XSAVES is reported, never executed (ring 0 only). */
enum fpl_save_insn {
	FPL_INSN_FXSAVE,
	FPL_INSN_XSAVE,
	FPL_INSN_XSAVEOPT,
	FPL_INSN_XSAVEC,
	FPL_INSN_XSAVES,
	FPL_INSN_NR
};
const char *fpl_save_insn_name(enum fpl_save_insn insn);	/* "xsaveopt" */
int fpl_save_insn_by_name(const char *name);			/* -1 if unknown */
/* 1 when usable on this snapshot, 0 with *why otherwise (XSAVES: "ring 0 only"). */
int fpl_save_insn_supported(const struct fpl_cpu *cpu, enum fpl_save_insn insn,
			    const char **why);

/*
 * The instructions themselves, 64-bit forms, on the running CPU. The caller
 * checked support; buf is 64-byte aligned (16 for FXSAVE) and large enough.
 * XRSTOR lists every vector and opmask register as clobbered.
 */
void fpl_fxsave64(void *buf);
void fpl_fxrstor64(const void *buf);
void fpl_xsave64(void *buf, uint64_t rfbm);
void fpl_xsaveopt64(void *buf, uint64_t rfbm);
void fpl_xsavec64(void *buf, uint64_t rfbm);
void fpl_xrstor64(const void *buf, uint64_t rfbm);
/* Dispatch on insn (not XSAVES). FXSAVE ignores rfbm. */
void fpl_xstate_save(enum fpl_save_insn insn, void *buf, uint64_t rfbm);
/* Restore an image written by insn: FXRSTOR for FXSAVE, XRSTOR otherwise (either format). */
void fpl_xstate_restore(enum fpl_save_insn insn, const void *buf, uint64_t rfbm);

/*
 * Register state control on the running CPU.
 *
 * fpl_xstate_pattern() writes into a standard-format image (size_std_max
 * bytes, zeroed by the caller) a recognisable, valid pattern derived from
 * seed for every user component in mask, and sets XSTATE_BV = mask.
 * fpl_regs_set() makes the components in mask live with that pattern (by
 * XRSTOR of such an image; FXRSTOR without XSAVE). fpl_regs_init() returns
 * the components in mask to their init state. Both return 0, -ENOTSUP for a
 * component the CPU or the OS lacks (or AMX tile data the kernel refused:
 * both ask ARCH_REQ_XCOMP_PERM once when XFD guards it), -EINVAL for tile data
 * without TILECFG in fpl_regs_set's mask. No libc call may come between these
 * and what depends on them: glibc's string functions use AVX-512 here. The
 * pattern keeps the x87 stack empty, every exception masked, rounding at
 * default and PKRU key 0 open, so compiled code keeps working.
 */
void fpl_xstate_pattern(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed, void *image);
int fpl_regs_set(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed);
int fpl_regs_init(const struct fpl_xstate *xs, uint64_t mask);
/*
 * Exactly mask live (with the pattern of seed) and every other XCR0 component
 * in init, in one XRSTOR: fpl_regs_init() then fpl_regs_set() cannot do that,
 * because building the image calls memset(), which dirties AVX-512 state.
 */
int fpl_regs_set_exact(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed);

#endif
