/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The result model: host, runs, metrics with every raw sample. Benchmarks fill it, emitters read it. */
#ifndef FPULAB_RESULT_H
#define FPULAB_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * What a metric's samples are. Views decide by it what a percentage or a
 * spread of the figure can say (docs/results-schema.md, "kind").
 */
enum fpl_metric_kind {
	/* "sample": each sample a measurement of the quantity */
	FPL_KIND_SAMPLE,
	/*
	 * "difference": between two variants of one run, per round (xsave's
	 * RFBM diff_cycles, ctxsw's A/B difference, section's speedup_pct):
	 * near zero by design, either side, so a percentage of it, or of
	 * another run's, and its spread relative to it say nothing.
	 */
	FPL_KIND_DIFFERENCE,
	/*
	 * "net": a cost net of a baseline variant, per round (section's
	 * (inside - outside) / (chunks - 1), outside - bare). A cost, not zero
	 * by design: a percentage of it between runs holds. But each sample
	 * carries the noise of two timings, wide beside the cost itself, so its
	 * spread is no sign of a noisy run; its median's interval (extra) is.
	 */
	FPL_KIND_NET,
};

/* What timed the samples. UNKNOWN: not said (a file written before these facts). */
enum fpl_metric_clock {
	FPL_MCLOCK_UNKNOWN,
	FPL_MCLOCK_NONE,		/* "none": not timed (a count) */
	FPL_MCLOCK_TSC,			/* "tsc": lfence;rdtsc .. lfence;rdtsc;lfence */
	FPL_MCLOCK_MONOTONIC_RAW,	/* "monotonic-raw": CLOCK_MONOTONIC_RAW */
	FPL_MCLOCK_MONOTONIC,		/* "monotonic": CLOCK_MONOTONIC (the kernel's xor calibration) */
};

/* How the cost of timing itself was removed. */
enum fpl_metric_overhead {
	FPL_OVERHEAD_UNKNOWN,
	FPL_OVERHEAD_NONE,		/* "none": left in, or spread over reps (the method says) */
	FPL_OVERHEAD_N_VS_2N,		/* "n-vs-2n": (body(2N) - body(N)) / N */
	FPL_OVERHEAD_EMPTY_BODY,	/* "empty-body": (body(N) - empty(N)) / N */
};

/* How the samples came to be in their unit. */
enum fpl_metric_conv {
	FPL_CONV_UNKNOWN,
	FPL_CONV_NONE,			/* "none": as the clock reads, or not a time */
	FPL_CONV_NS_FROM_TSC,		/* "ns-from-tsc": TSC ticks at the TSC rate */
	FPL_CONV_TSC_FROM_NS,		/* "tsc-from-ns": ns at the TSC rate */
	FPL_CONV_CYCLES_ESTIMATED,	/* "cycles-estimated": TSC ticks x core/TSC from the add chain */
	FPL_CONV_CYCLES_COUNTED,	/* "cycles-counted": TSC ticks x core/TSC counted (rdpmc) */
	FPL_CONV_COMPUTED,		/* "computed": from other metrics' samples (MB/s, ops/s, %) */
};

/* reps when a sample's repetitions differ from sample to sample (xor's calibration: calls). */
#define FPL_REPS_VARIES (-1LL)

/* The method's facts, beside its sentence. */
struct fpl_metric_how {
	long long reps;		/* body repetitions per sample; 0: not said; FPL_REPS_VARIES */
	enum fpl_metric_clock clock;
	enum fpl_metric_overhead overhead;
	enum fpl_metric_conv conv;
};

/*
 * One measured quantity. unit is one of "cycles" (core cycles; say in method
 * whether estimated from the TSC or counted), "tsc" (TSC ticks), "ns",
 * "ops/s", "MB/s" (decimal), "bytes", "count", "ratio", "percent".
 * method says how the samples were taken and how overhead was removed, in
 * words a reader can check ("throughput: 256 back-to-back XSAVEC per sample,
 * N vs 2N difference"). The typed facts (family, kind, how, the method's
 * parts) are set with the setters below and read with the getters.
 */
