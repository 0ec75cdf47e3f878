// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/bench/suite.c: the default suite's table against captured CPUs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/suite.h"

struct plan {
	struct fpl_suite_entry e[32];
	size_t n;
};

static void plan_of(const char *dump, bool tiles, struct plan *p)
{
	struct fpl_cpu cpu;
	struct fpl_diag diag = { "" };
	char path[256];

	snprintf(path, sizeof(path), "%s%s", strchr(dump, '/') ? "" : "tests/data/cpuid/", dump);
	if (fpl_cpu_load(&cpu, path, &diag))
		fail_msg("%s: %s", path, diag.msg);
	assert_int_equal(fpl_suite_plan(&cpu, tiles, p->e, 32, &p->n), 0);
}

/* The index of the k-th (from 0) entry of bench, or -1. */
static int find(const struct plan *p, const char *bench, int k)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->e[i].bench, bench) && !k--)
			return (int)i;
	return -1;
}

/* The k-th entry of bench, which the test needs: a missing one fails here, not at p->e[-1]. */
static const struct fpl_suite_entry *entry(const struct plan *p, const char *bench, int k)
{
	int i = find(p, bench, k);

	if (i < 0)
		fail_msg("no entry %d of %s in the suite", k, bench);
	return &p->e[i];
}

/* An option the entry must have: a missing one fails here, not in strcmp(NULL). */
static const char *opt(const struct fpl_suite_entry *e, const char *name)
{
	for (size_t k = 0; k < e->nopts; k++)
		if (!strcmp(e->opts[k].name, name))
			return e->opts[k].value;
	fail_msg("%s has no --%s in the suite", e->bench, name);
	return NULL;
}

/* Every benchmark at least once (signal twice with AVX-512), each option a real one of its benchmark. */
static void check_entries(const struct plan *p)
{
	for (size_t i = 0; i < fpl_nbenches; i++)
		if (find(p, fpl_benches[i]->name, 0) < 0)
			fail_msg("%s is not in the suite", fpl_benches[i]->name);
	for (size_t i = 0; i < p->n; i++) {
		const struct fpl_bench *b = fpl_bench_find(p->e[i].bench);
		struct fpl_diag diag = { "" };

		assert_non_null(b);
		if (fpl_bench_check_opts(b, p->e[i].opts, p->e[i].nopts, &diag))
			fail_msg("suite entry %s: %s", p->e[i].bench, diag.msg);
		assert_true(p->e[i].est_s > 0);
	}
}

/* Zen 4 (Genoa): AVX-512 state in the context switch's A/B and in signal's, one run each. */
static void test_avx512_cpu(void **state)
{
	struct plan p;

	(void)state;
	plan_of("genoa.cpuid", false, &p);
	check_entries(&p);
	assert_int_equal(find(&p, "xsave", 0), 0);
	assert_string_equal(opt(entry(&p, "ctxsw", 0), "ab"), "init,avx512");
	assert_int_equal(find(&p, "ctxsw", 1), -1);
	assert_string_equal(opt(entry(&p, "signal", 0), "ab"), "init,avx512");
	assert_int_equal(find(&p, "signal", 1), -1);
	assert_true(entry(&p, "xor", 0)->budget_s == 4.0);
}

/* Skylake client and Zen 3: no AVX-512, so AVX, the widest state there, in the A/B and signal. */
static void test_avx_cpu(void **state)
{
	static const char *const dumps[] = { "skylake.cpuid", "zen3-pku-kvm.cpuid" };

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(dumps); i++) {
		struct plan p;

		plan_of(dumps[i], false, &p);
		check_entries(&p);
		assert_string_equal(opt(entry(&p, "ctxsw", 0), "ab"), "init,avx");
		/* init and avx interleaved in one run (issue 32 item 5), not two runs */
		assert_string_equal(opt(entry(&p, "signal", 0), "ab"), "init,avx");
		assert_int_equal(find(&p, "signal", 1), -1);
		assert_string_equal(opt(entry(&p, "kvm", 0), "ab"), "init,avx");
	}
}

