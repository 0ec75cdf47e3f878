/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A/B/C comparison of cases (files or directories of runs): statistics, tests, verdicts. */
#ifndef FPULAB_COMPARE_H
#define FPULAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fpulab/base.h"
#include "fpulab/result.h"
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
	/*
	 * Pairs (docs/compare.md "Paired comparisons"): variants timed in the
	 * same runs share each run's level, which cancels in their per-run
	 * difference. paired: each run of case 1 is paired with the run of case
	 * N that has the same run identity (observed run_index, run_pid and
	 * run_started, which --runs writes); files whose runs differ are
	 * refused. variants "W1,W2": one results document (paths[0], the only
	 * case) makes two cases: each metric whose name contains W1 (case 1)
	 * against the metric of its run, bench and params named with W2 in its
	 * place (case 2), paired by run.
	 */
	bool paired;
	const char *variants;
};

/* How the cases' runs were compared. */
enum fpl_cmp_pairing {
	FPL_CMP_UNPAIRED,	/* Welch/Yuen on the run values as independent cases */
	FPL_CMP_PAIRED_RUNS,	/* --paired: runs matched by run identity across files */
	FPL_CMP_PAIRED_VARIANTS,	/* --variants: two metrics of the same runs */
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
	/*
	 * Per run: its identity in words ("run_index 3, run_pid 4242,
	 * run_started ...", from observed; NULL when its file has none), and
	 * where it lay in the case (file, run, sample), which pairs variants.
	 * NULL arrays for input other than results JSON.
	 */
	char **run_ids;
	uint64_t *run_pos;
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
	/*
	 * Paired: t above is the paired t (Yuen's trimmed form with --trim) on
	 * the per-run differences, case - case 1 in the same run, of `pairs`
	 * runs, and runs_needed counts pairs; unpaired is Welch/Yuen on the
	 * same run values as independent cases, and its half-width in percent
	 * of case 1's centre, for comparison. diff_sd_pct: the per-run
	 * differences' stddev in percent of case 1's centre.
	 */
	bool paired;
	size_t pairs;
	struct fpl_ttest unpaired;
	double unpaired_pct_half;
	double diff_sd_pct;
};

struct fpl_cmp_metric {
	char *label;		/* "bench k=v ...: name", or "value" / "average" */
	char *bench, *name;	/* NULL for numbers and will-it-scale input */
	char *params;		/* compact JSON with sorted keys, or NULL */
	char *unit;		/* "" when the input does not say */
	char *method;
	/* sample, or a difference between variants (no percentage of it); numbers: sample */
	enum fpl_metric_kind kind;
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
	enum fpl_cmp_pairing pairing;
	char *variant[2];	/* --variants' two words, NULL without */
};

/*
 * Read every case (paths[0] is the baseline), match metrics across cases,
 * summarise and test. 0; -EINVAL with diag for bad input (a non-numeric line
 * with file and line, an empty case, fewer than 2 values after trimming, a
 * pattern matching nothing, mixed units or input kinds, unreadable files;
 * opts->paired with runs that do not match or carry no identity, bad or
 * unmatched --variants words); -ENOMEM. With opts->variants, ncases is 1.
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
/* The name of the test that fpl_cmp_run() used: "Welch" or "Yuen", "paired t" or "paired Yuen". */
const char *fpl_cmp_test_name(const struct fpl_cmp *c);
/* The unpaired test's name, "Welch" or "Yuen", whatever the pairing. */
const char *fpl_cmp_unpaired_name(const struct fpl_cmp *c);
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
