// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: what a signal does to a command: HUP, QUIT and TERM keep the samples, an old file is kept, plot leaves no litter. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "clitest.h"

/* The result at path has the warning a run interrupted in its benchmark writes. */
static void assert_interrupted_runs(const char *path)
{
	json_t *j = load_json(path), *w;
	bool said = false;
	size_t i;

	assert_true(json_is_array(json_object_get(j, "runs")));
	json_array_foreach(json_object_get(j, "warnings"), i, w)
		said |= strstr(json_string_value(w), "interrupted: xsave has only the samples") != NULL;
	if (!said)
		fail_msg("%s: no warning that xsave was interrupted", path);
	json_decref(j);
}

/*
 * fpulab xsave --quick --budget 3 -o out, sent sig once it measures: 0.3 s
 * after its self-check line, the last it prints before the benchmark
 * starts, however long a loaded machine takes to get there. False after
 * saying why on exit 77 (no XSAVE here).
 */
static bool xsave_signalled(const char *out, int sig, struct cmd_out *o)
{
	const char *argv[] = { cmd_fpl_bin(), "xsave", "--quick", "--budget", "3", "-o", out,
			       NULL };
	double sent_s;

	assert_int_equal(cmd_run_sig_ready(argv, 300, sig, "fpulab xsave: self-check", NULL, 0.3,
					   o, &sent_s), 0);
	if (cmd_code(o) == 77) {
		print_unsupported("xsave --quick", o->out, o->err);
		return false;
	}
	if (o->timed_out)
		fail_msg("xsave: no self-check line, or no end after signal %d, in 300 s:\n%s", sig,
			 o->err);
	if (sent_s < 0)
		fail_msg("xsave ended (exit %d) before its self-check line:\n%s", cmd_code(o),
			 o->err);
	return true;
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
		struct cmd_out o;

		snprintf(out, sizeof(out), "%s/out.json", dir);
		if (!xsave_signalled(out, sigs[i], &o)) {
			cmd_out_free(&o);
			tmpdir_done(dir);
			skip();
		}
		if (WIFSIGNALED(o.status))
			fail_msg("signal %d during xsave -o: killed by it (%d)", sigs[i],
				 WTERMSIG(o.status));
		assert_int_equal(cmd_code(&o), 1);
		assert_int_equal(count_prefix(dir, ".out.json.tmp"), 0);
		assert_interrupted_runs(out);
		cmd_out_free(&o);
		tmpdir_done(dir);
	}
}

/* An interrupted run keeps a good existing file and writes FILE.interrupted beside it. */
static void test_interrupted_keeps_old_file(void **state)
{
	char *dir = tmpdir(), out[600], partial[640];
	const char *good = "{\"schema\": \"fpulab/2\", \"runs\": [], \"good\": true}\n";
	struct cmd_out o;
	char *kept;

	snprintf(out, sizeof(out), "%s/out.json", dir);
	snprintf(partial, sizeof(partial), "%s.interrupted", out);
	write_text(dir, "out.json", good);
	if (!xsave_signalled(out, SIGINT, &o)) {
		cmd_out_free(&o);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(cmd_code(&o), 1);
	kept = cmd_slurp(out, NULL);
	assert_non_null(kept);
	assert_true(*kept);
	assert_string_equal(kept, good);
	free(kept);
	assert_non_null(strstr(o.err, ".interrupted"));
	assert_interrupted_runs(partial);
	cmd_out_free(&o);
	tmpdir_done(dir);
}

/* plot leaves no .fpulab-plot.* behind when INT, TERM or HUP comes while gnuplot draws. */
static void test_plot_signal_no_litter(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	char *dir = tmpdir(), gp[600], nums[600], svg[600], started[600], *stub = NULL;

	/*
	 * A gnuplot that takes its time: reads the script, says it has (the
	 * file started), then sleeps in its own process (exec), which plot's
	 * SIGKILL ends.
	 */
	snprintf(started, sizeof(started), "%s/started", dir);
	assert_true(asprintf(&stub, "#!/bin/sh\ncat >/dev/null\n: >'%s'\nexec sleep 60\n",
			     started) > 0);
	write_text(dir, "gnuplot", stub);
	free(stub);
	snprintf(gp, sizeof(gp), "%s/gnuplot", dir);
	assert_int_equal(chmod(gp, 0755), 0);
	write_text(dir, "a.txt", "1\n2\n3\n4\n5\n");
	snprintf(nums, sizeof(nums), "%s/a.txt", dir);
	snprintf(svg, sizeof(svg), "%s/p.svg", dir);
	setenv("FPL_GNUPLOT", gp, 1);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		const char *argv[] = { cmd_fpl_bin(), "plot", nums, nums, "-o", svg, NULL };
		struct cmd_out o;
		double sent_s;

		unlink(started);
		assert_int_equal(cmd_run_sig_ready(argv, 300, sigs[i], NULL, started, 0, &o,
						   &sent_s), 0);
		if (o.timed_out || sent_s < 0)
			fail_msg("plot, signal %d: %s (exit %d)\n%s", sigs[i], o.timed_out ?
				 "gnuplot not started, or no end, in 300 s" :
				 "ended before gnuplot read its script", cmd_code(&o), o.err);
		if (count_prefix(dir, ".fpulab-plot."))
			fail_msg("plot, signal %d: left a .fpulab-plot.* file", sigs[i]);
		assert_int_equal(count_prefix(dir, "p.svg"), 0);
		/* the temporary file gone, the signal takes effect */
		if (!WIFSIGNALED(o.status) || WTERMSIG(o.status) != sigs[i])
			fail_msg("plot, signal %d: exit %d, not ended by the signal", sigs[i],
				 cmd_code(&o));
		cmd_out_free(&o);
	}
	unsetenv("FPL_GNUPLOT");
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hup_quit_keep_partial),
		cmocka_unit_test(test_interrupted_keeps_old_file),
		cmocka_unit_test(test_plot_signal_no_litter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
