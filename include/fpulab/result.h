/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The result model: host, runs, metrics with every raw sample. Benchmarks fill it, emitters read it. */
#ifndef FPULAB_RESULT_H
#define FPULAB_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/stats.h"

#define FPL_RESULT_SCHEMA "fpulab/2"
/* Still read: params then held measured values too; the reader moves them to observed. */
#define FPL_RESULT_SCHEMA_V1 "fpulab/1"
/*
 * observed.interference.quiet_share under this: a suspect run (the xsave
 * cells' FXSAVE64 reference quiet in under half of its readings; such runs
 * read 3-5% high on a shared host, docs/method.md). One figure for the
 * bench's warning, the summary and compare's note.
 */
#define FPL_QUIET_SHARE_SUSPECT 0.5
/* The most runs of one series (--runs N): each a fresh process. */
#define FPL_RUNS_MAX 1000

/*
 * One measured quantity. unit is one of "cycles" (core cycles; say in method
 * whether estimated from the TSC or counted), "tsc" (TSC ticks), "ns",
 * "ops/s", "MB/s" (decimal), "bytes", "count", "ratio", "percent".
 * method says how the samples were taken and how overhead was removed, in
 * words a reader can check ("throughput: 256 back-to-back XSAVEC per sample,
 * N vs 2N difference").
 */
struct fpl_metric {
	char *name;
	char *unit;
	char *method;
	double *samples;
	size_t n, cap;
	json_t *extra;		/* optional object: anything else worth keeping */
};

struct fpl_run {
	char *bench;
	/*
	 * The configuration only: what the user chose, or the defaults. Nothing
	 * measured goes here, so that two runs of one configuration always have
	 * equal params (compare matches runs on them).
	 */
	json_t *params;
	/*
	 * Everything measured or seen about the run: clock, batch sizes chosen by
	 * calibration, frame sizes, XINUSE seen, state verified, elapsed time,
	 * masks the run found in use, in-run A/B verdicts, the kernel's counts.
	 */
	json_t *observed;
	struct fpl_metric **metrics;
	size_t nmetrics;
	bool skipped;
	char *skip_reason;	/* why, when skipped (a missing CPU feature ...) */
	json_t *warnings;	/* array of strings */
};

struct fpl_result {
	json_t *host;		/* object: the `fpulab info` host object plus "clock" */
	struct fpl_run **runs;
	size_t nruns;
	json_t *warnings;	/* array of strings: run-wide (clock drift, VM ...) */
};

struct fpl_result *fpl_result_new(void);
void fpl_result_free(struct fpl_result *r);
/*
 * Move runs [from, nruns) of src to the end of dst, in order; dst NULL frees
 * them. src keeps runs [0, from). 0 or -ENOMEM (then src is unchanged).
 */
int fpl_result_move_runs(struct fpl_result *dst, struct fpl_result *src, size_t from);

/* NULL on allocation failure. */
struct fpl_run *fpl_result_add_run(struct fpl_result *r, const char *bench);
struct fpl_metric *fpl_run_add_metric(struct fpl_run *run, const char *name,
				      const char *unit, const char *method);
struct fpl_metric *fpl_run_find_metric(const struct fpl_run *run, const char *name);
/*
 * A metric that is a difference between two variants of one run (xsave's
 * RFBM diff_cycles, an A/B's difference, b_minus_a_*): near zero either
 * side, so a percentage of it, or of another run's, says nothing.
 */
bool fpl_metric_is_difference(const char *name);

int fpl_metric_add(struct fpl_metric *m, double sample);
int fpl_metric_add_many(struct fpl_metric *m, const double *samples, size_t n);

/*
 * The one summary of a metric: over its finite samples only (NaN marks a
 * sample that could not be taken), trim in percent for the trimmed mean.
 * 0; -ENODATA when no sample is finite; -ENOMEM. fpl_metric_median() is its
 * median, NaN without one.
 */
int fpl_metric_summary(const struct fpl_metric *m, double trim, struct fpl_summary *s);
double fpl_metric_median(const struct fpl_metric *m);

/* Parameters: 0 or -ENOMEM. */
int fpl_run_param_int(struct fpl_run *run, const char *key, long long v);
int fpl_run_param_real(struct fpl_run *run, const char *key, double v);
int fpl_run_param_str(struct fpl_run *run, const char *key, const char *v);
int fpl_run_param_bool(struct fpl_run *run, const char *key, bool v);

