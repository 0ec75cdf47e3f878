// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/model: sections really preserve the owner's registers, and the bookkeeping says what happened. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/model.h"

/* Code that runs while the owner's registers are live must not touch them itself. */
#define NOVEC __attribute__((target("general-regs-only"), noinline))

static struct fpl_cpu *cpu;
static struct fpl_xstate xs;

static int setup(void **state)
{
	cpu = malloc(sizeof(*cpu));
	if (!cpu)
		return -1;
	fpl_cpu_read(cpu);
	return fpl_xstate_init(&xs, cpu);
}

static int teardown(void **state)
{
	free(cpu);
	return 0;
}

/* What the pattern fills: this task's active components but PKRU (a pattern there could lock memory). */
static uint64_t fill_mask(void)
{
	return fpl_xstate_active(&xs) & ~FPL_XFEATURE_MASK_PKRU;
}

struct scenario {
	struct fpl_fpu_ctx ctx;
	unsigned kfpu;
	int nsections;
	uint64_t fill, cmp, seed;
	uint32_t mxcsr_begin;		/* read right after the first begin */
	uint16_t fcw_begin, fsw_begin;
	uint8_t *inside;		/* XSAVE inside the first section, after the clobber */
	uint8_t *after_end;		/* XSAVE after the first end, before return to user */
	uint8_t *after;			/* XSAVE after return to user */
};

static NOVEC void snapshot(uint8_t *buf, uint64_t mask)
{
	if (xs.xsave)
		fpl_xsave64(buf, mask);
	else
		fpl_fxsave64(buf);
}

/*
 * Between fpl_regs_set() and the last snapshot, no libc and no compiler
 * vector code: only the model, the clobber and the instructions.
 */
static NOVEC void run_sections(struct scenario *sc)
{
	fpl_regs_set(&xs, sc->fill, sc->seed);
	for (int i = 0; i < sc->nsections; i++) {
		fpl_fpu_begin(&sc->ctx, sc->kfpu);
		if (i == 0) {
			__asm__ volatile("stmxcsr %0" : "=m"(sc->mxcsr_begin));
			__asm__ volatile("fnstcw %0" : "=m"(sc->fcw_begin));
			__asm__ volatile("fnstsw %0" : "=m"(sc->fsw_begin));
		}
		fpl_fpu_clobber(cpu, sc->fill, sc->seed + 1 + (uint64_t)i);
		if (i == 0)
			snapshot(sc->inside, sc->cmp);
		fpl_fpu_end(&sc->ctx);
		if (i == 0)
			snapshot(sc->after_end, sc->cmp);
	}
	fpl_return_to_user(&sc->ctx);
	snapshot(sc->after, sc->cmp);
	/* Back to what the ABI expects (empty x87 stack, default MXCSR) before libc runs. */
	fpl_regs_init(&xs, sc->fill);
}

struct region {
	const char *what;
	uint64_t comp;		/* component it belongs to */
	uint32_t off, len;
};

/*
 * The register bits of an image in standard format: the x87 environment and
 * stack (10 bytes per register; the 6 after each are reserved), MXCSR (not
 * MXCSR_MASK, which is a CPU constant), XMM0-15, XSTATE_BV, and every
 * component from 2 up whole.
 */
static size_t regions(uint64_t mask, struct region *r)
{
	size_t n = 0;

	if (mask & FPL_XFEATURE_MASK_FP) {
		r[n++] = (struct region){ "x87 control/status/tag/FOP/FIP/FDP", FPL_XFEATURE_MASK_FP,
					  0, 24 };
		for (unsigned i = 0; i < 8; i++)
			r[n++] = (struct region){ "x87 ST register", FPL_XFEATURE_MASK_FP,
						  32 + 16 * i, 10 };
	}
	if (mask & (FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM))
		r[n++] = (struct region){ "MXCSR", FPL_XFEATURE_MASK_SSE, 24, 4 };
	if (mask & FPL_XFEATURE_MASK_SSE)
		r[n++] = (struct region){ "XMM0-15", FPL_XFEATURE_MASK_SSE, 160, 256 };
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		int64_t off = fpl_xstate_offset_std(&xs, i);

		if ((mask >> i & 1) && off > 0)
			r[n++] = (struct region){ fpl_xfeature_name(i), 1ull << i, (uint32_t)off,
						  xs.comp[i].size };
	}
	return n;
}

