// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/xstate: layouts against CPUID and hand-checked dumps, save/restore round trips, init state. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/xstate.h"

#define DATA "tests/data/cpuid/"

struct live {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
};

static struct live *live_get(void)
{
	struct live *l = malloc(sizeof(*l));

	assert_non_null(l);
	assert_int_equal(fpl_cpu_read(&l->cpu), 0);
	assert_int_equal(fpl_xstate_init(&l->xs, &l->cpu), 0);
	return l;
}

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- layout on the running CPU ---- */

static void test_live_layout_matches_cpuid(void **state)
{
	struct live *l = live_get();
	struct fpl_xstate *xs = &l->xs;
	uint32_t r[4];

	if (!xs->xsave) {
		assert_int_equal(fpl_xstate_size_std(xs, xs->xcr0), 512);
		free(l);
		skip();
	}
	fpl_cpuid_raw(0xd, 0, r);
	assert_int_equal(xs->xcr0, fpl_xgetbv(0));
	assert_int_equal(fpl_xstate_size_std(xs, xs->xcr0), r[1]);
	assert_int_equal(fpl_xstate_size_std(xs, xs->user), r[2]);
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		if (!(xs->user >> i & 1))
			continue;
		fpl_cpuid_raw(0xd, i, r);
		assert_int_equal(fpl_xstate_offset_std(xs, i), r[1]);
		assert_int_equal(xs->comp[i].size, r[0]);
	}
	/* 0xD.1 EBX covers XCR0 | IA32_XSS; with no supervisor component it is XCR0 alone. */
	fpl_cpuid_raw(0xd, 1, r);
	if (!xs->supervisor && fpl_cpu_has(&l->cpu, FPL_FEAT_XSAVEC))
		assert_int_equal(fpl_xstate_size_compacted(xs, xs->xcr0), r[1]);
	free(l);
}

/* ---- round trips ---- */

/* Where a component's bytes are in an image written by insn; -1 when not there. */
static int64_t comp_offset(const struct fpl_xstate *xs, enum fpl_save_insn insn, uint64_t rfbm,
			   unsigned id)
{
	if (insn == FPL_INSN_FXSAVE)
		return id < 2 ? (int64_t)xs->comp[id].offset : -1;
	if (insn == FPL_INSN_XSAVEC)
		return fpl_xstate_offset_compacted(xs, rfbm, id);
	return fpl_xstate_offset_std(xs, id);
}

/*
 * Compare the architectural bytes of one component. x87: FCW, FSW, abridged
 * FTW and the 10 bytes of each data register (FOP/FIP/FDP are saved by AMD
 * only when an exception is pending). SSE: MXCSR (not MXCSR_MASK) and XMM0-15.
 */
static void assert_comp_equal(const struct fpl_xstate *xs, unsigned id, const uint8_t *a,
			      int64_t off_a, const uint8_t *b, int64_t off_b, const char *what)
{
	if (id == FPL_XFEATURE_FP) {
		if (memcmp(a, b, 5))
			fail_msg("%s: x87 control/status/tag differ", what);
		for (unsigned i = 0; i < 8; i++)
			if (memcmp(a + 32 + 16 * i, b + 32 + 16 * i, 10))
				fail_msg("%s: x87 ST%u differs", what, i);
	} else if (id == FPL_XFEATURE_SSE) {
		if (memcmp(a + 24, b + 24, 4) || memcmp(a + 160, b + 160, 256))
			fail_msg("%s: MXCSR or XMM0-15 differ", what);
	} else if (memcmp(a + off_a, b + off_b, xs->comp[id].size)) {
		fail_msg("%s: %s differs", what, fpl_xfeature_name(id));
	}
}

