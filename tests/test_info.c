// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for `fpulab info` and the host object: JSON against CPUID, dumps, bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/amx.h"
#include "fpulab/cpu.h"
#include "fpulab/host.h"
#include "fpulab/xstate.h"
#include "runcmd.h"
#include "clitest.h"

#define DATA "tests/data/cpuid/"

/* Run fpulab with args; stdout and stderr come back separately. Returns the exit status. */
static int run(const char *args, char **out, char **err)
{
	int rc = fplrun("", args, out, err);

	assert_non_null(*out);
	assert_true(rc >= 0);
	return rc;
}

/* want77: exit 77 expected instead of 0 (nothing asked for measurable: still a document). */
static json_t *run_json_rc(const char *args, bool want77)
{
	char *out, *err;
	json_error_t jerr;
	json_t *doc, *host;

	if (run(args, &out, &err) != (want77 ? 77 : 0))
		fail_msg("fpulab %s failed: %s", args, err);
	doc = json_loads(out, 0, &jerr);
	if (!doc)
		fail_msg("fpulab %s: not JSON (%s, line %d)", args, jerr.text, jerr.line);
	host = json_object_get(doc, "host");
	assert_non_null(host);
	json_incref(host);
	json_decref(doc);
	free(out);
	free(err);
	return host;
}

static json_t *run_json(const char *args)
{
	return run_json_rc(args, false);
}

static json_t *component(json_t *host, int id)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(host, "components"), i, c)
		if (json_integer_value(json_object_get(c, "id")) == id)
			return c;
	return NULL;
}

static json_int_t geti(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("'%s' is not an integer", k);
	return json_integer_value(v);
}

static void test_live_json_matches_cpuid(void **state)
{
	json_t *h = run_json("info --json");
	uint32_t r[4], d[4];
	char xcr0[24];

	fpl_cpuid_raw(1, 0, r);
	if (!(r[2] >> 27 & 1)) {
		assert_string_equal(json_string_value(json_object_get(h, "xcr0")), "0x3");
		json_decref(h);
		skip();
	}
	snprintf(xcr0, sizeof(xcr0), "0x%llx", (unsigned long long)fpl_xgetbv(0));
	assert_string_equal(json_string_value(json_object_get(h, "xcr0")), xcr0);
	assert_string_equal(json_string_value(json_object_get(h, "cpuid_source")), "live");
	fpl_cpuid_raw(0xd, 0, r);
	assert_int_equal(geti(h, "xsave_size_standard"), r[1]);
	for (unsigned i = 2; i < 32; i++) {
		json_t *c = component(h, (int)i);

		if (!(r[0] >> i & 1)) {
			continue;
		}
		fpl_cpuid_raw(0xd, i, d);
		assert_non_null(c);
		assert_int_equal(geti(c, "size"), d[0]);
		assert_int_equal(geti(c, "offset"), d[1]);
		assert_false(json_is_true(json_object_get(c, "supervisor")));
		assert_int_equal(json_is_true(json_object_get(c, "align64")), d[2] >> 1 & 1);
	}
	/* XINUSE is read where XGETBV(1) exists. */
	fpl_cpuid_raw(0xd, 1, d);
	assert_int_equal(json_is_string(json_object_get(h, "xinuse")), d[0] >> 2 & 1);
	assert_non_null(json_object_get(json_object_get(h, "kernel"), "release"));
	json_decref(h);
}

struct fixture_case {
	const char *file;
	const char *xcr0;
	int std, compacted;
	int id, offset, compacted_offset;	/* one component checked by hand */
	bool align64;
};