/* Name the first difference in a component of mask, or NULL when all equal. */
static const char *differs(const uint8_t *a, const uint8_t *b, uint64_t mask, uint32_t *at)
{
	struct region r[64];
	size_t n = regions(mask, r);

	for (size_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < r[i].len; j++) {
			if (a[r[i].off + j] != b[r[i].off + j]) {
				*at = r[i].off + j;
				return r[i].what;
			}
		}
	}
	if (xs.xsave && mask & ~FPL_XFEATURE_MASK_FPSSE) {
		uint64_t bva, bvb;

		memcpy(&bva, a + FPL_XSAVE_HDR_OFFSET, 8);
		memcpy(&bvb, b + FPL_XSAVE_HDR_OFFSET, 8);
		if ((bva ^ bvb) & mask) {
			*at = FPL_XSAVE_HDR_OFFSET;
			return "XSTATE_BV";
		}
	}
	return NULL;
}

/* Every region the clobber should reach must differ from the pattern inside the section. */
static void assert_all_clobbered(const uint8_t *pattern, const uint8_t *inside, uint64_t mask,
				 const char *label)
{
	struct region r[64];
	size_t n = regions(mask, r);
	uint64_t changed = 0;

	for (size_t i = 0; i < n; i++)
		if (memcmp(pattern + r[i].off, inside + r[i].off, r[i].len))
			changed |= r[i].comp;
	if ((changed & mask) != mask)
		fail_msg("%s: the clobber left components 0x%llx as the pattern had them", label,
			 (unsigned long long)(mask & ~changed));
}

static const unsigned kfpu_masks[] = { 0, FPL_KFPU_MXCSR, FPL_KFPU_387 | FPL_KFPU_MXCSR };

