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
#include <cmocka.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "runcmd.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_sees_what_is_missing),
		cmocka_unit_test(every_command_has_a_section),
		cmocka_unit_test(every_help_option_is_documented),
		cmocka_unit_test(texts_name_the_schema_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
