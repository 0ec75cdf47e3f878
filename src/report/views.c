// SPDX-License-Identifier: GPL-3.0-or-later
/* The views table: one row per benchmark (table, lines under a run, summary, series, plots). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"
#include "views.h"

/* In the order the suite's summary shows them. */
const struct fpl_view fpl_views[] = {
	{ .bench = "xsave", .table = fpl_table_xsave, .summary = fpl_summary_xsave,
	  .plots = FPL_PLOT_XSAVE },
	{ .bench = "ctxsw", .run_lines = fpl_run_lines_ctxsw, .summary = fpl_summary_ctxsw,
	  .series = fpl_series_ctxsw, .plots = FPL_PLOT_CTXSW },
	{ .bench = "signal", .run_lines = fpl_run_lines_signal, .summary = fpl_summary_signal },
	{ .bench = "xor", .table = fpl_table_xor, .summary = fpl_summary_xor,
	  .plots = FPL_PLOT_XOR },
	{ .bench = "section", .table = fpl_table_section, .summary = fpl_summary_section },
	{ .bench = "kvm", .table = fpl_table_kvm, .summary = fpl_summary_kvm,
	  .series = fpl_series_kvm },
};
const size_t fpl_nviews = sizeof(fpl_views) / sizeof(fpl_views[0]);

const struct fpl_view *fpl_view_find(const char *bench)
{
	for (size_t i = 0; bench && i < fpl_nviews; i++)
		if (!strcmp(fpl_views[i].bench, bench))
			return &fpl_views[i];
	return NULL;
}

/* The one benchmark of r's runs; NULL when there are none or several. */
static const char *only_bench(const struct fpl_result *r)
{
	const char *b = NULL;

	for (size_t i = 0; i < r->nruns; i++) {
		if (b && strcmp(b, r->runs[i]->bench))
			return NULL;
		b = r->runs[i]->bench;
	}
	return b;
}

void fpl_view_run_lines(const struct fpl_run *run, FILE *f)
{
	const struct fpl_view *v = fpl_view_find(run->bench);

	if (v && v->run_lines)
		v->run_lines(run, f);
}

int fpl_view_generic_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	struct fpl_table_opts with = *o;

	with.run_lines = fpl_view_run_lines;
	return fpl_emit_table(r, &with, f);
}

int fpl_view_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	const struct fpl_view *v = fpl_view_find(only_bench(r));
	struct fpl_table_opts with = *o;
	/*
	 * One run, skipped before it began (nothing asked for could run here:
	 * fpl_session_skip, no observation): its reason, not an empty table.
	 */
	bool whole_skip = r->nruns == 1 && r->runs[0]->skipped &&
			  !json_object_size(r->runs[0]->observed);

	with.run_lines = fpl_view_run_lines;
	return v && v->table && !whole_skip ? v->table(r, &with, f) : fpl_emit_table(r, &with, f);
}

void fpl_views_summary(const struct fpl_result *r, FILE *f)
{
	for (size_t i = 0; i < fpl_nviews; i++)
		if (fpl_views[i].summary)
			fpl_views[i].summary(r, f);
}

int fpl_views_series(const struct fpl_result *r, FILE *f)
{
	int err = 0;

	for (size_t i = 0; i < fpl_nviews && !err; i++)
		if (fpl_views[i].series)
			err = fpl_views[i].series(r, f);
	return err;
}

/* The first run of a series in its benchmark's own table, headed; nothing without one. */
static int first_run_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	struct fpl_result first = { .host = r->host, .warnings = r->warnings };
	const struct fpl_view *v;
	int err = 0;

	first.runs = calloc(r->nruns + 1, sizeof(*first.runs));
	if (!first.runs)
		return -ENOMEM;
	for (size_t i = 0; i < r->nruns; i++)
		if (fpl_run_obs_get_int(r->runs[i], "run_index", 1) == 1)
			first.runs[first.nruns++] = r->runs[i];
	v = fpl_view_find(only_bench(&first));
	if (v && v->table) {
		fprintf(f, "%s's own table, run 1 (every run's figures are in the file, -o or "
			"--json):\n\n", v->bench);
		err = v->table(&first, o, f);
		fputc('\n', f);
	}
	free(first.runs);
	return err;
}

int fpl_view_series(const struct fpl_result *r, const struct fpl_table_opts *o, long done,
		    long requested, FILE *f)
{
	int err = first_run_table(r, o, f);

	return err ? err : fpl_table_runs(r, done, requested, fpl_views_series, f);
}
