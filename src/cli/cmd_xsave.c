// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the XSAVE-family cost matrix as a command, with its own table (src/report). */
#include "fpulab/report.h"
#include "cli.h"

static const struct fpl_bench_cmd xsave_cmd = { .bench = "xsave", .table = fpl_table_xsave };

static int xsave_main(int argc, char **argv)
{
	return fpl_bench_cmd_main(&xsave_cmd, argc, argv);
}

static void xsave_help(FILE *f)
{
	fpl_cli_bench_help("xsave", f);
}

const struct fpl_cmd fpl_cmd_xsave = {
	.name = "xsave",
	.summary = "XSAVE-family cost matrix (instruction x RFBM x state x method)",
	.usage = "", .help = xsave_help, .main = xsave_main,
};
