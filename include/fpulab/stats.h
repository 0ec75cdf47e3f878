/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Summaries of samples (median, quartiles, trimmed mean, ...) and tests between cases. */
#ifndef FPULAB_STATS_H
#define FPULAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Quantiles interpolate linearly between order statistics (Hyndman-Fan type
 * 7, GSL's and R's default). stddev is the sample standard deviation (n-1).
 * mad is the raw median absolute deviation (not scaled by 1.4826).
 * trimmed_mean drops floor(n * trim / 100) values from each end.
 */
struct fpl_summary {
	size_t n;
	double min, q1, median, q3, max;
	double mean, stddev, mad;
	double trim;		/* percent cut from each end for trimmed_mean */
	double trimmed_mean;
};

/* Summarise n values (not modified). 0, -EINVAL when n == 0 or trim outside [0, 50), -ENOMEM. */
int fpl_summarize(const double *x, size_t n, double trim, struct fpl_summary *s);
/* The same on data already sorted ascending. */
int fpl_summarize_sorted(const double *sorted, size_t n, double trim, struct fpl_summary *s);

/*
 * Bimodality (docs/method.md, "Bimodal cells"). The finite samples are
 * split in two where the between-class variance is largest (Otsu); a side
 * with under FPL_BIMODAL_MIN_SHARE of them is no mode: with a quarter or more
 * on each side the quartiles lie in different levels and the median can
 * land in either from one run to the next, while a smaller share (contended
 * rounds, interrupts) only moves it within the main level. The two sides are then judged by
 * a robust Ashman's D, sqrt(2) |m2 - m1| / sqrt(s1^2 + s2^2) with the sides'
 * medians and MADs scaled to sigma, and by the gap between the medians
 * relative to the lower one. Bimodal: D > FPL_BIMODAL_D and a gap over
 * FPL_BIMODAL_GAP_PCT: two clean levels far enough apart to move a median by
 * more than the 2% that separate runs must agree within. A long tail of slow
 * samples is not bimodal (its side's MAD is wide). 0 with *b filled;
 * -EINVAL under FPL_BIMODAL_MIN_N finite samples; -ENOMEM.
 */
#define FPL_BIMODAL_MIN_N	20
#define FPL_BIMODAL_MIN_SHARE	0.25
#define FPL_BIMODAL_D		3.0
#define FPL_BIMODAL_GAP_PCT	2.0

struct fpl_bimodal {
	size_t n;
	double lower_median, upper_median;
	double lower_share;	/* fraction of the samples on the lower side */
	double gap_pct;		/* (upper - lower) / lower * 100 */
	double ashman_d;
	bool bimodal;
};

int fpl_bimodal(const double *x, size_t n, struct fpl_bimodal *b);

/*
 * The floor of a series of readings of one fixed reference: the lowest
 * median of three consecutive finite readings (one fast outlier is not the
 * floor); with fewer than three readings their minimum. NaN without one.
 */
double fpl_floor_med3(const double *x, size_t n);

void fpl_sort(double *x, size_t n);
double fpl_quantile_sorted(const double *sorted, size_t n, double p);
double fpl_trimmed_mean_sorted(const double *sorted, size_t n, double trim);
/*
 * v as it may be printed with decimals digits after the point (%.*f, and
 * %g of an exact -0.0): v itself, or +0.0 where it would print as zero, so
 * that no figure reads "-0" or "-0.0". Every formatter of a value that can
 * be negative passes it through this (issue 32 item 3). NaN stays NaN.
 */
double fpl_shown(double v, int decimals);

/*
 * Two-sample tests. a is the baseline, b the case compared with it; every
 * difference is b - a. conf is a percentage in (0, 100). p is two-sided.
 * Functions named _sorted want both samples sorted ascending.
 */
struct fpl_ttest {
	double center_a, center_b;	/* means, or trimmed means for Yuen */
	double diff;			/* center_b - center_a */
	double se;			/* standard error of diff */
	double df;			/* degrees of freedom */
	double t;			/* diff / se; NaN when se == 0 */
	double p;			/* NaN when se == 0 */
	double tcrit;			/* t quantile used for the interval */
	double lo, hi;			/* confidence interval of diff */
};

