// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/stats/summary.c: summaries against values computed by hand (R's type 7). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "near.h"

#include "fpulab/stats.h"

#define EPS 1e-9

/* 1..9 and an outlier: R gives quantile(x, c(.25,.5,.75)) = 3.25 5.5 7.75, sd 30.15239. */
static void test_outlier_set(void **state)
{
	double x[] = { 100, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct fpl_summary s;

	assert_int_equal(fpl_summarize(x, 10, 10, &s), 0);
	assert_int_equal(s.n, 10);
	assert_near(s.min, 1, EPS);
	assert_near(s.max, 100, EPS);
	assert_near(s.q1, 3.25, EPS);
	assert_near(s.median, 5.5, EPS);
	assert_near(s.q3, 7.75, EPS);
	assert_near(s.mean, 14.5, EPS);
	assert_near(s.stddev, 30.152390728873666, 1e-9);
	/* |x - 5.5| sorted: .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 94.5 */
	assert_near(s.mad, 2.5, EPS);
	/* 10% trim drops one value from each end: mean of 2..9 */
	assert_near(s.trimmed_mean, 5.5, EPS);
	/* the input is not reordered */
	assert_near(x[0], 100, 0);
}

static void test_odd_set(void **state)
{
	double y[] = { 2.5, 0.5, 7.25, 3.0, 11.0, 4.5, 6.0 };
	struct fpl_summary s;

	assert_int_equal(fpl_summarize(y, 7, 20, &s), 0);
	assert_near(s.q1, 2.75, EPS);
	assert_near(s.median, 4.5, EPS);
	assert_near(s.q3, 6.625, EPS);
	assert_near(s.mean, 4.964285714285714, 1e-12);
	assert_near(s.stddev, 3.483378901501898, 1e-12);
	assert_near(s.mad, 2.0, EPS);
	/* floor(7 * 0.2) = 1 from each end */
	assert_near(s.trimmed_mean, 4.65, EPS);
}

static void test_single_and_errors(void **state)
{
	double one = 42;
	struct fpl_summary s;

	assert_int_equal(fpl_summarize(&one, 1, 0, &s), 0);
	assert_near(s.median, 42, 0);
	assert_near(s.stddev, 0, 0);
	assert_near(s.q1, 42, 0);
	assert_int_equal(fpl_summarize(&one, 0, 0, &s), -EINVAL);
	assert_int_equal(fpl_summarize(&one, 1, 50, &s), -EINVAL);
	assert_int_equal(fpl_summarize(&one, 1, -1, &s), -EINVAL);
}

static void test_quantile_ends(void **state)
{
	double x[] = { 1, 2, 4, 8 };

	assert_near(fpl_quantile_sorted(x, 4, 0), 1, 0);
	assert_near(fpl_quantile_sorted(x, 4, 1), 8, 0);
	/* h = 3 * 0.9 = 2.7: 4 + 0.7 * 4 */
	assert_near(fpl_quantile_sorted(x, 4, 0.9), 6.8, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outlier_set),
		cmocka_unit_test(test_odd_set),
		cmocka_unit_test(test_single_and_errors),
		cmocka_unit_test(test_quantile_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
