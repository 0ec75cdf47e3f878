/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line: one file per command (src/cli/cmd_<name>.c), shared helpers. */
#ifndef FPULAB_CLI_H
#define FPULAB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "fpulab/base.h"

struct fpl_cmd {
	const char *name;
	const char *summary;	/* one line for `fpulab --help` */
	const char *usage;	/* the whole --help text of the command */
	/* argv[0] is the command name. Returns an exit code (enum fpl_exit). */
	int (*main)(int argc, char **argv);
};

/* Every command (generated from src/cli/cmd_*.c). */
extern const struct fpl_cmd *const fpl_cmds[];
const struct fpl_cmd *fpl_cli_find(const char *name);

/* "fpulab CMD: message" and the --help hint on stderr; returns FPL_EXIT_USAGE. */
int fpl_cli_usage_error(const char *cmd, const char *fmt, ...) FPL_PRINTF(2, 3);
/* "fpulab CMD: message" on stderr; returns code. */
int fpl_cli_error(const char *cmd, int code, const char *fmt, ...) FPL_PRINTF(3, 4);
/* Print a command's usage text to f. */
void fpl_cli_help(const struct fpl_cmd *cmd, FILE *f);
/* True if argv holds -h or --help before any "--". */
bool fpl_cli_wants_help(int argc, char **argv);

#endif
