// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/xstate that need no particular CPU: hand-checked layouts of dumps, patterns, mask parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/amx.h"
#include "fpulab/xstate.h"

#define DATA "tests/data/cpuid/"

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
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
	/*
	 * PKRU keeps key 0 open. This dump has no CPUID 0x1D, so no palette is
	 * known and TILECFG stays palette 0 (init): never a guessed configuration.
	 */
	assert_int_equal(img[2688] & 3, 0);
	assert_false(xs.amx.valid);
	assert_int_equal(img[2752], 0);
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
	/* With the palette (0x1D, 0x1E) the TILECFG pattern is a valid palette-1 one. */
	load_dump("tests/data/amx/spr-amx-kvm.cpuid", cpu, &xs);
	img = fpl_xstate_alloc(xs.size_std_max);
	fpl_xstate_pattern(&xs, FPL_XFEATURE_MASK_XTILE, 3, img);
	assert_true(xs.amx.valid);
	assert_int_equal(fpl_tilecfg_check(&xs.amx, img + 2752, NULL), 1);
	assert_int_equal(get64(img + 512), FPL_XFEATURE_MASK_XTILE);
	free(img);
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
		assert_string_equal(why, "ring 0 only: the kernel's; not measurable here");
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_FXSAVE, &why), 1);
	/* both branches on every host: a dump with XSAVES, one without XSAVE */
	assert_int_equal(fpl_cpu_load(cpu, "tests/data/cpuid/sapphirerapids.cpuid", NULL), 0);
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVES));
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_XSAVES, &why), 0);
	assert_string_equal(why, "ring 0 only: the kernel's; not measurable here");
	assert_int_equal(fpl_cpu_load(cpu, "tests/data/cpuid/nehalem.aida", NULL), 0);
	assert_int_equal(fpl_save_insn_supported(cpu, FPL_INSN_XSAVES, &why), 0);
	assert_string_equal(why, "not on this CPU");
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

	return cmocka_run_group_tests_name("xstate_layout", tests, NULL, NULL);
}
