// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for model/kexpect.c: the kernel's expected x86_fpu events, their scope and the verdicts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/kexpect.h"
#include "fpulab/xstate.h"

static struct fpl_run *run_of(struct fpl_result *r, const char *bench, const char *placement)
{
	struct fpl_run *run = fpl_result_add_run(r, bench);

	assert_non_null(run);
	if (placement)
		assert_int_equal(fpl_run_param_str(run, "placement", placement), 0);
	return run;
}

/* Every row is complete: a scope, a reason for each class, sane ranges. */
static void test_table_rows(void **state)
{
	size_t n;
	const struct fpl_kexpect *t = fpl_kexpect_table(&n);

	(void)state;
	assert_true(n >= 6);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(t[i].op);
		assert_true(t[i].what && strlen(t[i].what) > 20);
		assert_true(t[i].since >= FPL_KVER(5, 2));
		assert_true(t[i].since <= t[i].checked);
		for (unsigned c = 0; c < FPL_KT_NCLASSES; c++) {
			assert_true(t[i].c[c].set);
			assert_true(t[i].c[c].why && strlen(t[i].c[c].why) > 10);
			assert_true(t[i].c[c].min <= t[i].c[c].max);
		}
		assert_true(t[i].xcomp_bit < 0 || t[i].xcomp_why);
	}
}

static void test_version(void **state)
{
	(void)state;
	assert_int_equal(fpl_kexpect_version("6.18.44-fc-v669"), FPL_KVER(6, 18));
	assert_int_equal(fpl_kexpect_version("5.8.0"), FPL_KVER(5, 8));
	assert_int_equal(fpl_kexpect_version("5.15"), FPL_KVER(5, 15));
	assert_int_equal(fpl_kexpect_version("10.2-rc1"), FPL_KVER(10, 2));
	assert_int_equal(fpl_kexpect_version("6"), 0);
	assert_int_equal(fpl_kexpect_version("linux"), 0);
	assert_int_equal(fpl_kexpect_version("6.x"), 0);
	assert_int_equal(fpl_kexpect_version("6.-rc1"), 0);
	assert_int_equal(fpl_kexpect_version(NULL), 0);
}

/* Which row a pass gets: by benchmark, operation and (ctxsw) placement. */
static void test_find(void **state)
{
	struct fpl_result *r = fpl_result_new();
	const struct fpl_kexpect *e;

	(void)state;
	e = fpl_kexpect_find(run_of(r, "signal", NULL), "signal");
	assert_non_null(e);
	assert_true(e->c[FPL_KT_C_ACTIVATE].min == 2 && e->c[FPL_KT_C_ACTIVATE].max == 2);
	assert_int_equal(e->since, FPL_KVER(5, 8));
	e = fpl_kexpect_find(run_of(r, "ctxsw", "same"), "round trip");
	assert_non_null(e);
	assert_true(e->c[FPL_KT_C_RESTORE].min == 2 && e->c[FPL_KT_C_RESTORE].max == 2);
	e = fpl_kexpect_find(run_of(r, "ctxsw", "cross"), "round trip");
	assert_non_null(e);
	assert_true(e->c[FPL_KT_C_RESTORE].min == 0 && e->c[FPL_KT_C_RESTORE].max == 2);
	assert_non_null(fpl_kexpect_find(run_of(r, "ctxsw", "free"), "round trip"));
	/* A ctxsw run whose placement is not known has no row rather than a guess. */
	assert_null(fpl_kexpect_find(run_of(r, "ctxsw", NULL), "round trip"));
	assert_null(fpl_kexpect_find(run_of(r, "ctxsw", "samecpu"), "round trip"));
	/* The harness's bodies, whatever the benchmark. */
	e = fpl_kexpect_find(run_of(r, "xsave", NULL), "operation");
	assert_non_null(e);
	assert_null(e->bench);
	assert_non_null(fpl_kexpect_find(run_of(r, "section", NULL), "call"));
	assert_null(fpl_kexpect_find(run_of(r, "signal", NULL), "call"));
	/* AMX: written from the source, never run on AMX hardware. */
	e = fpl_kexpect_find(run_of(r, "amx", NULL), "child");
	assert_non_null(e);
	assert_null(e->tested);
	assert_int_equal(e->xcomp_bit, 18);
	fpl_result_free(r);
}