static void check_one(enum fpl_save_insn insn, enum fpl_fpu_policy pol, unsigned kfpu,
		      uint64_t seed)
{
	size_t size = xs.size_std_max > 4096 ? xs.size_std_max : 4096;
	uint8_t *pattern = fpl_xstate_alloc(size);
	struct scenario sc = { .kfpu = kfpu, .nsections = 3, .seed = seed };
	struct fpl_diag diag = { "" };
	char label[96];
	const char *what;
	uint32_t at = 0, pat_mxcsr;
	uint16_t pat_fcw, pat_fsw;

	snprintf(label, sizeof(label), "%s/%s/%s", fpl_save_insn_name(insn),
		 fpl_fpu_policy_name(pol), fpl_kfpu_mask_name(kfpu));
	assert_int_equal(fpl_fpu_ctx_init(&sc.ctx, cpu, &xs, pol, insn, &diag), 0);
	sc.fill = fill_mask();
	sc.cmp = sc.ctx.rfbm & sc.fill;
	sc.inside = fpl_xstate_alloc(size);
	sc.after_end = fpl_xstate_alloc(size);
	sc.after = fpl_xstate_alloc(size);
	assert_non_null(pattern);
	assert_non_null(sc.after);
	/* A pattern whose MXCSR is the default would make the KFPU_MXCSR check prove nothing. */
	do {
		memset(pattern, 0, size);
		fpl_xstate_pattern(&xs, sc.fill, seed, pattern);
		memcpy(&pat_mxcsr, pattern + 24, 4);
	} while (pat_mxcsr == FPL_MXCSR_DEFAULT && ++seed);
	sc.seed = seed;

	run_sections(&sc);

	what = differs(pattern, sc.after, sc.cmp, &at);
	if (what)
		fail_msg("%s: after return to user, %s differs at byte %u (0x%02x, pattern 0x%02x)",
			 label, what, at, sc.after[at], pattern[at]);
	/*
	 * The clobber reaches every x87, SSE, AVX and AVX-512 component the
	 * owner has (written out here, not taken from the code under test), and
	 * only those: the others (TILECFG) come through the section unchanged.
	 */
	{
		const uint64_t vec = FPL_XFEATURE_MASK_FPSSE | FPL_XFEATURE_MASK_YMM |
				     FPL_XFEATURE_MASK_AVX512;

		assert_all_clobbered(pattern, sc.inside, sc.cmp & vec, label);
		what = differs(pattern, sc.inside, sc.cmp & ~vec, &at);
		if (what)
			fail_msg("%s: inside the section %s was touched at byte %u", label, what, at);
	}
	/* Eager restores at end; lazy leaves the section's values until the exit. */
	what = differs(pattern, sc.after_end, sc.cmp, &at);
	if (pol == FPL_FPU_EAGER && what)
		fail_msg("%s: eager end left %s different at byte %u", label, what, at);
	if (pol == FPL_FPU_LAZY && !what)
		fail_msg("%s: lazy end restored the owner already", label);

	/* The mask acts after the save, on the registers only. FNINIT clears TOP and flags. */
	memcpy(&pat_fcw, pattern, 2);
	memcpy(&pat_fsw, pattern + 2, 2);
	assert_int_not_equal(pat_fsw, 0);	/* else the FNINIT check proves nothing */
	assert_int_equal(sc.mxcsr_begin, kfpu & FPL_KFPU_MXCSR ? FPL_MXCSR_DEFAULT : pat_mxcsr);
	assert_int_equal(sc.fcw_begin, kfpu & FPL_KFPU_387 ? FPL_FCW_DEFAULT : pat_fcw);
	assert_int_equal(sc.fsw_begin, kfpu & FPL_KFPU_387 ? 0 : pat_fsw);

	assert_int_equal(sc.ctx.st.sections, 3);
	assert_int_equal(sc.ctx.st.saves, pol == FPL_FPU_LAZY ? 1 : 3);
	assert_int_equal(sc.ctx.st.restores, pol == FPL_FPU_LAZY ? 1 : 3);
	assert_int_equal(sc.ctx.st.ldmxcsr, kfpu & FPL_KFPU_MXCSR ? 3 : 0);
	assert_int_equal(sc.ctx.st.fninit, kfpu & FPL_KFPU_387 ? 3 : 0);
	assert_int_equal(sc.ctx.st.misuse, 0);
	assert_false(sc.ctx.need_load);

	fpl_fpu_ctx_destroy(&sc.ctx);
	free(pattern);
	free(sc.inside);
	free(sc.after_end);
	free(sc.after);
}

static void check_insn(enum fpl_save_insn insn)
{
	const char *why = NULL;
	uint64_t seed = 0x5eed0000 + (uint64_t)insn * 100;

	if (!fpl_save_insn_supported(cpu, insn, &why)) {
		print_message("%s: %s\n", fpl_save_insn_name(insn), why ? why : "not supported");
		skip();
	}
	for (int p = 0; p < FPL_FPU_POLICY_NR; p++)
		for (size_t m = 0; m < FPL_ARRAY_SIZE(kfpu_masks); m++)
			check_one(insn, (enum fpl_fpu_policy)p, kfpu_masks[m], seed++);
}

static void test_preserve_fxsave(void **state)
{
	check_insn(FPL_INSN_FXSAVE);
}

static void test_preserve_xsave(void **state)
{
	check_insn(FPL_INSN_XSAVE);
}

static void test_preserve_xsaveopt(void **state)
{
	check_insn(FPL_INSN_XSAVEOPT);
}

static void test_preserve_xsavec(void **state)
{
	check_insn(FPL_INSN_XSAVEC);
}

static void init_ctx(struct fpl_fpu_ctx *ctx, enum fpl_fpu_policy pol)
{
	enum fpl_save_insn insn = xs.xsave ? FPL_INSN_XSAVE : FPL_INSN_FXSAVE;
	struct fpl_diag diag = { "" };

	assert_int_equal(fpl_fpu_ctx_init(ctx, cpu, &xs, pol, insn, &diag), 0);
}