/* Observations (run->observed): 0 or -ENOMEM. A value set twice keeps the last. */
int fpl_run_obs_int(struct fpl_run *run, const char *key, long long v);
int fpl_run_obs_real(struct fpl_run *run, const char *key, double v);
int fpl_run_obs_str(struct fpl_run *run, const char *key, const char *v);
int fpl_run_obs_bool(struct fpl_run *run, const char *key, bool v);
/* Takes the reference to v (may be an object or array). */
int fpl_run_obs_json(struct fpl_run *run, const char *key, json_t *v);

/*
 * Getters: NULL (or dflt) when the key is absent or of another type.
 * fpl_run_get_int accepts JSON integers and integral reals.
 */
const json_t *fpl_run_param_get(const struct fpl_run *run, const char *key);
const json_t *fpl_run_obs_get(const struct fpl_run *run, const char *key);
const char *fpl_run_param_get_str(const struct fpl_run *run, const char *key);
const char *fpl_run_obs_get_str(const struct fpl_run *run, const char *key);
long long fpl_run_param_get_int(const struct fpl_run *run, const char *key, long long dflt);
long long fpl_run_obs_get_int(const struct fpl_run *run, const char *key, long long dflt);

int fpl_run_skip(struct fpl_run *run, const char *fmt, ...) FPL_PRINTF(2, 3);
int fpl_run_warn(struct fpl_run *run, const char *fmt, ...) FPL_PRINTF(2, 3);
int fpl_result_warn(struct fpl_result *r, const char *fmt, ...) FPL_PRINTF(2, 3);

/*
 * A series (--runs): what is known of the process that made one run of it,
 * outside its own document. steal0/steal1 are /proc/stat steal readings
 * before and after it (fpl_sysinfo_steal: [0] all CPUs, [1 + n] CPU n, -1
 * where not read; NULL: none), tick_hz the clock tick of their unit.
 */
struct fpl_process_run {
	long index;			/* the run's place in the series, from 1 */
	long long pid;			/* when the document does not say */
	const char *started;		/* when it started, UTC, ISO 8601 */
	double wall_s;
	long long preempted, waits;	/* involuntary and voluntary context switches */
	double user_s, sys_s;
	const long long *steal0, *steal1;
	size_t nsteal;
	long tick_hz;
};

/*
 * Merge src, the result of one process of a series, into dst: its runs
 * move to dst's end, each stamped with observed run_index, run_pid,
 * run_started, run_wall_s, its preemptions and CPU times, steal seconds
 * and the process's own clock, CPU, load and address-space facts
 * (run_cpu, run_core_hz, run_loadavg_start, run_aslr, ...); its warnings
 * become dst's, "run K: " before them; the first merge gives dst its host,
 * less those per-process keys. src keeps no runs. 0 or -ENOMEM.
 */
int fpl_result_merge_process(struct fpl_result *dst, struct fpl_result *src,
			     const struct fpl_process_run *pr);

/*
 * The series as a whole into r's host ("runs"): runs requested and
 * completed, whether it was interrupted, in what order the benchmarks ran,
 * whether address-space randomisation was off. 0 or -ENOMEM.
 */
int fpl_result_series_note(struct fpl_result *r, long requested, long completed,
			   bool interrupted, bool no_aslr);

/*
 * A result derived from another's runs (repro's cases, from its
 * benchmarks' runs) takes that one's host and warnings: its clock,
 * self-checks and load belong to it too. 0 or -ENOMEM.
 */
int fpl_result_adopt(struct fpl_result *dst, const struct fpl_result *src);

/*
 * Read a document of schema fpulab/2, or an older fpulab/1 one whose
 * measured keys in params are moved to observed (docs/results-schema.md). Samples are
 * what counts: summaries in the file are not read back (the writer,
 * fpl_report_json() in fpulab/report.h, computes them from the samples).
 * Unknown keys are ignored, so later minor additions still load.
 * 0; -EINVAL with diag naming the file and the JSON path of the first
 * problem; -ENOENT/-EIO for the file; -ENOMEM.
 */
int fpl_result_from_json(json_t *doc, struct fpl_result **out, struct fpl_diag *diag);
int fpl_result_load(const char *path, struct fpl_result **out, struct fpl_diag *diag);
/* The same from len bytes already read (a pipe can be read once); name is for messages. */
int fpl_result_load_buf(const char *buf, size_t len, const char *name, struct fpl_result **out,
			struct fpl_diag *diag);

#endif
