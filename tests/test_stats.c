// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/stats: trimmed means, Welch, Student, Yuen, paired t, Mann-Whitney, Holm, bootstrap, ministat's t, intervals, repeatability. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/stats.h"
#include "near.h"

#define EPS 1e-9

#define near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* R's `sleep` data (Cushny and Peebles 1905, as in Student 1908): extra sleep, hours. */
static const double sleep1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
static const double sleep2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };

/* WRS2's `spider` data (anxiety with a picture or a real spider; Field, Miles and Field). */
static const double picture[] = { 30, 35, 45, 40, 50, 35, 55, 25, 30, 45, 40, 50 };
static const double real[] = { 40, 35, 50, 55, 65, 55, 50, 35, 30, 50, 60, 39 };

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	assert_non_null(s);
	memcpy(s, x, n * sizeof(*s));
	fpl_sort(s, n);
	return s;
}

/* Hand-checked: 2 4 4 5 6 7 8 9 10 100. */
static void test_trimmed_mean(void **state)
{
	static const double x[] = { 100, 4, 2, 9, 4, 7, 5, 10, 8, 6 };
	double *s = sorted_copy(x, 10), v[100];
	struct fpl_summary sum;

	near(fpl_trimmed_mean_sorted(s, 10, 0), 155.0 / 10, 1e-12);
	/* 10%: drop 2 and 100, (4+4+5+6+7+8+9+10)/8. */
	near(fpl_trimmed_mean_sorted(s, 10, 10), 53.0 / 8, 1e-12);
	/* 20%: drop 2, 4 and 10, 100: (4+5+6+7+8+9)/6. */
	near(fpl_trimmed_mean_sorted(s, 10, 20), 39.0 / 6, 1e-12);
	/* 15% of 10 is 1.5: floor, one value from each end. */
	near(fpl_trimmed_mean_sorted(s, 10, 15), 53.0 / 8, 1e-12);
	assert_int_equal(fpl_summarize(x, 10, 10, &sum), 0);
	near(sum.trimmed_mean, 6.625, 1e-12);
	near(sum.median, 6.5, 1e-12);
	/* 29% of 100 is 29 values (0.29 * 100 is 28.999... in binary; the count must not be 28). */
	for (int i = 0; i < 100; i++)
		v[i] = i;
	assert_int_equal(fpl_trim_count(100, 29), 29);
	near(fpl_trimmed_mean_sorted(v, 100, 29), 49.5, 1e-12);
	assert_int_equal(fpl_trim_count(10, 10), 1);
	free(s);
}

/*
 * R: t.test(extra ~ group, data = sleep) gives t = -1.8608, df = 17.776,
 * p-value = 0.07939, 95% CI -3.3654832 0.2054832 (group 1 - group 2); here
 * the difference is b - a, so the signs turn.
 */
static void test_welch_sleep(void **state)
{
	struct fpl_ttest r;

	assert_int_equal(fpl_welch(sleep1, 10, sleep2, 10, 95, &r), 0);
	near(r.diff, 1.58, 1e-12);
	near(r.t, 1.8608134675, 1e-9);
	near(r.df, 17.7764735, 1e-6);
	near(r.p, 0.0793941402, 1e-9);
	near(r.lo, -0.2054832, 1e-7);
	near(r.hi, 3.3654832, 1e-7);
	assert_int_equal(fpl_welch(sleep1, 1, sleep2, 10, 95, &r), -EINVAL);
	assert_int_equal(fpl_welch(sleep1, 10, sleep2, 10, 100, &r), -EINVAL);
}

/* R: t.test(extra ~ group, data = sleep, var.equal = TRUE): t = -1.8608, df = 18, p = 0.07919. */
static void test_student_sleep(void **state)
{
	struct fpl_ttest r;

	assert_int_equal(fpl_student(sleep1, 10, sleep2, 10, 95, &r), 0);
	near(r.t, 1.8608134675, 1e-9);
	near(r.df, 18, 0);
	near(r.p, 0.0791867142, 1e-9);
	/* CI from R: -3.363874 0.203874. */
	near(r.lo, -0.203874, 1e-6);
	near(r.hi, 3.363874, 1e-6);
}

