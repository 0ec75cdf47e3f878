// SPDX-License-Identifier: GPL-3.0-or-later
/* What the commands promise a user (issue 14): no crash, no lost work, early errors, honest interfaces. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
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

#include "fpulab/plot.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/summary.h"
#include "fpulab/xstate.h"
#include "bench/livestate.h"
#include "bench/xsave/internal.h"
#include "runcmd.h"

/* A fresh directory for one test's files. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/fpl-contract-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

/* Remove a tmpdir() and all in it. */
static void tmpdir_done(char *dir)
{
	assert_int_equal(cmd_rm_rf(dir), 0);
	free(dir);
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

/*
 * A shell command line (sh -c) through cmd_sh; its stdout into *out when out
 * is not NULL (the caller frees), its stderr on to ours; the exit code.
 */
static int sh(char **out, const char *fmt, ...)
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
static void print_unsupported(const char *what, const char *out, const char *err)
{
	const char *why = out ? strstr(out, "skipped: ") : NULL;

	if (!why)
		why = err && *err ? err : "no reason printed";
	print_message("  %s: exit 77, not supported on this CPU: %.*s\n", what,
		      (int)strcspn(why, "\n"), why);
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
	tmpdir_done(dir);
}

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
		print_unsupported("run signal", o.out, o.err);
		cmd_out_free(&o);
		tmpdir_done(dir);
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
	tmpdir_done(dir);
}

/*
 * -o FILE that cannot be written at the end (/dev/full: a full disk): exit
 * 1, stderr says why, and what was measured is not lost with the file: the
 * report still comes on stdout (run's summary, --json's whole document, a
 * benchmark's table even with -q).
 */
