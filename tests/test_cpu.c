// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/cpu: the live snapshot, dump round trips, feature logic on other CPUs' dumps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/cpu.h"

#define DATA "tests/data/cpuid/"

static struct fpl_cpu *load(const char *name)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	int err;

	assert_non_null(cpu);
	err = fpl_cpu_load(cpu, name, &diag);
	if (err)
		fail_msg("%s: %s", name, diag.msg);
	return cpu;
}

static void test_live_matches_instructions(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	uint32_t r[4], s[4];

	fpl_cpu_read(cpu);
	assert_true(cpu->live);
	fpl_cpuid_raw(1, 0, r);
	assert_true(fpl_cpu_cpuid(cpu, 1, 0, s));
	assert_memory_equal(r, s, sizeof(r));
	if (fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE))
		assert_int_equal(cpu->xcr0, fpl_xgetbv(0));
	else
		assert_int_equal(cpu->xcr0, 0);
	/* Every x86-64 CPU has SSE2 and FXSR. */
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_SSE2));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_FXSR));
	assert_true(strlen(cpu->vendor) == 12);
	free(cpu);
}

static void test_save_load_roundtrip(void **state)
{
	struct fpl_cpu *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct fpl_diag diag;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fpl_cpu_read(a);
	assert_int_equal(fpl_cpu_save(a, f), 0);
	fclose(f);
	f = fmemopen(buf, len, "r");
	assert_int_equal(fpl_cpu_load_stream(b, f, "mem", &diag), 0);
	fclose(f);
	assert_int_equal(a->nleaves, b->nleaves);
	assert_memory_equal(a->leaves, b->leaves, a->nleaves * sizeof(a->leaves[0]));
	assert_true(b->xcr0_known);
	assert_int_equal(a->xcr0, b->xcr0);
	assert_string_equal(a->brand, b->brand);
	assert_int_equal(a->family, b->family);
	assert_int_equal(a->model, b->model);
	for (int i = 0; i < FPL_FEAT_NR; i++)
		assert_int_equal(fpl_cpu_has(a, i), fpl_cpu_has(b, i));
	assert_false(b->live);
	free(buf);
	free(a);
	free(b);
}

static void test_genoa(void **state)
{
	struct fpl_cpu *cpu = load(DATA "genoa.cpuid");

	assert_string_equal(cpu->vendor, "AuthenticAMD");
	assert_string_equal(cpu->brand, "AMD EPYC 9654 96-Core Processor");
	assert_int_equal(cpu->family, 0x19);
	assert_int_equal(cpu->model, 0x11);
	assert_int_equal(cpu->stepping, 1);
	/* No xcr0 line: every enumerated user component is assumed enabled. */
	assert_false(cpu->xcr0_known);
	assert_int_equal(cpu->xcr0, 0x2e7);
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX512F));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX512BW));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX512BF16));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XSAVEC));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XGETBV1));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XSAVES));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XFD));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AMX_TILE));
	assert_int_equal(fpl_cpu_xfeatures_user(cpu), 0x2e7);
	assert_int_equal(fpl_cpu_xfeatures_supervisor(cpu), 0x1800);
	free(cpu);
}

static void test_xcr0_gates_features(void **state)
{
	struct fpl_cpu *cpu = load(DATA "genoa-xcr0-avx.cpuid");

	assert_true(cpu->xcr0_known);
	assert_int_equal(cpu->xcr0, 0x7);
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_AVX512F));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX512F));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX512VL));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX2));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX));
	free(cpu);
}

static void test_no_osxsave(void **state)
{
	struct fpl_cpu *cpu = load(DATA "no-osxsave.cpuid");

	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_AVX));
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVE));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XSAVE));
	assert_int_equal(cpu->xcr0, 0);
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_SSE4_2));
	free(cpu);
}

static void test_vermeer_aida(void **state)
{
	struct fpl_cpu *cpu = load(DATA "vermeer.aida");
	uint32_t r[4];

	assert_string_equal(cpu->brand, "AMD Ryzen 7 5800X3D 8-Core Processor");
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX2));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX512F));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XSAVEC));
	/* Unlabelled lines: subleaf 1 is recognised, the AVX component follows. */
	assert_true(fpl_cpu_cpuid(cpu, 0xd, 2, r));
	assert_int_equal(r[0], 0x100);
	assert_int_equal(r[1], 0x240);
	/* The second logical CPU's zeros did not overwrite the first's. */
	assert_true(fpl_cpu_cpuid(cpu, 0xd, 0, r));
	assert_int_equal(r[0], 0x207);
	assert_true(cpu->note[0] != 0);
	free(cpu);
}