static void roundtrip_one(const struct fpl_xstate *xs, enum fpl_save_insn insn, unsigned id,
			  uint8_t *pat, uint8_t *a, uint8_t *b, size_t size)
{
	uint64_t rfbm = xs->xcr0, m = 1ull << id;
	int64_t off = comp_offset(xs, insn, rfbm, id);
	char what[64];
	int e1, e2;

	snprintf(what, sizeof(what), "%s %s", fpl_save_insn_name(insn), fpl_xfeature_name(id));
	memset(pat, 0, xs->size_std_max);
	fpl_xstate_pattern(xs, m, 0x1234 + id, pat);
	memset(a, 0, size);
	memset(b, 0, size);

	/*
	 * No libc or cmocka call between setting registers and saving them
	 * (glibc uses AVX-512): results are checked afterwards.
	 */
	e1 = fpl_regs_set(xs, m, 0x1234 + id);
	fpl_xstate_save(insn, a, rfbm);
	e2 = fpl_regs_set(xs, m, 0xdead0000 + id);
	fpl_xstate_restore(insn, a, rfbm);
	fpl_xstate_save(insn, b, rfbm);
	assert_int_equal(e1, 0);
	assert_int_equal(e2, 0);

	assert_true(off >= 0);
	assert_comp_equal(xs, id, pat, fpl_xstate_offset_std(xs, id), a, off, what);
	assert_comp_equal(xs, id, a, off, b, off, what);
	if (insn != FPL_INSN_FXSAVE) {
		assert_true(get64(a + 512) & m);
		assert_true(get64(b + 512) & m);
	}
	if (insn == FPL_INSN_XSAVEC) {
		assert_int_equal(get64(a + 520), FPL_XCOMP_BV_COMPACTED | rfbm);
	} else if (insn != FPL_INSN_FXSAVE) {
		assert_int_equal(get64(a + 520), 0);
	}
}

static void test_roundtrip(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	size_t size = xs->size_std_max + 4096;
	uint8_t *pat = fpl_xstate_alloc(size), *a = fpl_xstate_alloc(size),
		*b = fpl_xstate_alloc(size);
	unsigned n = 0;

	for (int insn = 0; insn < FPL_INSN_NR; insn++) {
		if (!fpl_save_insn_supported(&l->cpu, insn, NULL))
			continue;
		for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
			if (!(xs->xcr0 >> id & 1) || (insn == FPL_INSN_FXSAVE && id > 1))
				continue;
			roundtrip_one(xs, insn, id, pat, a, b, size);
			n++;
		}
	}
	/* At least x87 and SSE under FXSAVE: every x86-64 CPU has them. */
	assert_true(n >= 2);
	fpl_regs_init(xs, xs->xcr0);
	free(pat);
	free(a);
	free(b);
	free(l);
}

/* XSAVEC writes the XCR0 layout exactly: the last component ends at the computed size. */
static void test_xsavec_extent(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint32_t size;
	uint8_t *a;
	int e1;

	if (!fpl_save_insn_supported(&l->cpu, FPL_INSN_XSAVEC, NULL)) {
		free(l);
		skip();
	}
	size = fpl_xstate_size_compacted(xs, xs->xcr0);
	a = fpl_xstate_alloc(size + 256);
	memset(a, 0xa5, size + 256);
	e1 = fpl_regs_set(xs, xs->xcr0, 77);
	fpl_xsavec64(a, xs->xcr0);
	assert_int_equal(e1, 0);
	for (uint32_t i = size; i < size + 256; i++)
		assert_int_equal(a[i], 0xa5);
	assert_int_equal(get64(a + 512), xs->xcr0);
	fpl_regs_init(xs, xs->xcr0);
	free(a);
	free(l);
}

/* ---- init state and XINUSE ---- */

static void assert_init_bytes(const struct fpl_xstate *xs, unsigned id, const uint8_t *img)
{
	static const uint8_t zero[8192 + 64];

	if (id == FPL_XFEATURE_FP) {
		assert_int_equal(img[0] | img[1] << 8, 0x037f);
		assert_int_equal(img[2] | img[3] << 8, 0);
		assert_int_equal(img[4], 0);
		for (unsigned i = 0; i < 8; i++)
			assert_memory_equal(img + 32 + 16 * i, zero, 10);
	} else if (id == FPL_XFEATURE_SSE) {
		assert_int_equal(get64(img + 24) & 0xffffffff, 0x1f80);
		assert_memory_equal(img + 160, zero, 256);
	} else if (xs->comp[id].size <= sizeof(zero)) {
		assert_memory_equal(img + xs->comp[id].offset, zero, xs->comp[id].size);
	}
}

