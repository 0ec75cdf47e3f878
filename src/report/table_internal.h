/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the tables for people (emit.c, table_*.c): notes, wrapping, summaries, params. */
#ifndef FPULAB_REPORT_TABLE_INTERNAL_H
#define FPULAB_REPORT_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "fpulab/report.h"
#include "fpulab/stats.h"

#define FPL_TBL_WIDTH 96	/* text is wrapped to fit a 100-column terminal */

/* Distinct texts, numbered from 1 in order of first use; each printed once. */
struct fpl_tbl_notes {
	char **text;
	size_t n;
};

/* The number of text (added if new); 0 when out of memory. */
size_t fpl_tbl_note(struct fpl_tbl_notes *nt, const char *text);
/* "[k] text" per note, wrapped; label "" or a letter prefix such as "u". */
void fpl_tbl_notes_print(FILE *f, const struct fpl_tbl_notes *nt, const char *label);
void fpl_tbl_notes_free(struct fpl_tbl_notes *nt);

/* Index of s in list[0..*n) (appended when new and room is left, at most max); -1 when full. */
int fpl_tbl_slot(const char **list, size_t *n, size_t max, const char *s);

/* text wrapped at spaces to FPL_TBL_WIDTH, continuation lines indented by hang. */
void fpl_tbl_wrap(FILE *f, const char *text, size_t hang);
/* "label" padded to width, then text wrapped with its continuation lines under it. */
void fpl_tbl_wrap_labelled(FILE *f, const char *label, size_t width, const char *text);

/* Summary over the finite samples; false when there are none. */
bool fpl_tbl_summary(const struct fpl_metric *m, struct fpl_summary *s);

/* Warnings of the result and its runs: in full, or their count (o->warnings false). */
void fpl_tbl_warnings(const struct fpl_result *r, const struct fpl_run *const *runs,
		      size_t nruns, const struct fpl_table_opts *o, FILE *f);

/*
 * The time units of --units: "cycles", "tsc", "ns" (a metric's unit and the
 * harness's name suffix; "all" for FPL_UNITS_ALL), and in words ("core
 * cycles", "TSC ticks", "ns").
 */
const char *fpl_tbl_unit_name(enum fpl_units u);
const char *fpl_tbl_unit_words(enum fpl_units u);
/* Whether a table made with o shows time unit u (not FPL_UNITS_ALL): the one chosen, or all. */
bool fpl_tbl_unit_shown(const struct fpl_table_opts *o, enum fpl_units u);
/* "Units:" and the notes ("[u1] ..."), saying which --units shows the others when one was chosen. */
void fpl_tbl_units_legend(FILE *f, const struct fpl_table_opts *o,
			  const struct fpl_tbl_notes *units);

/* A run's string parameter, "" when absent. */
const char *fpl_tbl_param_str(const struct fpl_run *run, const char *key);
/* "k=v k=v" (sep between pairs) from a params object, in key order of insertion. */
void fpl_tbl_params_text(const json_t *params, char *buf, size_t size, char sep);
/* extra.estimate, ci95_lo, ci95_hi of a metric; false when absent. */
bool fpl_tbl_metric_ci(const struct fpl_metric *m, double *est, double *lo, double *hi);

/*
 * Whether m's median cannot be told from zero: zero lies between its
 * quartiles (a quarter of the samples or more on each side of it), or the
 * median is less than one TSC step over the sample's reps
 * (host.clock.step_tsc, in m's unit); at least 6 samples. Then *bound is
 * the figure it is below: the larger of the quartiles (in size) and that
 * step, rounded up to decimals. Printed "below resolution: < N" instead of
 * a 0.0 that reads as a measured zero (issue 32 item 3).
 */
bool fpl_tbl_below_resolution(const struct fpl_result *r, const struct fpl_metric *m,
			      int decimals, double *bound);
/* "142 [139, 150]": median [q1, q3] of s into buf, digits chosen by size. */
const char *fpl_tbl_mq(char *buf, size_t size, const struct fpl_summary *s);
/*
 * The line under a summary block on the FXSAVE64 reference of the run's
 * cell (bench/interference.h): how often it read its floor, or the rounds
 * kept; nothing when the run has no observed.interference.
 */
void fpl_tbl_interference_line(const struct fpl_run *run, FILE *f);

/*
 * Under an A/B run whose two states are the same (--ab X,X): one line,
 * indented, saying it is an A/A control and what its verdict may claim.
 * Whether it printed.
 */
bool fpl_tbl_aa_line(const struct fpl_run *run, size_t indent, FILE *f);

/* The configuration in a few words: the params that tell this benchmark's runs of r apart, k=v. */
void fpl_tbl_config_str(const struct fpl_result *r, const struct fpl_run *run, char *buf, size_t n);
/*
 * The medians of metric name in the runs [from, nruns) of r whose
 * configuration key is key: the same metric of the same configuration in
 * every run of a series. Their count, at most FPL_RUNS_MAX into v.
 */
size_t fpl_tbl_run_medians(const struct fpl_result *r, size_t from, const char *name,
			   const char *key, double *v);

#endif
