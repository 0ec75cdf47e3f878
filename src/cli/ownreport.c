// SPDX-License-Identifier: GPL-3.0-or-later
/* Ending a session whose report for people is the command's own (run, repro). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kernelview.h"
#include "ownreport.h"

static int output(struct fpl_session *s, int rc, struct fpl_result *r, fpl_cli_print_fn print,
		  void *arg)
{
	char alt[4096];
	const char *path = fpl_session_out_file(s, *s->stop && rc != FPL_EXIT_OK &&
						rc != FPL_EXIT_UNSUPPORTED, alt, sizeof(alt));
	struct fpl_diag diag = { "" };
	int err;

	if (path) {
		sigset_t old;

		fpl_cli_hold_signals(&old);
		err = fpl_emit_file(r, s->format_given ? s->format : FPL_FMT_JSON, path, &diag);
		fpl_cli_release_signals(&old);
		if (err)
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
		if (path != s->out_path)
			fprintf(stderr, "fpulab %s: interrupted: %s kept; what was measured is in "
				"%s\n", s->cmd, s->out_path, path);
	}
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
		fpl_session_clock_end(s);
		if (print_result) {
			/* Clock, self-check and warnings belong to the derived result too. */
			json_array_extend(r->warnings, s->result->warnings);
			json_object_update(r->host, s->result->host);
		}
		if (rc != FPL_EXIT_USAGE) {
			int e = output(s, rc, r, print, arg);

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