static void test_init_reads_back_as_init(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint8_t *a = fpl_xstate_alloc(xs->size_std_max);
	uint64_t xinuse = 0;
	bool have_xinuse;
	int e1, e2;

	if (!xs->xsave) {
		free(a);
		free(l);
		skip();
	}
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
		uint64_t m = 1ull << id;

		if (!(xs->xcr0 & m))
			continue;
		memset(a, 0xff, xs->size_std_max);
		e1 = fpl_regs_set(xs, m, 99);
		e2 = fpl_regs_init(xs, m);
		have_xinuse = fpl_xinuse(&l->cpu, &xinuse);
		fpl_xsave64(a, xs->xcr0);
		assert_int_equal(e1, 0);
		assert_int_equal(e2, 0);
		if (have_xinuse && (xinuse & m))
			fail_msg("%s: XINUSE still set after init (0x%llx)", fpl_xfeature_name(id),
				 (unsigned long long)xinuse);
		if (get64(a + 512) & m)
			fail_msg("%s: XSTATE_BV still set after init", fpl_xfeature_name(id));
		assert_init_bytes(xs, id, a);
	}
	free(a);
	free(l);
}

static void test_regs_set_sets_xinuse(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint64_t xinuse;
	int e1, e2;
	bool ok;

	if (!fpl_cpu_has(&l->cpu, FPL_FEAT_XGETBV1)) {
		free(l);
		skip();
	}
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
		uint64_t m = 1ull << id;

		if (!(xs->xcr0 & m))
			continue;
		e1 = fpl_regs_init(xs, xs->xcr0);
		e2 = fpl_regs_set(xs, m, 5);
		ok = fpl_xinuse(&l->cpu, &xinuse);
		assert_int_equal(e1, 0);
		assert_int_equal(e2, 0);
		assert_true(ok);
		if (!(xinuse & m))
			fail_msg("%s: XINUSE 0x%llx lacks it after fpl_regs_set",
				 fpl_xfeature_name(id), (unsigned long long)xinuse);
	}
	/* Everything at once, then everything back. */
	e1 = fpl_regs_set(xs, xs->xcr0, 6);
	ok = fpl_xinuse(&l->cpu, &xinuse);
	assert_int_equal(e1, 0);
	assert_true(ok);
	assert_int_equal(xinuse & xs->xcr0, xs->xcr0);
	e1 = fpl_regs_init(xs, xs->xcr0);
	ok = fpl_xinuse(&l->cpu, &xinuse);
	assert_int_equal(e1, 0);
	assert_true(ok);
	assert_int_equal(xinuse & xs->xcr0, 0);
	free(l);
}

/* The path for CPUs without XSAVE (FXSAVE/FXRSTOR only), run on this CPU with XSAVE ignored. */
static void test_fxsave_only_path(void **state)
{
	struct live *l = live_get();
	struct fpl_xstate xs = l->xs;
	uint8_t *pat = fpl_xstate_alloc(4096), *a = fpl_xstate_alloc(512),
		*b = fpl_xstate_alloc(512);
	int e1;

	xs.xsave = false;
	xs.xcr0 = xs.user = FPL_XFEATURE_MASK_FPSSE;
	xs.size_std_max = 512;
	fpl_xstate_pattern(&xs, FPL_XFEATURE_MASK_FPSSE, 11, pat);
	e1 = fpl_regs_set(&xs, FPL_XFEATURE_MASK_FPSSE, 11);
	fpl_fxsave64(a);
	assert_int_equal(e1, 0);
	assert_comp_equal(&xs, FPL_XFEATURE_FP, pat, 0, a, 0, "fxrstor x87");
	assert_comp_equal(&xs, FPL_XFEATURE_SSE, pat, 0, a, 0, "fxrstor SSE");
	/* Setting SSE alone leaves x87 as it was. */
	e1 = fpl_regs_set(&xs, FPL_XFEATURE_MASK_SSE, 12);
	fpl_fxsave64(b);
	assert_int_equal(e1, 0);
	assert_comp_equal(&xs, FPL_XFEATURE_FP, a, 0, b, 0, "x87 kept");
	assert_memory_not_equal(a + 160, b + 160, 256);
	e1 = fpl_regs_init(&xs, FPL_XFEATURE_MASK_FPSSE);
	fpl_fxsave64(b);
	assert_int_equal(e1, 0);
	assert_init_bytes(&xs, FPL_XFEATURE_FP, b);
	assert_init_bytes(&xs, FPL_XFEATURE_SSE, b);
	assert_int_equal(fpl_regs_set(&xs, FPL_XFEATURE_MASK_YMM, 1), -ENOTSUP);
	free(pat);
	free(a);
	free(b);
	free(l);
}

