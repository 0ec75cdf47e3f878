/* SPDX-License-Identifier: GPL-3.0-or-later */
/* XSAVE images: detect, decode, validate (XRSTOR's and the kernel's rules), convert. */
#ifndef FPULAB_IMAGE_H
#define FPULAB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/amx.h"
#include "fpulab/xstate.h"

/*
 * What the bytes are. STANDARD and COMPACTED are raw XSAVE areas as XRSTOR
 * reads them (the form is XCOMP_BV[63]'s, whatever was declared). SIGNAL is
 * the fpstate of a 64-bit signal frame: a standard image whose bytes 464..511
 * are the kernel's _fpx_sw_bytes and which is followed by FP_XSTATE_MAGIC2.
 * PTRACE is a PTRACE_GETREGSET NT_X86_XSTATE dump: standard layout, XCR0 in
 * bytes 464..471.
 */
enum fpl_image_format {
	FPL_IMAGE_AUTO,
	FPL_IMAGE_STANDARD,
	FPL_IMAGE_COMPACTED,
	FPL_IMAGE_SIGNAL,
	FPL_IMAGE_PTRACE,
	FPL_IMAGE_FORMAT_NR
};
/* "auto", "raw", "compacted", "signal", "ptrace" */
const char *fpl_image_format_name(enum fpl_image_format f);
/* Also accepts "standard" for raw. -1 if unknown. */
int fpl_image_format_by_name(const char *name);

#define FPL_FP_XSTATE_MAGIC1		0x46505853u	/* "SXPF" at byte 464 */
#define FPL_FP_XSTATE_MAGIC2		0x46505845u	/* "EXPF" after the image */
#define FPL_FP_XSTATE_MAGIC2_SIZE	4
#define FPL_SW_BYTES_OFFSET		464
#define FPL_MXCSR_OFFSET		24

/*
 * Who would refuse the image. FAULT: XRSTOR raises #GP (SIGSEGV in user
 * space); KERNEL: the kernel refuses it (PTRACE_SETREGSET fails, sigreturn
 * drops the extended state); NOTE: worth knowing, refused by no one.
 */
enum fpl_image_severity {
	FPL_IMAGE_NOTE,
	FPL_IMAGE_KERNEL,
	FPL_IMAGE_FAULT,
};
const char *fpl_image_severity_name(enum fpl_image_severity s);	/* "note" "kernel" "fault" */

struct fpl_image_finding {
	enum fpl_image_severity severity;
	const char *rule;	/* stable id, "xrstor.xstate_bv", "sigframe.magic2", ... */
	size_t offset;		/* byte offset in the buffer the rule is about */
	char msg[200];
};

#define FPL_IMAGE_MAX_FINDINGS 24

/*
 * The tracee of a PTRACE_SETREGSET NT_X86_XSTATE, as the kernel judges the
 * image: XSTATE_BV must lie within its fpstate's user_xfeatures, which hold
 * the XFD components (AMX tile data) only once the tracee has used them,
 * whatever its permission (measured on Sapphire Rapids:
 * tests/data/amx/ptrace-setregset.txt). NO_PERM, 0, is the default: the
 * strictest. On a CPU without XFD components the three are the same.
 */
enum fpl_ptrace_tracee {
	FPL_TRACEE_NO_PERM,		/* never asked ARCH_REQ_XCOMP_PERM */
	FPL_TRACEE_PERM_UNUSED,		/* permission granted, no XFD component used yet */
	FPL_TRACEE_USED,		/* has used them (tiles): XFD disarmed, fpstate grown */
	FPL_TRACEE_NR
};
/* "no-perm", "perm-unused", "tiles-used" */
const char *fpl_ptrace_tracee_name(enum fpl_ptrace_tracee t);
/* -1 if unknown. */
int fpl_ptrace_tracee_by_name(const char *name);
/* A sentence for people: "no AMX permission (never asked)" ... */
const char *fpl_ptrace_tracee_words(enum fpl_ptrace_tracee t);

/*
 * The CPU an image is judged against. fpl_image_cfg_init() fills it from a
 * snapshot (rules that differ by vendor name the vendor of the snapshot): XCR0 and the layout from xs, the MXCSR bits XRSTOR accepts (the
 * running CPU's FXSAVE MXCSR_MASK for a live snapshot; for a dump 0x2ffff on
 * AMD parts with MisAlignSse, whose MXCSR.MM is writable, 0xffff otherwise).
 */
