// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: the man page and the --help texts agree (every command, every long option of each). */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "runcmd.h"
#include "clitest.h"

#define MAN "docs/fpulab.1"

/* The man page with roff escapes for dashes and fonts removed. */
static char *man_text(void)
{
	char *raw = cmd_slurp(MAN, NULL), *out, *o;

	assert_non_null(raw);
	out = malloc(strlen(raw) + 1);
	assert_non_null(out);
	o = out;
	for (const char *p = raw; *p;) {
		if (p[0] == '\\' && p[1] == '-') {
			*o++ = '-';
			p += 2;
		} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 3;
		} else if (p[0] == '\\' && p[1] == '&') {
			p += 2;
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	free(raw);
	return out;
}

/* The text of the .SS section whose name list holds cmd; NULL if none. */
static char *section_of(const char *man, const char *cmd)
{
	const char *p = man;

	while ((p = strstr(p, "\n.SS "))) {
		const char *names = p + 5, *eol = strchr(names, '\n'), *end;
		char list[256];
		char *tok, *save = NULL;
		bool hit = false;

		if (!eol)
			return NULL;
		snprintf(list, sizeof(list), "%.*s", (int)(eol - names), names);
		for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
			hit |= !strcmp(tok, cmd);
		p = eol;
		if (!hit)
			continue;
		end = p;
		while ((end = strchr(end + 1, '\n')) && strncmp(end, "\n.SS ", 5) &&
		       strncmp(end, "\n.SH ", 5))
			;
		return strndup(eol, end ? (size_t)(end - eol) : strlen(eol));
	}
	return NULL;
}

static bool optch(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* "--name" in text, not as the start of a longer option name. */
static bool has_option(const char *text, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = text; (p = strstr(p, opt)); p += n)
		if ((p == text || !optch(p[-1])) && !optch(p[n]))
			return true;
	return false;
}

/* The commands `fpulab --help` lists (will-it-scale's names are not sections). */
static struct fplrun_cmds cmds;

static size_t read_commands(void)
{
	assert_int_equal(fplrun_commands(&cmds, false), 0);
	assert_int_equal(cmds.code, 0);
	return cmds.n;
}

static void every_command_has_a_section(void **state)
{
	char *man = man_text();
	size_t n = read_commands();

	(void)state;
	assert_true(n >= 4);	/* info, list, compare, run at least */
	for (size_t i = 0; i < n; i++) {
		char *sec = section_of(man, cmds.name[i]);

		if (!sec)
			fail_msg("%s: no '.SS %s' section documents the command", MAN, cmds.name[i]);
		free(sec);
	}
	assert_true(has_option(man, "--help") && has_option(man, "--version"));
	free(man);
}

/* Every long option a command's --help prints is in that command's section. */
static void every_help_option_is_documented(void **state)
{
	char *man = man_text();
	size_t n = read_commands(), checked = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char args[128], *out, *err, *sec = section_of(man, cmds.name[i]);

		assert_non_null(sec);
		snprintf(args, sizeof(args), "%s --help", cmds.name[i]);
		assert_int_equal(fplrun(NULL, args, &out, &err), 0);
		for (const char *p = out; (p = strstr(p, "--")); p += 2) {
			char opt[64];
			size_t k = 2;

			if (p > out && optch(p[-1]))
				continue;
			while (k < sizeof(opt) - 1 &&
			       (isalnum((unsigned char)p[k]) ||
				(p[k] == '-' && isalnum((unsigned char)p[k + 1]))))
				k++;
			if (k == 2)
				continue;
			snprintf(opt, sizeof(opt), "%.*s", (int)k, p);
			if (!has_option(sec, opt))
				fail_msg(
				    "'fpulab %s --help' prints %s, which its section of %s does "
				    "not mention",
				    cmds.name[i], opt, MAN);
			checked++;
		}
		free(out);
		free(err);
		free(sec);
	}
	assert_true(checked >= 20);
	free(man);
}

/* The first "fpulab/N" (a schema name) in text that is not want, or NULL. */
static const char *other_schema(const char *text, const char *want)
{
	for (const char *p = text; (p = strstr(p, "fpulab/")); p += 7)
		if (isdigit((unsigned char)p[7]) && strncmp(p, want, strlen(want)))
			return p;
	return NULL;
}

/*
 * The schema the texts name is the one the writer writes (issue 14: --json
 * said fpulab/1 long after files became fpulab/2): every --help and the man
 * page, which has no reason to name another.
 */