static void test_unwritable_output_keeps_report(void **state)
{
	static const char *const why = "/dev/full: not written: No space left on device";
	struct cmd_out o;
	json_error_t e;
	json_t *j;
	int rc;

	if (access("/dev/full", W_OK)) {
		print_message("  no writable /dev/full here: no disk to fill\n");
		skip();
	}
	rc = fpl(&o, 120, "run", "-q", "--budget", "0.05", "-o", "/dev/full", "signal", NULL);
	if (rc == 77) {
		print_unsupported("run signal", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	if (rc != 1 || !strstr(o.err, why) || !strstr(o.out, "Signal round trip"))
		fail_msg("run -o /dev/full: exit %d, no summary on stdout or no reason:\n%s%s", rc,
			 o.out, o.err);
	cmd_out_free(&o);
	rc = fpl(&o, 120, "run", "-q", "--json", "--budget", "0.05", "-o", "/dev/full", "signal",
		 NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(o.err, why));
	j = json_loads(o.out, 0, &e);
	if (!j || json_array_size(json_object_get(j, "runs")) < 1)
		fail_msg("run --json -o /dev/full: no runs on stdout (%s)", j ? "" : e.text);
	json_decref(j);
	cmd_out_free(&o);
	rc = fpl(&o, 120, "signal", "--quick", "-q", "--budget", "0.05", "-o", "/dev/full", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(o.err, why));
	if (!strstr(o.out, "round_trip_cycles"))
		fail_msg("signal -q -o /dev/full: no table on stdout:\n%s", o.out);
	cmd_out_free(&o);
	/* --runs: the runs, measured in other processes, are nowhere else either */
	rc = fpl(&o, 120, "signal", "--quick", "-q", "--budget", "0.05", "--runs", "2", "-o",
		 "/dev/full", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(o.err, why));
	if (!strstr(o.out, "2 of 2 runs"))
		fail_msg("signal --runs 2 -q -o /dev/full: no runs report on stdout:\n%s", o.out);
	cmd_out_free(&o);
}

/* compare reads each file once: a pipe (<(cat A.json)) holds its bytes only once. */
static void test_compare_reads_pipe_once(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	int rc;

	rc = sh(NULL, "%s run -q --budget 0.05 -o %s/a.json signal >/dev/null 2>&1",
		cmd_fpl_bin(), dir);
	if (rc == 77) {
		print_unsupported("run signal", NULL, NULL);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	rc = sh(&out, "cd %s && mkfifo p && (timeout 60 cat a.json > p &) && timeout 60 %s compare a.json p 2>&1",
		dir, cmd_fpl_bin());
	if (rc != 0)
		fail_msg("compare a.json <fifo of a.json>: exit %d\n%s", rc, out);
	free(out);
	tmpdir_done(dir);
}

/* A dump: header, leaves 0, 1 (XSAVE), 0xD.0 and 0xD.1, then extra lines. */
static void dump_file(const char *dir, const char *name, const char *extra)
{
	char text[16384];

	snprintf(text, sizeof(text),
		 "# fpulab cpuid dump 1\n"
		 "xcr0 0x0000000000000007\n"
		 "cpuid 0x00000000 0x00 0x0000000d 0x756e6547 0x6c65746e 0x49656e69\n"
		 "cpuid 0x00000001 0x00 0x000906ea 0x00000800 0x1c000000 0x00000000\n"
		 "cpuid 0x0000000d 0x00 0x00000007 0x00000340 0x00000340 0x00000000\n"
		 "cpuid 0x0000000d 0x01 0x00000000 0x00000000 0x00000000 0x00000000\n%s",
		 extra);
	write_text(dir, name, text);
}

static int info_cpuid(const char *dir, const char *name, char **out)
{
	return sh(out, "cd %s && %s info --cpuid %s 2>&1", dir, cmd_fpl_bin(), name);
}

/* info --cpuid: sizes that would wrap, duplicate and missing leaves, long lines. */
static void test_cpuid_dump_checks(void **state)
{
	char *dir = tmpdir(), *out = NULL, longline[6000];
	int rc;

	dump_file(dir, "ok.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "ok.cpuid", &out);
	if (rc)
		fail_msg("a good dump: exit %d\n%s", rc, out);
	free(out);

	/* 0xffffffff bytes at offset 576: the sum wrapped to 575 at 32 bits. */
	dump_file(dir, "wrap.cpuid", "cpuid 0x0000000d 0x02 0xffffffff 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "wrap.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "subleaf 2"));
	assert_null(strstr(out, "XSAVE size"));
	free(out);

	/* 256 bytes at offset 768: past the 832-byte standard area (0xD.0 ECX) */
	dump_file(dir, "past.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000300 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "past.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "past.cpuid: leaf 0xD subleaf 2"));
	free(out);

	/* The same checks for an AIDA64 dump: exit 2, the file named, no output file. */
	rc = sh(&out, "%s info --cpuid tests/data/cpuid/bad-xsize.aida -o %s/out.txt 2>&1",
		cmd_fpl_bin(), dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "bad-xsize.aida: leaf 0xD subleaf 2"));
	free(out);
	snprintf(longline, sizeof(longline), "%s/out.txt", dir);
	assert_int_equal(access(longline, F_OK), -1);

	dump_file(dir, "dup.cpuid", "cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 "
		  "0x00000000\ncpuid 0x0000000d 0x02 0x00000200 0x00000240 0x00000000 "
		  "0x00000000\n");
	rc = info_cpuid(dir, "dup.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "dup.cpuid:8:"));
	free(out);

	/* Component 2 enumerated, its subleaf absent: said, not silently zero. */
	dump_file(dir, "miss.cpuid", "");
	rc = info_cpuid(dir, "miss.cpuid", &out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "CPUID leaf 0xD subleaf 2 missing from the dump"));
	free(out);

	/* An AMX dump without leaf 0x1D (the fixture has none): shown, the gap named. */
	rc = sh(&out, "%s info --cpuid tests/data/cpuid/sapphirerapids.cpuid 2>&1",
		cmd_fpl_bin());
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "CPUID leaf 0x1D missing from the dump: AMX palette unknown"));
	assert_non_null(strstr(out, "AMX_TILEDATA"));
	free(out);

	/* A 5000-byte line 7: the error names line 7, and only once. */
	memset(longline, 'a', 5000);
	memcpy(longline + 5000, "\n", 2);
	dump_file(dir, "long.cpuid", longline);
	rc = info_cpuid(dir, "long.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "long.cpuid:7:"));
	assert_null(strstr(out, "long.cpuid:8:"));
	free(out);
	tmpdir_done(dir);
}

