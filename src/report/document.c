// SPDX-License-Identifier: GPL-3.0-or-later
/* A results document for people, as the command that wrote it printed it (fpulab show, repro). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/bench.h"
#include "kernelview.h"
#include "repro.h"
#include "summary.h"
#include "views.h"

int fpl_repro_write(const struct fpl_result *r, unsigned what, const struct fpl_result *traced,
		    bool cet_s, bool amx, FILE *f, struct fpl_diag *diag)
{
	int err = 0;

	if ((what & FPL_REPRO_RFBM) && fpl_repro_has_rfbm(r)) {
		fprintf(
		    f, "== RFBM and context switches (2024 report: 100%% / 99.80%% / 99.76%%)\n\n");
		err = fpl_repro_rfbm_write(r, f, diag);
		if (!err && traced)
			fpl_repro_kernel_lines(traced, cet_s, amx, f);
	}
	if (!err && (what & FPL_REPRO_KFPU) && fpl_repro_has_kfpu(r)) {
		fprintf(f, "%s== FNINIT and MXCSR in kernel_fpu_begin (2021 report)\n\n",
			what & FPL_REPRO_RFBM ? "\n" : "");
		err = fpl_repro_kfpu_write(r, f, diag);
	}
	if (!err && (what & FPL_REPRO_LAZY) && fpl_repro_has_lazy(r)) {
		fprintf(f, "%s== Lazy restore (2018 report)\n\n",
			what & (FPL_REPRO_RFBM | FPL_REPRO_KFPU) ? "\n" : "");
		err = fpl_repro_lazy_write(r, f, diag);
	}
	return err;
}

/*
 * The command's name in host.command: the program's own name where fpulab
 * was called by a command's name (a link named repro dispatches as
 * fpulab repro), else the word after the program and a global --amx.
 */
static const char *command_name(const struct fpl_result *r)
{
	const char *prog = fpl_result_command_word(r, 0), *w = fpl_result_command_word(r, 1);
	const char *base = prog ? strrchr(prog, '/') : NULL;

	base = base ? base + 1 : prog;
	if (base && (!strcmp(base, "run") || !strcmp(base, "repro") || fpl_bench_find(base)))
		return base;
	return w && !strcmp(w, "--amx") ? fpl_result_command_word(r, 2) : w;
}

static bool has_bench(const struct fpl_result *r, const char *bench)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!strcmp(r->runs[i]->bench, bench))
			return true;
	return false;
}

/* Runs of a --runs series: host.runs.completed, else the largest observed.run_index; 1. */
static long series_runs(const struct fpl_result *r)
{
	json_t *done = json_object_get(json_object_get(r->host, "runs"), "completed");
	long n = 1;

	if (json_is_integer(done) && json_integer_value(done) > 0)
		return (long)json_integer_value(done);

	for (size_t i = 0; i < r->nruns; i++) {
		long k = fpl_run_obs_get_int(r->runs[i], "run_index", 1);

		n = k > n ? k : n;
	}
	return n;
}

enum fpl_doc_kind fpl_doc_kind(const struct fpl_result *r)
{
	const char *cmd = command_name(r);
	bool several = false;

	if (!r->nruns)
		return FPL_DOC_EMPTY;
	if (cmd ? !strcmp(cmd, "repro") : has_bench(r, FPL_REPRO_BENCH))
		return FPL_DOC_REPRO;
	if (series_runs(r) > 1 || json_object_get(r->host, "runs"))
		return FPL_DOC_SERIES;
	for (size_t i = 1; i < r->nruns && !several; i++)
		several = strcmp(r->runs[i]->bench, r->runs[0]->bench) != 0;
	return (cmd ? !strcmp(cmd, "run") : several) ? FPL_DOC_SUITE : FPL_DOC_BENCH;
}

void fpl_view_document_stderr(const struct fpl_result *r, FILE *f)
{
	const char *cmd = command_name(r);
	size_t i;
	json_t *w;

	switch (fpl_doc_kind(r)) {
	case FPL_DOC_SERIES:
		fpl_table_runs_warnings(r, cmd ? cmd : "run", series_runs(r), f);
		break;
	case FPL_DOC_REPRO:
		json_array_foreach(r->warnings, i, w)
			fprintf(f, "fpulab repro: warning: %s\n", json_string_value(w));
		for (size_t k = 0; k < r->nruns; k++)
			json_array_foreach(r->runs[k]->warnings, i, w)
				fprintf(f, "fpulab repro: warning (%s): %s\n", r->runs[k]->bench,
					json_string_value(w));
		break;
	default:
		break;
	}
}

int fpl_view_document(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f,
		      struct fpl_diag *diag)
{
	json_t *runs = json_object_get(r->host, "runs");
	long done = series_runs(r), asked = (long)json_integer_value(json_object_get(runs,
										      "requested"));
	int err;

	switch (fpl_doc_kind(r)) {
	case FPL_DOC_REPRO:
		/* the experiments it holds, so that the headings are spaced as repro's were */
		err = fpl_repro_write(r, (fpl_repro_has_rfbm(r) ? FPL_REPRO_RFBM : 0u) |
				      (fpl_repro_has_kfpu(r) ? FPL_REPRO_KFPU : 0u) |
				      (fpl_repro_has_lazy(r) ? FPL_REPRO_LAZY : 0u), NULL, false,
				      false, f, diag);
		break;
	case FPL_DOC_SERIES:
		/* as the command: its warnings counted here, in full on stderr */
		err = fpl_view_series(r, &(struct fpl_table_opts){ .units = o->units }, done,
				      asked > done ? asked : done, f);
		break;
	case FPL_DOC_SUITE:
		err = fpl_summary_write(r, f);
		if (!err)
			err = fpl_summary_ran(r, f);
		/* --kernel-trace's table comes last; nothing when no run was traced */
		if (!err && fpl_table_kernel(r, f) < 0)
			err = -EIO;
		break;
	case FPL_DOC_BENCH:
		err = fpl_view_table(r, o, f);
		if (!err && fpl_table_kernel(r, f) < 0)
			err = -EIO;
		break;
	default:
		fprintf(f, "No runs in this document.\n");
		err = 0;
		break;
	}
	if (err && !diag->msg[0])
		fpl_diag_set(diag, err, "writing the report: %s", strerror(-err));
	return err || ferror(f) ? (err ? err : -EIO) : 0;
}