static void test_fixture_json(void **state)
{
	static const struct fixture_case cases[] = {
		{ "sapphirerapids.cpuid", "0x602e7", 11008, 10752, 18, 2816, 2560, true },
		{ "sapphirerapids.cpuid", "0x602e7", 11008, 10752, 17, 2752, 2496, true },
		{ "skylakex.cpuid", "0xff", 2688, 2560, 5, 1088, 960, false },
		{ "skylake.cpuid", "0x7", 832, 832, 2, 576, 576, false },
		{ "genoa.cpuid", "0x2e7", 2440, 2440, 9, 2432, 2432, false },
	};

	for (size_t i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		const struct fixture_case *k = &cases[i];
		char args[256];
		json_t *h, *c;

		snprintf(args, sizeof(args), "info --json --cpuid " DATA "%s", k->file);
		h = run_json(args);
		assert_string_equal(json_string_value(json_object_get(h, "xcr0")), k->xcr0);
		assert_non_null(strstr(json_string_value(json_object_get(h, "cpuid_source")),
				       k->file));
		assert_true(json_is_null(json_object_get(h, "xinuse")));
		assert_true(json_is_null(json_object_get(h, "microcode")));
		assert_int_equal(geti(h, "xsave_size_standard"), k->std);
		assert_int_equal(geti(h, "xsave_size_compacted"), k->compacted);
		c = component(h, k->id);
		assert_non_null(c);
		assert_int_equal(geti(c, "offset"), k->offset);
		assert_int_equal(geti(c, "compacted_offset"), k->compacted_offset);
		assert_int_equal(json_is_true(json_object_get(c, "align64")), k->align64);
		assert_true(json_is_true(json_object_get(c, "enabled")));
		json_decref(h);
	}
}

static void test_table_from_dump(void **state)
{
	char *out, *err;

	assert_int_equal(run("info --cpuid " DATA "sapphirerapids.cpuid", &out, &err), 0);
	assert_non_null(strstr(out, "dump " DATA "sapphirerapids.cpuid"));
	assert_non_null(strstr(out, "XINUSE       n/a"));
	/* SPR has XSAVES and its kernel uses it; fpulab cannot time it (issue 32 item 12) */
	assert_non_null(strstr(out, "xsaves yes (ring 0 only: the kernel's; not measurable here)"));
	assert_non_null(strstr(out, "AMX_TILEDATA"));
	assert_non_null(strstr(out, "standard 11008 bytes, compacted 10752 bytes"));
	assert_string_equal(err, "");
	free(out);
	free(err);
}