/* Raw input bytes in messages are escaped: a terminal escape sequence is not sent as is. */
static void test_messages_escape_input(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	int rc;

	write_text(dir, "esc.txt", "1\n2\n3\n\033]0;pwned\007\n");
	write_text(dir, "esc.cpuid", "# fpulab cpuid dump 1\ncpuid \033[31mRED\n");
	rc = sh(&out, "cd %s && %s compare esc.txt esc.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_null(strchr(out, '\033'));
	assert_null(strchr(out, '\007'));
	assert_non_null(strstr(out, "\\x1b"));
	free(out);
	rc = info_cpuid(dir, "esc.cpuid", &out);
	assert_int_equal(rc, 2);
	assert_null(strchr(out, '\033'));
	free(out);
	tmpdir_done(dir);
}

/* plot of many samples bins them first: the script stays small, min and max are in it. */
static void test_plot_bins_many_samples(void **state)
{
	char *dir = tmpdir(), path[600], *out = NULL;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/big.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* 200 000 values 1000..1199 and one far outlier, 9999 */
	for (unsigned i = 0; i < 200000; i++)
		fprintf(f, "%u\n", 1000 + (i * 7919u) % 200);
	fputs("9999\n", f);
	fclose(f);
	rc = sh(&out, "cd %s && %s plot --script big.txt big.txt -o x.svg", dir, cmd_fpl_bin());
	assert_int_equal(rc, 0);
	print_message("  script of 2 x 200001 samples: %zu bytes\n", strlen(out));
	/* raw, it would be 2 x 1.2 MB */
	assert_true(strlen(out) < 200000);
	assert_non_null(strstr(out, "\n9999\n"));
	assert_non_null(strstr(out, "\n1000\n"));
	assert_non_null(strstr(out, "\n1199\n"));
	free(out);
	tmpdir_done(dir);
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
	c.bad = 238;		/* before every call: a warning (once in a while is an observation) */
	c.bad_last = FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_OPMASK;
	c.bad_extra = c.bad_extra_all = FPL_XFEATURE_MASK_OPMASK;
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

/* ctxsw --ab: the verdicts are in the table, whole, the batch medians' first. */
static void test_ctxsw_ab_table(void **state)
{
	struct cmd_out o;
	const char *med, *welch, *by_med, *by_all;
	unsigned cis = 0;
	int rc = fpl(&o, 120, "ctxsw", "--ab", "init,sse", "--quick", "-q", "--budget", "0.2",
		     NULL);

	if (rc == 77) {
		print_unsupported("ctxsw --ab init,sse", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	med = strstr(o.out, "(b_minus_a_median)");
	welch = strstr(o.out, "(b_minus_a_welch)");
	if (!med || !welch)
		fail_msg("ctxsw --ab table without its verdicts:\n%s", o.out);
	by_med = strstr(o.out, "B - A, batch medians");
	by_all = strstr(o.out, "B - A, all batches");
	if (!by_med || !by_all)
		fail_msg("ctxsw --ab table without both B - A lines:\n%s", o.out);
	assert_true(by_med < by_all);
	/*
	 * every CI is whole on its line: ".. +N.NNN%)". A proven difference
	 * reads "+0.985% (95% CI ..", none "no difference proven at 95% (CI ..":
	 * both forms count, whichever this run measured.
	 */
	for (const char *p = o.out; (p = strstr(p, "CI ")); p++) {
		size_t line = strcspn(p, "\n");

		if (p == o.out || (p[-1] != '(' && p[-1] != ' '))
			continue;
		cis++;

		if (!memchr(p, ')', line))
			fail_msg("ctxsw --ab: a CI not closed on its line: %.*s\n%s", (int)line, p,
				 o.out);
	}
	if (!cis)
		fail_msg("ctxsw --ab table without a CI:\n%s", o.out);
	cmd_out_free(&o);
}

/* ---- Interfaces and friction ---- */

static void test_compare_negative_baseline(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	int rc;

	write_text(dir, "neg.txt", "-10\n-11\n-12\n-10.5\n");
	write_text(dir, "pos.txt", "10\n11\n12\n10.5\n");
	rc = sh(&out, "cd %s && %s compare neg.txt pos.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 0);
	if (strstr(out, "-200"))
		fail_msg("a percentage of a negative baseline:\n%s", out);
	assert_non_null(strstr(out, "+21.8"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --bootstrap=99999999999 pos.txt pos.txt 2>&1", dir,
		cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "--bootstrap"));
	free(out);
	tmpdir_done(dir);
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
	assert_int_equal(fpl(&o, 30, "xsave", "--help", NULL), 0);
	assert_null(strstr(o.out, "e+0"));
	cmd_out_free(&o);
	assert_int_equal(fpl(&o, 30, "signal1_processes", "--help", NULL), 0);
	assert_null(strstr(o.out, "context switch"));
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

/* Bad options of a benchmark are refused before the clock is calibrated. */
static void test_xsave_bad_mask_first(void **state)
{
	struct cmd_out o;

	assert_int_equal(fpl(&o, 60, "xsave", "--mask", "bogus", NULL), 2);
	assert_null(strstr(o.err, "pinned to CPU"));
	assert_non_null(strstr(o.err, "bogus"));
	cmd_out_free(&o);
}

static void test_section_defaults_fit(void **state)
{
	struct cmd_out o;
	int rc = fpl(&o, 120, "section", "--quick", "-q", "--budget", "0.05", "--workload", "xor",
		     NULL);

	if (rc == 77) {
		print_unsupported("section --workload xor", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	if (strstr(o.out, "works on multiples"))
		fail_msg("section defaults with sizes the workload does not take:\n%s", o.out);
	cmd_out_free(&o);
}

static void test_run_names_repeats(void **state)
{
	struct cmd_out o;
	const char *ran;
	int rc = fpl(&o, 120, "run", "-q", "--budget", "0.1", "signal", "--state", "init",
		     "signal", "--state", "sse", NULL);

	if (rc == 77) {
		print_unsupported("run signal signal", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	ran = strstr(o.out, "Ran:");
	assert_non_null(ran);
	assert_non_null(strstr(ran, "--state init"));
	assert_non_null(strstr(ran, "--state sse"));
	cmd_out_free(&o);
}

/*
 * signal --budget 60 with stdout and stderr on one pipe (>&2), sent SIGINT
 * 0.3 s after its self-check line, the last before it measures, however
 * long a loaded machine takes to get there: its output, both streams
 * (caller frees).
 */
static char *signal_interrupted_one_sink(void)
{
	const char *argv[] = { "/bin/sh", "-c", "exec \"$0\" signal --budget 60 >&2",
			       cmd_fpl_bin(), NULL };
	struct cmd_out o;
	double sent_s;
	char *both;

	assert_int_equal(cmd_run_sig_ready(argv, 300, SIGINT, "fpulab signal: self-check", NULL,
					   0.3, &o, &sent_s), 0);
	if (o.timed_out || sent_s < 0)
		fail_msg("signal --budget 60: %s (exit %d)\n%s", o.timed_out ? "no self-check "
			 "line, or no end after SIGINT, in 300 s" : "ended before its self-check "
			 "line", cmd_code(&o), o.err);
	both = o.err;
	o.err = NULL;
	cmd_out_free(&o);
	/*
	 * Its self-check status line (printed ok or FAIL before it measures,
	 * not a warning) is blanked: a failed check's warning repeats its text.
	 */
	for (char *p = both; (p = strstr(p, "fpulab signal: self-check ")); )
		if (p == both || p[-1] == '\n')
			while (*p && *p != '\n')
				*p++ = ' ';
		else
			p++;
	return both;
}

/*
 * With stdout and stderr on one file, a warning is printed once. A quiet
 * machine may give no warning: then a run stopped by SIGINT while it
 * measures gives one (the interruption) wherever it runs.
 */
static void test_warnings_once(void **state)
{
	char *out = NULL, *p, line[1024];
	unsigned checked = 0;
	int rc = sh(&out, "%s signal --quick --budget 0.05 -q 2>&1", cmd_fpl_bin());

	if (rc == 77) {
		print_unsupported("signal --quick", out, NULL);
		free(out);
		skip();
	}
	assert_int_equal(rc, 0);
	if (!strstr(out, ": warning: ")) {
		free(out);
		out = signal_interrupted_one_sink();
	}
	for (p = out; (p = strstr(p, ": warning: ")); p++) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p - 11) : strlen(p + 11);

		snprintf(line, sizeof(line), "%.*s", (int)(n < 60 ? n : 60), p + 11);
		if (strstr(out, line) != strstr(p, line) || strstr(strstr(p, line) + 1, line))
			fail_msg("warning printed twice: %s\n%s", line, out);
		checked++;
	}
	print_message("  %u warnings checked\n", checked);
	if (!checked)
		fail_msg("signal printed no warning, not even for SIGINT while measuring:\n%s", out);
	free(out);
}

/* An interrupted run may hold a benchmark with no figure yet: no heading over nothing. */
static void test_summary_no_empty_heading(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	run = fpl_result_add_run(r, "ctxsw");
	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "mode", "processes"), 0);
	assert_int_equal(fpl_run_param_str(run, "placement", "same"), 0);
	fpl_summary_write(r, f);
	fclose(f);
	if (strstr(text, "Context switch"))
		fail_msg("a heading with nothing under it:\n%s", text);
	free(text);
	fpl_result_free(r);
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
	assert_non_null(strstr(out, "example: 1 run, work median 103.0 ns"));
	free(out);
	tmpdir_done(dir);
}

/* --ministat reads as ministat does: the first field, -C N, at least 3 points. */
static void test_ministat_reading(void **state)
{
	char *dir = tmpdir(), *out = NULL, *ref = NULL;
	int rc;

	write_text(dir, "m1.txt", "1 a\n2 b\n3 c\n4 d\n");
	write_text(dir, "four.txt", "5\n6\n7\n8\n");
	write_text(dir, "two.txt", "5\n6\n");
	write_text(dir, "c2.txt", "1 10\n2 20\n3 30\n9\n");
	rc = sh(&out, "cd %s && %s compare --ministat m1.txt four.txt 2>&1", dir, cmd_fpl_bin());
	if (rc)
		fail_msg("--ministat on '1 a' lines: exit %d\n%s", rc, out);
	assert_non_null(strstr(out, "x   4             1             4"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --ministat two.txt four.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "at least 3 data points"));
	free(out);
	rc = sh(&out, "cd %s && %s compare --ministat -C 2 c2.txt c2.txt 2>&1", dir,
		cmd_fpl_bin());
	assert_int_equal(rc, 0);
	/* 10, 20, 30: the line "9" has no second field and is skipped */
	assert_non_null(strstr(out, "x   3            10            30            20"));
	if (!sh(NULL, "command -v ministat >/dev/null")) {
		assert_int_equal(sh(&ref, "cd %s && ministat -C 2 c2.txt c2.txt 2>&1", dir), 0);
		assert_string_equal(out, ref);
		free(ref);
	}
	free(out);
	tmpdir_done(dir);
}

/*
 * Progress on a terminal (script(1) gives one): only grows, its estimate
 * only falls, no internal names. What it shows holds on any machine, loaded
 * or not: the estimate itself is tested on a simulated clock
 * (test_progress_estimate).
 */
static void test_progress_monotonic(void **state)
{
	char *out = NULL, *dir;
	unsigned idx, n, pct, left, last_idx = 0, last_pct = 0, last_left = ~0u, seen = 0;
	char bench[32];
	int rc;

	if (sh(NULL, "command -v script >/dev/null")) {
		print_message("  no script(1) here: no terminal to show progress on\n");
		skip();
	}
	dir = tmpdir();
	rc = sh(&out, "cd %s && timeout 120 script -qec '%s run --budget 1 xsave signal -o p.json' "
		"/dev/null 2>&1", dir, cmd_fpl_bin());
	if (rc == 77) {
		print_unsupported("run xsave signal", out, NULL);
		free(out);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	for (const char *p = out; (p = strstr(p, "\033[K[")); p++) {
		int got = sscanf(p + 4, "%u/%u] %31s %u%% about %u s left", &idx, &n, bench, &pct,
				 &left);
		const char *late = strstr(p, "% ");

		/* an estimate spent before the work is done says so, as 0 s left */
		if (got == 4 && late && !strncmp(late + 2, "taking longer than estimated", 28)) {
			left = 0;
			got = 5;
		}
		if (got != 5) {
			if (strstr(p, "] ") && strchr(p, '%'))
				fail_msg("progress line not as expected: %.80s", p + 3);
			continue;
		}
		if (idx == last_idx && pct < last_pct)
			fail_msg("progress ran backwards: %u%% after %u%% (%s)", pct, last_pct, bench);
		if (left > last_left)
			fail_msg("time left grew: %u s after %u s", left, last_left);
		last_idx = idx;
		last_pct = pct;
		last_left = left;
		seen++;
	}
	print_message("  %u progress lines\n", seen);
	assert_true(seen > 0);
	free(out);
	tmpdir_done(dir);
}

/*
 * A run of fpulab run on a simulated clock, for the progress estimate: n
 * steps expected to take est[i] s take est[i] * speed s, each reporting
 * its fraction `reports` times, evenly; with back, every third report goes
 * back to half (per-group figures). At every report: the fraction shown
 * only grows and never passes 1, the time left only falls and is never
 * negative, and its error against the true time left never grows. Returns
 * the largest error from the second step on.
 */
static double progress_sim(const double *est, size_t n, double speed, unsigned reports,
			   bool back)
{
	struct fpl_progress p = { 0 };
	double now = 100, total = 0, last_err = INFINITY, last_left = INFINITY;
	double worst_later = 0;

	for (size_t i = 0; i < n; i++)
		total += est[i] * speed;
	for (size_t i = 0; i < n; i++) {
		double t_step = now, last_frac = 0, rest = 0;

		for (size_t j = i + 1; j < n; j++)
			rest += est[j];
		fpl_progress_step(&p, est[i], rest, now);
		for (unsigned k = 0; k <= reports; k++) {
			double f = (double)k / reports, truth, err;

			now = t_step + est[i] * speed * f;
			truth = total - (now - 100);
			fpl_progress_at(&p, back && k % 3 == 2 ? f / 2 : f, now);
			if (p.frac < last_frac || p.frac > 1 || p.frac < (back && k % 3 == 2 ? f / 2 : f))
				fail_msg("step %zu at %g: fraction %g after %g", i, f, p.frac, last_frac);
			if (p.left > last_left + 1e-9 || p.left < 0)
				fail_msg("step %zu at %g: %g s left after %g", i, f, p.left, last_left);
			err = fabs(p.left - truth);
			if (err > last_err + 1e-9)
				fail_msg("speed %g, step %zu at %g: %g s left, truly %g: error grew from %g",
					 speed, i, f, p.left, truth, last_err);
			if (i > 0 && err > worst_later)
				worst_later = err;
			last_frac = p.frac;
			last_left = p.left;
			last_err = err;
		}
		fpl_progress_step_done(&p, now);
	}
	/* the end: nothing left, and it says so */
	assert_true(p.left == 0);
	return worst_later;
}

/*
 * The estimate fpulab run shows, on a simulated clock (what a loaded machine
 * does to the real one cannot change it): on schedule it is the truth;
 * faster, the truth once a step has shown the pace; slower (load), it
 * still only falls, its error never grows, and it ends at 0.
 */
static void test_progress_estimate(void **state)
{
	static const double est[] = { 3.3, 6.6, 1.1, 1.1, 4.4, 3.3 };
	static const double speeds[] = { 1, 0.5, 0.2, 2, 3, 10 };
	size_t n = sizeof(est) / sizeof(est[0]);

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		for (int back = 0; back < 2; back++) {
			double worst = progress_sim(est, n, speeds[i], 20, back);

			if (speeds[i] <= 1 && worst > 1e-9)
				fail_msg("speed %g%s: off by %g s after the first step", speeds[i],
					 back ? ", going back" : "", worst);
		}
	}
	/* one report only, at the end of each step: still falls to 0 */
	progress_sim(est, n, 3, 1, false);
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
							     "tool", "clock", NULL }; *h; h++) {
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

/*
 * --units is not ignored: the signal, ctxsw and section tables show the unit
 * asked for and no other (issue 14); signal's CSV has every unit, cycles too.
 */
static void test_units_followed(void **state)
{
	struct cmd_out o;
	int rc = fpl(&o, 60, "signal", "--quick", "-q", "--budget", "0.05", "--units", "ns", NULL);

	if (rc == 77) {
		print_unsupported("signal --units ns", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_non_null(strstr(o.out, " ns (IQR"));
	if (strstr(o.out, " tsc (IQR") || strstr(o.out, " cycles (IQR"))
		fail_msg("signal --units ns shows tsc or cycles figures:\n%s", o.out);
	cmd_out_free(&o);
	rc = fpl(&o, 60, "signal", "--quick", "-q", "--budget", "0.05", "--format", "csv", NULL);
	assert_int_equal(rc, 0);
	for (size_t i = 0; i < 3; i++) {
		static const char *const unit[] = { "tsc", "ns", "cycles" };
		char want[64];

		snprintf(want, sizeof(want), ",delivery%s%s,%s,", i ? "_" : "", i ? unit[i] : "",
			 unit[i]);
		if (!strstr(o.out, want))
			fail_msg("signal --format csv has no %s line:\n%s", want, o.out);
	}
	cmd_out_free(&o);
	rc = fpl(&o, 60, "ctxsw", "--quick", "-q", "--budget", "0.05", "--units", "tsc", NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(o.out, "round_trip_tsc "));
	if (strstr(o.out, "no tsc figures") || strstr(o.out, " ns (IQR") ||
	    strstr(o.out, " cycles (IQR"))
		fail_msg("ctxsw --units tsc shows other units:\n%s", o.out);
	cmd_out_free(&o);
	rc = fpl(&o, 60, "section", "--quick", "-q", "--budget", "0.05", "--workload", "xor",
		 "--impl", "8regs", "--chunks", "4k", "--total", "16k", "--policy", "eager",
		 "--units", "tsc", NULL);
	if (rc == 77) {
		/* the default --insn xsavec: not on every CPU (Zen 2/3 guests) */
		print_unsupported("section --units tsc", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_non_null(strstr(o.out, "FPU sections: times in TSC ticks"));
	assert_non_null(strstr(o.out, "tsc/section [CI]"));
	/* the table's column units; a warning may say "cycles/rep" (a failed self-check) */
	if (strstr(o.out, "cycles/call") || strstr(o.out, "cycles/section") ||
	    strstr(o.out, "us/call"))
		fail_msg("section --units tsc shows other units:\n%s", o.out);
	cmd_out_free(&o);
}

/* Every "set title" line of a script holds want and none holds avoid (NULL: not checked). */
static void titles_say(const char *script, const char *want, const char *avoid)
{
	size_t n = 0;

	for (const char *p = script; (p = strstr(p, "\nset title ")); p++) {
		char *line = strndup(p + 1, strcspn(p + 1, "\n"));

		if (!strstr(line, want) || (avoid && strstr(line, avoid)))
			fail_msg("'%s': wanted '%s'%s%s", line, want, avoid ? ", not " : "",
				 avoid ? avoid : "");
		free(line);
		n++;
	}
	assert_true(n > 0);
}

/*
 * Box plots name the cases as people did (issue 14): the file or directory
 * name, or --label, on the axis, the boxes and the panel titles; the titles
 * say the metric in words, not raw k=v params or 'value'.
 */
static void test_plot_box_titles(void **state)
{
	const char *j = "tests/data/compare/json/";
	char *out = NULL;
	int rc;

	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg", cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 0);
	titles_say(out, "a.json vs b.json", "insn=");
	assert_non_null(strstr(out, "set title 'cycles (xsave; insn xsavec, mask 0x7): a.json vs "
				    "b.json'"));
	assert_non_null(strstr(out, "set xtics ('a.json' 1, 'b.json' 2)"));
	assert_non_null(strstr(out, "with boxplot lt 1 title 'a.json'"));
	free(out);
	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg --label 'old kernel' -l new",
		cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 0);
	titles_say(out, "old kernel vs new", "a.json");
	assert_non_null(strstr(out, "set xtics ('old kernel' 1, 'new' 2)"));
	free(out);
	/* directories (a trailing slash too) and a comma list; plain numbers, will-it-scale */
	rc = sh(&out, "%s plot --script tests/data/compare/wis/case1/ tests/data/compare/wis/case2 "
		"-o x.svg", cmd_fpl_bin());
	assert_int_equal(rc, 0);
	titles_say(out, "will-it-scale average: case1 vs case2", NULL);
	free(out);
	rc = sh(&out, "%s plot --script tests/data/compare/ms/big-a,tests/data/compare/ms/diff-a "
		"tests/data/compare/ms/big-b -o x.svg", cmd_fpl_bin());
	assert_int_equal(rc, 0);
	titles_say(out, "big-a,diff-a vs big-b", "value");
	free(out);
	/* --label for one case, or more than the cases: usage errors */
	rc = sh(&out, "%s plot --script %sa.json -o x.svg --label x 2>&1", cmd_fpl_bin(), j);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "--label"));
	free(out);
	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg -l x -l y -l z 2>&1",
		cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "3 --label for 2 cases"));
	free(out);
}

/*
 * The context-switch ECDF's log axis is readable whatever its range: at
 * least 4 ticks, inside the range, increasing. 850..1093 (a range under a
 * factor of 2.5) once had one; 2100..12000 (this Zen 4, under two decades)
 * had two (5000, 10000) with the median at 2450 unlabelled.
 */
static unsigned plot_ticks(double lo, double span)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "ctxsw");
	struct fpl_metric *m;
	struct fpl_diag diag = { "" };
	char *text = NULL, *t;
	size_t len = 0;
	unsigned ticks = 0;
	double last = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "mode", "processes"), 0);
	assert_int_equal(fpl_run_param_str(run, "placement", "same"), 0);
	assert_int_equal(fpl_run_param_str(run, "state", "none"), 0);
	m = fpl_run_add_metric(run, "switch", "ns", "test");
	assert_non_null(m);
	for (int i = 0; i < 200; i++)
		assert_int_equal(fpl_metric_add(m, lo + span * ((i * 37) % 200) / 199.0), 0);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_CTXSW, FPL_PLOT_SVG, "x.svg", f, &diag), 0);
	fclose(f);
	t = strstr(text, "set xtics (");
	assert_non_null(t);
	for (const char *p = strchr(t, '\''); p && p < strchr(t, ')'); p = strchr(p + 1, '\'')) {
		double v = strtod(p + 1, NULL);

		if (v < lo * 0.9 || v > (lo + span) * 1.1 || v <= last)
			fail_msg("tick %g out of [%g, %g] or not increasing: %.120s", v, lo, lo + span, t);
		last = v;
		ticks++;
		p = strchr(p + 1, '\'');	/* the label's closing quote */
	}
	print_message("  [%g, %g]: %u ticks: %.100s\n", lo, lo + span, ticks, t);
	free(text);
	fpl_result_free(r);
	return ticks;
}

