// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers every command shares: getopt's errors in our words, atomic output files. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const int fpl_cli_end_sigs[FPL_CLI_NEND_SIGS] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

void fpl_cli_hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < FPL_CLI_NEND_SIGS; i++)
		sigaddset(&set, fpl_cli_end_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void fpl_cli_release_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void fpl_cli_catch_end(void (*handler)(int), struct sigaction old[FPL_CLI_NEND_SIGS])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < FPL_CLI_NEND_SIGS; i++) {
		sigaction(fpl_cli_end_sigs[i], NULL, &old[i]);
		/* Ignored from the start (nohup, a background job of sh): it stays ignored. */
		if (old[i].sa_handler != SIG_IGN)
			sigaction(fpl_cli_end_sigs[i], &sa, NULL);
	}
}

void fpl_cli_uncatch_end(const struct sigaction old[FPL_CLI_NEND_SIGS])
{
	for (size_t i = 0; i < FPL_CLI_NEND_SIGS; i++)
		sigaction(fpl_cli_end_sigs[i], &old[i], NULL);
}

void fpl_cli_default_end(void)
{
	struct sigaction now;

	for (size_t i = 0; i < FPL_CLI_NEND_SIGS; i++)
		if (!sigaction(fpl_cli_end_sigs[i], NULL, &now) && now.sa_handler != SIG_IGN)
			signal(fpl_cli_end_sigs[i], SIG_DFL);
}

int fpl_cli_check_out_path(const char *cmd, const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dup, *tmp = NULL;
	struct stat st;
	sigset_t old;
	int fd, e;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return fpl_cli_usage_error(cmd, "%s: names a directory, not a file", path);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return FPL_EXIT_OK;	/* a FIFO or device: written into, not replaced */
	if (!*base)
		return fpl_cli_usage_error(cmd, "%s: names a directory, not a file", path);
	dup = strdup(path);
	if (!dup || asprintf(&tmp, "%s/.%s.tmpXXXXXX", dirname(dup), base) < 0) {
		free(dup);
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "out of memory");
	}
	/*
	 * What the atomic write will do at the end: a temporary file beside it.
	 * Signals held off: a SIGINT between mkstemp and unlink left the probe
	 * (.NAME.tmpXXXXXX) behind (test_decode, 1 run in 30 under ASan).
	 */
	fpl_cli_hold_signals(&old);
	fd = mkstemp(tmp);
	e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	fpl_cli_release_signals(&old);
	free(tmp);
	free(dup);
	if (fd < 0)
		return fpl_cli_usage_error(cmd, "-o %s: cannot be written: %s", path, strerror(e));
	return FPL_EXIT_OK;
}

int fpl_cli_write_file(const char *cmd, const char *path, const void *buf, size_t len)
{
	struct fpl_diag diag = { "" };
	struct bytes b = { buf, len };
	sigset_t old;
	int err;

	/* Held off, not handled: they take effect once the file is whole or gone. */
	fpl_cli_hold_signals(&old);
	err = fpl_write_file_atomic(path, write_bytes, &b, &diag);
	fpl_cli_release_signals(&old);
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
