// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's signal1_processes: fpulab invoked under that name (a link), or `fpulab signal1_processes`. */
#include "cli.h"
#include "wis_cli.h"

static int signal1_processes_main(int argc, char **argv)
{
	return fpl_cli_wis_main("signal1_processes", FPL_WIS_SIGNAL1, 0, argc, argv);
}

static void signal1_processes_help(FILE *f)
{
	fpl_cli_wis_help("signal1_processes", f);
}

const struct fpl_cmd fpl_cmd_signal1_processes = {
	.name = "signal1_processes",
	.summary = "will-it-scale signal1_processes (signals, processes)",
	.usage = "",
	.help = signal1_processes_help,
	.main = signal1_processes_main,
};
