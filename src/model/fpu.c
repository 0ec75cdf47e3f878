// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel-style FPU sections over a live owner: save on first use, restore at end (eager) or on exit (lazy). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpulab/model.h"

/*
 * Everything here runs while the owner's registers are live and not yet
 * saved, so the compiler must not touch a vector or x87 register on its
 * own (a vectorised struct copy before the save would lose user state).
 */
#define FPL_NOVEC __attribute__((target("general-regs-only")))

static const char *const policy_names[FPL_FPU_POLICY_NR] = {
	[FPL_FPU_EAGER] = "eager",
	[FPL_FPU_LAZY] = "lazy",
};

const char *fpl_fpu_policy_name(enum fpl_fpu_policy p)
{
	return (unsigned)p < FPL_FPU_POLICY_NR ? policy_names[p] : "?";
}

int fpl_fpu_policy_by_name(const char *name)
{
	for (unsigned i = 0; i < FPL_FPU_POLICY_NR; i++)
		if (!strcasecmp(name, policy_names[i]))
			return (int)i;
	return -1;
}

/* The task's fpstate holds its active components, as in the kernel (XFD-armed ones left out). */
static uint64_t owner_rfbm(const struct fpl_xstate *xs, enum fpl_save_insn insn)
{
	if (insn == FPL_INSN_FXSAVE)
		return FPL_XFEATURE_MASK_FPSSE;
	return fpl_xstate_active(xs);
}

int fpl_fpu_ctx_init(struct fpl_fpu_ctx *ctx, const struct fpl_cpu *cpu,
		     const struct fpl_xstate *xs, enum fpl_fpu_policy policy,
		     enum fpl_save_insn insn, struct fpl_diag *diag)
{
	const char *why = NULL;

	memset(ctx, 0, sizeof(*ctx));
	if ((unsigned)policy >= FPL_FPU_POLICY_NR)
		return fpl_diag_set(diag, -EINVAL, "unknown FPU policy %d", (int)policy);
	if (insn != FPL_INSN_FXSAVE && insn != FPL_INSN_XSAVE && insn != FPL_INSN_XSAVEOPT &&
	    insn != FPL_INSN_XSAVEC)
		return fpl_diag_set(diag, -EINVAL, "%s cannot save an owner in ring 3",
				    fpl_save_insn_name(insn));
	if (!fpl_save_insn_supported(cpu, insn, &why))
		return fpl_diag_set(diag, -ENOTSUP, "%s: %s", fpl_save_insn_name(insn),
				    why ? why : "not supported on this CPU");
	ctx->policy = policy;
	ctx->insn = insn;
	ctx->rfbm = owner_rfbm(xs, insn);
	ctx->compacted = insn == FPL_INSN_XSAVEC;
	if (insn == FPL_INSN_FXSAVE)
		ctx->size = FPL_XSAVE_LEGACY_SIZE;
	else if (ctx->compacted)
		ctx->size = fpl_xstate_size_compacted(xs, ctx->rfbm);
	else
		ctx->size = fpl_xstate_size_std(xs, ctx->rfbm);
	ctx->buf = fpl_xstate_alloc(ctx->size);
	if (!ctx->buf)
		return fpl_diag_set(diag, -ENOMEM, "no memory for a %u-byte XSAVE area",
				    ctx->size);
	return 0;
}

void fpl_fpu_ctx_destroy(struct fpl_fpu_ctx *ctx)
{
	free(ctx->buf);
	ctx->buf = NULL;
}

FPL_NOVEC void fpl_fpu_reset_stats(struct fpl_fpu_ctx *ctx)
{
	memset(&ctx->st, 0, sizeof(ctx->st));
}

FPL_NOVEC void fpl_fpu_save_owner(struct fpl_fpu_ctx *ctx)
{
	fpl_xstate_save(ctx->insn, ctx->buf, ctx->rfbm);
	ctx->st.saves++;
}

/* restore_fpregs_from_fpstate(): every component the owner has, from its image. */
FPL_NOVEC void fpl_fpu_restore_owner(struct fpl_fpu_ctx *ctx)
{
	if (ctx->insn == FPL_INSN_FXSAVE)
		fpl_fxrstor64(ctx->buf);
	else
		fpl_xrstor64(ctx->buf, ctx->rfbm);
	ctx->need_load = false;
	ctx->st.restores++;
}

FPL_NOVEC void fpl_fpu_setup(unsigned kfpu_mask)
{
	if (kfpu_mask & FPL_KFPU_MXCSR) {
		const uint32_t mxcsr = FPL_MXCSR_DEFAULT;

		__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
	}
	if (kfpu_mask & FPL_KFPU_387)
		__asm__ volatile("fninit");
}

FPL_NOVEC int fpl_fpu_begin(struct fpl_fpu_ctx *ctx, unsigned kfpu_mask)
{
	if (ctx->in_section) {
		ctx->st.misuse++;
		return -EBUSY;
	}
	ctx->in_section = true;
	ctx->st.sections++;
	if (!ctx->need_load) {
		ctx->need_load = true;
		fpl_fpu_save_owner(ctx);
	}
	fpl_fpu_setup(kfpu_mask);
	ctx->st.ldmxcsr += !!(kfpu_mask & FPL_KFPU_MXCSR);
	ctx->st.fninit += !!(kfpu_mask & FPL_KFPU_387);
	return 0;
}

FPL_NOVEC int fpl_fpu_end(struct fpl_fpu_ctx *ctx)
{
	if (!ctx->in_section) {
		ctx->st.misuse++;
		return -EINVAL;
	}
	ctx->in_section = false;
	if (ctx->policy == FPL_FPU_EAGER)
		fpl_fpu_restore_owner(ctx);
	return 0;
}

FPL_NOVEC int fpl_return_to_user(struct fpl_fpu_ctx *ctx)
{
	if (ctx->in_section) {
		ctx->st.misuse++;
		return -EBUSY;
	}
	if (ctx->need_load)
		fpl_fpu_restore_owner(ctx);
	return 0;
}

static const struct {
	const char *name;
	unsigned mask;
} kfpu_names[] = {
	{ "none", 0 }, { "0", 0 }, { "mxcsr", FPL_KFPU_MXCSR }, { "387", FPL_KFPU_387 },
	{ "387|mxcsr", FPL_KFPU_ALL }, { "387+mxcsr", FPL_KFPU_ALL },
	{ "387,mxcsr", FPL_KFPU_ALL }, { "mxcsr|387", FPL_KFPU_ALL }, { "all", FPL_KFPU_ALL },
};

int fpl_kfpu_parse_mask(const char *s, unsigned *mask, struct fpl_diag *diag)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; s && i < FPL_ARRAY_SIZE(kfpu_names); i++) {
		if (!strcasecmp(s, kfpu_names[i].name)) {
			*mask = kfpu_names[i].mask;
			return 0;
		}
	}
	if (s && *s) {
		v = strtoul(s, &end, 0);
		if (!*end && v <= FPL_KFPU_ALL) {
			*mask = (unsigned)v;
			return 0;
		}
	}
	return fpl_diag_set(diag, -EINVAL,
			    "'%s' is not a KFPU mask (none, mxcsr, 387, 387|mxcsr, or 0..3)",
			    s ? s : "");
}

const char *fpl_kfpu_mask_name(unsigned mask)
{
	switch (mask & FPL_KFPU_ALL) {
	case 0: return "none";
	case FPL_KFPU_MXCSR: return "MXCSR";
	case FPL_KFPU_387: return "387";
	default: return "387|MXCSR";
	}
}
