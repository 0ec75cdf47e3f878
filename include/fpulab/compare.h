/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A/B/C comparison of cases (files or directories of runs): statistics, tests, verdicts. */
#ifndef FPULAB_COMPARE_H
#define FPULAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fpulab/base.h"
#include "fpulab/stats.h"

/* What a case's files hold, found from their content. */
enum fpl_cmp_kind {
	FPL_CMP_NUMBERS,	/* one number a line, '#' starts a comment (as ministat reads) */
	FPL_CMP_WIS,		/* will-it-scale output: its one "average:" line per file */
	FPL_CMP_RESULTS,	/* fpulab results JSON: every metric of every run */
};

enum fpl_cmp_format {
	FPL_CMP_TABLE,
	FPL_CMP_JSON,
	FPL_CMP_CSV,
	FPL_CMP_KERNEL,		/* "case 1: 16444675.45 Set as 1" / "case 2: 16412285.61, 99.80%" */
	FPL_CMP_MINISTAT,	/* ministat's own output, its statistics and layout */
};

struct fpl_cmp_opts {
	double trim;		/* percent cut from each end, [0, 50) */
	double confidence;	/* percent, (0, 100) */
	const char *metric;	/* fnmatch(3) pattern, NULL for every metric */
	size_t bootstrap;	/* resamples for the ratio interval, 0 for none */
	unsigned long seed;	/* of the bootstrap */
	bool within_run;	/* test every sample pooled, ignoring run-to-run variation */
	bool verbose;		/* table: every metric's full block */
	bool per_metric;	/* table: one line per metric however many */
	/*
	 * Plain numbers: 0 reads the whole line as one number; N >= 1 reads the
	 * Nth field split at blanks and tabs, a line without it skipped
	 * (ministat -C N; --ministat reads field 1 as ministat does).
	 */
	unsigned column;
	/*
	 * Comma-separated params keys left out when runs are matched (NULL:
	 * none), so that runs that differ only there are one metric across
	 * cases: `--ignore-param state` compares a `--state init` file with a
	 * `--state avx512` one. The label keeps the other params.
	 */
	const char *ignore_params;
};

/*
 * One metric in one case: its runs. A run contributes one value (the median
 * of its samples, or their trimmed mean with --trim); the tests run on those.
 */
struct fpl_cmp_series {
	double *raw;		/* every sample in input order, one run after another */
	size_t n;		/* samples */
	size_t *run_len;	/* samples of each run */
	size_t nruns;
	double *run_values;	/* one per run, input order */
	double *values;		/* tested, input order: run_values, or raw with within_run */
	double *sorted;		/* values sorted */
	size_t nv;
	struct fpl_summary sum;	/* of the tested values */
	double center;		/* their trimmed mean when trimming, else their mean */
	double between_cv;	/* percent: stddev / |mean| of the run values; NaN below 2 runs */
	double within_cv;	/* percent: median over runs of 1.4826 MAD / |median|; NaN if none */
};

/* One case against the baseline, for one metric. diff is case - baseline. */
struct fpl_cmp_test {
	struct fpl_ttest t;	/* Welch's t untrimmed, Yuen's t trimmed */
	struct fpl_mwu mw;
	struct fpl_boot boot;	/* when opts.bootstrap */
	double p_holm;		/* t.p after Holm's correction over every comparison */
	double pct, pct_half;	/* diff and CI half-width, percent of the baseline's center */
	bool verdict;		/* enough runs (FPL_MIN_RUNS in both cases) or within_run */
	bool proven;		/* verdict and p_holm < 1 - confidence, above resolution: "different" */
	/*
	 * The measurement's step: the smallest gap between distinct samples of
	 * the two cases (a TSC step over the repetitions of a sample, say).
	 * Run values that are medians land on those steps, so a difference of
	 * one step or less is not resolved however tight the runs agree:
	 * below_resolution, never proven.
	 */
	double resolution;
	bool below_resolution;
	double cv;		/* between-run CV of the two cases together, percent */
	size_t runs_needed[2];	/* per case, for half-widths of 0.5% and 0.2%; 0 unknown */
};

struct fpl_cmp_metric {
	char *label;		/* "bench k=v ...: name", or "value" / "average" */
	char *bench, *name;	/* NULL for numbers and will-it-scale input */
	char *params;		/* compact JSON with sorted keys, or NULL */
	char *unit;		/* "" when the input does not say */
	char *method;
	struct fpl_cmp_series *s;	/* one per case */
	struct fpl_cmp_test *t;		/* one per case; [0], the baseline, is unused */
};

struct fpl_cmp {
	struct fpl_cmp_opts opts;
	enum fpl_cmp_kind kind;
	size_t ncases;
	char **paths;		/* as given */
	size_t *nfiles;		/* files read per case */
	struct fpl_cmp_metric *m;
	size_t nm;
	size_t family;		/* comparisons under Holm's correction (those with a verdict) */
	size_t no_verdict;	/* comparisons without one: fewer than FPL_MIN_RUNS runs */
	size_t different;	/* comparisons proven different */
	char **notes;		/* metrics left out and why */
	size_t nnotes;
};

/*
 * Read every case (paths[0] is the baseline), match metrics across cases,
 * summarise and test. 0; -EINVAL with diag for bad input (a non-numeric line
 * with file and line, an empty case, fewer than 2 values after trimming, a
 * pattern matching nothing, mixed units or input kinds, unreadable files);
 * -ENOMEM.
 */
int fpl_cmp_run(char *const *paths, size_t ncases, const struct fpl_cmp_opts *opts,
		struct fpl_cmp **out, struct fpl_diag *diag);
void fpl_cmp_free(struct fpl_cmp *c);

/*
 * v as a percentage of m's baseline centre; NaN (shown n/a) where that
 * means nothing: a baseline at or below 0 (-10 to +10 is not -200%), or a
 * metric that is a difference between variants (fpl_metric_is_difference:
 * a centre near 0 made a 1-cycle change +990000%).
 */
double fpl_cmp_pct_of_base(const struct fpl_cmp_metric *m, double v);
/* The name of the test that fpl_cmp_run() used: "Welch" or "Yuen". */
const char *fpl_cmp_test_name(const struct fpl_cmp *c);
/* Write c to out in a format. FPL_CMP_MINISTAT needs a confidence ministat knows. */
int fpl_cmp_emit(const struct fpl_cmp *c, enum fpl_cmp_format format, FILE *out);

/*
 * ministat's text plot of up to 7 sorted samples, width columns wide (ministat:
 * 74). Points as x + * % # @ O, a bar per sample: |__ mean +/- stddev __|, M
 * the median, A the mean. median is passed so a caller can use ministat's.
 * max_rows > 0 scales the tallest stack down to that many rows (ministat: 0,
 * every point drawn; 10^6 points would make 10^4 rows).
 */
struct fpl_plot_set {
	const double *sorted;
	size_t n;
	double mean, stddev, median;
};
int fpl_cmp_plot(FILE *out, const struct fpl_plot_set *sets, size_t nsets, int width,
		 int max_rows);

#endif