static void test_bad_input(void **state)
{
	char *out, *err;

	assert_int_equal(run("info --cpuid " DATA "bad-line.cpuid", &out, &err), 2);
	assert_non_null(strstr(err, "bad-line.cpuid:3"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(run("info --cpuid " DATA "no-such-file.cpuid", &out, &err), 2);
	assert_non_null(strstr(err, "no-such-file.cpuid"));
	free(out);
	free(err);
	assert_int_equal(run("info --bogus", &out, &err), 2);
	assert_non_null(strstr(err, "--bogus"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(run("info extra", &out, &err), 2);
	free(out);
	free(err);
	assert_int_equal(run("info --json --dump-cpuid", &out, &err), 2);
	free(out);
	free(err);
	assert_int_equal(run("info --help", &out, &err), 0);
	assert_non_null(strstr(out, "--dump-cpuid"));
	free(out);
	free(err);
}

/* A dump written by --dump-cpuid describes the same layout as the live CPU. */
static void test_dump_roundtrip(void **state)
{
	char path[] = "/tmp/fpl-test-dump-XXXXXX", args[256], *out, *err;
	int fd = mkstemp(path);
	json_t *live, *dumped;

	assert_true(fd >= 0);
	close(fd);
	snprintf(args, sizeof(args), "info --dump-cpuid -o %s", path);
	assert_int_equal(run(args, &out, &err), 0);
	assert_string_equal(out, "");
	free(out);
	free(err);
	live = run_json("info --json");
	snprintf(args, sizeof(args), "info --json --cpuid %s", path);
	dumped = run_json(args);
	unlink(path);
	assert_true(json_equal(json_object_get(live, "components"),
			       json_object_get(dumped, "components")));
	assert_true(json_equal(json_object_get(live, "xcr0"), json_object_get(dumped, "xcr0")));
	assert_int_equal(geti(live, "xsave_size_compacted"), geti(dumped, "xsave_size_compacted"));
	assert_true(json_is_null(json_object_get(dumped, "xinuse")));
	json_decref(live);
	json_decref(dumped);
}

/*
 * No XSAVE: 0x3 is FXSAVE's implied state, not a known XCR0, even when the
 * dump carries an xcr0 line (as one saved on such a CPU, e.g. qemu64, does).
 */
static void test_no_xsave_xcr0_not_known(void **state)
{
	char path[] = "/tmp/fpl-test-noxs-XXXXXX", args[256], line[256], *out, *err;
	FILE *in = fopen(DATA "no-osxsave.cpuid", "r"), *o;
	int fd = mkstemp(path);
	json_t *h;

	assert_non_null(in);
	assert_true(fd >= 0);
	o = fdopen(fd, "w");
	assert_non_null(o);
	for (bool first = true; fgets(line, sizeof(line), in); first = false) {
		fputs(line, o);
		if (first)
			fputs("xcr0 0x0000000000000000\n", o);
	}
	fclose(in);
	fclose(o);
	snprintf(args, sizeof(args), "info --json --cpuid %s", path);
	h = run_json(args);
	assert_false(json_is_true(json_object_get(h, "xsave")));
	assert_true(json_is_false(json_object_get(h, "xcr0_known")));
	assert_non_null(strstr(json_string_value(json_object_get(h, "xcr0_source")), "FXSAVE"));
	json_decref(h);
	snprintf(args, sizeof(args), "info --cpuid %s", path);
	assert_int_equal(run(args, &out, &err), 0);
	unlink(path);
	if (!strstr(out, "XCR0         0x3  x87|SSE  (implied, not read: no XSAVE"))
		fail_msg("%s", out);
	free(out);
	free(err);
}

/* The library function itself, on a dump, without kernel facts. */
static void test_host_json_library(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_diag diag;
	json_t *h, *c;
	size_t i, n = 0;

	assert_int_equal(fpl_cpu_load(cpu, DATA "skylakex.cpuid", &diag), 0);
	fpl_xstate_init(&xs, cpu);
	assert_int_equal(fpl_host_json(cpu, &xs, NULL, &h), 0);
	assert_null(json_object_get(h, "kernel"));
	assert_false(json_is_true(json_object_get(h, "vm")));
	json_array_foreach(json_object_get(h, "components"), i, c) {
		n++;
		if (geti(c, "id") == 8) {
			assert_true(json_is_true(json_object_get(c, "supervisor")));
			assert_false(json_is_true(json_object_get(c, "enabled")));
			assert_true(json_is_null(json_object_get(c, "offset")));
			assert_true(json_is_null(json_object_get(c, "compacted_offset")));
		}
	}
	assert_int_equal(n, 9);	/* x87 SSE AVX BNDREGS BNDCSR opmask ZMM_Hi256 Hi16_ZMM PT */
	json_decref(h);
	free(cpu);
}

static const char *str(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	if (!v)
		fail_msg("no string '%s'", k);
	return v;
}


/* The AMX capture: the three masks with their sizes, the frame size now and once AMX is used, the palette. */
static void test_amx_dump_masks(void **state)
{
	json_t *h = run_json("info --json --cpuid tests/data/amx/spr-amx-kvm.cpuid");
	json_t *m = json_object_get(h, "masks"), *a = json_object_get(h, "amx");
	char *out, *err;

	assert_non_null(m);
	assert_non_null(a);
	assert_string_equal(str(m, "xcr0"), "0x600e7");
	assert_string_equal(str(m, "permitted"), "0x200e7");
	assert_string_equal(str(m, "active"), "0x200e7");
	assert_string_equal(str(m, "xfd"), "0x40000");
	assert_int_equal(geti(json_object_get(m, "size_standard"), "xcr0"), 11008);
	assert_int_equal(geti(json_object_get(m, "size_standard"), "permitted"), 2816);
	assert_int_equal(geti(json_object_get(m, "size_compacted"), "xcr0"), 10688);
	assert_int_equal(geti(json_object_get(m, "size_compacted"), "active"), 2496);
	/* The captured frames: 2816 without permission, 11008 once tiles were used. */
	assert_int_equal(geti(m, "signal_frame_xstate_size"), 2816);
	assert_int_equal(geti(m, "signal_frame_xstate_size_all_used"), 11008);
	assert_non_null(strstr(str(m, "note"), "not permitted"));
	assert_true(json_is_true(json_object_get(a, "supported")));
	assert_int_equal(geti(a, "tiles"), 8);
	assert_int_equal(geti(a, "rows"), 16);
	assert_int_equal(geti(a, "bytes_per_row"), 64);
	json_decref(h);
	assert_int_equal(run("info --cpuid tests/data/amx/spr-amx-kvm.cpuid", &out, &err), 0);
	assert_non_null(strstr(out, "8 tiles of 16 rows x 64 bytes"));
	assert_non_null(strstr(out, "permitted  0x200e7"));
	assert_non_null(strstr(out, "ARCH_REQ_XCOMP_PERM"));
	free(out);
	free(err);
	/* Without AMX: no palette, and the masks are XCR0. */
	h = run_json("info --json --cpuid " DATA "genoa.cpuid");
	m = json_object_get(h, "masks");
	assert_false(json_is_true(json_object_get(json_object_get(h, "amx"), "supported")));
	assert_string_equal(str(m, "permitted"), str(m, "xcr0"));
	assert_null(json_object_get(m, "note"));
	json_decref(h);
}

/*
 * --amx and an option naming tiles ask the kernel once and record the
 * answer: granted where AMX exists, a warning naming the reason elsewhere.
 */
static void test_amx_permission_recorded(void **state)
{
	static const char *const args[] = {
		"xsave --part matrix --mask x87 --budget 0.05 -q --json --amx",
		"xsave --part matrix --mask x87,tilecfg --budget 0.05 -q --json",
		"--amx xsave --part matrix --mask x87 --budget 0.05 -q --json",
		/* run: the benchmark's option asks as it does in the benchmark's command */
		"run xsave --part matrix --mask x87,tilecfg --budget 0.05 -q --json",
		"--amx run xsave --part matrix --mask x87 --budget 0.05 -q --json",
	};
	static const char *const by[] = { "--amx", "--mask x87,tilecfg", "--amx",
					  "xsave --mask x87,tilecfg", "--amx" };

	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	bool here;

	assert_non_null(cpu);
	fpl_cpu_read(cpu);
	assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
	here = fpl_amx_supported(&xs, NULL);
	free(cpu);
	for (unsigned i = 0; i < FPL_ARRAY_SIZE(args); i++) {
		/* x87,tilecfg without AMX: nothing asked for can be measured (77), still recorded */
		json_t *h = run_json_rc(args[i], !here && strstr(args[i], "tilecfg"));
		json_t *p = json_object_get(h, "amx_permission");
		bool amx = json_is_true(json_object_get(json_object_get(h, "amx"), "supported"));

		assert_true(json_is_true(json_object_get(p, "requested")));
		assert_string_equal(str(p, "by"), by[i]);
		assert_int_equal(json_is_true(json_object_get(p, "granted")), amx);
		/* The answer in words: without AMX, why nothing was asked of the kernel. */
		if (!amx && !strstr(str(p, "result"), "no AMX"))
			fail_msg("fpulab %s: result '%s' does not say there is no AMX", args[i],
				 str(p, "result"));
		if (amx)
			assert_string_equal(str(json_object_get(h, "masks"), "permitted"),
					    str(json_object_get(h, "masks"), "xcr0"));
		else
			assert_string_equal(str(p, "permitted_after"), str(p, "permitted_before"));
		assert_non_null(json_object_get(h, "masks_end"));
		json_decref(h);
	}
	/* Nothing named: not asked. */
	{
		json_t *h = run_json("xsave --part matrix --mask x87 --budget 0.05 -q --json");

		assert_false(json_is_true(json_object_get(json_object_get(h, "amx_permission"),
							  "requested")));
		json_decref(h);
	}
}

/* A dump: header, leaves 0, 1 (XSAVE), 0xD.0 and 0xD.1, then extra lines. */
static void dump_file(const char *dir, const char *name, const char *extra)
{
	char text[16384];

	snprintf(text, sizeof(text),
		 "# fpulab cpuid dump 1\n"
		 "xcr0 0x0000000000000007\n"
		 "cpuid 0x00000000 0x00 0x0000000d 0x756e6547 0x6c65746e 0x49656e69\n"
		 "cpuid 0x00000001 0x00 0x000906ea 0x00000800 0x1c000000 0x00000000\n"
		 "cpuid 0x0000000d 0x00 0x00000007 0x00000340 0x00000340 0x00000000\n"
		 "cpuid 0x0000000d 0x01 0x00000000 0x00000000 0x00000000 0x00000000\n%s",
		 extra);
	write_text(dir, name, text);
}

static int info_cpuid(const char *dir, const char *name, char **out)
{
	return sh(out, "cd %s && %s info --cpuid %s 2>&1", dir, cmd_fpl_bin(), name);
}

/* info --cpuid: sizes that would wrap, duplicate and missing leaves, long lines. */
static void test_cpuid_dump_checks(void **state)
{
	char *dir = tmpdir(), *out = NULL, longline[6000];
	int rc;

	dump_file(dir, "ok.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "ok.cpuid", &out);
	if (rc || !strstr(out, "XSAVE size   standard 832 bytes"))
		fail_msg("a good dump: exit %d\n%s", rc, out);
	free(out);

	/* 0xffffffff bytes at offset 576: the sum wrapped to 575 at 32 bits. */
	dump_file(dir, "wrap.cpuid", "cpuid 0x0000000d 0x02 0xffffffff 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "wrap.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "subleaf 2"));
	assert_null(strstr(out, "XSAVE size"));
	free(out);

	/* 256 bytes at offset 768: past the 832-byte standard area (0xD.0 ECX) */
	dump_file(dir, "past.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000300 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "past.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "past.cpuid: leaf 0xD subleaf 2"));
	free(out);

	/* The same checks for an AIDA64 dump: exit 2, the file named, no output file. */
	rc = sh(&out, "%s info --cpuid tests/data/cpuid/bad-xsize.aida -o %s/out.txt 2>&1",
		cmd_fpl_bin(), dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "bad-xsize.aida: leaf 0xD subleaf 2"));
	free(out);
	snprintf(longline, sizeof(longline), "%s/out.txt", dir);
	assert_int_equal(access(longline, F_OK), -1);

	dump_file(dir, "dup.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 "
		  "0x00000000\ncpuid 0x0000000d 0x02 0x00000200 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "dup.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "dup.cpuid:8:"));
	free(out);

	/* Component 2 enumerated, its subleaf absent: said, not silently zero. */
	dump_file(dir, "miss.cpuid", "");
	rc = info_cpuid(dir, "miss.cpuid", &out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "CPUID leaf 0xD subleaf 2 missing from the dump"));
	free(out);

	/* An AMX dump without leaf 0x1D (the fixture has none): shown, the gap named. */
	rc = sh(&out, "%s info --cpuid tests/data/cpuid/sapphirerapids.cpuid 2>&1",
		cmd_fpl_bin());
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "CPUID leaf 0x1D missing from the dump: AMX palette unknown"));
	assert_non_null(strstr(out, "AMX_TILEDATA"));
	free(out);

	/* A 5000-byte line 7: the error names line 7, and only once. */
	memset(longline, 'a', 5000);
	memcpy(longline + 5000, "\n", 2);
	dump_file(dir, "long.cpuid", longline);
	rc = info_cpuid(dir, "long.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "long.cpuid:7:"));
	assert_null(strstr(out, "long.cpuid:8:"));
	free(out);
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_json_matches_cpuid),
		cmocka_unit_test(test_fixture_json),
		cmocka_unit_test(test_table_from_dump),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_dump_roundtrip),
		cmocka_unit_test(test_host_json_library),
		cmocka_unit_test(test_no_xsave_xcr0_not_known),
		cmocka_unit_test(test_amx_dump_masks),
		cmocka_unit_test(test_amx_permission_recorded),
		cmocka_unit_test(test_cpuid_dump_checks),
	};

	return cmocka_run_group_tests_name("info", tests, NULL, NULL);
}
