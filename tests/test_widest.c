// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The "widest" state and the rule for a state the CPU lacks, on recorded
 * CPUs (both branches on every host): "widest" is the widest vector state
 * of XCR0 and is said once; a state, mask or implementation named that the
 * CPU lacks is refused by the benchmark's check (-ENOTSUP: exit 77 before
 * anything is measured), after every bad value (-EINVAL) is found.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/bench.h"
#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

static struct fpl_cpu *load(const char *dump)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	char path[256];

	assert_non_null(cpu);
	snprintf(path, sizeof(path), "tests/data/cpuid/%s", dump);
	if (fpl_cpu_load(cpu, path, &diag))
		fail_msg("%s: %s", path, diag.msg);
	return cpu;
}

/* fpl_bench_prepare of bench with opts (name, value pairs, NULL-ended) on a recorded CPU. */
static int prepare(const struct fpl_cpu *cpu, const char *bench, const char *const *kv,
		   struct fpl_diag *diag)
{
	const struct fpl_bench *b = fpl_bench_find(bench);
	struct fpl_optval o[8];
	size_t n = 0;
	void *cfg;
	int err;

	assert_non_null(b);
	for (; kv[0] && n < 8; kv += 2)
		o[n++] = (struct fpl_optval){ kv[0], kv[1] };
	cfg = calloc(1, b->cfg_size ? b->cfg_size : 1);
	assert_non_null(cfg);
	diag->msg[0] = 0;
	err = fpl_bench_prepare(b, cpu, o, n, cfg, diag);
	free(cfg);
	return err;
}

static void test_widest_of_xcr0(void **state)
{
	static const struct {
		const char *dump, *name;
		uint64_t mask;
	} cases[] = {
		{ "genoa.cpuid", "avx512", FPL_XFEATURE_MASK_AVX512 },
		{ "zen3-pku-kvm.cpuid", "avx", FPL_XFEATURE_MASK_YMM },
		{ "skylake.cpuid", "avx", FPL_XFEATURE_MASK_YMM },
		{ "nehalem.aida", "sse", FPL_XFEATURE_MASK_SSE },	/* no XSAVE: x87|SSE */
	};
	uint64_t m = 0;

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		struct fpl_cpu *cpu = load(cases[i].dump);
		struct fpl_diag diag = { "" };
		struct fpl_xstate xs;
		uint64_t parsed = 0;

		assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
		assert_string_equal(fpl_xstate_widest(fpl_xstate_xcr0(&xs), &m), cases[i].name);
		assert_true(m == cases[i].mask);
		assert_int_equal(fpl_xstate_parse_mask(&xs, "widest", &parsed, &diag), 0);
		assert_true(parsed == cases[i].mask);
		free(cpu);
	}
	assert_string_equal(fpl_xstate_widest(FPL_XFEATURE_MASK_FP, &m), "x87");
	/* PKRU and AMX are never the widest state */
	assert_string_equal(fpl_xstate_widest(0x60207, &m), "avx");
	assert_true(fpl_xstate_names_widest("init,widest"));
	assert_true(fpl_xstate_names_widest("widest+pkru"));
	assert_false(fpl_xstate_names_widest("widestx"));
	assert_false(fpl_xstate_names_widest("avx512"));
}

/* The one line that says what widest is: why where it is not AVX-512. */
static void test_widest_note(void **state)
{
	static const char *const ctxsw[] = { "ab", "init,widest", NULL };
	static const char *const signal[] = { "state", "widest", NULL };
	static const char *const section[] = { "owner", "widest", NULL };
	static const char *const xsave[] = { "part", "matrix", "mask", "widest", NULL };
	static const struct {
		const char *bench;
		const char *const *kv;
	} cmds[] = { { "ctxsw", ctxsw }, { "signal", signal }, { "section", section },
		     { "xsave", xsave } };
	struct fpl_cpu *zen3 = load("zen3-pku-kvm.cpuid"), *genoa = load("genoa.cpuid");
	struct fpl_diag diag;

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cmds); i++) {
		assert_int_equal(prepare(zen3, cmds[i].bench, cmds[i].kv, &diag), 0);
		if (strcmp(diag.msg, "state 'widest' here: avx (0x4): no AVX-512 in XCR0 0x207"))
			fail_msg("%s on Zen 3: '%s'", cmds[i].bench, diag.msg);
		assert_int_equal(prepare(genoa, cmds[i].bench, cmds[i].kv, &diag), 0);
		if (strcmp(diag.msg, "state 'widest' here: avx512 (0xe0)"))
			fail_msg("%s on Zen 4: '%s'", cmds[i].bench, diag.msg);
	}
	/* a state named explicitly: no notice */
	assert_int_equal(prepare(genoa, "signal", (const char *const[]){ "state", "avx512", NULL },
				 &diag), 0);
	assert_string_equal(diag.msg, "");
	free(zen3);
	free(genoa);
}

