// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab signal: signal round trip, frame size, live state; will-it-scale's signal1 with --wis. */
#include "fpulab/sigframe.h"
#include "cli.h"
#include "wis_cli.h"

static int signal_main(int argc, char **argv)
{
	if (fpl_cli_wis_wanted(argc, argv))
		return fpl_cli_wis_main("signal", FPL_WIS_SIGNAL1, -1, argc, argv);
	return fpl_cli_bench_main("signal", argc, argv);
}

static void signal_help(FILE *f)
{
	fpl_cli_bench_help("signal", f);
	fprintf(f, "\nThe smallest --altstack accepted here: %ld bytes (the larger of AT_MINSIGSTKSZ,\n"
		"%ld here, and the kernel's MINSIGSTKSZ, %u, below which sigaltstack(2) fails).\n"
		"\nwill-it-scale mode (what signal1_processes/_threads print, for LKP):\n"
		"  fpulab signal --wis [--mode processes|threads] [-s N] [-t N] [-m|-n] [-v]\n"
		"  raise(SIGUSR1) in a loop, 1 per signal; options as in ctxsw --wis.\n",
		fpl_signal_min_altstack(), fpl_signal_at_minsigstksz(), FPL_KERNEL_MINSIGSTKSZ);
}

const struct fpl_cmd fpl_cmd_signal = {
	.name = "signal",
	.summary = "signal to self: delivery and return times, frame size, live state; --wis",
	.usage = "",
	.help = signal_help,
	.main = signal_main,
};
