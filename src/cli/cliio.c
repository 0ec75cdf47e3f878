// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers every command shares: getopt's errors in our words, atomic output files. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>

#include "cli.h"

int fpl_cli_getopt_error(const char *cmd, int c, int argc, char **argv)
{
	const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (c == ':')
		return fpl_cli_usage_error(cmd, "option '%s' needs a value", a);
	/* An unknown letter inside a cluster (-kz): optind has not moved past it. */
	if (optopt && strncmp(a, "--", 2))
		return fpl_cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return fpl_cli_usage_error(cmd, "unknown option '%s'", a);
}

struct bytes {
	const void *buf;
	size_t len;
};

static int write_bytes(FILE *f, void *arg, struct fpl_diag *diag)
{
	const struct bytes *b = arg;

	return fwrite(b->buf, 1, b->len, f) == b->len ? 0 : -EIO;
}

int fpl_cli_write_file(const char *cmd, const char *path, const void *buf, size_t len)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct fpl_diag diag = { "" };
	struct bytes b = { buf, len };
	sigset_t set, old;
	int err;

	/* Held off, not handled: they take effect once the file is whole or gone. */
	sigemptyset(&set);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	err = fpl_write_file_atomic(path, write_bytes, &b, &diag);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!err)
		return FPL_EXIT_OK;
	switch (-err) {
	case ENOENT: case ENOTDIR: case EACCES: case EISDIR: case EROFS: case ENAMETOOLONG:
		return fpl_cli_error(cmd, FPL_EXIT_USAGE, "%s", diag.msg);
	default:
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	}
}

const char *fpl_cli_unprefix(const char *cmd, const char *msg)
{
	size_t n = cmd ? strlen(cmd) : 0;

	return n && !strncmp(msg, cmd, n) && !strncmp(msg + n, ": ", 2) ? msg + n + 2 : msg;
}
