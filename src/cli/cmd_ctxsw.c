// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab ctxsw: the ping-pong benchmark, or will-it-scale's context_switch1 with --wis. */
#include "cli.h"
#include "wis_cli.h"

static int ctxsw_main(int argc, char **argv)
{
	if (fpl_cli_wis_wanted(argc, argv))
		return fpl_cli_wis_main("ctxsw", FPL_WIS_CONTEXT_SWITCH1, -1, argc, argv);
	return fpl_cli_bench_main("ctxsw", argc, argv);
}

static void ctxsw_help(FILE *f)
{
	fpl_cli_bench_help("ctxsw", f);
	fputs("\nwill-it-scale mode (what context_switch1_processes/_threads print, for LKP):\n"
	      "  fpulab ctxsw --wis [--mode processes|threads] [-s N] [-t N] [-m|-n] [-v]\n"
	      "  -s N   measured one-second samples after 6 warm-up seconds (0: until killed)\n"
	      "  -t N   task pairs; pair i runs on core i % cores (-m: hardware thread, -n: unbound)\n"
	      "  -v     each pair's count every second\n"
	      "  Counts 2 per round trip, as will-it-scale does.\n", f);
}

const struct fpl_cmd fpl_cmd_ctxsw = {
	.name = "ctxsw",
	.summary = "context switch via pipes: live state, placement, A/B; --wis as will-it-scale",
	.usage = "",
	.help = ctxsw_help,
	.main = ctxsw_main,
};