static void texts_name_the_schema_written(void **state)
{
	struct fpl_result *r = fpl_result_new();
	json_t *doc = fpl_report_json(r);
	const char *want = json_string_value(json_object_get(doc, "schema")), *bad;
	char *man = man_text();
	size_t n = read_commands();

	(void)state;
	assert_non_null(want);
	bad = other_schema(man, want);
	if (bad)
		fail_msg("%s names %.9s; the writer writes %s", MAN, bad, want);
	for (size_t i = 0; i <= n; i++) {
		char args[128], *out, *err;

		snprintf(args, sizeof(args), "%s --help", i < n ? cmds.name[i] : "");
		assert_int_equal(fplrun(NULL, args, &out, &err), 0);
		bad = other_schema(out, want);
		if (bad)
			fail_msg("'fpulab %s' names %.9s; the writer writes %s", args, bad, want);
		free(out);
		free(err);
	}
	/* the checker sees a stale name */
	assert_non_null(other_schema("JSON (schema fpulab/1) on stdout", want));
	assert_null(other_schema("include/fpulab/report.h, contrib/lkp/fpulab/", want));
	json_decref(doc);
	fpl_result_free(r);
	free(man);
}

/* The checker itself: it must see a missing option and a prefix that is not the option. */
static void checker_sees_what_is_missing(void **state)
{
	(void)state;
	assert_true(has_option("use --state avx512", "--state"));
	assert_false(has_option("use --state_a avx512", "--state"));
	assert_false(has_option("use --states", "--state"));
	assert_false(has_option("nothing here", "--runs"));
}

static void test_help_texts(void **state)
{
	struct cmd_out o;
	bool in = false;
	unsigned listed = 0, said = 0;

	assert_int_equal(fpl(&o, 30, "--help", NULL), 0);
	/* "  name       summary": the name fits its column on every line */
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strncmp(l, "Commands:", 9)) {
			in = !strstr(l, "will-it-scale");
			continue;
		}
		if (in && l[0] == ' ' && strlen(l) > 13 && l[12] != ' ' && l[13] == ' ')
			fail_msg("--help: a name runs into its summary: '%s'", l);
		if (in && l[0] == ' ' && l[12] != ' ')
			fail_msg("--help: the summary column is not at 13: '%s'", l);
		if (l[0] != ' ')
			in = in && !strncmp(l, "Commands:", 9);
	}
	cmd_out_free(&o);
	/* a range's bounds as written, not 1e+05 */
	assert_int_equal(fpl(&o, 30, "xsave", "--help", NULL), 0);
	assert_non_null(strstr(o.out, "--samples N            at most this many samples per cell "
				      "[11..100000]"));
	assert_null(strstr(o.out, "e+0"));
	cmd_out_free(&o);
	/* each will-it-scale name says what it counts: no context switch for a signal */
	assert_int_equal(fpl(&o, 30, "signal1_processes", "--help", NULL), 0);
	assert_non_null(strstr(o.out, "one signal delivered and returned from counts 1"));
	assert_null(strstr(o.out, "context switch"));
	cmd_out_free(&o);
	assert_int_equal(fpl(&o, 30, "context_switch1_processes", "--help", NULL), 0);
	assert_non_null(strstr(o.out, "a context switch round trip counts 2"));
	cmd_out_free(&o);
	assert_int_equal(fpl(&o, 30, "list", NULL), 0);
	for (const char *p = o.out; (p = strstr(p, "this CPU: ")); p++)
		said++;
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n"))
		listed += l[0] != ' ' && strncmp(l, "Every", 5);
	assert_true(listed > 0);
	assert_int_equal(said, listed);
	cmd_out_free(&o);
}

/*
 * docs/api.md's example against an installed tree (make install DESTDIR=...),
 * through pkg-config: the shared library, then the archive with --static.
 */
static void test_installed_api_example(void **state)
{
	const char *build = getenv("FPL_BUILD");
	char *dir, *out = NULL, *doc, *a, *b;
	size_t len;
	int rc;

	/* The plain build only: make install would rebuild a sanitizer build without its flags. */
	if (!build || strcmp(strrchr(build, '/') ? strrchr(build, '/') + 1 : build, "build")) {
		print_message("  FPL_BUILD '%s' is not the plain build: make install not tried\n",
			      build ? build : "(unset)");
		skip();
	}
	if (sh(NULL, "command -v pkg-config >/dev/null")) {
		print_message("  no pkg-config here\n");
		skip();
	}
	/* make install rewrites build/gen/fpl_version.h (FORCE) before it installs */
	if (access(build, W_OK) || access("build", W_OK)) {
		print_message("  %s cannot be written by this user: make install not tried\n",
			      build);
		skip();
	}
	dir = tmpdir();
	doc = cmd_slurp("docs/api.md", &len);
	assert_non_null(doc);
	assert_true(len > 0);
	a = strstr(doc, "```c\n");
	assert_non_null(a);
	a += 5;
	b = strstr(a, "```");
	assert_non_null(b);
	*b = 0;
	write_text(dir, "example.c", a);
	free(doc);
	rc = sh(&out, "make -s --no-print-directory install DESTDIR=%s/root PREFIX=/usr "
		"BUILD=build 2>&1", dir);
	if (rc)
		fail_msg("make install: exit %d\n%s", rc, out);
	free(out);
	rc = sh(&out, "cd %s && export PKG_CONFIG_SYSROOT_DIR=$PWD/root "
		"PKG_CONFIG_PATH=$PWD/root/usr/lib/pkgconfig && "
		"cc -o ex-shared example.c $(pkg-config --cflags --libs fpulab) && "
		"LD_LIBRARY_PATH=$PWD/root/usr/lib ./ex-shared a.json && "
		"readelf -d ex-shared | grep -q 'libfpulab.so.0' && "
		"cc -o ex-static example.c $(pkg-config --cflags fpulab) "
		"$(pkg-config --static --libs fpulab | sed 's/-lfpulab/-l:libfpulab.a/') && "
		"./ex-static b.json && ! readelf -d ex-static | grep -q libfpulab 2>&1", dir);
	if (rc)
		fail_msg("the example against the installed tree: exit %d\n%s", rc, out);
	/* twice (shared, static): a benchmark run through the session, saved, read back */
	{
		const char *first = strstr(out, "example: signal, 1 run, round_trip_ns in ns: ");

		if (!first || !strstr(first + 1, "example: signal, 1 run, round_trip_ns in ns: "))
			fail_msg("the example's two lines:\n%s", out);
	}
	free(out);
	for (int k = 0; k < 2; k++) {
		char path[512];
		struct fpl_result *r = NULL;
		struct fpl_diag diag = { "" };

		snprintf(path, sizeof(path), "%s/%s.json", dir, k ? "b" : "a");
		if (fpl_result_load(path, &r, &diag))
			fail_msg("the example's document: %s", diag.msg);
		assert_int_equal(r->nruns, 1);
		assert_string_equal(r->runs[0]->bench, "signal");
		assert_non_null(json_object_get(json_object_get(r->host, "clock"), "selfcheck_end"));
		fpl_result_free(r);
	}
	tmpdir_done(dir);
}