static void test_applies_and_scope(void **state)
{
	struct fpl_result *r = fpl_result_new();
	const struct fpl_kexpect *sig = fpl_kexpect_find(run_of(r, "signal", NULL), "signal");
	const struct fpl_kexpect *amx = fpl_kexpect_find(run_of(r, "amx", NULL), "child");
	char buf[512];

	(void)state;
	/* Before 5.8 delivery went through fpu__clear(): not compared, not guessed. */
	assert_int_equal(fpl_kexpect_applies(sig, FPL_KVER(5, 4)), FPL_KX_UNKNOWN);
	assert_int_equal(fpl_kexpect_applies(sig, FPL_KVER(5, 7)), FPL_KX_UNKNOWN);
	assert_int_equal(fpl_kexpect_applies(sig, FPL_KVER(5, 8)), FPL_KX_APPLIES);
	assert_int_equal(fpl_kexpect_applies(sig, FPL_KVER(6, 18)), FPL_KX_APPLIES);
	assert_int_equal(fpl_kexpect_applies(sig, FPL_KVER(6, 19)), FPL_KX_NEWER);
	assert_int_equal(fpl_kexpect_applies(sig, 0), FPL_KX_UNKNOWN);
	assert_int_equal(fpl_kexpect_applies(amx, FPL_KVER(5, 15)), FPL_KX_UNKNOWN);
	fpl_kexpect_scope(sig, buf, sizeof(buf));
	assert_non_null(strstr(buf, "5.8 and later"));
	assert_non_null(strstr(buf, "observed on"));
	fpl_kexpect_scope(amx, buf, sizeof(buf));
	assert_non_null(strstr(buf, "untested"));
	fpl_result_free(r);
}

static void test_agrees(void **state)
{
	const struct fpl_kx_count two = { true, 2, 2, false, "x", NULL }, sw = { true, 0, 0, true, "x", NULL },
		range = { true, 0, 2, false, "x", NULL }, atleast = { true, 1, INFINITY, false, "x", NULL },
		unset = { 0 };

	(void)state;
	assert_true(fpl_kexpect_agrees(&two, 2.0, NAN));
	assert_true(fpl_kexpect_agrees(&two, 2.09, NAN));	/* 5% of 2 ops: preemption noise */
	assert_true(fpl_kexpect_agrees(&two, 1.91, NAN));
	assert_false(fpl_kexpect_agrees(&two, 2.2, NAN));
	assert_false(fpl_kexpect_agrees(&two, 1.0, NAN));
	assert_false(fpl_kexpect_agrees(&two, NAN, NAN));
	/* +sw: as far above as the thread was switched, no further. */
	assert_true(fpl_kexpect_agrees(&sw, 0.04, NAN));
	assert_false(fpl_kexpect_agrees(&sw, 0.21, 0));
	assert_true(fpl_kexpect_agrees(&sw, 0.21, 0.21));
	assert_false(fpl_kexpect_agrees(&sw, 0.40, 0.21));
	assert_false(fpl_kexpect_agrees(&two, 2.5, 1.0));	/* no +sw: switches do not help */
	assert_true(fpl_kexpect_agrees(&range, 1.0, NAN));
	assert_true(fpl_kexpect_agrees(&range, 0.0, NAN));
	assert_false(fpl_kexpect_agrees(&range, 2.2, NAN));
	assert_true(fpl_kexpect_agrees(&atleast, 1e6, NAN));
	assert_false(fpl_kexpect_agrees(&atleast, 0.9, NAN));
	assert_false(fpl_kexpect_agrees(&unset, 0, NAN));
}

static void test_range_text(void **state)
{
	const struct fpl_kx_count two = { true, 2, 2, false, "x", NULL }, sw = { true, 0, 0, true, "x", NULL },
		range = { true, 0, 2, false, "x", NULL }, atleast = { true, 1, INFINITY, false, "x", NULL },
		unset = { 0 };
	char b[16];

	(void)state;
	fpl_kexpect_range(&two, b, sizeof(b));
	assert_string_equal(b, "2");
	fpl_kexpect_range(&sw, b, sizeof(b));
	assert_string_equal(b, "0+sw");
	fpl_kexpect_range(&range, b, sizeof(b));
	assert_string_equal(b, "0-2");
	fpl_kexpect_range(&atleast, b, sizeof(b));
	assert_string_equal(b, ">=1");
	fpl_kexpect_range(&unset, b, sizeof(b));
	assert_string_equal(b, "-");
}

