/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The LKP program's tests (test_lkp*.c) share these: ruby, parse on a file, the stats' keys, run under a given LKP_SRC. */
#ifndef FPL_TESTS_LKPTEST_H
#define FPL_TESTS_LKPTEST_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <jansson.h>

#include "runcmd.h"

#define PROG "contrib/lkp/fpulab/"
#define DATA "tests/data/lkp/"
#define STANDIN "tests/lkp-standin"

/* Where ruby is missing the parser cannot run: skip, unless CI says it must. */
static inline bool have_ruby(void)
{
	const char *argv[] = {"ruby", "-rjson", "-ryaml", "-e", "exit 0", NULL};
	struct cmd_out o;
	bool ok = cmd_run(argv, 60, &o) == 0 && cmd_code(&o) == 0;

	cmd_out_free(&o);
	if (!ok) {
		const char *need = getenv("FPL_LKP_REQUIRE");

		if (need && *need && strcmp(need, "0"))
			fail_msg("ruby (with json) is needed: FPL_LKP_REQUIRE is set");
		print_message("ruby not installed (apt-get install ruby): LKP parser not tested\n");
	}
	return ok;
}

/*
 * The lkp-tests checkout to test against: $FPL_LKP_SRC, else /lkp/lkp/src,
 * as an absolute path in buf; NULL (and the reason said) where there is none.
 */
static inline const char *lkp_src_real(char *buf, size_t len)
{
	const char *src = getenv("FPL_LKP_SRC");
	char probe[PATH_MAX];

	if (!src || !*src)
		src = "/lkp/lkp/src";
	snprintf(probe, sizeof(probe), "%s/lib/stats.rb", src);
	if (access(probe, R_OK) || !realpath(src, buf) || strlen(buf) >= len - 1) {
		print_message("no lkp-tests checkout at %s (set FPL_LKP_SRC to one): skipped\n",
			      src);
		return NULL;
	}
	return buf;
}

/* Run a shell line; stdout into *out (malloc'd); the exit code. */
static inline int sh(const char *line, char **out)
{
	const char *argv[] = {"sh", "-c", line, NULL};
	struct cmd_out o;
	int code;

	assert_int_equal(cmd_run(argv, 240, &o), 0);
	assert_false(o.timed_out);
	code = cmd_code(&o);
	if (o.nerr)
		print_message("  stderr of `%.60s`: %.300s\n", line, o.err);
	*out = o.out;
	o.out = NULL;
	cmd_out_free(&o);
	return code;
}

/* sh() on a line made with printf's format; the line at most 8 KiB. */
static inline int shf(char **out, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	return sh(line, out);
}

/* parse (with its arguments args) on a file, gzip'd where it ends in .gz; its stdout, exit code in
 * *code. */
static inline char *parse_file_args(const char *path, const char *args, int *code)
{
	char *out;
	size_t n = strlen(path);

	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		*code = shf(&out, "gzip -dc '%s' | ruby " PROG "parse %s", path, args);
	else
		*code = shf(&out, "ruby " PROG "parse %s < '%s'", args, path);
	return out;
}

static inline char *parse_file(const char *path, int *code)
{
	return parse_file_args(path, "", code);
}

/* text into a new temporary file; its path in path (at least 32 bytes). */
static inline void temp_text(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/fpl-lkp-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static inline char *parse_text_args(const char *text, const char *args, int *code)
{
	char path[32], *out;

	temp_text(path, text);
	out = parse_file_args(path, args, code);
	unlink(path);
	return out;
}

static inline char *parse_text(const char *text, int *code)
{
	return parse_text_args(text, "", code);
}

static inline char *parse_json(json_t *doc, int *code)
{
	char *text = json_dumps(doc, JSON_INDENT(1)), *out;

	assert_non_null(text);
	out = parse_text(text, code);
	free(text);
	return out;
}

static inline char *slurp_path(const char *path)
{
	char *s = cmd_slurp(path, NULL);

	if (!s)
		fail_msg("cannot read %s", path);
	return s;
}

static inline json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	if (!doc)
		fail_msg("%s: %s", path, err.text);
	return doc;
}

/* dump-stat reads "KEY: VALUE"; a value without '.' as an integer, no exponents. */
static inline bool lkp_number(const char *v)
{
	const char *p = v;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == 0;
}

/*
 * The keys of parse's output, one a line, in order; every line checked to be
 * a stat LKP's dump-stat keeps (no blank in the key, a plain number) and every
 * key unique.
 */
static inline char *keys_of(const char *out)
{
	size_t n = strlen(out);
	char *keys = calloc(1, n + 2), *k = keys, *copy = strdup(out), *save = NULL;

	assert_non_null(keys);
	assert_non_null(copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(l, ": "), needle[1024];

		if (!sep)
			fail_msg("not a 'key: value' line: %s", l);
		*sep = 0;
		if (strpbrk(l, " \t") || !*l)
			fail_msg("blank in or empty stats name: '%s'", l);
		if (!lkp_number(sep + 2))
			fail_msg("not a plain number for %s: '%s'", l, sep + 2);
		snprintf(needle, sizeof(needle), "\n%s\n", l);
		if (k > keys) {
			char *hay;

			assert_true(asprintf(&hay, "\n%s", keys) > 0);
			if (strstr(hay, needle))
				fail_msg("stats name twice: %s", l);
			free(hay);
		}
		k += sprintf(k, "%s\n", l);
	}
	free(copy);
	return keys;
}

static inline double value_of(const char *out, const char *key)
{
	char needle[512];
	const char *p;

	snprintf(needle, sizeof(needle), "%s: ", key);
	p = strstr(out, needle);
	if (!p)
		fail_msg("no stat %s in:\n%s", key, out);
	return strtod(p + strlen(needle), NULL);
}

/* How many lines of text contain needle. */
static inline int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n'), *hit = strstr(l, needle);

		if (hit && (!e || hit < e))
			n++;
		l = e ? e + 1 : NULL;
	}
	return n;
}

/*
 * run under LKP_SRC with the job's parameters env ("benchmark=... state=...")
 * and fpulab fpl: stdout what it printed, the exit code returned;
 * reproduce.sh in *repro.
 */
static inline int lkp_run_with(const char *lkp_src, const char *fpl, const char *env, char **out,
			       char **repro)
{
	char dir[] = "/tmp/fpl-lkp-run-XXXXXX", path[128];
	int code;

	assert_non_null(mkdtemp(dir));
	code = shf(out,
		   "env -i PATH=\"$PATH\" LKP_SRC='%s' TMP_RESULT_ROOT='%s' BENCHMARK_ROOT='%s' "
		   "FPULAB='%s' %s bash " PROG "run",
		   lkp_src, dir, dir, fpl, env);
	snprintf(path, sizeof(path), "%s/reproduce.sh", dir);
	*repro = access(path, R_OK) == 0 ? slurp_path(path) : strdup("");
	unlink(path);
	rmdir(dir);
	return code;
}

static inline int lkp_run(const char *lkp_src, const char *env, char **out, char **repro)
{
	return lkp_run_with(lkp_src, cmd_fpl_bin(), env, out, repro);
}

#endif