/*
 * Yuen's test with 20% trimming on the spider data. WRS2 (Mair and Wilcox),
 * yuen(Anxiety ~ Group, data = spider): test statistic 1.2958 (df = 13.91),
 * p-value = 0.21614, trimmed mean difference -6.75 (picture - real), 95% CI
 * -17.9294 4.4294. Checked by hand: g = floor(0.2 * 12) = 2, h = 8; trimmed
 * means 40 and 46.75; winsorized samples 30 30 30 35 35 40 40 45 45 50 50 50
 * (variance 63.6364) and 35 35 35 39 40 50 50 50 55 55 55 55 (74.5152);
 * d = 11 * s_w^2 / (8 * 7) = 12.5 and 14.6369; se = sqrt(27.1369) = 5.20931.
 * More digits from the same formulas in double precision (numpy).
 */
static void test_yuen_spider(void **state)
{
	double *a = sorted_copy(picture, 12), *b = sorted_copy(real, 12);
	struct fpl_ttest r;

	near(fpl_winsorized_var_sorted(a, 12, 2), 63.636363636, 1e-8);
	near(fpl_winsorized_var_sorted(b, 12, 2), 74.515151515, 1e-8);
	assert_int_equal(fpl_yuen_sorted(a, 12, b, 12, 20, 95, &r), 0);
	near(r.center_a, 40, 1e-12);
	near(r.center_b, 46.75, 1e-12);
	near(r.diff, 6.75, 1e-12);
	near(r.se, 5.2093094323, 1e-9);
	near(r.df, 13.9137233889, 1e-8);
	near(r.t, 1.2957571608, 1e-9);
	near(r.p, 0.2161433249, 1e-8);
	near(r.lo, -4.4293607102, 1e-8);
	near(r.hi, 17.9293607102, 1e-8);
	free(a);
	free(b);
}

/* Untrimmed, Yuen's test is Welch's; and it refuses when < 2 values remain. */
static void test_yuen_edges(void **state)
{
	double *a = sorted_copy(sleep1, 10), *b = sorted_copy(sleep2, 10);
	struct fpl_ttest y, w;

	assert_int_equal(fpl_yuen_sorted(a, 10, b, 10, 0, 95, &y), 0);
	assert_int_equal(fpl_welch(sleep1, 10, sleep2, 10, 95, &w), 0);
	near(y.t, w.t, 1e-12);
	near(y.df, w.df, 1e-9);
	near(y.lo, w.lo, 1e-12);
	/* 45% of 4 cuts 1 from each end: 2 left, allowed; 45% of 3 cuts 1: 1 left, refused. */
	assert_int_equal(fpl_yuen_sorted(a, 4, b, 4, 45, 95, &y), 0);
	assert_int_equal(fpl_yuen_sorted(a, 3, b, 4, 45, 95, &y), -EINVAL);
	assert_int_equal(fpl_yuen_sorted(a, 10, b, 10, 50, 95, &y), -EINVAL);
	free(a);
	free(b);
}

/*
 * R: wilcox.test(extra ~ group, data = sleep) (ties, so the normal
 * approximation with continuity correction): W = 25.5, p-value = 0.06933.
 * W is group 1's U; here U is the second sample's: 10 * 10 - 25.5 = 74.5.
 */
static void test_mann_whitney_sleep(void **state)
{
	double *a = sorted_copy(sleep1, 10), *b = sorted_copy(sleep2, 10);
	struct fpl_mwu r;

	assert_int_equal(fpl_mann_whitney_sorted(a, 10, b, 10, &r), 0);
	near(r.u, 74.5, 0);
	near(r.mean, 50, 0);
	near(r.p, 0.0693275754, 1e-9);
	assert_int_equal(fpl_mann_whitney_sorted(b, 10, a, 10, &r), 0);
	near(r.u, 25.5, 0);
	near(r.p, 0.0693275754, 1e-9);
	free(a);
	free(b);
}

/*
 * Complete separation of 3 and 3 without ties, by hand: U = 9, mean 4.5,
 * sd = sqrt(3 * 3 * 7 / 12) = 2.29129, z = (4.5 - 0.5) / sd = 1.74574,
 * p = 2 * (1 - Phi(z)) = 0.080856 (R: wilcox.test(4:6, 1:3, exact = FALSE)).
 */