/* Nehalem: no AVX (no XSAVE): no live-state A/B, signal in its init state only. */
static void test_no_avx_cpu(void **state)
{
	struct plan p;

	(void)state;
	plan_of("nehalem.aida", false, &p);
	check_entries(&p);
	assert_int_equal(entry(&p, "ctxsw", 0)->nopts, 0);
	assert_int_equal(find(&p, "signal", 1), -1);
	assert_string_equal(opt(entry(&p, "signal", 0), "state"), "init");
}

/* No entry asks for AMX permission. */
static void no_amx_asked(const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->e[i].ask_amx)
			fail_msg("%s asks for AMX permission on a CPU without AMX", p->e[i].bench);
}

/*
 * With tile data asked for (--amx), xsave runs last, after amx too (which
 * has no preset): every other benchmark runs in a process whose tiles
 * were never used.
 */
static void test_tiles_last(void **state)
{
	struct plan p;

	(void)state;
	plan_of("sapphirerapids.cpuid", true, &p);
	check_entries(&p);
	assert_true(find(&p, "xsave", 0) > find(&p, "section", 0));
	assert_int_equal(find(&p, "xsave", 0), (int)p.n - 1);
	assert_true(find(&p, "amx", 0) < find(&p, "xsave", 0));
	assert_true(entry(&p, "amx", 0)->budget_s == 0);	/* its own default */
	assert_int_equal(find(&p, "xsave", 1), -1);
	/* --amx on a CPU without AMX: the same order, nothing to ask. */
	plan_of("genoa.cpuid", true, &p);
	assert_int_equal(find(&p, "xsave", 0), (int)p.n - 1);
	no_amx_asked(&p);
}

/*
 * A CPU with AMX, no --amx (issue 31 item 7): the default suite measures
 * the tile rows all the same. xsave (TILEDATA in RFBM) is planned once,
 * last, asking ARCH_REQ_XCOMP_PERM right before it, so that amx's children
 * and every other benchmark run without permission; the SPR dumps (the
 * libcpuid-style one and the KVM guest's own).
 */
static void test_amx_cpu_measures_tiles(void **state)
{
	static const char *const dumps[] = { "sapphirerapids.cpuid",
					     "tests/data/amx/spr-amx-kvm.cpuid" };
	struct plan p;

	(void)state;
	for (unsigned d = 0; d < 2; d++) {
		for (int tiles = 0; tiles < 2; tiles++) {
			plan_of(dumps[d], tiles, &p);
			check_entries(&p);
			assert_int_equal(find(&p, "xsave", 0), (int)p.n - 1);
			assert_int_equal(find(&p, "xsave", 1), -1);
			assert_true(find(&p, "amx", 0) >= 0 && find(&p, "amx", 0) < (int)p.n - 1);
			for (size_t i = 0; i < p.n; i++)
				if (p.e[i].ask_amx != (i == p.n - 1))
					fail_msg("%s: entry %zu (%s) ask_amx %d", dumps[d], i,
						 p.e[i].bench, p.e[i].ask_amx);
		}
	}
	/* Without AMX: xsave first, as before, nothing asked. */
	plan_of("genoa.cpuid", false, &p);
	assert_int_equal(find(&p, "xsave", 0), 0);
	no_amx_asked(&p);
	plan_of("zen3-pku-kvm.cpuid", false, &p);
	assert_int_equal(find(&p, "xsave", 0), 0);
	no_amx_asked(&p);
}

static void test_short_room(void **state)
{
	struct fpl_suite_entry e[2];
	struct fpl_cpu cpu;
	struct fpl_diag diag = { "" };
	size_t n;

	(void)state;
	assert_int_equal(fpl_cpu_load(&cpu, "tests/data/cpuid/genoa.cpuid", &diag), 0);
	assert_int_equal(fpl_suite_plan(&cpu, false, e, 2, &n), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avx512_cpu),
		cmocka_unit_test(test_avx_cpu),
		cmocka_unit_test(test_no_avx_cpu),
		cmocka_unit_test(test_tiles_last),
		cmocka_unit_test(test_amx_cpu_measures_tiles),
		cmocka_unit_test(test_short_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
