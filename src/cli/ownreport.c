// SPDX-License-Identifier: GPL-3.0-or-later
/* Ending a session whose report for people is the command's own (run, repro). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kernelview.h"
#include "ownreport.h"

static void clock_end(struct fpl_session *s, struct fpl_result *r)
{
	json_t *cj;

	fpl_clock_finish(s->clock);
	if (s->clock->suspect)
		fpl_result_warn(r, "suspect run: core clock drifted %+.2f%% (%.3f -> %.3f GHz, "
				"limit %.0f%%)", s->clock->drift_pct, s->clock->core_hz_start / 1e9,
				s->clock->core_hz_end / 1e9, FPL_CLOCK_DRIFT_MAX_PCT);
	cj = fpl_clock_json(s->clock);
	if (cj)
		json_object_set_new(cj, "selfcheck", fpl_selfcheck_json(&s->selfcheck));
	json_object_set_new(r->host, "clock", cj);
}

static int output(struct fpl_session *s, struct fpl_result *r, fpl_cli_print_fn print,
		  void *arg)
{
	struct fpl_diag diag = { "" };
	int err;

	if (s->out_path && fpl_emit_file(r, s->format_given ? s->format : FPL_FMT_JSON,
					 s->out_path, &diag))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	if (s->json_stdout || (s->format_given && s->format != FPL_FMT_TABLE)) {
		if (fpl_emit(r, s->json_stdout ? FPL_FMT_JSON : s->format, stdout, &diag))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
		return FPL_EXIT_OK;
	}
	if (s->format_given) {
		struct fpl_table_opts o = { .units = s->units, .warnings = true };

		if (fpl_emit_table(r, &o, stdout))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "writing the table failed");
	}
	if (s->format_given)
		fputc('\n', stdout);
	err = print(r, stdout, arg);
	if (!err && s->kernel_trace)
		err = fpl_table_kernel(r, stdout) < 0 ? -EIO : 0;
	if (err || fflush(stdout))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "writing the report: %s",
				     strerror(err ? -err : EIO));
	return FPL_EXIT_OK;
}

int fpl_cli_end_own(struct fpl_session *s, int rc, struct fpl_result *print_result,
		    fpl_cli_print_fn print, void *arg)
{
	struct fpl_result *r = print_result ? print_result : s->result;

	/* First: the instance must not outlive a failure to write the output. */
	fpl_session_ktrace_end(s);
	if (s->clock && s->result) {
		clock_end(s, s->result);
		if (print_result) {
			/* Clock, self-check and warnings belong to the derived result too. */
			json_array_extend(r->warnings, s->result->warnings);
			json_object_update(r->host, s->result->host);
		}
		if (rc != FPL_EXIT_USAGE) {
			int e = output(s, r, print, arg);

			if (e)
				rc = e;
		}
	}
	fpl_result_free(s->result);
	fpl_clock_free(s->clock);
	free(s->cpu);
	s->result = NULL;
	s->clock = NULL;
	s->cpu = NULL;
	return rc;
}