/* Welch's unequal-variance t. -EINVAL when na or nb < 2 or conf outside (0, 100). */
int fpl_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
	      struct fpl_ttest *r);
/* Student's t with pooled variance (what ministat does, here with exact quantiles). */
int fpl_student(const double *a, size_t na, const double *b, size_t nb, double conf,
		struct fpl_ttest *r);
/*
 * Yuen's trimmed t (Yuen 1974, as in Wilcox's yuen() and R WRS2::yuen): trimmed
 * means, winsorized variances, g = floor(n * trim / 100) cut from each end.
 * trim == 0 is Welch's t. -EINVAL when fewer than 2 values remain after trimming.
 */
int fpl_yuen_sorted(const double *a, size_t na, const double *b, size_t nb, double trim,
		    double conf, struct fpl_ttest *r);
/*
 * The same for values rounded to a lattice of step q (a quantised
 * measurement): each value also carries the rounding's variance q^2 / 12
 * (Sheppard), so that runs that all land on one step do not read as
 * known to a fraction of it. q <= 0 or NaN: fpl_yuen_sorted.
 */
int fpl_yuen_sorted_step(const double *a, size_t na, const double *b, size_t nb, double trim,
			 double conf, double q, struct fpl_ttest *r);
/*
 * Paired comparison: a[i] and b[i] are two variants measured in the same
 * run i (timed in the same rounds), so whatever moves the whole run (the
 * host's level, the clock, the placement) moves both and cancels in their
 * difference. Each run is one replicate d[i]: b[i] - a[i] (FPL_PAIR_DIFF),
 * or 100 (b[i] / a[i] - 1), the difference in percent of that run's a
 * (FPL_PAIR_PCT), which cancels a run-level factor as well as an offset.
 * The interval is the one-sample t over the d[i]; with trim > 0 Yuen's
 * trimmed form of it: the trimmed mean of d, se^2 = (n - 1) s_w^2 / (h (h - 1))
 * with s_w^2 the winsorized variance and h = n - 2g the values kept,
 * df = h - 1 (the one-sample case of fpl_yuen_sorted; trim 0 is the paired
 * t). q > 0: a and b are rounded to a lattice of step q (in their unit), so
 * each d also carries the two roundings' variance 2 q^2 / 12 (in percent
 * of a[i] for PCT). Pairs with a value that is not finite, or a[i] <= 0 for
 * PCT, are left out. In r: center_a and center_b are the trimmed means of
 * the a and b of the pairs kept (what a table shows per case); diff, se,
 * df, t, p, tcrit, lo and hi are about d. 0; -EINVAL when fewer than 2
 * values remain after trimming, trim outside [0, 50) or conf outside
 * (0, 100); -ENOMEM.
 */
enum fpl_pair_scale {
	FPL_PAIR_DIFF,	/* b - a, in the unit of the values */
	FPL_PAIR_PCT,	/* 100 (b / a - 1) per pair, percent */
};
struct fpl_paired {
	size_t n;			/* pairs used */
	enum fpl_pair_scale scale;
	struct fpl_ttest t;
};
int fpl_paired_t(const double *a, const double *b, size_t n, enum fpl_pair_scale scale,
		 double trim, double conf, double q, struct fpl_paired *r);

/* Winsorized variance (n - 1 denominator) of sorted data, g values pulled in at each end. */
double fpl_winsorized_var_sorted(const double *sorted, size_t n, size_t g);
/* Values cut from each end: floor(n * trim / 100). */
size_t fpl_trim_count(size_t n, double trim);

/*
 * Mann-Whitney U (Wilcoxon rank-sum), normal approximation with tie correction
 * and continuity correction for every n (R's wilcox.test(exact = FALSE,
 * correct = TRUE)); no exact small-sample distribution. u is the statistic of
 * b: rank sum of b minus nb(nb+1)/2, so u > na*nb/2 means b tends larger.
 */