static void test_mann_whitney_by_hand(void **state)
{
	static const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 7, 7, 7 };
	struct fpl_mwu r;

	assert_int_equal(fpl_mann_whitney_sorted(a, 3, b, 3, &r), 0);
	near(r.u, 9, 0);
	near(r.sd, 2.2912878475, 1e-9);
	near(r.z, 1.7457431218, 1e-9);
	near(r.p, 0.0808556, 1e-6);
	/* All values tied: no spread in the ranks, no p-value. */
	assert_int_equal(fpl_mann_whitney_sorted(c, 3, c, 3, &r), 0);
	assert_true(isnan(r.p));
}

/*
 * The sign test against R: binom.test(9, 10, alternative = "greater")$p.value
 * is 11/1024 = 0.0107421875; binom.test(19, 25, ...) 0.007316649; values
 * equal to mu and NaN are left out; none differing: NaN.
 */
static void test_sign_p_below(void **state)
{
	double x[12] = { -1, -2, -3, -4, -5, -6, -7, -8, -9, 4, 0, NAN }, y[25], z[3] = { 5, 5, 5 };

	(void)state;
	near(fpl_sign_p_below(x, 12, 0), 11.0 / 1024, 1e-15);
	/* against -5: 4 below of 10 differing (-5 itself left out): 848/1024 */
	near(fpl_sign_p_below(x, 12, -5.0), 848.0 / 1024, 1e-15);
	for (int i = 0; i < 25; i++)
		y[i] = i < 19 ? -1.0 - i : 10.0 + i;
	near(fpl_sign_p_below(y, 25, 0), 0.007316649, 1e-9);
	/* none below: 1; none differing: NaN */
	near(fpl_sign_p_below(z, 3, 0), 1.0, 0);
	assert_true(isnan(fpl_sign_p_below(z, 3, 5)));
	assert_true(isnan(fpl_sign_p_below(x, 0, 0)));
}

/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") is 0.03 0.06 0.06 0.02. */
static void test_holm(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4], one[1] = { NAN }, adj1[1];

	assert_int_equal(fpl_holm(p, 4, adj), 0);
	near(adj[0], 0.03, 1e-15);
	near(adj[1], 0.06, 1e-15);
	near(adj[2], 0.06, 1e-15);
	near(adj[3], 0.02, 1e-15);
	assert_int_equal(fpl_holm(one, 1, adj1), 0);
	near(adj1[0], 1, 0);
}

static void test_bootstrap(void **state)
{
	double *a = sorted_copy(picture, 12), *b = sorted_copy(real, 12);
	struct fpl_boot r1, r2, r3;

	assert_int_equal(fpl_bootstrap_ratio_sorted(a, 12, b, 12, 20, 95, 2000, 42, &r1), 0);
	assert_int_equal(fpl_bootstrap_ratio_sorted(a, 12, b, 12, 20, 95, 2000, 42, &r2), 0);
	assert_int_equal(fpl_bootstrap_ratio_sorted(a, 12, b, 12, 20, 95, 2000, 43, &r3), 0);
	near(r1.ratio, 46.75 / 40, 1e-12);
	/* Same seed, same interval; another seed, another interval. */
	assert_true(r1.lo == r2.lo && r1.hi == r2.hi);
	assert_true(r1.lo != r3.lo || r1.hi != r3.hi);
	assert_true(r1.lo < r1.ratio && r1.ratio < r1.hi);
	/* Yuen's interval does not exclude 0 here; a fair percentile interval includes 1. */
	assert_true(r1.lo < 1.0 && r1.hi > 1.0);
	assert_int_equal(fpl_bootstrap_ratio_sorted(a, 12, b, 12, 20, 95, 1, 42, &r1), -EINVAL);
	free(a);
	free(b);
}

