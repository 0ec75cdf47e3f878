/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helper: run the built fpulab through the shell, capture stdout and stderr. */
#ifndef FPL_TESTS_FPLRUN_H
#define FPL_TESTS_FPLRUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *fplrun_bin(void)
{
	const char *b = getenv("FPL_BIN");

	return b && *b ? b : "build/fpulab";
}

static inline char *fplrun_slurp(FILE *f)
{
	size_t cap = 4096, len = 0, n;
	char *s = malloc(cap);

	while (s && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *t = realloc(s, cap * 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
			cap *= 2;
		}
	}
	if (s)
		s[len] = 0;
	return s;
}

/*
 * Run "fpulab ARGS" (args as the shell reads them; env a "VAR=value " prefix
 * or ""). *out and *err get stdout and stderr (malloc'd). Returns the exit
 * status, or -1 when it did not exit.
 */
static inline int fplrun(const char *env, const char *args, char **out, char **err)
{
	char errpath[] = "/tmp/fpl-test-XXXXXX", *cmd = NULL;
	int fd = mkstemp(errpath), st;
	FILE *p, *e;

	*out = *err = NULL;
	if (fd < 0)
		return -1;
	close(fd);
	if (asprintf(&cmd, "%s'%s' %s 2>%s", env ? env : "", fplrun_bin(), args, errpath) < 0)
		return -1;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	*out = fplrun_slurp(p);
	st = pclose(p);
	e = fopen(errpath, "r");
	if (e) {
		*err = fplrun_slurp(e);
		fclose(e);
	}
	unlink(errpath);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Whether `fpulab ARGS` is refused as a usage error (exit 2) whose message
 * names `names`, before the clock is calibrated or self-checks run. On false,
 * *why holds stderr (caller frees).
 */
static inline int fplrun_rejected_early(const char *args, const char *names, char **why)
{
	char *out = NULL, *err = NULL;
	int rc = fplrun("", args, &out, &err), ok;

	ok = rc == 2 && err && strstr(err, names) && !strstr(err, "pinned to CPU") &&
	     !strstr(err, "self-check");
	free(out);
	if (ok)
		free(err);
	*why = ok ? NULL : err;
	return ok;
}

#endif