static void test_lazy_saves_once(void **state)
{
	struct fpl_fpu_ctx ctx;

	init_ctx(&ctx, FPL_FPU_LAZY);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(fpl_fpu_begin(&ctx, FPL_KFPU_MXCSR), 0);
		assert_true(ctx.need_load);
		assert_int_equal(fpl_fpu_end(&ctx), 0);
		assert_true(ctx.need_load);
	}
	assert_int_equal(ctx.st.saves, 1);
	assert_int_equal(ctx.st.restores, 0);
	assert_int_equal(fpl_return_to_user(&ctx), 0);
	assert_int_equal(fpl_return_to_user(&ctx), 0);
	assert_int_equal(ctx.st.restores, 1);
	assert_false(ctx.need_load);
	/* The next system call saves again. */
	assert_int_equal(fpl_fpu_begin(&ctx, 0), 0);
	assert_int_equal(fpl_fpu_end(&ctx), 0);
	assert_int_equal(fpl_return_to_user(&ctx), 0);
	assert_int_equal(ctx.st.saves, 2);
	assert_int_equal(ctx.st.restores, 2);
	assert_int_equal(ctx.st.sections, 6);
	assert_int_equal(ctx.st.ldmxcsr, 5);
	fpl_fpu_reset_stats(&ctx);
	assert_int_equal(ctx.st.saves, 0);
	fpl_fpu_ctx_destroy(&ctx);
}

static void test_eager_restores_each_time(void **state)
{
	struct fpl_fpu_ctx ctx;

	init_ctx(&ctx, FPL_FPU_EAGER);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(fpl_fpu_begin(&ctx, FPL_KFPU_387 | FPL_KFPU_MXCSR), 0);
		assert_int_equal(fpl_fpu_end(&ctx), 0);
		assert_false(ctx.need_load);
	}
	assert_int_equal(fpl_return_to_user(&ctx), 0);
	assert_int_equal(ctx.st.saves, 5);
	assert_int_equal(ctx.st.restores, 5);
	assert_int_equal(ctx.st.fninit, 5);
	assert_int_equal(ctx.st.ldmxcsr, 5);
	fpl_fpu_ctx_destroy(&ctx);
}

static void test_misuse_refused(void **state)
{
	struct fpl_fpu_ctx ctx;

	init_ctx(&ctx, FPL_FPU_LAZY);
	assert_int_equal(fpl_fpu_end(&ctx), -EINVAL);
	assert_int_equal(fpl_fpu_begin(&ctx, 0), 0);
	assert_int_equal(fpl_fpu_begin(&ctx, 0), -EBUSY);
	assert_int_equal(fpl_return_to_user(&ctx), -EBUSY);
	assert_int_equal(ctx.st.sections, 1);
	assert_int_equal(ctx.st.saves, 1);
	assert_int_equal(ctx.st.misuse, 3);
	assert_int_equal(fpl_fpu_end(&ctx), 0);
	assert_int_equal(fpl_return_to_user(&ctx), 0);
	assert_int_equal(ctx.st.restores, 1);
	fpl_fpu_ctx_destroy(&ctx);
}