/* ministat's table, which GSL's quantiles rounded to 3 decimals must reproduce. */
static void test_ministat_t(void **state)
{
	near(fpl_ministat_t(95, 18), 2.101, 1e-12);
	near(fpl_ministat_t(80, 1), 3.078, 1e-12);
	near(fpl_ministat_t(99, 100), 2.626, 1e-12);
	near(fpl_ministat_t(95, 101), 1.960, 1e-12);
	near(fpl_ministat_t(99.5, 100), 3.174, 1e-12);
	assert_true(isnan(fpl_ministat_t(97, 10)));
}

/* ministat's conventions: upper median, sums in input order, pooled t from its table. */
static void test_ministat_relative(void **state)
{
	static const double c[] = { 100, 101, 102, 103 }, d[] = { 110, 111, 112, 113 };
	struct fpl_ministat mc, md;
	struct fpl_ministat_rel r;

	fpl_ministat_set(c, c, 4, &mc);
	fpl_ministat_set(d, d, 4, &md);
	near(mc.median, 102, 0);
	near(fpl_ministat_stddev(&mc), 1.2909944487, 1e-9);
	fpl_ministat_relative(&md, &mc, 95, &r);
	/* ministat prints "10 +/- 2.2338" and "9.85222% +/- 2.20078%": t(6) = 2.447. */
	near(r.d, 10, 1e-12);
	near(r.e, 2.447 * 1.2909944487 * sqrt(0.5), 1e-9);
	near(r.pct_e, 2.20078, 1e-5);
	assert_true(r.different);
}

/* The reference's floor: the lowest median of three, so one fast outlier is not it. */
static void test_floor_med3(void **state)
{
	const double one_low[] = { 60, 60.5, 12, 61, 80, 79 };
	const double step[] = { 80, 78, 59.5, 59.25, 59.5, 81 };
	const double gaps[] = { NAN, 70, INFINITY, 69, NAN, 71, 90 };
	const double two[] = { 5, 3 };
	const double none[] = { NAN, NAN };

	(void)state;
	near(fpl_floor_med3(one_low, 6), 60, 0);	/* med(60, 60.5, 12); 12 alone is not it */
	near(fpl_floor_med3(step, 6), 59.5, 0);
	near(fpl_floor_med3(gaps, 7), 70, 0);		/* over 70, 69, 71, 90 */
	near(fpl_floor_med3(two, 2), 3, 0);
	assert_true(isnan(fpl_floor_med3(none, 2)));
	assert_true(isnan(fpl_floor_med3(NULL, 0)));
}

/* Two clean levels (the Intel XRSTOR-compacted cell: q1 95, q3 117) are bimodal; one level with a tail is not. */
static void test_bimodal(void **state)
{
	double x[60];
	struct fpl_bimodal b;

	(void)state;
	for (int i = 0; i < 60; i++)
		x[i] = (i % 2 ? 117 : 95) + (i % 5) * 0.2;
	assert_int_equal(fpl_bimodal(x, 60, &b), 0);
	assert_true(b.bimodal);
	assert_true(fabs(b.lower_median - 95.4) < 0.5 && fabs(b.upper_median - 117.4) < 0.5);
	assert_true(b.lower_share > 0.45 && b.lower_share < 0.55);
	assert_true(b.gap_pct > 20);
	/* one level, 10% of the samples spread over a long tail of interrupts */
	for (int i = 0; i < 60; i++)
		x[i] = i < 54 ? 95 + (i % 7) * 0.3 : 100 + 40.0 * (i - 54);
	assert_int_equal(fpl_bimodal(x, 60, &b), 0);
	assert_false(b.bimodal);
	/* two levels 1% apart: too close to matter */
	for (int i = 0; i < 60; i++)
		x[i] = i % 2 ? 100 : 101;
	assert_int_equal(fpl_bimodal(x, 60, &b), 0);
	assert_false(b.bimodal);
	/* 15% of the rounds at a second clean level (contended): the median stays in the main one */
	for (int i = 0; i < 60; i++)
		x[i] = i < 9 ? 130 + (i % 3) * 0.1 : 95 + (i % 3) * 0.1;
	assert_int_equal(fpl_bimodal(x, 60, &b), 0);
	assert_false(b.bimodal);
	/* a few outliers do not make a mode */
	for (int i = 0; i < 60; i++)
		x[i] = i < 4 ? 200 : 95 + (i % 3) * 0.1;
	assert_int_equal(fpl_bimodal(x, 60, &b), 0);
	assert_false(b.bimodal);
	assert_int_equal(fpl_bimodal(x, 10, &b), -EINVAL);
}