struct fpl_image_cfg {
	const struct fpl_xstate *xs;
	uint32_t mxcsr_mask;
	const char *mxcsr_mask_source;	/* how mxcsr_mask was found, for the reader */
	bool xsavec;			/* compacted form supported (CPUID 0xD.1 EAX[1]) */
	bool amd;
	enum fpl_image_format format;	/* FPL_IMAGE_AUTO: detect */
	uint64_t rfbm;			/* EDX:EAX of the XRSTOR, ANDed with XCR0; default ~0 */
	/*
	 * The features of the task that would restore a signal frame (its
	 * fpstate's user_xfeatures): sigreturn takes the extended state only
	 * when xstate_size fits this mask's standard size. Default: the running
	 * task's active mask (fpl_xstate_active) for a live snapshot, XCR0 for
	 * a dump (a task that has used every component).
	 */
	uint64_t task_mask;
	/* PTRACE: the tracee's case (default FPL_TRACEE_NO_PERM, the strictest). */
	enum fpl_ptrace_tracee tracee;
	bool check_align;		/* also judge the buffer's address (64-byte alignment) */
};
void fpl_image_cfg_init(struct fpl_image_cfg *cfg, const struct fpl_cpu *cpu,
			const struct fpl_xstate *xs);

/* _fpx_sw_bytes as found at byte 464 */
struct fpl_image_sw {
	uint32_t magic1, extended_size, xstate_size;
	uint64_t xfeatures;
	bool magic2_found;		/* FP_XSTATE_MAGIC2 at xstate_size */
	bool valid;			/* the kernel's check passes: sigreturn uses XRSTOR */
};

/*
 * The software bytes of a live signal frame's image (a handler's
 * uc_mcontext.fpregs), read byte by byte and with no calls, so that a
 * handler may use it on an alternate stack of AT_MINSIGSTKSZ bytes.
 * magic2 is read (and magic2_found set) only when magic1 announces an XSAVE
 * image of at least the legacy area and header; valid stays false: a live
 * frame has no task size to check it against.
 */
void fpl_image_sw_live(const void *fpstate, struct fpl_image_sw *sw);

struct fpl_image {
	const uint8_t *buf;		/* the caller's bytes, not copied */
	size_t len;
	enum fpl_image_format format;	/* as decoded, never AUTO */
	char why[160];			/* how the format was chosen */
	uint64_t xstate_bv, xcomp_bv;
	bool compacted;			/* XCOMP_BV[63]: XRSTOR's compacted form */
	uint64_t xcr0;			/* of the configured CPU */
	uint64_t rfbm;			/* what the consumer's XRSTOR would restore */
	uint64_t task_mask;		/* cfg->task_mask: the restoring task's features */
	uint32_t mxcsr, mxcsr_mask_saved;	/* bytes 24..31 (the latter is ignored by XRSTOR) */
	uint32_t mxcsr_mask;		/* the configured CPU's (cfg->mxcsr_mask) */
	struct fpl_image_sw sw;		/* SIGNAL */
	uint64_t ptrace_xcr0;		/* PTRACE: bytes 464..471 */
	enum fpl_ptrace_tracee tracee;	/* PTRACE: the tracee's case judged for (cfg->tracee) */
	uint64_t ptrace_features;	/* PTRACE: what XSTATE_BV may hold for that tracee */
	bool xrstor_faults;		/* some FAULT finding */
	bool kernel_rejects;		/* some KERNEL finding */
	unsigned nfindings;		/* at most FPL_IMAGE_MAX_FINDINGS; later ones dropped */
	bool findings_dropped;
	struct fpl_image_finding findings[FPL_IMAGE_MAX_FINDINGS];
	const struct fpl_xstate *xs;
};

/*
 * Decode and validate len bytes. Any bytes are safe (a fuzzing target calls
 * it on arbitrary input). Returns 0 when the bytes could be read as an
 * image, whatever the verdict (img->xrstor_faults, img->kernel_rejects and
 * the findings say it); -EINVAL with diag when they cannot (shorter than the
 * legacy area and header, or a declared format that does not fit).
 */
int fpl_image_decode(const void *buf, size_t len, const struct fpl_image_cfg *cfg,
		     struct fpl_image *img, struct fpl_diag *diag);

/* True when the image would be refused by XRSTOR or by the kernel: `fpulab decode` exits 2. */
static inline bool fpl_image_rejected(const struct fpl_image *img)
{
	return img->xrstor_faults || img->kernel_rejects;
}

/* The first FAULT or KERNEL finding (the one that rejects the image; findings[0] if none). */
static inline const struct fpl_image_finding *fpl_image_first_rejection(const struct fpl_image *img)
{
	for (unsigned i = 0; i < img->nfindings; i++)
		if (img->findings[i].severity != FPL_IMAGE_NOTE)
			return &img->findings[i];
	return &img->findings[0];
}

/*
 * Where component id lies in the image: its offset (standard or compacted by
 * XCOMP_BV), or -1 when the layout has no place for it. fpl_image_component()
 * returns its bytes only when XSTATE_BV has it and it lies inside the buffer.
 */
