// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab: find the command named by argv[1] (or by the program's own name) and run it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpl_version.h"

/* The commands: one per src/cli/cmd_*.c (generated list), then will-it-scale's names. */
#define FPL_CMD(n) extern const struct fpl_cmd fpl_cmd_##n;
#define FPL_WIS_CMD(n, tcase, threads, what) FPL_CMD(n)
#include "fpl_cmds.h"
#include "wis_cmds.h"
#undef FPL_CMD

const struct fpl_cmd *const fpl_cmds[] = {
#define FPL_CMD(n) &fpl_cmd_##n,
#include "fpl_cmds.h"
#include "wis_cmds.h"
#undef FPL_CMD
#undef FPL_WIS_CMD
	NULL
};

const struct fpl_cmd *fpl_cli_find(const char *name)
{
	for (size_t i = 0; fpl_cmds[i]; i++)
		if (!strcmp(fpl_cmds[i]->name, name))
			return fpl_cmds[i];
	return NULL;
}

int fpl_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fpulab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fpulab %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return FPL_EXIT_USAGE;
}

int fpl_cli_error(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fpulab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void fpl_cli_help(const struct fpl_cmd *cmd, FILE *f)
{
	if (cmd->help)
		cmd->help(f);
	else
		fputs(cmd->usage, f);
}

bool fpl_cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: fpulab COMMAND [OPTIONS]\n"
		   "Measure and model what x86 FPU/SIMD extended-state management costs.\n\n"
		   "Commands:\n");
	for (size_t i = 0; fpl_cmds[i]; i++)
		fprintf(f, "  %-10s %s\n", fpl_cmds[i]->name, fpl_cmds[i]->summary);
	fprintf(f, "\n--amx before COMMAND asks for AMX tile data (ARCH_REQ_XCOMP_PERM) first.\n");
	fprintf(f, "\n'fpulab COMMAND --help' describes a command. Exit status: 0 ok, 1 failure,\n"
		   "2 usage or bad input, 77 not supported on this CPU.\n");
}

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/');
	const struct fpl_cmd *cmd;

	self = self ? self + 1 : argv[0];
	/* Invoked through a will-it-scale name (a link to fpulab). */
	cmd = fpl_cli_find(self);
	if (cmd && strcmp(self, "fpulab"))
		return cmd->main(argc, argv);

	/* fpulab --amx COMMAND ...: the global form of the common --amx. */
	if (argc >= 2 && !strcmp(argv[1], "--amx")) {
		fpl_cli_amx_global = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2) {
		usage(stderr);
		return FPL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 2 && (cmd = fpl_cli_find(argv[2]))) {
			fpl_cli_help(cmd, stdout);
			return FPL_EXIT_OK;
		}
		usage(stdout);
		return FPL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("fpulab %s (%s)\n", FPL_VERSION, FPL_GIT_REV);
		return FPL_EXIT_OK;
	}
	cmd = fpl_cli_find(argv[1]);
	if (!cmd)
		return fpl_cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	if (fpl_cli_wants_help(argc - 1, argv + 1)) {
		fpl_cli_help(cmd, stdout);
		return FPL_EXIT_OK;
	}
	return cmd->main(argc - 1, argv + 1);
}