/* R: t.test(sleep2 - sleep1): mean 1.58, 95% CI 0.7001142 2.4598858; conf.level 0.99: 0.3159481 2.8440519. */
static void test_mean_t_ci(void **state)
{
	double d[10];
	struct fpl_ci ci;

	(void)state;
	for (int i = 0; i < 10; i++)
		d[i] = sleep2[i] - sleep1[i];
	assert_int_equal(fpl_mean_t_ci(d, 10, 95, &ci), 0);
	near(ci.estimate, 1.58, 1e-12);
	near(ci.lo, 0.7001142, 1e-6);
	near(ci.hi, 2.4598858, 1e-6);
	assert_int_equal(ci.n, 10);
	assert_int_equal(fpl_mean_t_ci(d, 10, 99, &ci), 0);
	near(ci.lo, 0.3159481, 1e-6);
	near(ci.hi, 2.8440519, 1e-6);
	assert_int_equal(fpl_mean_t_ci(d, 1, 95, &ci), -EINVAL);
	assert_int_equal(fpl_mean_t_ci(d, 10, 100, &ci), -EINVAL);
	d[3] = NAN;
	assert_int_equal(fpl_mean_t_ci(d, 10, 95, &ci), -EINVAL);
}

/* Values on a lattice of step q carry q^2 / 12 each: identical values still give an interval. */
static void test_yuen_step(void **state)
{
	const double a[] = { 10, 10, 10 }, b[] = { 12, 12, 12 };
	struct fpl_ttest r;

	(void)state;
	assert_int_equal(fpl_yuen_sorted_step(a, 3, b, 3, 0, 95, 1, &r), 0);
	assert_true(fabs(r.diff - 2) < 1e-12);
	assert_true(fabs(r.se - sqrt(2.0 / 36)) < 1e-12);	/* (1/12) / 3 per case */
	assert_true(fabs(r.df - 4) < 1e-9);
	assert_true(r.lo > 1.3 && r.lo < 1.4 && r.hi > 2.6 && r.hi < 2.7);
	assert_int_equal(fpl_yuen_sorted_step(a, 3, b, 3, 0, 95, 0, &r), 0);
	assert_true(r.se == 0);
}

/* R: t.test(sleep2, sleep1, paired = TRUE): 1.58, t = 4.0621, df = 9, p = 0.002833, [0.7001142, 2.4598858]. */
static void test_paired_sleep(void **state)
{
	struct fpl_paired r;

	(void)state;
	assert_int_equal(fpl_paired_t(sleep1, sleep2, 10, FPL_PAIR_DIFF, 0, 95, 0, &r), 0);
	assert_int_equal(r.n, 10);
	near(r.t.diff, 1.58, 1e-12);
	near(r.t.t, 4.0621, 5e-5);
	near(r.t.df, 9, 1e-12);
	near(r.t.p, 0.002833, 5e-7);
	near(r.t.lo, 0.7001142, 1e-7);
	near(r.t.hi, 2.4598858, 1e-7);
	near(r.t.center_a, 0.75, 1e-12);
	near(r.t.center_b, 2.33, 1e-12);
}

/*
 * Runs whose level moves by several percent with a small, steady difference
 * inside each (one run's difference an outlier). By hand (Python's
 * statistics module): d trimmed 10% (g = 1, h = 8) has mean 0.215, winsorized
 * variance s_w^2, se = sqrt(9 s_w^2 / 56) = 0.0108972474, df 7; t(0.975, 7) =
 * 2.364624252. In percent of each run's a: 0.2115831493, se 0.0117615683.
 */