static void test_sandybridge_aida(void **state)
{
	struct fpl_cpu *cpu = load(DATA "sandybridge.aida");
	uint32_t r[4];

	assert_true(fpl_cpu_has(cpu, FPL_FEAT_AVX));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX2));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_XSAVE));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XSAVEOPT));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XSAVEC));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XGETBV1));
	assert_int_equal(cpu->xcr0, 0x7);
	assert_true(fpl_cpu_cpuid(cpu, 0xd, 2, r));
	assert_int_equal(r[1], 0x240);
	assert_false(fpl_cpu_cpuid(cpu, 0xd, 1, r));
	free(cpu);
}

static void test_nehalem_aida(void **state)
{
	struct fpl_cpu *cpu = load(DATA "nehalem.aida");

	assert_string_equal(cpu->vendor, "GenuineIntel");
	assert_int_equal(cpu->family, 6);
	assert_int_equal(cpu->model, 0x1a);
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_XSAVE));
	assert_false(fpl_cpu_has(cpu, FPL_FEAT_AVX));
	assert_true(fpl_cpu_has(cpu, FPL_FEAT_SSE4_2));
	assert_int_equal(cpu->xcr0, 0);
	free(cpu);
}

/* A fixture without its lines that start with one of the prefixes, loaded (must succeed). */
static struct fpl_cpu *load_without(const char *path, const char *const *prefixes, size_t n)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	char *text = NULL, line[512];
	size_t len = 0;
	FILE *in = fopen(path, "r"), *out = open_memstream(&text, &len);

	assert_true(cpu && in && out);
	while (fgets(line, sizeof(line), in)) {
		bool drop = false;

		for (size_t i = 0; i < n; i++)
			drop |= !strncmp(line, prefixes[i], strlen(prefixes[i]));
		if (!drop)
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	in = fmemopen(text, len, "r");
	assert_non_null(in);
	if (fpl_cpu_load_stream(cpu, in, path, &diag))
		fail_msg("%s without some leaves: refused: %s", path, diag.msg);
	fclose(in);
	free(text);
	return cpu;
}

static void expect_note(const struct fpl_cpu *cpu, const char *needle)
{
	if (!strstr(cpu->note, needle))
		fail_msg("note '%s' does not say '%s'", cpu->note, needle);
}

/*
 * A dump that lacks leaves fpulab reads (issue 14): each is named in the
 * note with what is unknown, and what is there is still read.
 */
static void test_partial_dumps(void **state)
{
	static const char *const no_leaf0[] = { "cpuid 0x00000000 " };
	static const char *const no_d0[] = { "cpuid 0x0000000d 0x00 " };
	static const char *const no_7_d1[] = { "cpuid 0x00000007 ", "cpuid 0x0000000d 0x01 " };
	struct fpl_cpu *cpu = load(DATA "sapphirerapids.cpuid");
	uint32_t r[4];

	/* the fixture holds no leaf 0x1D: AMX is enumerated, its palette unknown */
	expect_note(cpu, "CPUID leaf 0x1D missing from the dump: AMX palette unknown");
	expect_note(cpu, "CPUID leaf 0x1E missing");
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_AMX_TILE));
	assert_true(fpl_cpu_cpuid(cpu, 0xd, 18, r));
	assert_int_equal(r[0], 8192);
	free(cpu);

	cpu = load_without(DATA "skylakex.cpuid", no_leaf0, 1);
	expect_note(cpu, "CPUID leaf 0x0 missing from the dump: vendor");
	assert_int_equal(cpu->family, 6);
	assert_int_equal(cpu->model, 0x55);
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_AVX512F));
	free(cpu);

	cpu = load_without(DATA "skylakex.cpuid", no_d0, 1);
	expect_note(cpu, "CPUID leaf 0xD missing from the dump: XSAVE components and sizes");
	assert_true(fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVE));
	assert_string_equal(cpu->vendor, "GenuineIntel");
	free(cpu);

	cpu = load_without(DATA "skylakex.cpuid", no_7_d1, 2);
	expect_note(cpu, "CPUID leaf 0x7 missing");
	expect_note(cpu, "CPUID leaf 0xD subleaf 1 missing");
	assert_false(fpl_cpu_has_cpuid(cpu, FPL_FEAT_AVX512F));
	assert_true(fpl_cpu_cpuid(cpu, 0xd, 2, r));
	free(cpu);

	/* a complete dump: nothing to say */
	cpu = load(DATA "skylakex.cpuid");
	assert_string_equal(cpu->note, "");
	free(cpu);
}

