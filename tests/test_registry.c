// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/bench/registry.c: the benchmarks' shared option parsers (sizes lists). */
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

static void test_parse_sizes(void **state)
{
	struct fpl_diag diag = { "" };
	size_t v[4], n = 0;

	assert_int_equal(fpl_parse_sizes("64,1k,0x100", 64, 65536, 64, v, 4, &n, &diag), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 64);
	assert_int_equal(v[1], 1024);
	assert_int_equal(v[2], 256);
	assert_int_equal(fpl_parse_sizes("1000", 64, 65536, 64, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "1000"));
	assert_non_null(strstr(diag.msg, "multiple of 64"));
	assert_int_equal(fpl_parse_sizes("128k", 64, 65536, 64, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "outside"));
	assert_int_equal(fpl_parse_sizes("64,,128", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("64,", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("big", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "'big'"));
	assert_int_equal(fpl_parse_sizes("64,64,64,64,64", 64, 65536, 1, v, 4, &n, &diag),
			 -EINVAL);
}

/*
 * Every benchmark states its default budgets in its descriptor, and the
 * budget of a call follows them: --budget first, then --quick, then --ab
 * where the benchmark has its own pair (issue 32 item 15: the help listed
 * no default).
 */
static void test_default_budgets(void **state)
{
	const struct fpl_bench *ctxsw = fpl_bench_find("ctxsw");
	struct fpl_bench_env env = { 0 };

	for (size_t i = 0; i < fpl_nbenches; i++) {
		const struct fpl_bench *b = fpl_benches[i];

		if (!(b->budget.full_s > 0 && b->budget.quick_s > 0 &&
		      b->budget.quick_s < b->budget.full_s))
			fail_msg("%s: default budgets %g / quick %g", b->name, b->budget.full_s,
				 b->budget.quick_s);
		if (b->budget_ab.full_s > 0)
			assert_true(b->budget_ab.quick_s > 0 &&
				    b->budget_ab.quick_s < b->budget_ab.full_s);
	}
	assert_non_null(ctxsw);
	env.bench = ctxsw;
	assert_true(fpl_bench_budget(env.bench, &env, false) == ctxsw->budget.full_s);
	assert_true(fpl_bench_budget(env.bench, &env, true) == ctxsw->budget_ab.full_s);
	env.quick = true;
	assert_true(fpl_bench_budget(env.bench, &env, false) == ctxsw->budget.quick_s);
	assert_true(fpl_bench_budget(env.bench, &env, true) == ctxsw->budget_ab.quick_s);
	env.budget_s = 0.7;
	assert_true(fpl_bench_budget(env.bench, &env, true) == 0.7);
	/* a benchmark without an --ab pair uses its one pair under ab too */
	env = (struct fpl_bench_env){ .bench = fpl_bench_find("section") };
	assert_true(fpl_bench_budget(env.bench, &env, true) == env.bench->budget.full_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sizes),
		cmocka_unit_test(test_default_budgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