static void test_paired_trimmed(void **state)
{
	static const double a[] = { 100.0, 103.2, 98.7, 105.1, 101.4,
				    99.9, 104.3, 97.8, 102.6, 100.5 };
	static const double d[] = { 0.21, 0.19, 0.25, 0.18, 0.22, 0.20, 0.24, 0.17, 0.23, 0.90 };
	double b[10], *sa = sorted_copy(a, 10), *sb;
	struct fpl_paired r;
	struct fpl_ttest y;

	(void)state;
	for (int i = 0; i < 10; i++)
		b[i] = a[i] + d[i];
	sb = sorted_copy(b, 10);
	assert_int_equal(fpl_paired_t(a, b, 10, FPL_PAIR_DIFF, 10, 95, 0, &r), 0);
	near(r.t.diff, 0.215, 1e-9);
	near(r.t.se, 0.0108972474, 1e-9);
	near(r.t.df, 7, 1e-12);
	near(r.t.tcrit, 2.364624252, 1e-8);
	near(r.t.hi - r.t.diff, 2.364624252 * 0.0108972474, 1e-8);
	near(r.t.center_a, 101.325, 1e-9);
	near(r.t.center_b, 101.63, 1e-9);
	assert_int_equal(fpl_paired_t(a, b, 10, FPL_PAIR_PCT, 10, 95, 0, &r), 0);
	assert_int_equal(r.scale, FPL_PAIR_PCT);
	near(r.t.diff, 0.2115831493, 1e-9);
	near(r.t.se, 0.0117615683, 1e-9);
	assert_true(r.t.lo > 0);
	/* The same values as independent samples: the run levels are the interval. */
	assert_int_equal(fpl_yuen_sorted(sa, 10, sb, 10, 10, 95, &y), 0);
	assert_true(y.lo < 0 && y.hi > 0);
	assert_true(y.hi - y.lo > 50 * (r.t.hi - r.t.lo) / 100 * 101.325);
	free(sa);
	free(sb);
}

/* Pairs that are not finite (or a <= 0 in percent) are left out; too few left is -EINVAL. */
static void test_paired_edges(void **state)
{
	const double a[] = { 10, NAN, 10, 0, 10 }, b[] = { 11, 12, INFINITY, 12, 12 };
	const double qa[] = { 10, 10, 10 }, qb[] = { 12, 12, 12 };
	struct fpl_paired r;

	(void)state;
	assert_int_equal(fpl_paired_t(a, b, 5, FPL_PAIR_DIFF, 0, 95, 0, &r), 0);
	assert_int_equal(r.n, 3);
	near(r.t.diff, 5, 1e-12);	/* 1, 12 and 2 */
	assert_int_equal(fpl_paired_t(a, b, 5, FPL_PAIR_PCT, 0, 95, 0, &r), 0);
	assert_int_equal(r.n, 2);
	near(r.t.diff, 15, 1e-12);
	assert_int_equal(fpl_paired_t(a, b, 3, FPL_PAIR_PCT, 0, 95, 0, &r), -EINVAL);
	assert_int_equal(fpl_paired_t(a, b, 5, FPL_PAIR_DIFF, 50, 95, 0, &r), -EINVAL);
	assert_int_equal(fpl_paired_t(a, b, 5, FPL_PAIR_DIFF, 0, 100, 0, &r), -EINVAL);
	assert_int_equal(fpl_paired_t(a, b, 1, FPL_PAIR_DIFF, 0, 95, 0, &r), -EINVAL);
	/* Every run on the same two steps: no spread, yet the rounding leaves an interval. */
	assert_int_equal(fpl_paired_t(qa, qb, 3, FPL_PAIR_DIFF, 0, 95, 0, &r), 0);
	assert_true(r.t.se == 0);
	assert_int_equal(fpl_paired_t(qa, qb, 3, FPL_PAIR_DIFF, 0, 95, 1, &r), 0);
	near(r.t.se, sqrt(2.0 / 12 / 3), 1e-12);
	assert_int_equal(fpl_paired_t(qa, qb, 3, FPL_PAIR_PCT, 0, 95, 1, &r), 0);
	near(r.t.diff, 20, 1e-12);
	near(r.t.se, sqrt(2.0 * 100 / 12 / 3), 1e-12);	/* q = 10% of a */
}