/* InstLatx64's header has prose lines that start with "CPUID": they are not leaves. */
static void test_instlatx64_header(void **state)
{
	static const char text[] =
		"------[ CPU Info ]------\n\n"
		"CPUID Manufacturer : GenuineIntel\n"
		"CPUID CPU Name     : Intel(R) Xeon(R) CPU\n"
		"CPUID Revision     : 000206A7h\n\n"
		"------[ Logical CPU #0 ]------\n\n"
		"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000206A7-00100800-1FBAE3FF-BFEBFBFF\n"
		"CPUID 80000000: 80000008-00000000-00000000-00000000\n";
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	assert_true(cpu && f);
	if (fpl_cpu_load_stream(cpu, f, "header.txt", &diag))
		fail_msg("refused: %s", diag.msg);
	fclose(f);
	assert_string_equal(cpu->vendor, "GenuineIntel");
	assert_int_equal(cpu->model, 0x2a);
	/* what it lacks is said: leaf 7, 0xD, the brand string */
	expect_note(cpu, "CPUID leaf 0x7 missing");
	expect_note(cpu, "CPUID leaf 0xD missing");
	expect_note(cpu, "0x80000002-0x80000004 missing");
	free(cpu);
}

static void expect_reject(const char *path, const char *needle)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };

	assert_int_equal(fpl_cpu_load(cpu, path, &diag), -EINVAL);
	if (!strstr(diag.msg, needle))
		fail_msg("'%s' does not contain '%s'", diag.msg, needle);
	free(cpu);
}

static void test_bad_dumps(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };

	expect_reject(DATA "bad-line.cpuid", "bad-line.cpuid:3:");
	expect_reject(DATA "bad-aida.aida", "bad-aida.aida:2:");
	/* AIDA64's leaf 0xD is size-checked as our own format's is (placed or labelled) */
	expect_reject(DATA "bad-xsize.aida", "bad-xsize.aida: leaf 0xD subleaf 2 (as placed");
	expect_reject(DATA "bad-xpast.aida", "bad-xpast.aida: leaf 0xD subleaf 2: component 2 of "
		      "256 bytes at offset 768 ends at 1024, past the standard XSAVE area of 832");
	expect_reject("Makefile", "no CPUID leaves");
	/* not a CPUID dump at all, or not readable: refused, naming the file */
	assert_int_equal(fpl_cpu_load(cpu, "tests", &diag), -EIO);
	assert_non_null(strstr(diag.msg, "tests: cannot read it"));
	assert_int_equal(fpl_cpu_load(cpu, DATA "does-not-exist", &diag), -ENOENT);
	assert_non_null(strstr(diag.msg, "does-not-exist"));
	free(cpu);
}

static void test_feature_names(void **state)
{
	for (int i = 0; i < FPL_FEAT_NR; i++) {
		const char *n = fpl_feature_name(i);

		assert_non_null(n);
		assert_int_equal(fpl_feature_by_name(n), i);
	}
	assert_int_equal(fpl_feature_by_name("AVX512F"), FPL_FEAT_AVX512F);
	assert_int_equal(fpl_feature_by_name("nonsense"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_matches_instructions),
		cmocka_unit_test(test_save_load_roundtrip),
		cmocka_unit_test(test_genoa),
		cmocka_unit_test(test_xcr0_gates_features),
		cmocka_unit_test(test_no_osxsave),
		cmocka_unit_test(test_vermeer_aida),
		cmocka_unit_test(test_sandybridge_aida),
		cmocka_unit_test(test_nehalem_aida),
		cmocka_unit_test(test_bad_dumps),
		cmocka_unit_test(test_partial_dumps),
		cmocka_unit_test(test_instlatx64_header),
		cmocka_unit_test(test_feature_names),
	};

	return cmocka_run_group_tests_name("cpu", tests, NULL, NULL);
}
