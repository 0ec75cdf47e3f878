// SPDX-License-Identifier: GPL-3.0-or-later
/* What the commands promise a user (issue 14): no crash, no lost work, early errors, honest interfaces. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/result.h"
#include "fpulab/xstate.h"
#include "bench/livestate.h"
#include "bench/xsave/internal.h"
#include "cmdrun.h"

/* A fresh directory for one test's files. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/fpl-contract-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rmdir_all(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
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
static unsigned count_prefix(const char *dir, const char *prefix)
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

/* fpulab with up to 15 arguments (NULL-terminated list); output in o. */
static int fpl(struct cmd_out *o, double limit_s, const char *a0, ...)
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

static json_t *load_json(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	if (!j)
		fail_msg("%s: %s (line %d)", path, e.text, e.line);
	return j;
}

/* ---- Crashes and signals ---- */

/* Values near DBL_MAX: (v - x0) / dx overflowed to inf and (int)inf indexed the histogram. */
static void test_compare_near_dbl_max(void **state)
{
	static const char *const modes[] = { "--format=table", "--ministat", "--kernel" };
	char *dir = tmpdir(), good[600], huge[600];
	struct cmd_out o;

	write_text(dir, "good.txt", "10\n11\n12\n10.5\n");
	write_text(dir, "huge.txt", "1.7976931348623157e308\n1.7976931348623157e308\n"
		   "1.7976931348623157e308\n");
	snprintf(good, sizeof(good), "%s/good.txt", dir);
	snprintf(huge, sizeof(huge), "%s/huge.txt", dir);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int rc = fpl(&o, 60, "compare", modes[i], good, huge, NULL);

		if (WIFSIGNALED(o.status))
			fail_msg("compare %s good huge: killed by signal %d", modes[i],
				 WTERMSIG(o.status));
		if (rc != 0 && rc != 1)
			fail_msg("compare %s good huge: exit %d\n%s", modes[i], rc, o.err);
		cmd_out_free(&o);
	}
	rmdir_all(dir);
	free(dir);
}

/*
 * HUP and QUIT end a run as TERM does: the samples so far are written, whole,
 * no temporary file is left, and the exit is 1, not death by the signal.
 */
static void test_hup_quit_keep_partial(void **state)
{
	static const int sigs[] = { SIGHUP, SIGQUIT, SIGTERM };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char *dir = tmpdir(), out[600];
		const char *argv[] = { cmd_fpl_bin(), "xsave", "--quick", "-q", "--budget", "3",
				       "-o", out, NULL };
		struct cmd_out o;
		json_t *j;

		snprintf(out, sizeof(out), "%s/out.json", dir);
		assert_int_equal(cmd_run_sig(argv, 60, sigs[i], 1.0, &o), 0);
		if (WIFSIGNALED(o.status))
			fail_msg("signal %d during xsave -o: killed by it (%d)", sigs[i],
				 WTERMSIG(o.status));
		assert_int_equal(cmd_code(&o), 1);
		assert_int_equal(count_prefix(dir, ".out.json.tmp"), 0);
		j = load_json(out);
		assert_true(json_is_array(json_object_get(j, "runs")));
		json_decref(j);
		cmd_out_free(&o);
		rmdir_all(dir);
		free(dir);
	}
}

/* An interrupted run keeps a good existing file and writes FILE.interrupted beside it. */
static void test_interrupted_keeps_old_file(void **state)
{
	char *dir = tmpdir(), out[600], partial[640];
	const char *argv[] = { cmd_fpl_bin(), "xsave", "--quick", "-q", "--budget", "3",
			       "-o", out, NULL };
	const char *good = "{\"schema\": \"fpulab/2\", \"runs\": [], \"good\": true}\n";
	struct cmd_out o;
	char buf[256] = "";
	FILE *f;
	json_t *j;

	snprintf(out, sizeof(out), "%s/out.json", dir);
	snprintf(partial, sizeof(partial), "%s.interrupted", out);
	write_text(dir, "out.json", good);
	assert_int_equal(cmd_run_sig(argv, 60, SIGINT, 1.0, &o), 0);
	assert_int_equal(cmd_code(&o), 1);
	f = fopen(out, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	assert_string_equal(buf, good);
	assert_non_null(strstr(o.err, ".interrupted"));
	j = load_json(partial);
	assert_true(json_is_array(json_object_get(j, "runs")));
	json_decref(j);
	cmd_out_free(&o);
	rmdir_all(dir);
	free(dir);
}

/* plot leaves no .fpulab-plot.* behind when INT, TERM or HUP comes while gnuplot draws. */
static void test_plot_signal_no_litter(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	char *dir = tmpdir(), gp[600], nums[600], svg[600];

	/* A gnuplot that takes its time: reads the script, then sleeps. */
	write_text(dir, "gnuplot", "#!/bin/sh\ncat >/dev/null\nsleep 20\n");
	snprintf(gp, sizeof(gp), "%s/gnuplot", dir);
	assert_int_equal(chmod(gp, 0755), 0);
	write_text(dir, "a.txt", "1\n2\n3\n4\n5\n");
	snprintf(nums, sizeof(nums), "%s/a.txt", dir);
	snprintf(svg, sizeof(svg), "%s/p.svg", dir);
	setenv("FPL_GNUPLOT", gp, 1);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		const char *argv[] = { cmd_fpl_bin(), "plot", nums, nums, "-o", svg, NULL };
		struct cmd_out o;

		assert_int_equal(cmd_run_sig(argv, 30, sigs[i], 0.5, &o), 0);
		assert_false(o.timed_out);
		if (count_prefix(dir, ".fpulab-plot."))
			fail_msg("plot, signal %d: left a .fpulab-plot.* file", sigs[i]);
		assert_int_equal(count_prefix(dir, "p.svg"), 0);
		cmd_out_free(&o);
	}
	unsetenv("FPL_GNUPLOT");
	rmdir_all(dir);
	free(dir);
}