static void test_median_ci(void **state)
{
	double x[11] = { 11, 3, 5, 1, 7, 9, 2, 4, 6, 8, 10 };
	struct fpl_ci ci;

	/* n = 11: the 95% interval of the median is (x(2), x(10)) from the binomial table. */
	assert_int_equal(fpl_median_ci(x, 11, &ci), 0);
	assert_int_equal(ci.n, 11);
	assert_true(ci.estimate == 6);
	assert_true(ci.lo == 2);
	assert_true(ci.hi == 10);
	/* The input is not reordered. */
	assert_true(x[0] == 11 && x[10] == 10);
	assert_int_equal(fpl_median_ci(x, 5, &ci), -EINVAL);
}

static void test_speedup_ci(void **state)
{
	double slow[8], fast[8];
	struct fpl_ci ci;

	for (int i = 0; i < 8; i++) {
		fast[i] = 100 + i;
		slow[i] = 2 * fast[i];
	}
	assert_int_equal(fpl_speedup_ci(slow, fast, 8, &ci), 0);
	assert_true(ci.estimate > 99.999 && ci.estimate < 100.001);
	assert_true(ci.lo > 99.999 && ci.hi < 100.001);
	/* Rounds with a value that is not positive are left out: then too few remain. */
	slow[0] = -1;
	fast[1] = 0;
	slow[2] = 0;
	assert_int_equal(fpl_speedup_ci(slow, fast, 8, &ci), -EINVAL);
	slow[2] = 1.5 * fast[2];
	assert_int_equal(fpl_speedup_ci(slow, fast, 8, &ci), 0);
	assert_int_equal(ci.n, 6);
	assert_true(ci.lo > 49.999 && ci.lo < 50.001);
}

/* The largest distance from the median, in percent of it; the tally over metrics (R's type 7 quantiles). */
static void test_repeatability(void **state)
{
	double runs[] = { 100, 102, 99 };		/* median 100: worst 2% */
	double neg[] = { -50, -49, -52 };		/* median -50: worst 2/50 = 4% */
	double zero[] = { 0, 0, 1 };
	double inf[] = { 1, INFINITY };
	const double devs[] = { 0.5, 2, 2.5, NAN, 1, 10 };
	struct fpl_repeatability r;

	(void)state;
	assert_near(fpl_max_dev_pct(runs, 3), 2, EPS);
	assert_near(runs[0], 99, 0);	/* sorted in place */
	assert_near(fpl_max_dev_pct(neg, 3), 4, EPS);
	assert_true(isnan(fpl_max_dev_pct(runs, 1)));
	assert_true(isnan(fpl_max_dev_pct(zero, 3)));
	assert_true(isnan(fpl_max_dev_pct(inf, 2)));
	assert_int_equal(fpl_repeatability(devs, 6, 2, &r), 0);
	/* the NaN is left out: 0.5 1 2 2.5 10 */
	assert_int_equal(r.metrics, 5);
	assert_int_equal(r.within, 3);		/* 2 is within 2 */
	assert_near(r.median_pct, 2, EPS);
	assert_near(r.p90_pct, 2.5 + 0.6 * 7.5, EPS);	/* 0.9 * 4 = 3.6: 2.5 + 0.6 (10 - 2.5) */
	assert_near(r.max_pct, 10, EPS);
	assert_near(r.tol_pct, 2, 0);
	assert_int_equal(fpl_repeatability(devs + 3, 1, 2, &r), -EINVAL);
	assert_int_equal(fpl_repeatability(NULL, 0, 2, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yuen_step),
		cmocka_unit_test(test_trimmed_mean),
		cmocka_unit_test(test_welch_sleep),
		cmocka_unit_test(test_student_sleep),
		cmocka_unit_test(test_yuen_spider),
		cmocka_unit_test(test_yuen_edges),
		cmocka_unit_test(test_mann_whitney_sleep),
		cmocka_unit_test(test_mann_whitney_by_hand),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_sign_p_below),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_ministat_t),
		cmocka_unit_test(test_ministat_relative),
		cmocka_unit_test(test_floor_med3),
		cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_mean_t_ci),
		cmocka_unit_test(test_paired_sleep),
		cmocka_unit_test(test_paired_trimmed),
		cmocka_unit_test(test_paired_edges),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_speedup_ci),
		cmocka_unit_test(test_repeatability),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
