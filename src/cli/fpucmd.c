// SPDX-License-Identifier: GPL-3.0-or-later
/* A benchmark command with its own table: the session of cli.h, with the printer in place of the generic table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "fpucmd.h"

static int parse(const struct fpl_bench *b, struct fpl_session *s, int argc, char **argv,
		 struct fpl_optval *opts, size_t *nopts)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		const struct fpl_opt *o;
		char *name;
		int rc = fpl_session_common_opt(s, argc, argv, &i);

		if (rc < 0)
			return -rc;
		if (rc)
			continue;
		if (strncmp(a, "--", 2) || !a[2])
			return fpl_cli_usage_error(b->name, "unexpected argument '%s'", a);
		eq = strchr(a, '=');
		name = eq ? strndup(a + 2, (size_t)(eq - a - 2)) : strdup(a + 2);
		if (!name)
			return fpl_cli_error(b->name, FPL_EXIT_FAIL, "out of memory");
		o = fpl_bench_find_opt(b, name);
		opts[*nopts].name = name;
		(*nopts)++;
		if (eq)
			opts[*nopts - 1].value = eq + 1;
		else if (o && o->type != FPL_OPT_FLAG && i + 1 < argc)
			opts[*nopts - 1].value = argv[++i];
		else if (o && o->type != FPL_OPT_FLAG)
			return fpl_cli_usage_error(b->name, "--%s needs a value", name);
	}
	return FPL_EXIT_OK;
}

static void warnings(const struct fpl_session *s)
{
	size_t i;
	json_t *w;

	json_array_foreach(s->result->warnings, i, w)
		fprintf(stderr, "fpulab %s: warning: %s\n", s->cmd, json_string_value(w));
	for (size_t r = 0; r < s->result->nruns; r++)
		json_array_foreach(s->result->runs[r]->warnings, i, w)
			fprintf(stderr, "fpulab %s: warning: %s\n", s->cmd, json_string_value(w));
}

/* fpl_session_end(), except that the table for people is the command's own. */
static int end(const struct fpl_fpucmd *cmd, struct fpl_session *s, int rc)
{
	struct fpl_diag diag = { "" };
	json_t *cj;

	if (s->clock && s->result) {
		fpl_clock_finish(s->clock);
		if (s->clock->suspect)
			fpl_result_warn(s->result, "suspect run: core clock drifted %+.2f%% "
					"(%.3f -> %.3f GHz, limit %.0f%%)", s->clock->drift_pct,
					s->clock->core_hz_start / 1e9, s->clock->core_hz_end / 1e9,
					FPL_CLOCK_DRIFT_MAX_PCT);
		cj = fpl_clock_json(s->clock);
		if (cj)
			json_object_set_new(cj, "selfcheck", fpl_selfcheck_json(&s->selfcheck));
		json_object_set_new(s->result->host, "clock", cj);
		if (rc == FPL_EXIT_OK || rc == FPL_EXIT_UNSUPPORTED || *s->stop) {
			if (s->out_path && fpl_emit_file(s->result, s->format_given ? s->format :
							 FPL_FMT_JSON, s->out_path, &diag))
				rc = fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
			else if (s->json_stdout || s->format != FPL_FMT_TABLE) {
				if (fpl_emit(s->result, s->json_stdout ? FPL_FMT_JSON : s->format,
					     stdout, &diag))
					rc = fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
			} else {
				cmd->print(s->result, stdout);
			}
		}
		warnings(s);
	}
	fpl_result_free(s->result);
	fpl_clock_free(s->clock);
	free(s->cpu);
	s->result = NULL;
	s->clock = NULL;
	s->cpu = NULL;
	return rc;
}

int fpl_fpucmd_main(const struct fpl_fpucmd *cmd, int argc, char **argv)
{
	const struct fpl_bench *b = fpl_bench_find(cmd->bench);
	struct fpl_optval *opts = calloc((size_t)argc + 1, sizeof(*opts));
	struct fpl_diag diag = { "" };
	struct fpl_session s;
	size_t nopts = 0;
	int rc;

	fpl_session_init(&s, cmd->bench);
	if (!b || !opts) {
		free(opts);
		return fpl_cli_error(cmd->bench, FPL_EXIT_FAIL, b ? "out of memory" : "not built in");
	}
	rc = parse(b, &s, argc, argv, opts, &nopts);
	if (rc == FPL_EXIT_OK && fpl_bench_check_opts(b, opts, nopts, &diag))
		rc = fpl_cli_usage_error(cmd->bench, "%s", diag.msg);
	if (rc == FPL_EXIT_OK && cmd->check) {
		struct fpl_bench_env env = { .bench = b, .opts = opts, .nopts = nopts };

		if (cmd->check(&env, &diag))
			rc = fpl_cli_usage_error(cmd->bench, "%s", diag.msg);
	}
	if (rc == FPL_EXIT_OK) {
		rc = fpl_session_start(&s);
		if (rc == FPL_EXIT_OK)
			rc = fpl_session_run(&s, b, opts, nopts);
		rc = end(cmd, &s, rc);
	}
	for (size_t k = 0; k < nopts; k++)
		free((char *)opts[k].name);
	free(opts);
	return rc;
}

const struct fpl_metric *fpl_fpucmd_metric(const struct fpl_run *run, const char *name)
{
	return fpl_run_find_metric(run, name);
}

double fpl_fpucmd_median(const struct fpl_metric *m)
{
	struct fpl_summary s;

	return m && m->n && !fpl_summarize(m->samples, m->n, 0, &s) ? s.median : NAN;
}

bool fpl_fpucmd_ci(const struct fpl_metric *m, double *est, double *lo, double *hi)
{
	if (!m || !json_is_object(m->extra))
		return false;
	*est = json_real_value(json_object_get(m->extra, "estimate"));
	*lo = json_real_value(json_object_get(m->extra, "ci95_lo"));
	*hi = json_real_value(json_object_get(m->extra, "ci95_hi"));
	return json_object_get(m->extra, "estimate") != NULL;
}

const char *fpl_fpucmd_param_str(const struct fpl_run *run, const char *key)
{
	const char *v = json_string_value(json_object_get(run->params, key));

	return v ? v : "";
}

long long fpl_fpucmd_param_int(const struct fpl_run *run, const char *key)
{
	return (long long)json_integer_value(json_object_get(run->params, key));
}
