/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Emitters: a result as a table for people, JSON (schema fpulab/2) or CSV. */
#ifndef FPULAB_REPORT_H
#define FPULAB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/image.h"
#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"

enum fpl_format {
	FPL_FMT_TABLE,	/* per metric: median, IQR, n, unit, method note */
	FPL_FMT_JSON,	/* the whole result, schema fpulab/2 (docs/results-schema.md) */
	FPL_FMT_CSV,	/* one line per metric: bench,params,metric,unit,n,median,... */
};

/* "table", "json", "csv" to a format; -1 if unknown. */
int fpl_format_by_name(const char *name);
const char *fpl_format_name(enum fpl_format fmt);

/*
 * The result as a document of schema fpulab/2: {"schema", "host", "runs",
 * "warnings"}, every metric with its samples and a summary computed from
 * them (fpl_summarize, 10% trim). New reference, NULL on ENOMEM.
 */
json_t *fpl_report_json(const struct fpl_result *r);

/* Which of the harness's "<x>cycles", "<x>tsc", "<x>ns" a table for people shows. */
enum fpl_units {
	FPL_UNITS_CYCLES,	/* core cycles only (default) */
	FPL_UNITS_TSC,
	FPL_UNITS_NS,
	FPL_UNITS_ALL,		/* all three, compactly */
};

/* "cycles", "tsc", "ns", "all" to a unit choice; -1 if unknown. */
int fpl_units_by_name(const char *name);

struct fpl_table_opts {
	enum fpl_units units;
	/*
	 * Warnings in full below the table (true: the default of fpl_emit), or
	 * only their count, for a terminal that also shows them on stderr.
	 */
	bool warnings;
	/* Lines under each run of the generic table (its benchmark's view's); NULL: none. */
	void (*run_lines)(const struct fpl_run *run, FILE *f);
};

/* The generic table for people with these options. 0 or -EIO. */
int fpl_emit_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);

/*
 * The xsave benchmark's table: a matrix of instruction x RFBM rows by state
 * x method columns, the other instructions, the RFBM experiment, methods
 * as numbered notes stated once. Runs it does not know go to the generic
 * table after it. 0 or -EIO.
 */
int fpl_table_xsave(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);

/*
 * An XSAVE image decoded by fpl_image_decode (fpulab decode), read from path
 * and judged for cpu with cfg: the table for people, or one JSON object
 * (docs/decode.md). 0, -EIO, -ENOMEM.
 */
int fpl_table_decode(FILE *f, const char *path, const struct fpl_cpu *cpu,
		     const struct fpl_image_cfg *cfg, const struct fpl_image *img);
int fpl_json_decode(FILE *f, const char *path, const struct fpl_cpu *cpu,
		    const struct fpl_image_cfg *cfg, const struct fpl_image *img);

/*
 * fpulab info's table: the CPU, XCR0/XINUSE, XSAVE sizes and instructions,
 * the three masks, every component, the kernel's ABI facts (si) and its own
 * view (kview from fpl_kview_info_json, may be NULL). 0 or -EIO.
 */
int fpl_table_info(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		   const struct fpl_sysinfo *si, const json_t *kview);
/*
 * fpulab info --json: {"host": the host object (fpl_host_json) with the
 * kernel's view of FPU state as "kernel_view" (trace: this task's xcomp_bv
 * from tracefs)}, indented. 0, -ENOMEM, -EIO.
 */
int fpl_json_info(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		  const struct fpl_sysinfo *si, bool trace);

/*
 * A --runs series merged into r, for people: one line per run (pid, CPU,
 * core clock, drift, load, wall time, preemptions), then each metric's run
 * medians with their spread, series(r, f) when given (what the benchmarks'
 * views say of the runs together: ctxsw --ab's B - A over the runs) and
 * the repeatability. done of requested runs completed. 0, -ENOMEM, -EIO.
 */
int fpl_table_runs(const struct fpl_result *r, long done, long requested,
		   int (*series)(const struct fpl_result *r, FILE *f), FILE *f);
