// SPDX-License-Identifier: GPL-3.0-or-later
/* A benchmark command (fpulab BENCH): its options, its check, one session or --runs N, its help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runs.h"

/*
 * --NAME[=V] that is not the benchmark's: named before anything after it is
 * read as its value. A common flag given a value (--json=1) says so.
 */
static int unknown_opt(const struct fpl_bench *b, struct fpl_cli *c, bool named, const char *a,
		       const char *eq)
{
	int len = eq ? (int)(eq - a) : (int)strlen(a), i = 0, rc;
	char *bare = strndup(a, (size_t)len);
	struct fpl_cli scratch = *c;

	if (!bare)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	/* Alone, with nothing after it: only a flag of the common options takes it. */
	rc = eq ? fpl_cli_common_opt(&scratch, 1, &bare, &i) : 0;
	free(bare);
	if (rc > 0)
		return fpl_cli_usage_error(c->cmd, "%.*s takes no value ('%s')", len, a, a);
	if (named)
		return fpl_cli_usage_error(c->cmd, "%s has no option %.*s (fpulab %s --help)",
					   b->name, len, a, b->name);
	return fpl_cli_usage_error(c->cmd, "unknown option '%.*s'", len, a);
}

int fpl_cli_bench_opt(struct fpl_cli *c, const struct fpl_bench *b, bool named, int argc,
		      char **argv, int *i, struct fpl_optval *opt)
{
	const char *a = argv[*i], *eq = strchr(a, '=');
	const struct fpl_opt *o;
	char *name = eq ? strndup(a + 2, (size_t)(eq - a - 2)) : strdup(a + 2);

	if (!name)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	o = fpl_bench_find_opt(b, name);
	*opt = (struct fpl_optval){ name, eq ? eq + 1 : NULL };
	if (!o) {
		free(name);
		return unknown_opt(b, c, named, a, eq);
	}
	if (!eq && o->type != FPL_OPT_FLAG && *i + 1 < argc)
		opt->value = argv[++*i];
	else if (!eq && o->type != FPL_OPT_FLAG) {
		free(name);
		return fpl_cli_usage_error(c->cmd, "%s%s--%s needs a value", named ? b->name : "",
					   named ? ": " : "", o->name);
	}
	/* Naming tile state asks for AMX permission, as --amx does. */
	fpl_cli_amx_implied(c, named ? b->name : NULL, name, opt->value);
	return FPL_EXIT_OK;
}

static int parse(const struct fpl_bench *b, struct fpl_cli *s, int argc, char **argv,
		 struct fpl_optval *opts, size_t *nopts)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = fpl_cli_common_opt(s, argc, argv, &i);

		if (rc < 0)
			return -rc;
		if (rc)
			continue;
		if (strncmp(a, "--", 2) || !a[2])
			return fpl_cli_usage_error(b->name, "unexpected argument '%s'", a);
		rc = fpl_cli_bench_opt(s, b, false, argc, argv, &i, &opts[*nopts]);
		if (rc)
			return rc;
		(*nopts)++;
	}
	return FPL_EXIT_OK;
}

static int bench_cmd_once(const struct fpl_bench_cmd *cmd, int argc, char **argv)
{
	const struct fpl_bench *b = fpl_bench_find(cmd->bench);
	struct fpl_optval *opts = calloc((size_t)argc + 1, sizeof(*opts));
	struct fpl_bench_call call;
	struct fpl_cli c;
	size_t nopts = 0;
	int rc;

	fpl_cli_init(&c, cmd->bench);
	if (!b || !opts) {
		free(opts);
		return fpl_cli_error(cmd->bench, FPL_EXIT_FAIL, b ? "out of memory" : "not built in");
	}
	rc = parse(b, &c, argc, argv, opts, &nopts);
	/* AMX asked before the benchmark's check reads the permitted mask, and before any sigaltstack. */
	if (rc == FPL_EXIT_OK)
		rc = fpl_cli_prepare(&c, b->name, opts, nopts, &call);
	/* Nothing asked for can be measured here: the skip and its reason, nothing measured. */
	if (rc == FPL_EXIT_UNSUPPORTED)
		rc = fpl_cli_skip_unmeasured(&c, b->name, opts, nopts);
	if (rc == FPL_EXIT_OK) {
		rc = fpl_cli_start(&c);
		if (rc == FPL_EXIT_OK)
			rc = fpl_cli_call(&c, &call);
		fpl_bench_call_free(&call);
	}
	rc = fpl_cli_end(&c, rc);
	for (size_t k = 0; k < nopts; k++)
		free((char *)opts[k].name);
	free(opts);
	return rc;
}