static void test_regs_unsupported(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint64_t missing = ~xs->xcr0 & ((1ull << FPL_XFEATURE_MAX) - 1);
	unsigned id = (unsigned)__builtin_ctzll(missing);

	assert_int_equal(fpl_regs_set(xs, 1ull << id, 1), -ENOTSUP);
	assert_int_equal(fpl_regs_init(xs, 1ull << id), -ENOTSUP);
	free(l);
}

/* ---- layouts of other CPUs, checked by hand ---- */

static void load_dump(const char *name, struct fpl_cpu *cpu, struct fpl_xstate *xs)
{
	struct fpl_diag diag = { "" };

	if (fpl_cpu_load(cpu, name, &diag))
		fail_msg("%s: %s", name, diag.msg);
	assert_int_equal(fpl_xstate_init(xs, cpu), 0);
}

struct expect {
	unsigned id;
	uint32_t size;
	int64_t std, compacted;	/* compacted within the mask under test */
};

static void check_layout(const struct fpl_xstate *xs, uint64_t mask, const struct expect *e,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(xs->comp[e[i].id].size, e[i].size);
		assert_int_equal(fpl_xstate_offset_std(xs, e[i].id), e[i].std);
		assert_int_equal(fpl_xstate_offset_compacted(xs, mask, e[i].id), e[i].compacted);
	}
}

/*
 * Sapphire Rapids, XCR0 0x602e7. Compacted, from 576:
 *   AVX 576+256 = 832; opmask 832+64 = 896; ZMM_Hi256 896+512 = 1408;
 *   Hi16_ZMM 1408+1024 = 2432; PKRU 2432+8 = 2440;
 *   TILECFG align64(2440) = 2496, +64 = 2560; TILEDATA align64(2560) = 2560, +8192 = 10752.
 * With PT (XSS bit 8, 128 bytes) after Hi16_ZMM: PT 2432..2560, PKRU 2560..2568,
 *   TILECFG align64(2568) = 2624..2688, TILEDATA 2688..10880 = 0xD.1 EBX (0x2a80):
 *   the dumping OS had IA32_XSS = PT.
 * Standard: TILEDATA 2816 + 8192 = 11008 = 0xD.0 EBX (0x2b00).
 */
static void test_layout_sapphirerapids(void **state)
{
	static const struct expect e[] = {
		{ FPL_XFEATURE_YMM, 256, 576, 576 },
		{ FPL_XFEATURE_OPMASK, 64, 1088, 832 },
		{ FPL_XFEATURE_ZMM_Hi256, 512, 1152, 896 },
		{ FPL_XFEATURE_Hi16_ZMM, 1024, 1664, 1408 },
		{ FPL_XFEATURE_PKRU, 8, 2688, 2432 },
		{ FPL_XFEATURE_XTILE_CFG, 64, 2752, 2496 },
		{ FPL_XFEATURE_XTILE_DATA, 8192, 2816, 2560 },
	};
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	uint64_t pt = 1ull << FPL_XFEATURE_PT;

	load_dump(DATA "sapphirerapids.cpuid", cpu, &xs);
	assert_true(xs.xsave);
	assert_int_equal(xs.xcr0, 0x602e7);
	assert_int_equal(xs.supervisor, 0xdd00);
	check_layout(&xs, xs.xcr0, e, FPL_ARRAY_SIZE(e));
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), 11008);
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), xs.size_std_xcr0);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), 10752);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0 | pt), xs.size_compacted_xss);
	assert_int_equal(fpl_xstate_offset_compacted(&xs, xs.xcr0 | pt, FPL_XFEATURE_PT), 2432);
	assert_int_equal(fpl_xstate_offset_compacted(&xs, xs.xcr0 | pt, FPL_XFEATURE_XTILE_CFG),
			 2624);
	/* Without PKRU, TILECFG lands on 2432, already aligned. */
	assert_int_equal(fpl_xstate_offset_compacted(&xs, 0x600e7, FPL_XFEATURE_XTILE_CFG), 2432);
	assert_true(xs.comp[FPL_XFEATURE_XTILE_CFG].align64);
	assert_false(xs.comp[FPL_XFEATURE_XTILE_CFG].xfd);
	assert_true(xs.comp[FPL_XFEATURE_XTILE_DATA].align64);
	assert_true(xs.comp[FPL_XFEATURE_XTILE_DATA].xfd);
	assert_false(xs.comp[FPL_XFEATURE_PKRU].align64);
	/* Supervisor components: size, no standard offset; LBR 808 bytes. */
	assert_true(xs.comp[FPL_XFEATURE_LBR].supervisor);
	assert_int_equal(xs.comp[FPL_XFEATURE_LBR].size, 808);
	assert_int_equal(fpl_xstate_offset_std(&xs, FPL_XFEATURE_LBR), -1);
	assert_false(xs.comp[FPL_XFEATURE_HDC].enumerated);
	assert_int_equal(fpl_xstate_offset_compacted(&xs, 1ull << FPL_XFEATURE_HDC,
						     FPL_XFEATURE_HDC), -1);
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AMX_TILE));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XFD));
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_XSAVEC, NULL), 1);
	free(cpu);
}

