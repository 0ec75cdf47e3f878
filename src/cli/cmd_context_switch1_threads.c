// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's context_switch1_threads: fpulab invoked under that name (a link), or `fpulab context_switch1_threads`. */
#include "cli.h"
#include "wis_cli.h"

static int context_switch1_threads_main(int argc, char **argv)
{
	return fpl_cli_wis_main("context_switch1_threads", FPL_WIS_CONTEXT_SWITCH1, 1, argc, argv);
}

static void context_switch1_threads_help(FILE *f)
{
	fpl_cli_wis_help("context_switch1_threads", f);
}

const struct fpl_cmd fpl_cmd_context_switch1_threads = {
	.name = "context_switch1_threads",
	.summary = "will-it-scale context_switch1_threads (context switches, threads)",
	.usage = "",
	.help = context_switch1_threads_help,
	.main = context_switch1_threads_main,
};
