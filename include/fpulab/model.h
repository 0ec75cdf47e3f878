/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The FPU-management model: an owner task's live registers, kernel-style sections, eager or lazy restore. */
#ifndef FPULAB_MODEL_H
#define FPULAB_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

/* kernel_fpu_begin_mask() flags (arch/x86/include/asm/fpu/api.h). */
#define FPL_KFPU_387	(1u << 0)	/* FNINIT at begin */
#define FPL_KFPU_MXCSR	(1u << 1)	/* LDMXCSR of the default at begin */
#define FPL_KFPU_ALL	(FPL_KFPU_387 | FPL_KFPU_MXCSR)
#define FPL_MXCSR_DEFAULT	0x1f80u
#define FPL_FCW_DEFAULT		0x037fu	/* what FNINIT leaves in the x87 control word */

/*
 * When the owner's registers come back after a section.
 * EAGER: kernel_fpu_end() restores them (Linux before 5.2).
 * LAZY: kernel_fpu_end() leaves the kernel's values; the owner's come back
 * once, on return to user space (switch_fpu_return(), Linux 5.2 and later).
 */
enum fpl_fpu_policy {
	FPL_FPU_EAGER,
	FPL_FPU_LAZY,
	FPL_FPU_POLICY_NR
};

/* What happened, so that tests and benchmarks can check the model did what they think. */
struct fpl_fpu_stats {
	uint64_t sections;	/* fpl_fpu_begin() calls that opened a section */
	uint64_t saves;		/* owner state written to buf */
	uint64_t restores;	/* owner state loaded from buf */
	uint64_t ldmxcsr;	/* KFPU_MXCSR applied */
	uint64_t fninit;	/* KFPU_387 applied */
	uint64_t misuse;	/* nested begin, end without begin (refused) */
};

/*
 * One owner (the "user task") on one CPU. Its extended state is live in the
 * registers until a section saves it into buf (the task's fpstate).
 */
struct fpl_fpu_ctx {
	enum fpl_fpu_policy policy;
	enum fpl_save_insn insn;	/* FXSAVE, XSAVE, XSAVEOPT or XSAVEC */
	uint64_t rfbm;		/* components saved and restored */
	bool compacted;		/* buf holds a compacted image (XSAVEC) */
	uint32_t size;		/* bytes of buf */
	void *buf;		/* 64-byte aligned, zeroed at init */
	bool need_load;		/* TIF_NEED_FPU_LOAD: the registers do not hold the owner's state */
	bool in_section;
	struct fpl_fpu_stats st;
};

/*
 * Set up an owner whose registers are live now. rfbm is the calling task's
 * active mask (fpl_xstate_active(): what the kernel saves for it; AMX tile
 * data only once the task has used it), or x87|SSE for FXSAVE. 0, -ENOTSUP with diag when the
 * CPU lacks insn, -EINVAL for a bad policy or insn, -ENOMEM.
 */
int fpl_fpu_ctx_init(struct fpl_fpu_ctx *ctx, const struct fpl_cpu *cpu,
		     const struct fpl_xstate *xs, enum fpl_fpu_policy policy,
		     enum fpl_save_insn insn, struct fpl_diag *diag);
void fpl_fpu_ctx_destroy(struct fpl_fpu_ctx *ctx);

/*
 * kernel_fpu_begin_mask(): save the owner if its registers are live, mark it
 * as needing a load, then apply kfpu_mask (FPL_KFPU_*). Between begin and
 * end any vector register may change. 0, or -EBUSY for a nested begin
 * (nothing done).
 */
int fpl_fpu_begin(struct fpl_fpu_ctx *ctx, unsigned kfpu_mask);
/* kernel_fpu_end(): eager restores the owner now, lazy restores nothing. 0 or -EINVAL. */
int fpl_fpu_end(struct fpl_fpu_ctx *ctx);
/* Exit to user space: restore the owner if a load is pending. 0, or -EBUSY inside a section. */
int fpl_return_to_user(struct fpl_fpu_ctx *ctx);
void fpl_fpu_reset_stats(struct fpl_fpu_ctx *ctx);

/*
 * The parts of a section, each alone (section's part arms time them): the
 * owner's save into its image (counted in st.saves), begin's set-up of
 * kfpu_mask (LDMXCSR of the default, FNINIT; counted nowhere), and the
 * owner's restore from its image (counted in st.restores). fpl_fpu_begin()
 * and the restores of fpl_fpu_end() and fpl_return_to_user() are made of them.
 */
void fpl_fpu_save_owner(struct fpl_fpu_ctx *ctx);
void fpl_fpu_setup(unsigned kfpu_mask);
void fpl_fpu_restore_owner(struct fpl_fpu_ctx *ctx);

const char *fpl_fpu_policy_name(enum fpl_fpu_policy p);	/* "eager", "lazy" */
int fpl_fpu_policy_by_name(const char *name);			/* -1 if unknown */

/*
 * KFPU masks as text: "none" (or "0"), "mxcsr", "387", "387|mxcsr" (also
 * "387+mxcsr", "387,mxcsr", "all"), or a number. -EINVAL with diag.
 */
int fpl_kfpu_parse_mask(const char *s, unsigned *mask, struct fpl_diag *diag);
const char *fpl_kfpu_mask_name(unsigned mask);	/* "none", "MXCSR", "387", "387|MXCSR" */

/*
 * Work that overwrites every user register of the components in mask that
 * this CPU has: the x87 stack and control word, MXCSR, XMM/YMM/ZMM 0-31,
 * opmask k0-k7, with values derived from seed (never init, never a zero
 * idiom). What a section's SIMD code may leave behind, as a worst case.
 * The caller is inside a section (or does not care about its registers).
 */
void fpl_fpu_clobber(const struct fpl_cpu *cpu, uint64_t mask, uint64_t seed);
/*
 * The components of mask fpl_fpu_clobber() overwrites: x87, SSE, AVX and
 * AVX-512 where the CPU has them. Never PKRU or AMX: kernel code uses
 * neither, so a section leaves them as the owner had them.
 */
uint64_t fpl_fpu_clobber_mask(const struct fpl_cpu *cpu, uint64_t mask);

#endif