/*
 * Skylake-X, XCR0 0xff. Compacted: AVX 576..832; BNDREGS 832..896;
 * BNDCSR 896..960; opmask 960..1024; ZMM_Hi256 1024..1536; Hi16_ZMM
 * 1536..2560 = 0xD.1 EBX (0xa00): IA32_XSS was 0 there. Standard: 1664+1024 = 2688.
 */
static void test_layout_skylakex(void **state)
{
	static const struct expect e[] = {
		{ FPL_XFEATURE_YMM, 256, 576, 576 },
		{ FPL_XFEATURE_BNDREGS, 64, 960, 832 },
		{ FPL_XFEATURE_BNDCSR, 64, 1024, 896 },
		{ FPL_XFEATURE_OPMASK, 64, 1088, 960 },
		{ FPL_XFEATURE_ZMM_Hi256, 512, 1152, 1024 },
		{ FPL_XFEATURE_Hi16_ZMM, 1024, 1664, 1536 },
	};
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;

	load_dump(DATA "skylakex.cpuid", cpu, &xs);
	assert_int_equal(xs.xcr0, 0xff);
	assert_int_equal(xs.supervisor, 1ull << FPL_XFEATURE_PT);
	check_layout(&xs, xs.xcr0, e, FPL_ARRAY_SIZE(e));
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), 2688);
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), xs.size_std_xcr0);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), 2560);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), xs.size_compacted_xss);
	/* The kernel's usual mask without MPX: opmask moves down to 832. */
	assert_int_equal(fpl_xstate_offset_compacted(&xs, 0xe7, FPL_XFEATURE_OPMASK), 832);
	assert_int_equal(fpl_xstate_size_compacted(&xs, 0xe7), 2432);
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_MPX));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX512F));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XFD));
	free(cpu);
}

/*
 * Skylake client, XCR0 0x7 (inferred: 0xD.0 EBX = 832). Standard: 576+256 = 832.
 * Compacted for the MPX mask 0x1f: AVX 576..832, BNDREGS 832..896, BNDCSR
 * 896..960, while the standard layout puts them at 960 and 1024 (size 1088 = 0xD.0 ECX).
 */
static void test_layout_skylake(void **state)
{
	static const struct expect e[] = {
		{ FPL_XFEATURE_YMM, 256, 576, 576 },
		{ FPL_XFEATURE_BNDREGS, 64, 960, 832 },
		{ FPL_XFEATURE_BNDCSR, 64, 1024, 896 },
	};
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;

	load_dump(DATA "skylake.cpuid", cpu, &xs);
	assert_int_equal(xs.xcr0, 0x7);
	assert_int_equal(xs.user, 0x1f);
	check_layout(&xs, 0x1f, e, FPL_ARRAY_SIZE(e));
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), 832);
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), xs.size_std_xcr0);
	assert_int_equal(fpl_xstate_size_std(&xs, xs.user), xs.size_std_max);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), 832);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), xs.size_compacted_xss);
	assert_int_equal(fpl_xstate_size_compacted(&xs, 0x1f), 960);
	/* BNDREGS is outside XCR0 0x7: no offset in that layout. */
	assert_int_equal(fpl_xstate_offset_compacted(&xs, xs.xcr0, FPL_XFEATURE_BNDREGS), -1);
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_MPX));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX512F));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX2));
	free(cpu);
}