static void test_ctx_buffers(void **state)
{
	static const enum fpl_save_insn insns[] = { FPL_INSN_FXSAVE, FPL_INSN_XSAVE,
						    FPL_INSN_XSAVEOPT, FPL_INSN_XSAVEC };
	struct fpl_diag diag = { "" };
	struct fpl_fpu_ctx ctx;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(insns); i++) {
		const char *why = NULL;
		uint64_t bv, comp;

		if (!fpl_save_insn_supported(cpu, insns[i], &why))
			continue;
		assert_int_equal(fpl_fpu_ctx_init(&ctx, cpu, &xs, FPL_FPU_LAZY, insns[i], &diag),
				 0);
		assert_int_equal((uintptr_t)ctx.buf % 64, 0);
		assert_true((ctx.rfbm & FPL_XFEATURE_MASK_FPSSE) == FPL_XFEATURE_MASK_FPSSE);
		assert_int_equal(ctx.rfbm & ~xs.xcr0, 0);
		switch (insns[i]) {
		case FPL_INSN_FXSAVE:
			assert_int_equal(ctx.size, 512);
			assert_int_equal(ctx.rfbm, FPL_XFEATURE_MASK_FPSSE);
			break;
		case FPL_INSN_XSAVEC:
			assert_true(ctx.compacted);
			assert_int_equal(ctx.size, fpl_xstate_size_compacted(&xs, ctx.rfbm));
			break;
		default:
			assert_false(ctx.compacted);
			assert_int_equal(ctx.size, fpl_xstate_size_std(&xs, ctx.rfbm));
			assert_true(ctx.size <= xs.size_std_xcr0);
			break;
		}
		assert_int_equal(fpl_fpu_begin(&ctx, 0), 0);
		assert_int_equal(fpl_fpu_end(&ctx), 0);
		assert_int_equal(fpl_return_to_user(&ctx), 0);
		if (insns[i] != FPL_INSN_FXSAVE) {
			memcpy(&bv, (uint8_t *)ctx.buf + FPL_XSAVE_HDR_OFFSET, 8);
			memcpy(&comp, (uint8_t *)ctx.buf + FPL_XSAVE_HDR_OFFSET + 8, 8);
			assert_int_equal(bv & ~ctx.rfbm, 0);
			if (ctx.compacted)
				assert_true(comp == (FPL_XCOMP_BV_COMPACTED | ctx.rfbm));
			else
				assert_int_equal(comp, 0);
		}
		fpl_fpu_ctx_destroy(&ctx);
	}
	assert_int_equal(fpl_fpu_ctx_init(&ctx, cpu, &xs, FPL_FPU_LAZY, FPL_INSN_XSAVES, &diag),
			 -EINVAL);
	assert_non_null(strstr(diag.msg, "xsaves"));
	assert_null(ctx.buf);
	assert_int_equal(fpl_fpu_ctx_init(&ctx, cpu, &xs, (enum fpl_fpu_policy)7, FPL_INSN_FXSAVE,
					  &diag), -EINVAL);
}

static void test_names(void **state)
{
	struct fpl_diag diag = { "" };
	unsigned m = 99;

	assert_int_equal(fpl_kfpu_parse_mask("none", &m, &diag), 0);
	assert_int_equal(m, 0);
	assert_int_equal(fpl_kfpu_parse_mask("MXCSR", &m, &diag), 0);
	assert_int_equal(m, FPL_KFPU_MXCSR);
	assert_int_equal(fpl_kfpu_parse_mask("387|mxcsr", &m, &diag), 0);
	assert_int_equal(m, FPL_KFPU_387 | FPL_KFPU_MXCSR);
	assert_int_equal(fpl_kfpu_parse_mask("1", &m, &diag), 0);
	assert_int_equal(m, FPL_KFPU_387);
	m = 99;
	assert_int_equal(fpl_kfpu_parse_mask("avx", &m, &diag), -EINVAL);
	assert_int_equal(fpl_kfpu_parse_mask("4", &m, &diag), -EINVAL);
	assert_int_equal(m, 99);
	assert_non_null(strstr(diag.msg, "'4'"));
	assert_string_equal(fpl_kfpu_mask_name(FPL_KFPU_387 | FPL_KFPU_MXCSR), "387|MXCSR");
	assert_string_equal(fpl_kfpu_mask_name(0), "none");
	assert_int_equal(fpl_fpu_policy_by_name("lazy"), FPL_FPU_LAZY);
	assert_int_equal(fpl_fpu_policy_by_name("eager"), FPL_FPU_EAGER);
	assert_int_equal(fpl_fpu_policy_by_name("sometimes"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preserve_fxsave),
		cmocka_unit_test(test_preserve_xsave),
		cmocka_unit_test(test_preserve_xsaveopt),
		cmocka_unit_test(test_preserve_xsavec),
		cmocka_unit_test(test_lazy_saves_once),
		cmocka_unit_test(test_eager_restores_each_time),
		cmocka_unit_test(test_misuse_refused),
		cmocka_unit_test(test_ctx_buffers),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
