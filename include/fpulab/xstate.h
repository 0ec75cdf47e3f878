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

/*
 * The AMX tile palette (CPUID 0x1D.0 max palette, 0x1D.1 palette 1; 0x1E.0
 * TMUL limits). valid: AMX-TILE enumerated, palette 1 present and sane
 * (max_names <= 16, max_rows <= 64, bytes_per_row <= 64, non-zero): only
 * then can a valid TILECFG be built (fpl_tilecfg_make in fpulab/amx.h).
 */
struct fpl_amx_palette {
	bool valid;
	unsigned max_palette;		/* 0x1D.0 EAX */
	unsigned total_tile_bytes;	/* 0x1D.1 EAX[15:0] */
	unsigned bytes_per_tile;	/* 0x1D.1 EAX[31:16] */
	unsigned bytes_per_row;		/* 0x1D.1 EBX[15:0] */
	unsigned max_names;		/* 0x1D.1 EBX[31:16]: tiles */
	unsigned max_rows;		/* 0x1D.1 ECX[15:0] */
	unsigned tmul_maxk;		/* 0x1E.0 EBX[7:0] */
	unsigned tmul_maxn;		/* 0x1E.0 EBX[23:8] */
};

struct fpl_xstate {
	bool xsave;			/* false: FXSAVE only; xcr0 then reads x87|SSE */
	bool live;			/* from the running CPU: the masks can ask the kernel */
	bool xgetbv1;			/* live and XINUSE readable (XGETBV ECX=1) */
	uint64_t xcr0;			/* user components the OS enabled */
	/* a dump's ARCH_GET_XCOMP_PERM as fpl_cpu_set_xcr0() gave it (perm_known) */
	bool perm_known;
	uint64_t perm;
	uint64_t user;			/* user components enumerated (0xD.0 EDX:EAX) */
	uint64_t supervisor;		/* supervisor components enumerated (0xD.1 EDX:ECX) */
	uint32_t size_std_xcr0;		/* 0xD.0 EBX: standard size for the XCR0 in force */
	uint32_t size_std_max;		/* 0xD.0 ECX: standard size for every user component */
	uint32_t size_compacted_xss;	/* 0xD.1 EBX: compacted size for XCR0 | IA32_XSS */
	struct fpl_xcomp comp[FPL_XFEATURE_MAX];
	struct fpl_amx_palette amx;	/* zeroed (valid false) without AMX-TILE */
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
 * The three masks (DESIGN.md); every size is one of the layout functions
 * below applied to one of them.
 *
 * fpl_xstate_xcr0(): the user components the OS enabled (XCR0; x87|SSE
 * without XSAVE). Pure.
 *
 * fpl_xstate_permitted(): what this process may use: ARCH_GET_XCOMP_PERM
 * & XCR0. Where the call is absent (kernel before 5.16, or xs is from a
 * dump without one given by fpl_cpu_set_xcr0()) it is
 * fpl_xstate_default_perm(): XCR0 minus the components XFD can
 * arm (AMX TILEDATA), which is what a process gets before
 * ARCH_REQ_XCOMP_PERM. Permission only grows: never larger than XCR0.
 *
 * fpl_xstate_active(): permitted minus the XFD-armed components the calling
 * thread has not used yet: what the kernel saves for this task and what its
 * signal frames hold (xstate_size = fpl_xstate_size_std(active)). Read the
 * way the kernel shows it: equal to permitted when no XFD component is
 * permitted or XINUSE shows them in use (XFD armed reads 0 there); otherwise
 * the xfeatures of a signal frame the thread sends itself (SIGURG, handler
 * installed for the call only, not thread-safe against a caller's own SIGURG
 * handler). Never call it between a state set-up and what depends on it: the
 * signal round trip can change XINUSE. From a dump: permitted.
 *
 * "All state" in fpulab means permitted, never XCR0 blindly.
 */
uint64_t fpl_xstate_xcr0(const struct fpl_xstate *xs);
uint64_t fpl_xstate_xfd_mask(const struct fpl_xstate *xs);	/* XCR0 components XFD can arm */
uint64_t fpl_xstate_default_perm(const struct fpl_xstate *xs);	/* XCR0 & ~xfd_mask */
uint64_t fpl_xstate_permitted(const struct fpl_xstate *xs);
uint64_t fpl_xstate_active(const struct fpl_xstate *xs);

/*
 * The signal frame from the layout: the largest one the kernel can write
 * (its AT_MINSIGSTKSZ, init_sigframe_size() in arch/x86/kernel/signal.c:
 * the ia32 frame's 736 bytes, 15 of frame alignment, the standard XSAVE
 * image for all of XCR0 (AMX tile data too, permitted or not) with magic2,
 * the 112-byte fsave header, 63 of XSAVE alignment, rounded up to 16; the
 * FXSAVE area of 512 bytes without XSAVE), and the smallest alternate
 * stack: the larger of that and the MINSIGSTKSZ (2048) below which
 * sigaltstack(2) fails with ENOMEM whatever AT_MINSIGSTKSZ says.
 */
#define FPL_KERNEL_MINSIGSTKSZ	2048u
uint32_t fpl_xstate_sigframe_max(const struct fpl_xstate *xs);
uint32_t fpl_xstate_altstack_min(const struct fpl_xstate *xs);

/* The three masks at once with where each came from (for info and results). */
struct fpl_xstate_masks {
	uint64_t xcr0, permitted, active;
	int perm_err;		/* ARCH_GET_XCOMP_PERM: 0, or -errno (permitted is the default) */
	const char *permitted_from;	/* "ARCH_GET_XCOMP_PERM", or why the default was used */
	const char *active_from;	/* "permitted", "XINUSE", "signal frame", "a dump: ..." */
	/* signal frame of this thread now, when one was sent: 0 otherwise */
	uint64_t frame_xfeatures;
	uint32_t frame_xstate_size;
};
int fpl_xstate_masks(const struct fpl_xstate *xs, struct fpl_xstate_masks *m);

/*
 * Send this thread a signal and read what the kernel wrote into the frame's
 * software bytes (struct _fpx_sw_bytes at 464): xfeatures (the task's user
 * features) and xstate_size (the XSAVE image without magic2). 0, -ENODATA
 * when the frame has no XSAVE image (FXSAVE only), -errno from sigaction.
 */
int fpl_xstate_sigframe_probe(uint64_t *xfeatures, uint32_t *xstate_size);

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
 * Parse a component mask: a hex/decimal number, "all" (the permitted mask:
 * fpl_xstate_permitted()), or names
 * joined by ',' or '+': x87, sse, avx (or ymm), opmask, zmm_hi256, hi16_zmm,
 * avx512 (the three), pkru, tilecfg, tiledata, amx, ... Unknown names:
 * -EINVAL with diag.
 */
int fpl_xstate_parse_mask(const struct fpl_xstate *xs, const char *s, uint64_t *mask,
			  struct fpl_diag *diag);

/*
 * "widest", the state name every benchmark accepts: the widest vector
 * state of have (an XCR0): avx512 (opmask|zmm_hi256|hi16_zmm, all three
 * in have), else avx, else sse, else x87; never PKRU, AMX or APX. Its
 * name ("avx512", "avx", "sse", "x87") and mask in *mask. A state named
 * explicitly that have lacks is never replaced by it (the benchmark
 * refuses it: exit 77).
 */
const char *fpl_xstate_widest(uint64_t have, uint64_t *mask);
/* s is "widest", or a mask with "widest" among its '+'/',' parts. */
bool fpl_xstate_names_widest(const char *s);
/*
 * The one line that says what "widest" is here, with why when it is not
 * avx512: "state 'widest' here: avx (0x4): no AVX-512 in XCR0 0x207".
 * what names have ("XCR0", "the guest's XCR0"). Returns buf.
 */
const char *fpl_xstate_widest_note(uint64_t have, const char *what, char *buf, size_t n);

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
 * component the CPU or the OS lacks (AMX tiles also without a palette in
 * xs->amx), -EPERM for tile data this process may not use (never asked for
 * implicitly: fpl_amx_request_perm() in fpulab/amx.h; nothing is executed
 * then, which would be SIGILL), -EIO when XINUSE does not show loaded AMX
 * components, -EINVAL for xs from a dump (nothing runs on this CPU then). TILEDATA alone (TILECFG as it is) is accepted, as by the
 * hardware; TILECFG patterns are always a valid palette-1 configuration.
 * fpl_regs_init drops XFD components this process may not use from RFBM
 * (they are init). The first tile-data load of a task is its XFD trap: do
 * it with fpl_amx_first_use() before timing. No libc call may come between these
 * and what depends on them: glibc's string functions use AVX-512 here. The
 * pattern keeps the x87 stack empty, every exception masked, rounding at
 * default and PKRU key 0 open, so compiled code keeps working.
 */
void fpl_xstate_pattern(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed, void *image);
int fpl_regs_set(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed);
int fpl_regs_init(const struct fpl_xstate *xs, uint64_t mask);
/*
 * Exactly mask live (with the pattern of seed) and every other permitted component
 * in init, in one XRSTOR: fpl_regs_init() then fpl_regs_set() cannot do that,
 * because building the image calls memset(), which dirties AVX-512 state.
 */
int fpl_regs_set_exact(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed);

#endif
