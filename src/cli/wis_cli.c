// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale compatible front end: its options, its signals, its lines (report/table_wis.c). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wislines.h"
#include "cli.h"
#include "wis_cli.h"

struct wis_out {
	unsigned opt_s;		/* -s: measured samples, 0 = until killed */
	bool verbose;
};

static volatile sig_atomic_t wis_stop;
static volatile sig_atomic_t wis_signo;

static void on_signal(int sig)
{
	wis_signo = sig;
	wis_stop = 1;
}

void fpl_cli_wis_help(const char *prog, FILE *f)
{
	fprintf(f, "Usage: %s [options]\n\n", prog);
	fprintf(f, "\t-s iterations\tNumber of iterations to run\n");
	fprintf(f, "\t-t tasks\tNumber of threads or processes to run\n");
	fprintf(f, "\t-m\t\tAffinitize tasks on SMT threads (default cores)\n");
	fprintf(f, "\t-n\t\tNo affinity\n");
	fprintf(f, "\t-v\t\tPrint each task's count every second\n");
	fprintf(f, "\nwill-it-scale compatible: after 6 one-second warm-up lines, \"measurement\",\n"
		   "then iterations measured lines and \"average:N\" (operations per second;\n"
		   "%s). -s 0 runs until interrupted.\n",
		strstr(prog, "signal") ? "one signal delivered and returned from counts 1" :
		"a context switch round trip counts 2");
}

bool fpl_cli_wis_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--wis"))
			return true;
	}
	return false;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

enum { OPT_WIS = 256, OPT_MODE };

static int parse(const char *cmd, int threads, int argc, char **argv, struct fpl_wis_cfg *cfg,
		 struct wis_out *o)
{
	static const struct option longs[] = {
		{ "wis", no_argument, NULL, OPT_WIS },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool smt = false, none = false;
	int c;

	cfg->tasks = 1;
	cfg->threads = threads > 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":mt:s:hvn", longs, NULL)) != -1) {
		switch (c) {
		case 'm': smt = true; break;
		case 'n': none = true; break;
		case 'v': o->verbose = true; break;
		case 'h': fpl_cli_wis_help(argv[0], stdout); return FPL_EXIT_OK + 1000;
		case 't':
			if (parse_uint(optarg, FPL_WIS_MAX_TASKS, &cfg->tasks) || !cfg->tasks)
				return fpl_cli_usage_error(cmd, "-t %s: tasks must be 1..%d",
							   optarg, FPL_WIS_MAX_TASKS);
			break;
		case 's':
			if (parse_uint(optarg, INT_MAX / 2, &o->opt_s))
				return fpl_cli_usage_error(cmd, "-s %s: not a count of seconds",
							   optarg);
			break;
		case OPT_WIS: break;
		case OPT_MODE:
			if (threads >= 0)
				return fpl_cli_usage_error(cmd, "--mode: the program name fixes it");
			if (strcmp(optarg, "processes") && strcmp(optarg, "threads"))
				return fpl_cli_usage_error(cmd, "--mode %s: processes or threads",
							   optarg);
			cfg->threads = !strcmp(optarg, "threads");
			break;
		default:
			return fpl_cli_getopt_error(cmd, c, argc, argv);
		}
	}
	if (optind < argc)
		return fpl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (smt && none)
		return fpl_cli_usage_error(cmd, "-m and -n exclude each other");
	cfg->bind = none ? FPL_WIS_BIND_NONE : smt ? FPL_WIS_BIND_PU : FPL_WIS_BIND_CORE;
	return FPL_EXIT_OK;
}

int fpl_cli_wis_main(const char *cmd, enum fpl_wis_case tcase, int threads, int argc,
		     char **argv)
{
	struct fpl_wis_cfg cfg = { .tcase = tcase };
	struct wis_out o = { 0 };
	struct fpl_wis_lines lines;
	struct sigaction old[FPL_CLI_NEND_SIGS];
	struct fpl_diag diag = { "" };
	int rc;

	rc = parse(cmd, threads, argc, argv, &cfg, &o);
	if (rc)
		return rc == 1000 ? FPL_EXIT_OK : rc;
	if (fpl_wis_lines_init(&lines, stdout, tcase, cfg.tasks, o.opt_s, o.verbose))
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "out of memory");
	/* No SA_RESTART: the one-second sleep must end at once. */
	fpl_cli_catch_end(on_signal, old);
	rc = fpl_wis_run(&cfg, fpl_wis_lines_tick, &lines, &wis_stop, &diag);
	fpl_cli_uncatch_end(old);
	fpl_wis_lines_free(&lines);
	fflush(stdout);
	if (rc == -EINTR) {
		/* Every task is gone: end the way will-it-scale ends when interrupted. */
		signal(wis_signo, SIG_DFL);
		raise(wis_signo);
		return FPL_EXIT_FAIL;
	}
	if (rc)
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	return FPL_EXIT_OK;
}
