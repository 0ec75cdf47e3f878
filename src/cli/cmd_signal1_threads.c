// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's signal1_threads: fpulab invoked under that name (a link), or `fpulab signal1_threads`. */
#include "cli.h"
#include "wis_cli.h"

static int signal1_threads_main(int argc, char **argv)
{
	return fpl_cli_wis_main("signal1_threads", FPL_WIS_SIGNAL1, 1, argc, argv);
}

static void signal1_threads_help(FILE *f)
{
	fpl_cli_wis_help("signal1_threads", f);
}

const struct fpl_cmd fpl_cmd_signal1_threads = {
	.name = "signal1_threads",
	.summary = "will-it-scale signal1_threads (signals, threads)",
	.usage = "",
	.help = signal1_threads_help,
	.main = signal1_threads_main,
};
