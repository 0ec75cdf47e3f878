/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helpers for the command's tests: a scratch directory, files in it, fpulab and sh runs, JSON. */
#ifndef FPL_TESTS_CLITEST_H
#define FPL_TESTS_CLITEST_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "runcmd.h"

/* A fresh directory for one test's files. */
static inline char *tmpdir(void)
{
	char *d = strdup("/tmp/fpl-cli-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

/* Remove a tmpdir() and all in it. */
static inline void tmpdir_done(char *dir)
{
	assert_int_equal(cmd_rm_rf(dir), 0);
	free(dir);
}

static inline void write_text(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Files in dir whose name starts with prefix. */
static inline unsigned count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* fpulab with up to 17 arguments (NULL-terminated list); output in o; the exit code. */
static inline int fpl(struct cmd_out *o, double limit_s, const char *a0, ...)
{
	const char *argv[20] = { cmd_fpl_bin(), a0 };
	size_t k = 2;
	va_list ap;

	va_start(ap, a0);
	while (k < 19 && (argv[k] = va_arg(ap, const char *)))
		k++;
	va_end(ap);
	argv[k] = NULL;
	assert_int_equal(cmd_run(argv, limit_s, o), 0);
	return cmd_code(o);
}

static inline json_t *load_json(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	if (!j)
		fail_msg("%s: %s (line %d)", path, e.text, e.line);
	return j;
}

/* A command's stdout as JSON (the caller decrefs); fails the test when it is not JSON. */
static inline json_t *out_json(const struct cmd_out *o, const char *what)
{
	json_error_t e;
	json_t *j = json_loads(o->out, 0, &e);

	if (!j)
		fail_msg("%s: stdout is not JSON (%s, line %d):\n%.2000s", what, e.text, e.line,
			 o->out);
	return j;
}

/*
 * A shell command line (sh -c) through cmd_sh; its stdout into *out when out
 * is not NULL (the caller frees), its stderr on to ours; the exit code.
 */
static inline int sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int sh(char **out, const char *fmt, ...)
{
	char cmd[4096];
	struct cmd_out o;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(cmd_sh(cmd, FPLRUN_LIMIT_S, &o), 0);
	fputs(o.err, stderr);
	rc = cmd_code(&o);
	if (out) {
		*out = o.out;
		o.out = NULL;
	}
	cmd_out_free(&o);
	return rc;
}

/*
 * Before a skip for exit 77: what did not run and why, from the command's
 * "skipped: " line (table or JSON-free output), else its stderr.
 */
static inline void print_unsupported(const char *what, const char *out, const char *err)
{
	const char *why = out ? strstr(out, "skipped: ") : NULL;

	if (!why)
		why = err && *err ? err : "no reason printed";
	print_message("  %s: exit 77, not supported on this CPU: %.*s\n", what,
		      (int)strcspn(why, "\n"), why);
}

#endif