struct fpl_mwu {
	double u, mean, sd;	/* U of b, its mean and tie-corrected sd under H0 */
	double z, p;		/* continuity-corrected z; p is NaN when sd == 0 */
};
int fpl_mann_whitney_sorted(const double *a, size_t na, const double *b, size_t nb,
			    struct fpl_mwu *r);

/*
 * Percentile bootstrap of center(b) / center(a), center = trimmed mean (trim
 * percent, 0 for the mean). Each case is resampled on its own with
 * replacement; GSL's MT19937 seeded with seed, so a seed gives one answer.
 */
struct fpl_boot {
	size_t reps;
	unsigned long seed;
	double ratio;		/* on the data themselves */
	double lo, hi;		/* percentile interval of the ratio at conf */
};
int fpl_bootstrap_ratio_sorted(const double *a, size_t na, const double *b, size_t nb,
			       double trim, double conf, size_t reps, unsigned long seed,
			       struct fpl_boot *r);

/* Holm's step-down adjustment of n p-values (NaN counts as 1). 0 or -ENOMEM. */
int fpl_holm(const double *p, size_t n, double *adj);

/*
 * One-sided sign test of "the median lies below mu": of the finite values
 * that differ from mu, k lie below; the p-value is P(Binomial(m, 1/2) >= k)
 * (exact). NaN when no value differs from mu. The test the distribution-free
 * median interval (fpl_median_ci) inverts, one side of it.
 */
double fpl_sign_p_below(const double *x, size_t n, double mu);

/*
 * The run as the unit of replication (docs/compare.md). A run's value is the
 * median of its samples, or with trim > 0 their trimmed mean, so that a
 * preempted sample (a negative N/2N difference) cannot move it far. sorted
 * ascending; NaN when n == 0.
 */
double fpl_run_value_sorted(const double *sorted, size_t n, double trim);
/*
 * Robust within-run spread in percent: 1.4826 MAD / |median| (the normal
 * stddev for normal data). work holds n values. NaN for n < 2 or a zero median.
 */
double fpl_robust_cv_sorted(const double *sorted, size_t n, double *work);
/* Fewer runs than this per case: no verdict. */
#define FPL_MIN_RUNS 3
/*
 * Runs per case (two cases of n runs, equal spread, Welch's df 2n - 2) for a
 * between-run CV of cv percent to give a conf-percent interval half-width of at
 * most target percent (before any multiple-comparison correction). At least
 * FPL_MIN_RUNS; 0 when cv is not finite; SIZE_MAX beyond 10^7.
 */
size_t fpl_runs_needed(double cv, double target, double conf);
/*
 * The same for a paired comparison: runs for n per-run differences of
 * standard deviation sd (t with n - 1 df before any trimming) to give a
 * half-width of at most target, in the unit of sd.
 */
size_t fpl_runs_needed_paired(double sd, double target, double conf);

/*
 * Repeatability across runs. One metric: the largest distance of one run's
 * value from the median of the n values, in percent of that median; NaN
 * for n < 2, a value that is not finite, or a zero median. v is sorted in
 * place (no allocation).
 */
double fpl_max_dev_pct(double *v, size_t n);
/*
 * Over metrics, given each one's fpl_max_dev_pct (NaNs are left out): how
 * many there are, how many stay within tol_pct in every run, and the
 * median, 90th percentile (GSL's interpolated quantile) and largest of the
 * distances. 0, -EINVAL when no distance is finite, -ENOMEM.
 */
struct fpl_repeatability {
	size_t metrics, within;
	double tol_pct, median_pct, p90_pct, max_pct;
};
int fpl_repeatability(const double *dev, size_t n, double tol_pct, struct fpl_repeatability *r);

