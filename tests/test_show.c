// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: fpulab show prints a results document as the command that wrote it did; bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "clitest.h"

/* sh's stdout of a line, the caller frees; fails unless it exits want. */
static char *sh_out(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *sh_out(int want, const char *fmt, ...)
{
	char line[2048], *out = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rc = sh(&out, "%s", line);
	if (rc != want)
		fail_msg("%s: exit %d, not %d:\n%.3000s", line, rc, want, out ? out : "");
	return out;
}

/*
 * The command's stdout with -o d/doc.json, and show's of that file: the
 * same bytes, then (a --runs series, repro) only warning lines the command
 * wrote on stderr (each of show's is one of them; not checked the other way).
 * A command this CPU cannot run (77) is not compared, and said so.
 * prog: how fpulab is called (a link's name).
 */
static bool same_as_command_as(const char *dir, const char *prog, const char *args,
			       const char *show_args)
{
	char *cmd, *shown, *err, path[600];
	size_t n, len;
	int rc;

	rc = sh(&cmd, "%s %s -o '%s/doc.json' 2>'%s/err.txt'", prog, args, dir, dir);
	if (rc == 77) {
		print_message("  %s: exit 77 here, not compared\n", args);
		free(cmd);
		return false;
	}
	if (rc)
		fail_msg("fpulab %s: exit %d", args, rc);
	snprintf(path, sizeof(path), "%s/err.txt", dir);
	err = cmd_slurp(path, &len);
	assert_non_null(err);
	shown = sh_out(0, "'%s' show %s '%s/doc.json'", cmd_fpl_bin(), show_args, dir);
	n = strlen(cmd);
	if (strncmp(cmd, shown, n))
		fail_msg("fpulab %s printed:\n%s\nfpulab show %s printed:\n%s", args, cmd, show_args,
			 shown);
	for (const char *l = shown + n; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		int k = (int)strcspn(l, "\n");
		char line[4096];

		snprintf(line, sizeof(line), "%.*s\n", k, l);
		if (strncmp(l, "fpulab ", 7) || !strstr(l, ": warning") || !strstr(err, line))
			fail_msg("show %s: after the command's output, '%.*s' is not a warning line "
				 "the command wrote on stderr:\n%s", args, k, l, err);
	}
	print_message("  %s: %zu bytes, the same%s\n", args, n,
		      shown[n] ? ", then its stderr's warnings" : "");
	free(cmd);
	free(shown);
	free(err);
	return true;
}

static bool same_as_command(const char *dir, const char *args, const char *show_args)
{
	char prog[700];

	snprintf(prog, sizeof(prog), "'%s'", cmd_fpl_bin());
	return same_as_command_as(dir, prog, args, show_args);
}

/* Each kind of document on any x86-64: one benchmark, --units, A/B, a --runs series, repro. */
static void test_same_as_command(void **state)
{
	char *dir = tmpdir();
	int same = 0;

	(void)state;
	same += same_as_command(dir, "xsave --quick --budget 0.3", "");
	same += same_as_command(dir, "xsave --quick --budget 0.3 --units tsc", "--units tsc");
	same += same_as_command(dir, "signal --budget 0.2", "");
	same += same_as_command(dir, "ctxsw --ab init,sse --budget 0.3", "");
	same += same_as_command(dir, "signal --budget 0.2 --runs 3", "");
	/* the model-against-kernel table (root and tracefs; else its reason, the same) */
	same += same_as_command(dir, "run signal --budget 0.3 --kernel-trace", "");
	same += same_as_command(dir, "signal --budget 0.2 --kernel-trace", "");
	/* repro's tables, headed as repro heads them (the xor calibration runs anywhere) */
	same += same_as_command(dir, "repro kfpu-mask --runs 3", "");
	/* called by a command's name (a link): host.command's program word is the command */
	{
		char link[700];

		snprintf(link, sizeof(link), "%s/repro", dir);
		assert_int_equal(symlink(cmd_fpl_bin(), link), 0);
		snprintf(link, sizeof(link), "'%s/repro'", dir);
		same += same_as_command_as(dir, link, "kfpu-mask --runs 3", "");
		/* --runs re-executes the command by its name, not the link's path */
		snprintf(link, sizeof(link), "%s/signal", dir);
		assert_int_equal(symlink(cmd_fpl_bin(), link), 0);
		snprintf(link, sizeof(link), "'%s/signal'", dir);
		same += same_as_command_as(dir, link, "--budget 0.2 --runs 2", "");
	}
	assert_true(same >= 9);
	tmpdir_done(dir);
}

/*
 * --all --units all: the generic table, every metric of every run of the
 * document (one line per family: its units side by side).
 */
static void test_all_metrics(void **state)
{
	char *dir = tmpdir(), *all, path[600], pat[160];
	json_t *j, *runs;
	size_t n = 0;

	(void)state;
	free(sh_out(0, "'%s' signal --budget 0.2 -o '%s/d.json' >/dev/null 2>&1", cmd_fpl_bin(),
		    dir));
	all = sh_out(0, "'%s' show --all --units all '%s/d.json'", cmd_fpl_bin(), dir);
	snprintf(path, sizeof(path), "%s/d.json", dir);
	j = load_json(path);
	runs = json_object_get(j, "runs");
	for (size_t i = 0; i < json_array_size(runs); i++) {
		json_t *ms = json_object_get(json_array_get(runs, i), "metrics");

		for (size_t k = 0; k < json_array_size(ms); k++, n++) {
			json_t *m = json_array_get(ms, k), *fam = json_object_get(m, "family");

			/* a metric measured in several units is one line of its family */
			snprintf(pat, sizeof(pat), "\n    %s", json_string_value(fam ? fam :
							json_object_get(m, "name")));
			if (!strstr(all, pat))
				fail_msg("no line '%s' in show --all:\n%s", pat, all);
		}
	}
	assert_true(n >= 4);
	json_decref(j);
	free(all);
	tmpdir_done(dir);
}

/* fpulab run: the summary and its "Ran:" line (host.ran), a benchmark named twice with its options. */
static void test_suite_summary(void **state)
{
	char *dir = tmpdir(), *cmd, *shown;

	(void)state;
	cmd = sh_out(0, "'%s' run xsave signal signal --state avx512 --budget 0.3 -o "
		     "'%s/run.json' 2>/dev/null", cmd_fpl_bin(), dir);
	shown = sh_out(0, "'%s' show '%s/run.json'", cmd_fpl_bin(), dir);
	assert_non_null(strstr(shown, "Summary: "));
	assert_non_null(strstr(shown, "\nRan: xsave "));
	if (strcmp(cmd, shown))
		fail_msg("run printed:\n%s\nshow printed:\n%s", cmd, shown);
	free(cmd);
	free(shown);
	tmpdir_done(dir);
}

/*
 * The document keeps its command line (host.command), word for word; a
 * --runs series the command as typed, not a child's.
 */
static void test_command_recorded(void **state)
{
	char *dir = tmpdir(), path[600];
	const char *want[] = { "signal", "--budget", "0.2", "--runs", "3", "-o" };
	json_t *j, *c;

	(void)state;
	free(sh_out(0, "'%s' signal --budget 0.2 --runs 3 -o '%s/s.json' >/dev/null 2>&1",
		    cmd_fpl_bin(), dir));
	snprintf(path, sizeof(path), "%s/s.json", dir);
	j = load_json(path);
	c = json_object_get(json_object_get(j, "host"), "command");
	assert_int_equal(json_array_size(c), 8);
	assert_string_equal(json_string_value(json_array_get(c, 0)), cmd_fpl_bin());
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(json_string_value(json_array_get(c, i + 1)), want[i]);
	assert_string_equal(json_string_value(json_array_get(c, 7)), path);
	json_decref(j);
	tmpdir_done(dir);
}

/* --json is the document again (read back through standard input: the same table); -o. */
static void test_formats(void **state)
{
	char *dir = tmpdir(), *a, *b, *c, path[600];
	size_t len;

	(void)state;
	free(sh_out(0, "'%s' signal --budget 0.2 -o '%s/d.json' >/dev/null 2>&1", cmd_fpl_bin(),
		    dir));
	a = sh_out(0, "'%s' show '%s/d.json'", cmd_fpl_bin(), dir);
	b = sh_out(0, "'%s' show --json '%s/d.json' | '%s' show -", cmd_fpl_bin(), dir,
		   cmd_fpl_bin());
	assert_string_equal(a, b);
	free(sh_out(0, "'%s' show -o '%s/t.txt' '%s/d.json'", cmd_fpl_bin(), dir, dir));
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	c = cmd_slurp(path, &len);
	assert_non_null(c);
	assert_string_equal(a, c);
	free(b);
	b = sh_out(0, "'%s' show --format csv '%s/d.json'", cmd_fpl_bin(), dir);
	assert_true(!strncmp(b, "bench,", 6) || strstr(b, "\nbench,") != NULL);
	free(a);
	free(b);
	free(c);
	tmpdir_done(dir);
}

/* Exit 2 naming the input; with -o, no file left behind. */
static void expect_usage(const char *dir, const char *args, const char *msg)
{
	struct cmd_out o;
	char line[2048];

	snprintf(line, sizeof(line), "cd '%s' && '%s' show %s", dir, cmd_fpl_bin(), args);
	assert_int_equal(cmd_sh(line, FPLRUN_LIMIT_S, &o), 0);
	if (cmd_code(&o) != 2 || !strstr(o.err, msg) || *o.out)
		fail_msg("show %s: exit %d, stdout '%s', stderr '%s' (want 2 and '%s')", args,
			 cmd_code(&o), o.out, o.err, msg);
	cmd_out_free(&o);
}

static void test_bad_input(void **state)
{
	char *dir = tmpdir();
	struct cmd_out o;

	(void)state;
	write_text(dir, "text.txt", "CPU AMD\n");
	write_text(dir, "other.json", "{\"schema\": \"other/1\", \"runs\": []}\n");
	write_text(dir, "half.json", "{\"schema\": \"fpulab/2\", \"runs\": [");
	expect_usage(dir, "", "no FILE given");
	expect_usage(dir, "a.json b.json", "one FILE only ('b.json' is extra)");
	expect_usage(dir, "missing.json", "missing.json");
	expect_usage(dir, "text.txt", "text.txt:1:");
	expect_usage(dir, "other.json", "other.json");
	expect_usage(dir, "half.json -o out.txt", "half.json");
	expect_usage(dir, "--format xml other.json", "--format: 'xml'");
	expect_usage(dir, "--units parsecs other.json", "--units: 'parsecs'");
	expect_usage(dir, "--all --json other.json", "--all is a table");
	expect_usage(dir, "--frobnicate other.json", "frobnicate");
	expect_usage(dir, "-o /nonexistent/dir/x.txt other.json", "/nonexistent/dir/x.txt");
	assert_int_equal(count_prefix(dir, "out"), 0);
	assert_int_equal(count_prefix(dir, "."), 2);	/* . and ..: no temporary left */
	assert_int_equal(fpl(&o, 30, "show", "--help", NULL), 0);
	assert_non_null(strstr(o.out, "Usage: fpulab show [OPTIONS] FILE"));
	cmd_out_free(&o);
	tmpdir_done(dir);
}

/*
 * A document that loads but that its view cannot print is bad input, not a
 * crash: repro kfpu-mask's calibrations without their template param
 * (reading t[0] of no templates was a SIGSEGV). -o naming FILE itself is
 * refused before anything is written.
 */
static void test_unprintable_document(void **state)
{
	char *dir = tmpdir(), path[600], *before, *after;
	json_t *j, *runs;
	size_t len0 = 0, len1 = 0;

	(void)state;
	free(sh_out(0, "'%s' repro kfpu-mask --runs 3 -o '%s/k.json' >/dev/null 2>&1",
		    cmd_fpl_bin(), dir));
	snprintf(path, sizeof(path), "%s/k.json", dir);
	j = load_json(path);
	runs = json_object_get(j, "runs");
	for (size_t i = 0; i < json_array_size(runs); i++)
		json_object_del(json_object_get(json_array_get(runs, i), "params"), "template");
	snprintf(path, sizeof(path), "%s/bad.json", dir);
	assert_int_equal(json_dump_file(j, path, 0), 0);
	json_decref(j);
	expect_usage(dir, "bad.json", "bad.json: xor calibrations without a template param");
	/* -o FILE itself: refused, FILE unchanged */
	snprintf(path, sizeof(path), "%s/k.json", dir);
	before = cmd_slurp(path, &len0);
	expect_usage(dir, "-o k.json k.json", "-o k.json is FILE itself");
	expect_usage(dir, "-o ./k.json k.json", "is FILE itself");
	after = cmd_slurp(path, &len1);
	assert_true(len0 == len1 && !memcmp(before, after, len0));
	free(before);
	free(after);
	tmpdir_done(dir);
}

/* Text from a document cannot drive the terminal: an escape sequence in a warning is shown escaped. */
static void test_escapes_control_bytes(void **state)
{
	char *dir = tmpdir(), *out, path[600];
	json_t *j;

	(void)state;
	free(sh_out(0, "'%s' signal --budget 0.2 -o '%s/d.json' >/dev/null 2>&1", cmd_fpl_bin(),
		    dir));
	snprintf(path, sizeof(path), "%s/d.json", dir);
	j = load_json(path);
	json_object_set_new(json_array_get(json_object_get(j, "runs"), 0), "warnings",
			    json_pack("[s]", "red \x1b[31m here"));
	snprintf(path, sizeof(path), "%s/e.json", dir);
	assert_int_equal(json_dump_file(j, path, 0), 0);
	json_decref(j);
	out = sh_out(0, "'%s' show '%s/e.json'", cmd_fpl_bin(), dir);
	assert_null(strchr(out, 0x1b));
	assert_non_null(strstr(out, "red \\x1b[31m here"));
	free(out);
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_command),
		cmocka_unit_test(test_all_metrics),
		cmocka_unit_test(test_suite_summary),
		cmocka_unit_test(test_command_recorded),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unprintable_document),
		cmocka_unit_test(test_escapes_control_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