/*
 * Named and absent: refused before anything runs, with the reason the run
 * would have skipped with; the same options check out where the CPU has it.
 */
static void test_absent_refused(void **state)
{
	static const struct {
		const char *bench;
		const char *kv[7];
		const char *why;
	} cases[] = {
		{ "ctxsw", { "state", "avx512" }, "state 'avx512': mask 0xe0 has components this "
		  "task cannot make live here" },
		{ "ctxsw", { "ab", "init,avx512" }, "state 'avx512': mask 0xe0" },
		{ "signal", { "state", "avx512" }, "state 'avx512': mask 0xe0 has components" },
		{ "section", { "owner", "avx512" }, "owner state avx512 needs AVX-512" },
		{ "section", { "impl", "avx512", "workload", "xor" }, "needs AVX-512F" },
		{ "xsave", { "part", "matrix", "mask", "avx512" }, "RFBM 0xe0 has components "
		  "outside this process's permitted mask 0x207 (XCR0 0x207)" },
		{ "xor", { "impl", "avx512" }, "needs AVX-512F" },
		{ "xor", { "impl", "avx512", "calibrate", NULL }, "needs AVX-512F" },
	};
	struct fpl_cpu *zen3 = load("zen3-pku-kvm.cpuid"), *genoa = load("genoa.cpuid");
	struct fpl_diag diag;

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		const char *const *kv = cases[i].kv;
		int err = prepare(zen3, cases[i].bench, kv, &diag);

		if (err != -ENOTSUP || !strstr(diag.msg, cases[i].why))
			fail_msg("%s --%s %s on Zen 3: %d '%s'", cases[i].bench, kv[0], kv[1], err,
				 diag.msg);
		err = prepare(genoa, cases[i].bench, kv, &diag);
		if (err)
			fail_msg("%s --%s %s on Zen 4: %d '%s'", cases[i].bench, kv[0], kv[1], err,
				 diag.msg);
	}
	/* Part of what was asked is measurable: the run goes ahead, skipping the rest. */
	assert_int_equal(prepare(zen3, "xor", (const char *const[]){ "impl", "avx512,avx", NULL },
				 &diag), 0);
	assert_int_equal(prepare(zen3, "section", (const char *const[]){ "owner", "both", NULL },
				 &diag), 0);
	assert_int_equal(prepare(zen3, "xsave", (const char *const[]){ "mask", "avx512", NULL },
				 &diag), 0);	/* --part all: the RFBM experiment and misc remain */
	free(zen3);
	free(genoa);
}

/* Bad input is bad input on every CPU: found before a state this CPU lacks is refused. */
static void test_bad_before_absent(void **state)
{
	struct fpl_cpu *zen3 = load("zen3-pku-kvm.cpuid");
	struct fpl_diag diag;

	(void)state;
	assert_int_equal(prepare(zen3, "ctxsw", (const char *const[]){ "ab", "avx512,nosuch",
								      NULL }, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "nosuch"));
	assert_int_equal(prepare(zen3, "ctxsw", (const char *const[]){ "ab", "avx512,none",
								      NULL }, &diag), -EINVAL);
	assert_int_equal(prepare(zen3, "kvm", (const char *const[]){ "ab", "avx512,nosuch",
								    NULL }, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "nosuch"));
	free(zen3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widest_of_xcr0),
		cmocka_unit_test(test_widest_note),
		cmocka_unit_test(test_absent_refused),
		cmocka_unit_test(test_bad_before_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
