// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's program names as commands: fpulab invoked under such a name (a link), or `fpulab NAME`. */
#include "cli.h"
#include "wis_cli.h"

#define FPL_WIS_CMD(n, tcase, threads, what)						\
	static int n##_main(int argc, char **argv)					\
	{										\
		return fpl_cli_wis_main(#n, tcase, threads, argc, argv);		\
	}										\
	static void n##_help(FILE *f)							\
	{										\
		fpl_cli_wis_help(#n, f);						\
	}										\
	const struct fpl_cmd fpl_cmd_##n = {						\
		.name = #n,								\
		.summary = "will-it-scale " #n " (" what ")",				\
		.usage = "",								\
		.help = n##_help,							\
		.main = n##_main,							\
	};
#include "wis_cmds.h"
#undef FPL_WIS_CMD