/*
 * The warnings of a series, once each with the runs that had them, as
 * "fpulab CMD: warning: ..." lines into f.
 */
void fpl_table_runs_warnings(const struct fpl_result *r, const char *cmd, long done, FILE *f);

/* The xor benchmark's tables: calibration lines per section mask, or the size sweep. */
int fpl_table_xor(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);

/*
 * Repeatability of a result holding several runs (--runs N): every metric
 * of every configuration (bench, params, metric name) gives one value per
 * run, its median; per unit, how many of those metrics stay within tol_pct
 * of the median of their runs in every run (fpl_repeatability). At most max
 * units, those with most metrics first; metrics seen in under 2 runs are
 * left out. The count of units filled, or -ENOMEM.
 */
struct fpl_unit_repeat {
	char unit[24];
	struct fpl_repeatability rep;
	char worst[200];	/* the metric of max_pct: "bench {params} metric" */
};
int fpl_result_repeatability(const struct fpl_result *r, double tol_pct,
			     struct fpl_unit_repeat *out, size_t max);
/* The same as a table for people (nothing when no metric has 2 runs). 0, -ENOMEM, -EIO. */
#define FPL_REPEAT_TOL_PCT 2.0
int fpl_table_repeatability(const struct fpl_result *r, double tol_pct, FILE *f);
/*
 * The section benchmark's table, like the 2018 report (inside, outside,
 * percent speedup, the cost per section): a block per unit o->units shows.
 * 0 or -EIO.
 */
int fpl_table_section(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);

/*
 * Write to an open stream. 0, -ENOMEM, or the failing write's -errno
 * (-ENOSPC, -EFBIG, -EIO...); diag (may be NULL) says which.
 */
int fpl_emit(const struct fpl_result *r, enum fpl_format fmt, FILE *f, struct fpl_diag *diag);

/*
 * Write to path atomically: a temporary file in the same directory, fsync,
 * rename. On any error the temporary file is removed and path is untouched.
 * 0 or -errno with diag naming the file.
 */
int fpl_emit_file(const struct fpl_result *r, enum fpl_format fmt, const char *path,
		  struct fpl_diag *diag);

/*
 * The same for any content: fill(f, arg, diag) fills the temporary file
 * (0 or -errno); then fsync and rename. 0 or -errno with diag naming path.
 * The temporary file is PATH's directory/.NAME.tmpXXXXXX; a caller that must
 * survive signals blocks them around the call. A symbolic link is followed
 * (its target is replaced, the link stays); a FIFO or a device (-o
 * /dev/stdout) is written into directly, not replaced.
 */
int fpl_write_file_atomic(const char *path, int (*fill)(FILE *f, void *arg,
							   struct fpl_diag *diag),
			  void *arg, struct fpl_diag *diag);

/*
 * Progress through a sequence of steps (fpulab run's benchmarks) as shown
 * to people: the fraction of the step under way only grows, the time left
 * only falls. Times in seconds on one clock of the caller's, which tests
 * may drive. Zero it before the first step.
 */
struct fpl_progress {
	double est_s;		/* the step under way: expected seconds */
	double rest_s;		/* the steps after it: expected seconds, together */
	double t_step;		/* when the step began */
	double done_est;	/* the steps done: expected seconds */
	double done_took;	/* the steps done: seconds taken */
	/* what to show, after fpl_progress_at */
	double frac;		/* the step's fraction done, 0..1 */
	double left;		/* seconds left in all */
	double at;		/* when it was worked out */
	bool shown;
};

/* A step expected to take est_s begins at now, with rest_s expected after it. */
void fpl_progress_step(struct fpl_progress *p, double est_s, double rest_s, double now);
/* The step under way ended at now. */
void fpl_progress_step_done(struct fpl_progress *p, double now);
/*
 * The step says it is frac done at now: p->frac and p->left become what to
 * show. The time left is this step's estimate, or its own pace when that
 * says more, plus the rest's, scaled by how the steps done compared with
 * theirs; never more than the last shown less the time since, never < 0.
 */
void fpl_progress_at(struct fpl_progress *p, double frac, double now);

#endif
