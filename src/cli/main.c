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

/* Length of the valid UTF-8 sequence at p (not a C1 control), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

	if (p[0] >= 0xf5)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* U+0080..U+009F: C1 controls (CSI is one) */
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0 ? 0 : n;
}

void fpl_cli_put_escaped(const char *s, FILE *f)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_len(p) : 0;

		if (n) {
			fwrite(p, 1, n, f);
			p += n;
		} else if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f) {
			fprintf(f, "\\x%02x", *p++);
		} else {
			fputc(*p++, f);
		}
	}
}

/* The message, with what came from the input (names, bytes) unable to drive the terminal. */
static void vmessage(const char *cmd, const char *fmt, va_list ap)
{
	char *msg = NULL;

	fprintf(stderr, "fpulab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory)", stderr);
		return;
	}
	fpl_cli_put_escaped(msg, stderr);
	free(msg);
}

int fpl_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fpulab %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return FPL_EXIT_USAGE;
}

int fpl_cli_error(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(cmd, fmt, ap);
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
	/* will-it-scale's long names in a list of their own: the columns stay whole. */
	for (size_t i = 0; fpl_cmds[i]; i++)
		if (strlen(fpl_cmds[i]->name) <= 10)
			fprintf(f, "  %-10s %s\n", fpl_cmds[i]->name, fpl_cmds[i]->summary);
	fputs("Commands: will-it-scale's own names, options and output (fpulab ctxsw|signal "
	      "--wis):\n", f);
	for (size_t i = 0; fpl_cmds[i]; i++)
		if (strlen(fpl_cmds[i]->name) > 10)
			fprintf(f, "  %s\n", fpl_cmds[i]->name);
	fprintf(f, "\n--amx before COMMAND asks for AMX tile data (ARCH_REQ_XCOMP_PERM) first.\n");
	fprintf(f, "\n'fpulab COMMAND --help' describes a command. Exit status: 0 ok, 1 failure,\n"
		   "2 usage or bad input, 77 not supported on this CPU.\n");
}

char **fpl_cli_argv;

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/');
	const struct fpl_cmd *cmd;

	/* as typed, for the results' host.command: getopt reorders argv, --runs drops words */
	fpl_cli_argv = calloc((size_t)argc + 1, sizeof(*fpl_cli_argv));
	if (fpl_cli_argv)
		memcpy(fpl_cli_argv, argv, (size_t)argc * sizeof(*argv));
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
		if (argc > 2) {
			cmd = fpl_cli_find(argv[2]);
			if (!cmd)
				return fpl_cli_usage_error(NULL, "%s: unknown command '%s'", argv[1],
							   argv[2]);
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