struct fpl_metric {
	char *name;
	char *unit;
	char *method;
	/*
	 * The quantity: the members of one figure in other units share it
	 * (round_trip, round_trip_cycles, round_trip_tsc). Never NULL: the
	 * name until set.
	 */
	char *family;
	enum fpl_metric_kind kind;
	struct fpl_metric_how how;
	/*
	 * method is what "; " timing "; " unit_part, the last two optional:
	 * method[0, what_len) says what was measured, then timing_len bytes the
	 * repetitions, overhead removal and samples kept, then how the samples
	 * came to be in unit (what a table gives its own unit note).
	 */
	size_t what_len, timing_len;
	/*
	 * What was measured with the cell's own words written INSN (its
	 * instruction) and COMP (its component), shared by every cell of one
	 * kind (xsave's matrix and RFBM cells), so that a table states it once;
	 * NULL where it has no such words.
	 */
	char *what_generic;
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
 * The typed facts of a metric (struct fpl_metric). Setters for benchmarks
 * and the harness: 0 or -ENOMEM. fpl_metric_set_method replaces the
 * sentence with what "; " timing "; " unit_part (timing and unit_part NULL
 * or "" when there is none) and records the parts.
 */
int fpl_metric_set_family(struct fpl_metric *m, const char *family);
void fpl_metric_set_kind(struct fpl_metric *m, enum fpl_metric_kind kind);
void fpl_metric_set_how(struct fpl_metric *m, const struct fpl_metric_how *how);
int fpl_metric_set_method(struct fpl_metric *m, const char *what, const char *timing,
			  const char *unit_part);
/* family, kind and how of src (a metric derived from src, in another unit or by arithmetic). */
int fpl_metric_copy_facts(struct fpl_metric *m, const struct fpl_metric *src);
/* Set (a copy of) what_generic; NULL clears it. 0 or -ENOMEM. */
int fpl_metric_set_what_generic(struct fpl_metric *m, const char *what);

/* Getters for views. */
const char *fpl_metric_family(const struct fpl_metric *m);
enum fpl_metric_kind fpl_metric_kind(const struct fpl_metric *m);
const struct fpl_metric_how *fpl_metric_how(const struct fpl_metric *m);
/*
 * A difference between two variants of one run (FPL_KIND_DIFFERENCE): near
 * zero either side, so a percentage of it, or of another run's, says nothing.
 */
bool fpl_metric_is_difference(const struct fpl_metric *m);

/* The method's parts: pointers into m->method, and lengths; a part not there has length 0. */
struct fpl_method_parts {
	const char *what, *timing, *unit;
	size_t what_len, timing_len, unit_len;
};
void fpl_metric_method_parts(const struct fpl_metric *m, struct fpl_method_parts *p);

/*
 * The names the results document uses ("sample", "tsc", "n-vs-2n",
 * "cycles-estimated" ...; NULL for UNKNOWN), and back (-1 for a name not
 * known). docs/results-schema.md lists them.
 */
const char *fpl_metric_kind_name(enum fpl_metric_kind k);
int fpl_metric_kind_by_name(const char *name);
const char *fpl_metric_clock_name(enum fpl_metric_clock c);
int fpl_metric_clock_by_name(const char *name);
const char *fpl_metric_overhead_name(enum fpl_metric_overhead o);
int fpl_metric_overhead_by_name(const char *name);
const char *fpl_metric_conv_name(enum fpl_metric_conv c);
int fpl_metric_conv_by_name(const char *name);

/*
 * The key that groups the runs of one configuration: bench, the params
 * with sorted keys as compact JSON less the keys in ignore (a
 * comma-separated list; NULL: none), and metric (NULL: the run's key
 * alone), joined by FPL_CONFIG_KEY_SEP, which compact JSON writes only
 * escaped. Bit i of *found (may be NULL) is set when the list's i-th key
 * (of the first 64) was in params. A new string; NULL on ENOMEM.
 */
#define FPL_CONFIG_KEY_SEP '\x1f'
char *fpl_run_config_key(const struct fpl_run *run, const char *metric, const char *ignore,
			 uint64_t *found);

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
 * The command line that made r, as host.command (an array of its words,
 * argv[0] first, NULL-terminated argv): what `fpulab show` reads to print
 * a document as its command did, and what a reader quotes to repeat it.
 * Replaces an earlier one. 0 or -ENOMEM.
 */
int fpl_result_set_command(struct fpl_result *r, char *const *argv);

/* host.command's word i (0: the program), NULL past its end or without one. */
const char *fpl_result_command_word(const struct fpl_result *r, size_t i);

/*
 * One step of a command that runs several benchmarks (fpulab run), in
 * host.ran, in order: what ran ("signal --state avx512"), its wall time
 * in seconds (NaN: not run) and its status: "ok", "skipped", "failed or
 * interrupted" or "not run". 0 or -ENOMEM.
 */
int fpl_result_note_ran(struct fpl_result *r, const char *what, double took_s,
			const char *status);
/*
 * The same, with the step's runs: nruns runs from index first_run of
 * r->runs (host.ran's first_run and runs), so that the Ran: line says what
 * they hold (a step that measured something is not called skipped).
 */
int fpl_result_note_ran_runs(struct fpl_result *r, const char *what, double took_s,
			     const char *status, size_t first_run, size_t nruns);

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