/* --runs N: N fresh processes of this command (runs.c); without it or with 1: this one. */
int fpl_bench_cmd_main(const struct fpl_bench_cmd *cmd, int argc, char **argv)
{
	struct fpl_runs_opt o;
	int rc = fpl_runs_take(cmd->bench, &argc, argv, &o);

	if (rc)
		return rc;
	return o.n > 1 ? fpl_runs_main(cmd->bench, argc, argv, &o) : bench_cmd_once(cmd, argc, argv);
}

static void opt_help(const struct fpl_opt *o, FILE *f)
{
	char head[64];

	snprintf(head, sizeof(head), "--%s%s", o->name,
		 o->type == FPL_OPT_FLAG ? "" : o->type == FPL_OPT_STR ? " TEXT" :
		 o->type == FPL_OPT_INT ? " N" : " X");
	fprintf(f, "  %-22s %s", head, o->help ? o->help : "");
	if (o->choices) {
		fputs(" (", f);
		for (const char *const *c = o->choices; *c; c++)
			fprintf(f, "%s%s", c == o->choices ? "" : "|", *c);
		fputc(')', f);
	}
	/* Integers as integers: [0..1073741824], not [0..1.07374e+09]. */
	if (o->type == FPL_OPT_INT && (o->min || o->max))
		fprintf(f, " [%.0f..%.0f]", o->min, o->max);
	else if (o->type == FPL_OPT_REAL && (o->min || o->max))
		fprintf(f, " [%g..%g]", o->min, o->max);
	if (o->def)
		fprintf(f, " (default %s)", o->def);
	fputc('\n', f);
}

void fpl_cli_bench_help(const char *bench, FILE *f)
{
	const struct fpl_bench *b = fpl_bench_find(bench);

	fprintf(f, "Usage: fpulab %s [OPTIONS]\n", bench);
	if (!b) {
		fprintf(f, "(benchmark %s is not built in)\n", bench);
		return;
	}
	fprintf(f, "%s\n\n", b->summary);
	if (b->opts && b->opts->name) {
		fputs("Options:\n", f);
		for (const struct fpl_opt *o = b->opts; o->name; o++)
			opt_help(o, f);
		fputc('\n', f);
	}
	fpl_cli_common_help(f);
	if (b->budget.full_s > 0) {
		fprintf(f, "\nDefault --budget: %g s (with --quick: %g s)", b->budget.full_s,
			b->budget.quick_s);
		if (b->budget_ab.full_s > 0)
			fprintf(f, "; with --ab: %g s (with --quick: %g s)", b->budget_ab.full_s,
				b->budget_ab.quick_s);
		fputs(".\n", f);
	}
	fputs("\nSelf-checks and warnings go to stderr. Exit status: 0 ok, 1 failure, "
	      "2 usage, 77 not supported on this CPU.\n", f);
	fputs("A state, mask or implementation named that this CPU lacks is never replaced by\n"
	      "a narrower one: when nothing asked for can be measured, exit 77 with the reason\n"
	      "before anything is measured. 'widest' names the widest state here (avx512, else\n"
	      "avx, else sse), said once on stderr.\n", f);
}

int fpl_cli_bench_main(const char *bench, int argc, char **argv)
{
	const struct fpl_bench_cmd cmd = { .bench = bench };

	return fpl_bench_cmd_main(&cmd, argc, argv);
}