/* Every installed header is described in docs/api.md, and every header it names is installed. */
static void every_header_in_api_doc(void **state)
{
	size_t len, n = 0;
	char *doc = cmd_slurp("docs/api.md", &len), *out = NULL;
	const char *p;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(sh(&out, "ls include/fpulab"), 0);
	for (char *name = strtok(out, "\n"); name; name = strtok(NULL, "\n")) {
		char want[96];

		snprintf(want, sizeof(want), "| `fpulab/%s` |", name);
		if (!strstr(doc, want))
			fail_msg("include/fpulab/%s is installed but not in docs/api.md's table", name);
		n++;
	}
	assert_true(n >= 20);
	for (p = doc; (p = strstr(p, "| `fpulab/")); p++) {
		char name[64], path[96];

		if (sscanf(p, "| `fpulab/%63[a-z0-9_].h` |", name) != 1)
			continue;
		snprintf(path, sizeof(path), "include/fpulab/%s.h", name);
		if (access(path, R_OK))
			fail_msg("docs/api.md names fpulab/%s.h, which is not installed", name);
	}
	free(out);
	free(doc);
}

/* The keys run and repro files carry are in docs/results-schema.md, with the repro bench's params. */
static void test_schema_doc_in_step(void **state)
{
	static const char *const repro_params[] = { "experiment", "table", "case", "label" };
	char *dir = tmpdir(), path[600], *doc, key[200];
	const char *k;
	json_t *j, *v;
	size_t len;
	int rc;

	doc = cmd_slurp("docs/results-schema.md", &len);
	assert_non_null(doc);
	assert_true(len > 0);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	rc = sh(NULL, "%s run -q --budget 0.05 -o %s signal >/dev/null 2>&1", cmd_fpl_bin(), path);
	if (rc == 77) {
		print_unsupported("run signal", NULL, NULL);
		free(doc);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	j = load_json(path);
	/* host.clock as emitted: every key documented */
	json_object_foreach(json_object_get(json_object_get(j, "host"), "clock"), k, v) {
		snprintf(key, sizeof(key), "\"%s\"", k);
		if (!strstr(doc, key))
			fail_msg("host.clock.%s is written by run but not in docs/results-schema.md", k);
	}
	for (const char *const *h = (const char *const[]){ "loadavg_start", "loadavg_end",
							     "tool", "clock", "command",
							     NULL }; *h; h++) {
		assert_non_null(json_object_get(json_object_get(j, "host"), *h));
		snprintf(key, sizeof(key), "\"%s\"", *h);
		assert_non_null(strstr(doc, key));
	}
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "host"), "clock"),
					"selfcheck_end"));
	json_decref(j);
	assert_non_null(strstr(doc, "`repro`"));
	for (size_t i = 0; i < sizeof(repro_params) / sizeof(repro_params[0]); i++) {
		snprintf(key, sizeof(key), "`%s`", repro_params[i]);
		if (!strstr(doc, key))
			fail_msg("the repro param %s is not in docs/results-schema.md", key);
	}
	free(doc);
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_sees_what_is_missing),
		cmocka_unit_test(every_command_has_a_section),
		cmocka_unit_test(every_help_option_is_documented),
		cmocka_unit_test(texts_name_the_schema_written),
		cmocka_unit_test(test_help_texts),
		cmocka_unit_test(test_schema_doc_in_step),
		cmocka_unit_test(test_installed_api_example),
		cmocka_unit_test(every_header_in_api_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