int64_t fpl_image_offset(const struct fpl_image *img, unsigned id);
const uint8_t *fpl_image_component(const struct fpl_image *img, unsigned id, uint32_t *size);

/* x87 state as XRSTOR would load it (init values when XSTATE_BV[0] is clear). */
enum fpl_x87_tag { FPL_X87_VALID, FPL_X87_ZERO, FPL_X87_SPECIAL, FPL_X87_EMPTY };
struct fpl_x87 {
	bool init;
	uint16_t fcw, fsw, fop;
	uint8_t ftw_abridged;		/* FXSAVE form: 1 = non-empty, by physical register */
	unsigned top;
	uint64_t fip, fdp;
	uint8_t st[8][10];		/* ST(0)..ST(7), 80-bit little-endian */
	enum fpl_x87_tag tag[8];	/* of ST(i), reconstructed as FSTENV would report it */
};
void fpl_image_x87(const struct fpl_image *img, struct fpl_x87 *x);
const char *fpl_x87_tag_name(enum fpl_x87_tag t);	/* "valid" "zero" "special" "empty" */

/*
 * Vector register n (0..31) assembled from its pieces (XMM from SSE, upper
 * YMM from AVX, upper ZMM from ZMM_Hi256, ZMM16-31 from Hi16_ZMM), width
 * 16, 32 or 64 bytes; a piece whose component is in init state reads as 0.
 * -EINVAL for n or width out of range, -ENOENT when the CPU has no such
 * register (no AVX-512 for n >= 16 or width 64, no AVX for width 32).
 */
int fpl_image_vector(const struct fpl_image *img, unsigned n, unsigned width, uint8_t *out);
/* k0-k7 and PKRU; -ENOENT when the CPU has no such component. */
int fpl_image_opmask(const struct fpl_image *img, unsigned k, uint64_t *val);
int fpl_image_pkru(const struct fpl_image *img, uint32_t *val);

/*
 * AMX tile state of an image: TILECFG decoded and checked against the
 * CPU's palette (xs->amx; palette 1 of 8 x 16 x 64 when unknown), TILEDATA
 * summarised per tile. A component outside XSTATE_BV is init (TILECFG
 * palette 0, tiles zero). -ENOENT when the CPU's layout has no AMX.
 */
struct fpl_image_tiles {
	bool cfg_in_bv, data_in_bv;	/* XSTATE_BV bits 17, 18 */
	bool cfg_readable, data_readable;	/* inside the buffer */
	struct fpl_tilecfg cfg;
	int cfg_check;			/* fpl_tilecfg_check: 1 valid, 0 init, -EINVAL */
	const char *cfg_why;		/* when -EINVAL */
	int ntiles;			/* summaries in tile[] (0 when data is init) */
	struct fpl_tile_summary tile[FPL_AMX_TILES_MAX];
	/*
	 * What an XRSTOR with the image's RFBM leaves. It never faults on
	 * TILECFG: with TILECFG in RFBM it loads what LDTILECFG would load, and
	 * otherwise puts TILECFG in init (invalid, palette 0, or not in
	 * XSTATE_BV), also over live tile data.
	 */
	bool cfg_restored;		/* TILECFG in RFBM (else it keeps what the task had) */
	bool cfg_loads;			/* ... and becomes this configuration; else init */
	/*
	 * TILEDATA in RFBM and XSTATE_BV while TILECFG goes to init: the data
	 * is restored (XINUSE bit 18 set) with no tile configured; the next
	 * tile instruction (TILESTORED) raises #UD (SIGILL) until a valid
	 * LDTILECFG, which zeroes the tile data.
	 */
	bool data_unconfigured;
};
int fpl_image_tiles(const struct fpl_image *img, struct fpl_image_tiles *t);

/*
 * Convert to the standard form (size for XCR0) or to the compacted form
 * (XCOMP_BV = mask & XCR0 | bit 63, as XSAVEC with that mask writes it).
 * Components in XSTATE_BV are moved, the rest is zero, bytes 464..511 (the
 * software bytes of a signal frame or ptrace dump) are cleared. MXCSR keeps
 * the value XRSTOR would load: a compacted source without SSE in XSTATE_BV
 * gets the init 0x1f80 (and the CPU's MXCSR_MASK), a standard source whose
 * MXCSR is not 0x1f80 gets SSE in the compacted XSTATE_BV (XMM zero, their
 * init). The image must not be rejected by XRSTOR. *out is 64-byte aligned, free() it.
 * Returns 0, -EINVAL with diag, -ENOMEM.
 */
int fpl_image_convert(const struct fpl_image *img, bool to_compacted, uint64_t mask,
		      void **out, size_t *out_len, struct fpl_diag *diag);

#endif
