/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The views of each benchmark, one row each, that every command looks up (src/report/views.c). */
#ifndef FPULAB_REPORT_VIEWS_H
#define FPULAB_REPORT_VIEWS_H

#include <stdio.h>

#include "fpulab/report.h"
#include "fpulab/result.h"

/*
 * One benchmark's views. A benchmark without a row (or a NULL member) is
 * shown by the generic table alone. Each function reads only the runs of
 * r that are its benchmark's.
 */
struct fpl_view {
	const char *bench;
	/* Its table for people (fpulab BENCH, --format table); NULL: the generic table. */
	int (*table)(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);
	/* Lines under each of its runs in the generic table (ctxsw's A/B verdicts). */
	void (*run_lines)(const struct fpl_run *run, FILE *f);
	/* Its block of the suite's summary (fpulab run). */
	void (*summary)(const struct fpl_result *r, FILE *f);
	/*
	 * Its lines under the table of a --runs series: what the runs show
	 * together (ctxsw --ab: B - A over the runs). 0 or -ENOMEM.
	 */
	int (*series)(const struct fpl_result *r, FILE *f);
	/* The charts fpulab plot offers for it (FPL_PLOT_* bits of report/plot.h). */
	unsigned plots;
};

/* Every row, in the order the summary shows them. */
extern const struct fpl_view fpl_views[];
extern const size_t fpl_nviews;
/* The row of a benchmark; NULL when it has none. */
const struct fpl_view *fpl_view_find(const char *bench);

/*
 * What a benchmark's command prints of r: its view's table when every run
 * of r is of one benchmark that has one, else the generic table
 * (fpl_emit_table, with each run's run_lines).
 */
int fpl_view_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);
/*
 * A --runs series for people: its first run (observed.run_index 1) in its
 * benchmark's own table, headed as such, when it has one (the table the
 * benchmark's command shows for one run); then fpl_table_runs with every
 * view's series lines. 0, -ENOMEM, -EIO.
 */
int fpl_view_series(const struct fpl_result *r, const struct fpl_table_opts *o, long done,
		    long requested, FILE *f);
/* The generic table (fpl_emit_table) with each run's view's lines under it. */
int fpl_view_generic_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);
/* The generic table's lines under one run (its view's run_lines); nothing without. */
void fpl_view_run_lines(const struct fpl_run *run, FILE *f);
/* Every view's summary block, in the rows' order. */
void fpl_views_summary(const struct fpl_result *r, FILE *f);
/* Every view's series lines, in the rows' order. 0 or -ENOMEM. */
int fpl_views_series(const struct fpl_result *r, FILE *f);

/*
 * What a results document is, for printing it as the command that wrote it
 * did: by host.command's command word where the document has one, else by
 * its runs (bench "repro" runs; more than one run_index or host.runs; more
 * than one benchmark).
 */
enum fpl_doc_kind {
	FPL_DOC_EMPTY,	/* no runs */
	FPL_DOC_BENCH,	/* one benchmark's command, one process: its table */
	FPL_DOC_SUITE,	/* fpulab run: the summary */
	FPL_DOC_SERIES,	/* --runs N: the first run's table and the series */
	FPL_DOC_REPRO,	/* fpulab repro: the reports' tables */
};
enum fpl_doc_kind fpl_doc_kind(const struct fpl_result *r);

/*
 * r for people as its command printed it (fpl_doc_kind): fpl_view_table,
 * fpl_summary_write, fpl_view_series or the repro tables (fpl_repro_write
 * without the kernel-trace lines, which a document does not keep). 0, or
 * -errno with diag.
 */
int fpl_view_document(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f,
		      struct fpl_diag *diag);
/*
 * What the command wrote on stderr besides: a series' warnings, once each
 * (fpl_table_runs_warnings), repro's; nothing for the others, whose views
 * print their warnings. "fpulab CMD: warning ..." lines.
 */
void fpl_view_document_stderr(const struct fpl_result *r, FILE *f);

/* The rows' functions, each in its benchmark's table file. */
void fpl_summary_xsave(const struct fpl_result *r, FILE *f);
void fpl_summary_ctxsw(const struct fpl_result *r, FILE *f);
void fpl_summary_signal(const struct fpl_result *r, FILE *f);
void fpl_summary_xor(const struct fpl_result *r, FILE *f);
void fpl_summary_section(const struct fpl_result *r, FILE *f);
int fpl_table_kvm(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);
void fpl_summary_kvm(const struct fpl_result *r, FILE *f);
int fpl_series_kvm(const struct fpl_result *r, FILE *f);
void fpl_run_lines_ctxsw(const struct fpl_run *run, FILE *f);
/* signal --ab: B - A per round (paired, the figure to quote), Welch, Yuen; an A/A said so. */
void fpl_run_lines_signal(const struct fpl_run *run, FILE *f);
int fpl_series_ctxsw(const struct fpl_result *r, FILE *f);

#endif