/*
 * A seeded simulation of the method (GSL's MT19937 and Gaussian): each trial
 * draws two cases of `metrics` metrics, each case `runs` runs of `samples`
 * samples around 100; each run has its own offset (between_cv percent) and
 * each sample its own noise (within_cv percent); a fraction `outliers` of
 * samples is preempted (-3 times its value). Metric 0 of case 2 is `effect`
 * percent higher. Welch (Yuen with trim) on the run values (every sample
 * pooled when `pooled`), Holm over the metrics, a claim at Holm p < 1 - conf.
 * `paired`: the two cases are variants timed in the same runs: run k's
 * offset is drawn once and shared by its a and b samples (each sample still
 * its own noise), and the test is fpl_paired_t on the run values paired by
 * run (FPL_PAIR_DIFF, trim as given); the unpaired test on the same values
 * is taken alongside, for its width.
 */
struct fpl_sim_opts {
	size_t trials, runs, samples, metrics;
	double between_cv, within_cv, effect, outliers;	/* percent, fraction */
	double trim, conf;
	bool pooled, paired;
	unsigned long seed;
};
struct fpl_sim_result {
	size_t trials;
	size_t false_claims;	/* trials with a claim on a metric without an effect */
	size_t found;		/* trials that claimed the planted effect, right sign */
	size_t covered;		/* trials whose metric-0 interval holds the planted difference */
	double half_pct;	/* mean interval half-width of metric 0, percent */
	double half_unpaired_pct;	/* paired: the same of Welch/Yuen on the same values */
};
/* 0; -EINVAL for runs < 2, no samples or metrics, conf outside (0, 100), paired and pooled; -ENOMEM. */
int fpl_sim_runs(const struct fpl_sim_opts *o, struct fpl_sim_result *r);

/*
 * ministat's own conventions, to reproduce its output: median is sorted[n/2]
 * (upper median), variance from running sums in input order, t quantile
 * rounded to 3 decimals, the normal quantile beyond 100 df. Its "99.5%" level
 * uses the one-sided 0.999 quantile (its table's last column), reproduced.
 */
struct fpl_ministat {
	size_t n;
	double sy, syy;		/* sums in input order */
	double min, max, median;
};
/* x in input order; sorted the same values sorted. */
void fpl_ministat_set(const double *x, const double *sorted, size_t n, struct fpl_ministat *s);
double fpl_ministat_avg(const struct fpl_ministat *s);
double fpl_ministat_stddev(const struct fpl_ministat *s);
/* ministat's t for its levels 80, 90, 95, 98, 99, 99.5; NaN for any other level. */
double fpl_ministat_t(double conf, size_t df);
struct fpl_ministat_rel {
	double d, e, spool, pct, pct_e;
	int different;		/* |d| > e */
};
/* ds compared with the reference rs, as ministat's Relative(). */
void fpl_ministat_relative(const struct fpl_ministat *ds, const struct fpl_ministat *rs,
			   double conf, struct fpl_ministat_rel *r);

/* A figure with its 95% confidence interval. */
struct fpl_ci {
	size_t n;		/* pairs or samples used */
	double estimate, lo, hi;
};

/*
 * Robust on a shared, noisy machine: medians with distribution-free
 * intervals (order statistics x(j) and x(n+1-j), the largest j with
 * P(Binomial(n, 1/2) < j) <= 2.5%), which need n >= 6.
 *
 * fpl_speedup_ci: speedup of fast over slow in percent from paired samples
 * (slow[i] and fast[i] from the same round): 100 * (median(slow/fast) - 1).
 * Pairs with a value <= 0 or not finite are left out.
 * fpl_median_ci: the median of the finite samples.
 * 0, -EINVAL when fewer than 6 values remain, -ENOMEM.
 */
int fpl_speedup_ci(const double *slow, const double *fast, size_t n, struct fpl_ci *ci);
int fpl_median_ci(const double *x, size_t n, struct fpl_ci *ci);
/*
 * The mean of n values with Student's t interval at conf percent (95):
 * mean +/- t(conf, n - 1) sd / sqrt(n). For run-level differences of an
 * A/B, each run one replicate. 0, -EINVAL for n < 2, a value that is not
 * finite or conf outside (0, 100).
 */
int fpl_mean_t_ci(const double *x, size_t n, double conf, struct fpl_ci *ci);

#endif