/* `fpulab run` checks the self-test and the load at its end, as single benchmarks do. */
static void test_run_records_end_checks(void **state)
{
	char *dir = tmpdir(), out[600];
	struct cmd_out o;
	json_t *j, *host;
	int rc;

	snprintf(out, sizeof(out), "%s/r.json", dir);
	rc = fpl(&o, 120, "run", "-q", "--budget", "0.1", "-o", out, "signal", NULL);
	if (rc == 77) {
		cmd_out_free(&o);
		rmdir_all(dir);
		free(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	j = load_json(out);
	host = json_object_get(j, "host");
	assert_non_null(json_object_get(host, "loadavg_start"));
	assert_non_null(json_object_get(host, "loadavg_end"));
	assert_non_null(json_object_get(json_object_get(host, "clock"), "selfcheck"));
	assert_non_null(json_object_get(json_object_get(host, "clock"), "selfcheck_end"));
	json_decref(j);
	cmd_out_free(&o);
	rmdir_all(dir);
	free(dir);
}

/* ---- Work that is lost or mislabelled ---- */

/* Every command that takes -o refuses a path that cannot be written before measuring. */
static void test_bad_output_path_first(void **state)
{
	static const char *const cmds[][4] = {
		{ "run" }, { "xsave" }, { "ctxsw" }, { "signal" }, { "section" }, { "xor" },
		{ "repro", "lazy-restore" }, { "info", "--dump-cpuid" },
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *argv[10] = { cmd_fpl_bin() };
		size_t k = 1;
		struct cmd_out o;

		for (size_t a = 0; a < 4 && cmds[i][a]; a++)
			argv[k++] = cmds[i][a];
		argv[k++] = "-o";
		argv[k++] = "/nonexistent-dir-fpl/x.json";
		argv[k] = NULL;
		assert_int_equal(cmd_run(argv, 120, &o), 0);
		if (cmd_code(&o) != 2)
			fail_msg("%s -o /nonexistent-dir-fpl/x.json: exit %d, not 2\n%s", cmds[i][0],
				 cmd_code(&o), o.err);
		/* Refused before the clock was calibrated: no self-check line. */
		if (strstr(o.err, "pinned to CPU") || strstr(o.err, "self-check"))
			fail_msg("%s: measured before refusing the path:\n%s", cmds[i][0], o.err);
		assert_non_null(strstr(o.err, "/nonexistent-dir-fpl/x.json"));
		cmd_out_free(&o);
	}
}

/* The XINUSE warning shows the value seen and names what was wrong. */
static void test_xinuse_warning_words(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "xsave");
	struct fpl_xs_cell c = { 0 };
	char words[400];
	const char *w;

	assert_non_null(run);
	c.expect = FPL_XFEATURE_MASK_YMM;
	c.checks = 238;
	c.bad = 1;
	c.bad_last = FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_OPMASK;
	c.bad_extra = FPL_XFEATURE_MASK_OPMASK;
	fpl_xs_xinuse_warn(run, &c, "0x4");
	w = json_string_value(json_array_get(run->warnings, 0));
	assert_non_null(w);
	print_message("  %s\n", w);
	assert_non_null(strstr(w, "was 0x24"));
	assert_non_null(strstr(w, "not 0x4"));
	assert_non_null(strstr(w, "in use though not set up"));
	fpl_xfeature_mask_names(FPL_XFEATURE_MASK_OPMASK, words, sizeof(words));
	assert_non_null(strstr(w, words));
	fpl_live_diff_words(FPL_XFEATURE_MASK_YMM, 0, words, sizeof(words));
	assert_non_null(strstr(words, "set up but found in init"));
	assert_null(strstr(words, "not set up"));
	fpl_live_diff_words(0, 0, words, sizeof(words));
	assert_string_equal(words, "");
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_near_dbl_max),
		cmocka_unit_test(test_hup_quit_keep_partial),
		cmocka_unit_test(test_interrupted_keeps_old_file),
		cmocka_unit_test(test_plot_signal_no_litter),
		cmocka_unit_test(test_run_records_end_checks),
		cmocka_unit_test(test_bad_output_path_first),
		cmocka_unit_test(test_xinuse_warning_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
