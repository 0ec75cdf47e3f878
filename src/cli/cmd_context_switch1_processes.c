// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's context_switch1_processes: fpulab invoked under that name (a link), or `fpulab context_switch1_processes`. */
#include "cli.h"
#include "wis_cli.h"

static int context_switch1_processes_main(int argc, char **argv)
{
	return fpl_cli_wis_main("context_switch1_processes", FPL_WIS_CONTEXT_SWITCH1, 0, argc, argv);
}

static void context_switch1_processes_help(FILE *f)
{
	fpl_cli_wis_help("context_switch1_processes", f);
}

const struct fpl_cmd fpl_cmd_context_switch1_processes = {
	.name = "context_switch1_processes",
	.summary = "will-it-scale context_switch1_processes (context switches, processes)",
	.usage = "",
	.help = context_switch1_processes_help,
	.main = context_switch1_processes_main,
};
