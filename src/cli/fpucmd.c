// SPDX-License-Identifier: GPL-3.0-or-later
/* A benchmark command with its own table: the session of cli.h with its print_table hook. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "fpucmd.h"
#include "runs.h"

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
		/* Naming tile state asks for AMX permission, as --amx does. */
		if (!s->amx && fpl_cli_names_amx(opts[*nopts - 1].value)) {
			s->amx = true;
			snprintf(s->amx_by, sizeof(s->amx_by), "--%.30s %.60s", name,
				 opts[*nopts - 1].value);
		}
	}
	return FPL_EXIT_OK;
}

int fpl_cli_bench_check(const char *cmd, const struct fpl_bench *b,
			const struct fpl_optval *opts, size_t nopts)
{
	struct fpl_bench_env env = { .bench = b, .opts = opts, .nopts = nopts };
	struct fpl_cpu *cpu;
	struct fpl_diag diag = { "" };
	int rc = FPL_EXIT_OK;

	if (!b->check)
		return FPL_EXIT_OK;
	cpu = malloc(sizeof(*cpu));
	if (!cpu)
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "out of memory");
	fpl_cpu_read(cpu);
	env.cpu = cpu;
	if (b->check(&env, &diag))
		rc = strcmp(cmd, b->name) ? fpl_cli_usage_error(cmd, "%s: %s", b->name, diag.msg)
					  : fpl_cli_usage_error(cmd, "%s", diag.msg);
	free(cpu);
	return rc;
}

static int fpucmd_once(const struct fpl_fpucmd *cmd, int argc, char **argv)
{
	const struct fpl_bench *b = fpl_bench_find(cmd->bench);
	struct fpl_optval *opts = calloc((size_t)argc + 1, sizeof(*opts));
	struct fpl_diag diag = { "" };
	struct fpl_session s;
	size_t nopts = 0;
	int rc;

	fpl_session_init(&s, cmd->bench);
	s.print_table = cmd->print;
	s.table = cmd->table;
	if (!b || !opts) {
		free(opts);
		return fpl_cli_error(cmd->bench, FPL_EXIT_FAIL, b ? "out of memory" : "not built in");
	}
	rc = parse(b, &s, argc, argv, opts, &nopts);
	/* Before the benchmark's check reads the permitted mask, and before any sigaltstack. */
	if (rc == FPL_EXIT_OK)
		fpl_session_amx(&s);
	if (rc == FPL_EXIT_OK && fpl_bench_check_opts(b, opts, nopts, &diag))
		rc = fpl_cli_usage_error(cmd->bench, "%s", fpl_cli_unprefix(cmd->bench, diag.msg));
	if (rc == FPL_EXIT_OK)
		rc = fpl_cli_bench_check(cmd->bench, b, opts, nopts);
	if (rc == FPL_EXIT_OK) {
		rc = fpl_session_start(&s);
		if (rc == FPL_EXIT_OK)
			rc = fpl_session_run(&s, b, opts, nopts);
		rc = fpl_session_end(&s, rc);
	}
	for (size_t k = 0; k < nopts; k++)
		free((char *)opts[k].name);
	free(opts);
	return rc;
}

/* --runs N: N fresh processes of this command (runs.c); without it or with 1: this one. */
int fpl_fpucmd_main(const struct fpl_fpucmd *cmd, int argc, char **argv)
{
	struct fpl_runs_opt o;
	int rc = fpl_runs_take(cmd->bench, &argc, argv, &o);

	if (rc)
		return rc;
	return o.n > 1 ? fpl_runs_main(cmd->bench, argc, argv, &o) : fpucmd_once(cmd, argc, argv);
}

const struct fpl_metric *fpl_fpucmd_metric(const struct fpl_run *run, const char *name)
{
	return fpl_run_find_metric(run, name);
}

double fpl_fpucmd_median(const struct fpl_metric *m)
{
	return fpl_metric_median(m);
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
