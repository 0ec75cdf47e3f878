// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab signal: signal round trip, frame size, live state; will-it-scale's signal1 with --wis. */
#include <string.h>

#include "fpulab/sigframe.h"
#include "cli.h"
#include "wis_cli.h"

/* A too small alternate stack is bad input: say so before anything runs. */
static int check_altstack(int argc, char **argv)
{
	struct fpl_diag diag = { "" };
	const char *v = NULL;
	long long size;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--altstack=", 11))
			v = argv[i] + 11;
		else if (!strcmp(argv[i], "--altstack") && i + 1 < argc)
			v = argv[++i];
	}
	if (!v || fpl_parse_int(v, &size))
		return FPL_EXIT_OK;	/* the option checker names a malformed value */
	if (fpl_signal_check_altstack(size, &diag))
		return fpl_cli_usage_error("signal", "%s", diag.msg);
	return FPL_EXIT_OK;
}

static int signal_main(int argc, char **argv)
{
	int rc;

	if (fpl_cli_wis_wanted(argc, argv))
		return fpl_cli_wis_main("signal", FPL_WIS_SIGNAL1, -1, argc, argv);
	rc = check_altstack(argc, argv);
	return rc ? rc : fpl_cli_bench_main("signal", argc, argv);
}

static void signal_help(FILE *f)
{
	fpl_cli_bench_help("signal", f);
	fprintf(f, "\nAT_MINSIGSTKSZ here: %ld bytes (the smallest --altstack accepted).\n"
		"\nwill-it-scale mode (what signal1_processes/_threads print, for LKP):\n"
		"  fpulab signal --wis [--mode processes|threads] [-s N] [-t N] [-m|-n] [-v]\n"
		"  raise(SIGUSR1) in a loop, 1 per signal; options as in ctxsw --wis.\n",
		fpl_signal_min_altstack());
}

const struct fpl_cmd fpl_cmd_signal = {
	.name = "signal",
	.summary = "signal to self: delivery and return times, frame size, live state; --wis",
	.usage = "",
	.help = signal_help,
	.main = signal_main,
};