/*
 * Genoa (this machine's part), XCR0 assumed 0x2e7. Compacted: AVX 576,
 * opmask 832, ZMM_Hi256 896, Hi16_ZMM 1408, PKRU 2432..2440. The dump's
 * 0xD.0 EBX 0x980 = 2432 is the standard size without PKRU (the dumping OS
 * left it off); 0xD.1 EBX 0x990 = 2448 = 0xe7 plus CET_U (16 bytes at 2432).
 */
static void test_layout_genoa(void **state)
{
	static const struct expect e[] = {
		{ FPL_XFEATURE_YMM, 256, 576, 576 },
		{ FPL_XFEATURE_OPMASK, 64, 832, 832 },
		{ FPL_XFEATURE_ZMM_Hi256, 512, 896, 896 },
		{ FPL_XFEATURE_Hi16_ZMM, 1024, 1408, 1408 },
		{ FPL_XFEATURE_PKRU, 8, 2432, 2432 },
	};
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;

	load_dump(DATA "genoa.cpuid", cpu, &xs);
	assert_int_equal(xs.xcr0, 0x2e7);
	check_layout(&xs, xs.xcr0, e, FPL_ARRAY_SIZE(e));
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), 2440);
	assert_int_equal(fpl_xstate_size_std(&xs, 0xe7), xs.size_std_xcr0);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), 2440);
	assert_int_equal(fpl_xstate_size_compacted(&xs, 0xe7 | 1ull << FPL_XFEATURE_CET_USER),
			 xs.size_compacted_xss);
	assert_int_equal(fpl_xstate_offset_compacted(&xs, 0xe7 | 1ull << FPL_XFEATURE_CET_USER,
						     FPL_XFEATURE_CET_USER), 2432);
	free(cpu);
}

/* Without OSXSAVE the table describes FXSAVE's state only. */
static void test_layout_no_osxsave(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	const char *why;

	load_dump(DATA "no-osxsave.cpuid", cpu, &xs);
	assert_false(xs.xsave);
	assert_int_equal(xs.xcr0, FPL_XFEATURE_MASK_FPSSE);
	assert_int_equal(fpl_xstate_size_std(&xs, xs.xcr0), 512);
	assert_int_equal(fpl_xstate_size_compacted(&xs, xs.xcr0), 512);
	assert_int_equal(fpl_xstate_offset_std(&xs, FPL_XFEATURE_SSE), 160);
	assert_int_equal(fpl_xstate_offset_std(&xs, FPL_XFEATURE_YMM), -1);
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_XSAVE, &why), 0);
	assert_non_null(strstr(why, "OSXSAVE"));
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_FXSAVE, &why), 1);
	free(cpu);
}

/* The pattern image is valid: x87 stack empty, exceptions masked, XSTATE_BV within XCR0. */
static void test_pattern_image_valid(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	uint8_t *img, *img2;

	load_dump(DATA "sapphirerapids.cpuid", cpu, &xs);
	img = fpl_xstate_alloc(xs.size_std_max);
	img2 = fpl_xstate_alloc(xs.size_std_max);
	fpl_xstate_pattern(&xs, ~0ull, 3, img);
	assert_int_equal(get64(img + 512), xs.xcr0);
	assert_int_equal(get64(img + 520), 0);
	assert_int_equal(img[0] | img[1] << 8, 0x037f);
	assert_int_equal(img[4], 0);
	assert_int_equal(get64(img + 24) & 0xffffffc0, 0x1f80);
	/* PKRU keeps key 0 open; TILECFG is palette 1. */
	assert_int_equal(img[2688] & 3, 0);
	assert_int_equal(img[2752], 1);
	/* Same seed, same bytes, whatever else is in the mask; another seed differs. */
	fpl_xstate_pattern(&xs, FPL_XFEATURE_MASK_YMM, 3, img2);
	assert_memory_equal(img + 576, img2 + 576, 256);
	memset(img2, 0, xs.size_std_max);
	fpl_xstate_pattern(&xs, FPL_XFEATURE_MASK_YMM, 4, img2);
	assert_memory_not_equal(img + 576, img2 + 576, 256);
	/* AVX without SSE still leaves a valid MXCSR (XRSTOR loads it). */
	assert_int_equal(get64(img2 + 24) & 0xffffffff, 0x1f80);
	free(img);
	free(img2);
	free(cpu);
}