static void test_plot_ticks(void **state)
{
	assert_true(plot_ticks(850, 243) >= 4);
	assert_true(plot_ticks(2100, 9900) >= 4);
	assert_true(plot_ticks(300, 90000) >= 4);
	assert_true(plot_ticks(7000, 600) >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_near_dbl_max),
		cmocka_unit_test(test_hup_quit_keep_partial),
		cmocka_unit_test(test_interrupted_keeps_old_file),
		cmocka_unit_test(test_plot_signal_no_litter),
		cmocka_unit_test(test_run_records_end_checks),
		cmocka_unit_test(test_unwritable_output_keeps_report),
		cmocka_unit_test(test_compare_reads_pipe_once),
		cmocka_unit_test(test_cpuid_dump_checks),
		cmocka_unit_test(test_messages_escape_input),
		cmocka_unit_test(test_plot_bins_many_samples),
		cmocka_unit_test(test_bad_output_path_first),
		cmocka_unit_test(test_xinuse_warning_words),
		cmocka_unit_test(test_ctxsw_ab_table),
		cmocka_unit_test(test_compare_negative_baseline),
		cmocka_unit_test(test_help_texts),
		cmocka_unit_test(test_xsave_bad_mask_first),
		cmocka_unit_test(test_section_defaults_fit),
		cmocka_unit_test(test_run_names_repeats),
		cmocka_unit_test(test_warnings_once),
		cmocka_unit_test(test_summary_no_empty_heading),
		cmocka_unit_test(test_installed_api_example),
		cmocka_unit_test(test_ministat_reading),
		cmocka_unit_test(test_progress_monotonic),
		cmocka_unit_test(test_progress_estimate),
		cmocka_unit_test(test_schema_doc_in_step),
		cmocka_unit_test(test_units_followed),
		cmocka_unit_test(test_plot_box_titles),
		cmocka_unit_test(test_plot_ticks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