/* The signal row against what this kernel did, and against what an older one would have done. */
static void test_judge_signal(void **state)
{
	struct fpl_result *r = fpl_result_new();
	const struct fpl_kexpect *e = fpl_kexpect_find(run_of(r, "signal", NULL), "signal");
	const double now[FPL_KT_NCLASSES] = { 0.001, 0.001, 2.0, 0, 0, 0 };
	/* One fpu__drop() per delivery (regs_deactivated + dropped) and one activation. */
	const double old[FPL_KT_NCLASSES] = { 1, 0, 1, 1, 0, 0 };
	const double partial[FPL_KT_NCLASSES] = { NAN, NAN, 2.0, NAN, NAN, NAN };

	(void)state;
	assert_int_equal(fpl_kexpect_judge(e, now, 0.001), 0);
	assert_int_equal(fpl_kexpect_judge(e, old, 0), 1u << FPL_KT_C_SAVE |
			 1u << FPL_KT_C_ACTIVATE | 1u << FPL_KT_C_DROP);
	/* Counts a file does not have are no difference. */
	assert_int_equal(fpl_kexpect_judge(e, partial, NAN), 0);
	fpl_result_free(r);
}

static void test_xcomp_rule(void **state)
{
	struct fpl_result *r = fpl_result_new();
	const struct fpl_kexpect *amx = fpl_kexpect_find(run_of(r, "amx", NULL), "child");
	const struct fpl_kexpect *sig = fpl_kexpect_find(run_of(r, "signal", NULL), "signal");
	const uint64_t grown[2] = { 0x80000000000200e7ull, 0x80000000000600e7ull };

	(void)state;
	assert_int_equal(fpl_kexpect_xcomp(amx, grown, 2), 1);
	assert_int_equal(fpl_kexpect_xcomp(amx, grown, 1), 0);		/* never grew */
	assert_int_equal(fpl_kexpect_xcomp(amx, grown + 1, 1), 0);	/* had it from the start */
	assert_int_equal(fpl_kexpect_xcomp(amx, grown, 0), -1);
	assert_int_equal(fpl_kexpect_xcomp(sig, grown, 2), -1);
	fpl_result_free(r);
}

/* KVM_RUN: CET_S guest-only where the CPU has it, counts from a parameter, the restore's floor. */
static void test_kvm_rules(void **state)
{
	const uint64_t guest = 0x80000000000018e7ull, host = 0x80000000000008e7ull;
	const uint64_t cet_s = FPL_XFEATURE_MASK(CET_KERNEL);
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "kvm");
	const struct fpl_kexpect *e = fpl_kexpect_find(run, "round trip");
	struct fpl_kx_count c;
	const uint64_t both[] = { guest, host };

	(void)state;
	assert_non_null(e);
	assert_true(e->kvm[FPL_KT_KVM_FPU_LOAD].set && e->kvm[FPL_KT_KVM_FPU_LOAD].min == 1);
	assert_true(e->c[FPL_KT_C_ACTIVATE].min == 2 && e->c[FPL_KT_C_ACTIVATE].max == 2);
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 18), cet_s | 0x800, &guest, 1,
						&host, 1), 1);
	/* The host task with CET_S, or a guest without it: not what 6.17+ does. */
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 18), cet_s, &guest, 1, &guest, 1),
			 0);
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 18), cet_s, &host, 1, &host, 1), 0);
	/* Not judged: a CPU without CET_S, a kernel before 6.17, no masks. */
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 18), 0, &host, 1, &host, 1), -1);
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 16), cet_s, &guest, 1, &host, 1),
			 -1);
	assert_int_equal(fpl_kexpect_guest_only(e, FPL_KVER(6, 18), cet_s, &guest, 1, &host, 0),
			 -1);
	assert_true(fpl_kexpect_restore_floor(both, 2) == 0x18e7);
	/* kvm_cpuid: as many as the run's guest ran, from its parameter. */
	c = fpl_kexpect_count_for(&e->kvm[FPL_KT_KVM_CPUID], run);
	assert_true(c.set && c.min == 0 && c.max == 0);
	assert_int_equal(fpl_run_param_int(run, "cpuid", 8), 0);
	c = fpl_kexpect_count_for(&e->kvm[FPL_KT_KVM_CPUID], run);
	assert_true(c.min == 8 && c.max == 8);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_applies_and_scope),
		cmocka_unit_test(test_agrees),
		cmocka_unit_test(test_range_text),
		cmocka_unit_test(test_judge_signal),
		cmocka_unit_test(test_xcomp_rule),
		cmocka_unit_test(test_kvm_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