/* ---- mask parsing ---- */

static void test_parse_mask(void **state)
{
	struct fpl_xstate xs = { .xsave = true, .xcr0 = 0xe7 };
	struct fpl_diag diag = { "" };
	uint64_t m;

	assert_int_equal(fpl_xstate_parse_mask(&xs, "all", &m, &diag), 0);
	assert_int_equal(m, 0xe7);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "0x206", &m, &diag), 0);
	assert_int_equal(m, 0x206);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "7", &m, &diag), 0);
	assert_int_equal(m, 7);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "x87,sse+avx", &m, &diag), 0);
	assert_int_equal(m, 7);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "avx512", &m, &diag), 0);
	assert_int_equal(m, 0xe0);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "YMM,opmask", &m, &diag), 0);
	assert_int_equal(m, 0x24);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "amx,pkru", &m, &diag), 0);
	assert_int_equal(m, 0x60200);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "AMX_TILEDATA", &m, &diag), 0);
	assert_int_equal(m, 0x40000);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "apx", &m, &diag), 0);
	assert_int_equal(m, 1ull << 19);

	m = 42;
	assert_int_equal(fpl_xstate_parse_mask(&xs, "avx,bogus", &m, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "'bogus'"));
	assert_int_equal(m, 42);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "", &m, &diag), -EINVAL);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "avx,", &m, &diag), -EINVAL);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "0x1z", &m, &diag), -EINVAL);
	assert_int_equal(fpl_xstate_parse_mask(&xs, "0x100000", &m, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "above component 19"));
	assert_int_equal(fpl_xstate_parse_mask(&xs, "99999999999999999999999", &m, &diag),
			 -EINVAL);
}

static void test_names(void **state)
{
	assert_string_equal(fpl_xfeature_name(FPL_XFEATURE_YMM), "AVX");
	assert_string_equal(fpl_xfeature_name(FPL_XFEATURE_XTILE_DATA), "AMX_TILEDATA");
	assert_string_equal(fpl_xfeature_name(FPL_XFEATURE_MAX), "?");
	assert_string_equal(fpl_save_insn_name(FPL_INSN_XSAVEOPT), "xsaveopt");
	assert_int_equal(fpl_save_insn_by_name("XSAVEC"), FPL_INSN_XSAVEC);
	assert_int_equal(fpl_save_insn_by_name("xsave64"), -1);
}

static void test_xsaves_never_supported(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	const char *why = NULL;

	fpl_cpu_read(cpu);
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_XSAVES, &why), 0);
	assert_non_null(why);
	if (fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVES))
		assert_string_equal(why, "ring 0 only");
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_FXSAVE, &why), 1);
	free(cpu);
}

static void test_alloc_aligned(void **state)
{
	for (size_t n = 1; n < 20000; n += 4099) {
		uint8_t *p = fpl_xstate_alloc(n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 64, 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(p[i], 0);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_layout_matches_cpuid),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_xsavec_extent),
		cmocka_unit_test(test_init_reads_back_as_init),
		cmocka_unit_test(test_regs_set_sets_xinuse),
		cmocka_unit_test(test_fxsave_only_path),
		cmocka_unit_test(test_regs_unsupported),
		cmocka_unit_test(test_layout_sapphirerapids),
		cmocka_unit_test(test_layout_skylakex),
		cmocka_unit_test(test_layout_skylake),
		cmocka_unit_test(test_layout_genoa),
		cmocka_unit_test(test_layout_no_osxsave),
		cmocka_unit_test(test_pattern_image_valid),
		cmocka_unit_test(test_parse_mask),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_xsaves_never_supported),
		cmocka_unit_test(test_alloc_aligned),
	};

	return cmocka_run_group_tests_name("xstate", tests, NULL, NULL);
}
