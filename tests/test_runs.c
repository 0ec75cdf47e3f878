// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: --runs N (run and the benchmark commands): one file, N processes, bad values, SIGINT. */
#include <dirent.h>
#include <errno.h>
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/bench.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "runcmd.h"

CMD_TMPDIR(dir, "fpl-test-runs")

/* The runs of r whose observed.run_index is idx, in file order. */
static size_t runs_of(const struct fpl_result *r, long long idx, const struct fpl_run **out,
		      size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (fpl_run_obs_get_int(r->runs[i], "run_index", -1) == idx && n < max)
			out[n++] = r->runs[i];
	return n;
}

#define MAXR 4096

/*
 * `run --runs 3`: one file; every benchmark built in has a run in each of
 * the 3; each run index is one process (one pid), a different one each; the
 * k-th run of every index is the same benchmark with equal params.
 */
static void run_runs_3_one_file_three_processes(void **state)
{
	static const struct fpl_run *a[MAXR], *b[MAXR];
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err;
	long long pids[3];
	size_t na;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/runs3.json", dir);
	snprintf(args, sizeof(args), "run --runs 3 --budget 0.2 -q -o '%s'", path);
	rc = fplrun(NULL, args, &out, &err);
	if (rc != 0)
		fail_msg("fpulab %s exited %d: %s", args, rc, err);
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r->host, "runs"),
							    "completed")), 3);
	/* host facts once, per-process ones in each run */
	assert_non_null(json_object_get(r->host, "xcr0"));
	assert_null(json_object_get(r->host, "process"));
	na = runs_of(r, 1, a, MAXR);
	assert_true(na > 0);
	assert_int_equal(na * 3, r->nruns);
	for (long long idx = 1; idx <= 3; idx++) {
		size_t nb = runs_of(r, idx, b, MAXR);

		assert_int_equal(nb, na);
		pids[idx - 1] = fpl_run_obs_get_int(b[0], "run_pid", -1);
		assert_true(pids[idx - 1] > 0);
		for (size_t k = 0; k < nb; k++) {
			assert_string_equal(b[k]->bench, a[k]->bench);
			if (!json_equal(b[k]->params, a[k]->params))
				fail_msg("run %lld, %s #%zu: params differ from run 1's", idx,
					 b[k]->bench, k);
			assert_int_equal(fpl_run_obs_get_int(b[k], "run_pid", -1), pids[idx - 1]);
			assert_non_null(fpl_run_obs_get(b[k], "run_core_hz"));
			assert_non_null(fpl_run_obs_get(b[k], "run_cpu"));
			assert_non_null(fpl_run_obs_get(b[k], "run_aslr"));
			assert_non_null(fpl_run_obs_get_str(b[k], "run_started"));
		}
	}
	assert_true(pids[0] != pids[1] && pids[1] != pids[2] && pids[0] != pids[2]);
	for (size_t bi = 0; bi < fpl_nbenches; bi++) {
		bool found = false;

		for (size_t k = 0; k < na; k++)
			found |= !strcmp(a[k]->bench, fpl_benches[bi]->name);
		if (!found)
			fail_msg("benchmark %s has no run in run 1", fpl_benches[bi]->name);
	}
	fpl_result_free(r);
	free(out);
	free(err);
}

/*
 * fpulab signal --state init --budget 0.1 RUNS -o DIR/NAME: the loaded
 * result, *out its stdout (the caller frees both); a skip where signal
 * cannot run here.
 */
static struct fpl_result *signal_runs(const char *runs, const char *name, char **out)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *err;
	int rc;

	if (!fpl_bench_find("signal"))
		skip();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(args, sizeof(args), "signal --state init --budget 0.1 %s -o '%s'", runs, path);
	rc = fplrun(NULL, args, out, &err);
	if (rc == 77)
		skip();
	if (rc != 0)
		fail_msg("fpulab %s exited %d: %s", args, rc, err);
	free(err);
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	return r;
}

/*
 * The repeatability table printed after the runs has a row per unit whose
 * metric and within counts are those the library finds in the file written.
 */
static void repeat_rows_match(const struct fpl_result *r, const char *out)
{
	struct fpl_unit_repeat u[8];
	int n = fpl_result_repeatability(r, FPL_REPEAT_TOL_PCT, u, 8);
	const char *t = strstr(out, "\nRepeatability: ");

	assert_true(n > 0);
	if (!t)
		fail_msg("no repeatability table in:\n%s", out);
	for (int k = 0; k < n; k++) {
		char row[64];

		/* the unit and the count of metrics */
		snprintf(row, sizeof(row), "\n%-10.23s %8zu ", u[k].unit, u[k].rep.metrics);
		if (!strstr(t, row))
			fail_msg("no row '%s' (within %zu) in:\n%s", row + 1, u[k].rep.within, t);
	}
}

/* A benchmark command with --runs: the same, and the table has one line per run. */
static void bench_runs_one_file(void **state)
{
	char *out;
	struct fpl_result *r = signal_runs("--runs=2", "sig.json", &out);

	(void)state;
	assert_non_null(strstr(out, "2 of 2 runs"));
	assert_int_equal(r->nruns, 2);
	assert_int_equal(fpl_run_obs_get_int(r->runs[0], "run_index", 0), 1);
	assert_int_equal(fpl_run_obs_get_int(r->runs[1], "run_index", 0), 2);
	assert_true(json_equal(r->runs[0]->params, r->runs[1]->params));
	assert_true(fpl_run_obs_get_int(r->runs[0], "run_pid", 0) !=
		    fpl_run_obs_get_int(r->runs[1], "run_pid", 0));
	repeat_rows_match(r, out);
	fpl_result_free(r);
	free(out);
}

/*
 * An A/B's --runs report shows its difference first, the figure the runs
 * are for, and B - A over the runs: the mean of the runs' difference
 * medians (checked against the file) with a t interval.
 */
static void ab_runs_difference_first(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err, *row, want[64];
	double sum = 0;
	size_t n = 0;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/ab.json", dir);
	snprintf(args, sizeof(args), "ctxsw --ab init,sse --budget 0.1 --runs 3 -o '%s'", path);
	rc = fplrun(NULL, args, &out, &err);
	if (rc == 77) {
		print_message("  ctxsw --ab init,sse does not run here: %s\n", err);
		free(out);
		free(err);
		skip();
	}
	if (rc != 0)
		fail_msg("fpulab %s exited %d: %s", args, rc, err);
	row = strstr(out, "\nbench ");
	assert_non_null(row);
	row = strchr(row + 1, '\n');
	assert_non_null(row);
	/* the first row after the header: ctxsw, its configuration, then the metric */
	if (!strstr(row, " difference ") || strstr(row, " difference ") > strchr(row + 1, '\n'))
		fail_msg("the first metric row is not the difference:\n%s", out);
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_metric *m = fpl_run_find_metric(r->runs[i], "difference");
		struct fpl_summary s;

		assert_non_null(m);
		assert_int_equal(fpl_summarize(m->samples, m->n, 0, &s), 0);
		sum += s.median;
		n++;
	}
	assert_int_equal(n, 3);
	snprintf(want, sizeof(want), "    %+.4g ns [", sum / 3);
	row = strstr(out, "\nB - A over the runs");
	if (!row || !strstr(row, "difference, 3 runs") || !strstr(row, want) ||
	    !strstr(row, "proven"))
		fail_msg("no B - A line '%s' over 3 runs:\n%s", want, out);
	fpl_result_free(r);
	free(out);
	free(err);
}

/*
 * Every metric row of the runs table names a metric of the file whole:
 * ctxsw's round_trip_median_cycles and _tsc (over 20 characters) were cut to
 * "round_trip_median_cy" and "_ts" (with --ab, _a_cycles and _a_tsc to one name).
 */
static void runs_table_names_whole(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char args[256], path[128], *out, *err, *row;
	size_t rows = 0;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/names.json", dir);
	snprintf(args, sizeof(args), "ctxsw --state init --budget 0.1 --runs 2 -o '%s'", path);
	rc = fplrun(NULL, args, &out, &err);
	if (rc == 77)
		skip();
	if (rc != 0)
		fail_msg("fpulab %s exited %d: %s", args, rc, err);
	assert_int_equal(fpl_result_load(path, &r, &diag), 0);
	row = strstr(out, "\nbench ");
	assert_non_null(row);
	while ((row = strstr(row + 1, "\nctxsw "))) {
		char name[128];

		/* bench, a configuration of 52 columns, then the metric */
		assert_int_equal(sscanf(row + 1 + 9 + 53, "%127s", name), 1);
		if (!fpl_run_find_metric(r->runs[0], name))
			fail_msg("row metric '%s' is no metric of the file:\n%s", name, out);
		rows++;
	}
	assert_true(rows >= 8);
	assert_non_null(strstr(out, " round_trip_median_cycles "));
	fpl_result_free(r);
	free(out);
	free(err);
}

/* --runs 1 is today's single run: no run_index, the usual table. */
static void runs_1_is_one_run_here(void **state)
{
	char *out;
	struct fpl_result *r = signal_runs("--runs 1 -q", "one.json", &out);

	(void)state;
	assert_int_equal(r->nruns, 1);
	assert_null(fpl_run_obs_get(r->runs[0], "run_index"));
	assert_null(json_object_get(r->host, "runs"));
	/* the process facts are in the host object of a single run */
	assert_non_null(json_object_get(json_object_get(r->host, "process"), "pid"));
	fpl_result_free(r);
	free(out);
}

static void rejected(const char *args, const char *names, const char *path)
{
	char *why = NULL;

	if (!fplrun_rejected_early(args, names, &why))
		fail_msg("fpulab %s: not refused early naming '%s': %s", args, names,
			 why ? why : "");
	free(why);
	if (path)
		assert_false(cmd_exists(path));
}

/* A bad --runs, a bad option of the benchmark, an output that cannot be written: exit 2, no file. */
static void bad_runs_exit_2_before_measuring(void **state)
{
	static const char *const bad[] = { "0", "-1", "1001", "x", "2.5", "", "3x" };
	char args[512], path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/never.json", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "run --runs '%s' -o '%s'", bad[i], path);
		rejected(args, "--runs", path);
		snprintf(args, sizeof(args), "ctxsw --runs='%s' -o '%s'", bad[i], path);
		rejected(args, "--runs", path);
	}
	snprintf(args, sizeof(args), "run -o '%s' --runs", path);
	rejected(args, "--runs", path);
	/* the first run refuses what every run would, and nothing is written */
	snprintf(args, sizeof(args), "ctxsw --runs 3 --state bogus -o '%s'", path);
	rejected(args, "bogus", path);
	snprintf(args, sizeof(args), "run --runs 3 nosuchbench -o '%s'", path);
	rejected(args, "nosuchbench", path);
	snprintf(args, sizeof(args), "run --runs 2 --budget 0.1 -o '%s/no/such/dir/x.json'", dir);
	rejected(args, "no/such/dir", NULL);
	snprintf(args, sizeof(args), "run --runs 2 --budget 0.1 -o '%s'", dir);
	rejected(args, "directory", NULL);
}

/*
 * --runs -o onto a device in a directory the user cannot write (/dev/full
 * in /dev): written into, as without --runs, so a full disk's error (exit
 * 1), not "cannot write in /dev" (exit 2) before measuring. It was refused
 * for every user but root (whose access(2) passes anyway): run as nobody
 * where the test is root.
 */
static void runs_into_a_device_as_a_user(void **state)
{
	char line[1024];
	struct cmd_out o;

	(void)state;
	if (access("/dev/full", W_OK) || !fpl_bench_find("signal")) {
		print_message("  no writable /dev/full, or no signal benchmark, here\n");
		skip();
	}
	if (geteuid() == 0 && access("/usr/bin/setpriv", X_OK)) {
		print_message("  root, and no setpriv to run as a user\n");
		skip();
	}
	snprintf(line, sizeof(line), "%s'%s' signal --quick -q --budget 0.05 --runs 2 -o /dev/full",
		 geteuid() ? "" : "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ",
		 cmd_fpl_bin());
	assert_int_equal(cmd_sh(line, FPLRUN_LIMIT_S, &o), 0);
	if (cmd_code(&o) == 77) {
		cmd_out_free(&o);
		skip();
	}
	if (cmd_code(&o) != 1 || !strstr(o.err, "/dev/full: not written: No space left on device"))
		fail_msg("%s: exit %d, not 1 with the disk full\n%s", line, cmd_code(&o), o.err);
	cmd_out_free(&o);
}

/* Watch: sig once a second child process (the second run) is seen; to that child too with kids. */
struct second_run {
	pid_t first;
	bool sent;
	int sig;
	bool kids;
};

static int on_second_run(pid_t pid, double t, double *next_s, void *arg)
{
	struct second_run *w = arg;
	pid_t kids[16];
	size_t n;

	if (t < 0 || w->sent)
		return 0;
	*next_s = 0.002;
	n = cmd_children(pid, kids, 16);
	for (size_t k = 0; k < n; k++) {
		if (!w->first) {
			w->first = kids[k];
		} else if (kids[k] != w->first) {
			w->sent = true;
			if (w->kids)
				kill(kids[k], w->sig);
			return w->sig;
		}
	}
	return 0;
}

/*
 * An ending signal once the second run's process exists (so the first is
 * complete): a valid file with the completed runs, marked interrupted, exit
 * 1. HUP and QUIT end a command as INT and TERM do (issue 14).
 */
static void signal_keeps_completed_runs(int sig, bool existing)
{
	static const char good[] = "{\"an earlier, good file\": true}\n";
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char path[128], partial[160];
	const char *argv[] = { cmd_fpl_bin(), "ctxsw", "--state", "init", "--budget", "0.3",
			       "--runs", "50", "-q", "-o", path, NULL };
	struct second_run w = { 0, false, sig, false };
	struct cmd_out o;
	int st;
	long long completed, maxidx = 0;
	json_t *w_;
	size_t i;
	bool marked = false;

	snprintf(path, sizeof(path), "%s/sig%d%s.json", dir, sig, existing ? "-old" : "");
	snprintf(partial, sizeof(partial), "%s.interrupted", path);
	if (existing) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(good, f);
		fclose(f);
	}
	assert_int_equal(cmd_run_watch(argv, 300, on_second_run, &w, &o), 0);
	st = o.status;
	cmd_out_free(&o);
	if (o.timed_out)
		fail_msg("no second run started in 300 s");
	if (!w.sent)
		fail_msg("fpulab ctxsw --runs 50 ended before it was interrupted");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	if (existing) {
		/* a good file is never replaced by a partial one: it goes beside it */
		size_t len;
		char *kept = cmd_slurp(path, &len);

		assert_non_null(kept);
		assert_string_equal(kept, good);
		free(kept);
	} else {
		assert_int_equal(access(partial, F_OK), -1);
	}
	if (fpl_result_load(existing ? partial : path, &r, &diag))
		fail_msg("the interrupted --runs wrote no valid file: %s", diag.msg);
	completed = json_integer_value(json_object_get(json_object_get(r->host, "runs"),
						       "completed"));
	assert_true(json_is_true(json_object_get(json_object_get(r->host, "runs"),
						 "interrupted")));
	assert_true(completed >= 1 && completed < 50);
	assert_int_equal((long long)r->nruns, completed);
	for (size_t k = 0; k < r->nruns; k++) {
		long long idx = fpl_run_obs_get_int(r->runs[k], "run_index", -1);

		assert_int_equal(idx, (long long)k + 1);
		assert_false(r->runs[k]->skipped);
		maxidx = idx;
	}
	assert_int_equal(maxidx, completed);
	json_array_foreach(r->warnings, i, w_)
		marked |= !strncmp(json_string_value(w_), "interrupted", 11);
	assert_true(marked);
	fpl_result_free(r);
}

/* Watch: sig once the first run's process exists. */
static int on_first_run(pid_t pid, double t, double *next_s, void *arg)
{
	struct second_run *w = arg;
	pid_t kids[16];

	if (t < 0 || w->sent)
		return 0;
	*next_s = 0.002;
	if (!cmd_children(pid, kids, 16))
		return 0;
	w->sent = true;
	return w->sig;
}

/*
 * SIGINT while the first run measures: no run completed, so no file at all
 * (one with "runs": [] and no host facts was written), an existing file
 * untouched and nothing beside it, exit 1 with a line saying so.
 */
static void sigint_before_first_run(void **state)
{
	static const char good[] = "{\"an earlier, good file\": true}\n";
	char path[128], partial[160], fresh[128], *kept;
	const char *argv[] = { cmd_fpl_bin(), "ctxsw", "--state", "init", "--budget", "30",
			       "--runs", "3", "-q", "-o", path, NULL };
	struct second_run w = { 0, false, SIGINT, false };
	struct cmd_out o;
	size_t len;
	FILE *f;

	for (int existing = 0; existing < 2; existing++) {
		snprintf(path, sizeof(path), "%s/first%d.json", dir, existing);
		snprintf(partial, sizeof(partial), "%s.interrupted", path);
		snprintf(fresh, sizeof(fresh), "%s", path);
		if (existing) {
			assert_non_null(f = fopen(path, "w"));
			fputs(good, f);
			fclose(f);
		}
		w.sent = false;
		assert_int_equal(cmd_run_watch(argv, 300, on_first_run, &w, &o), 0);
		if (o.timed_out || !w.sent)
			fail_msg("ctxsw --runs 3: %s", o.timed_out ? "no end in 300 s" :
				 "ended before its first run started");
		if (cmd_code(&o) != 1 || !strstr(o.err, "interrupted before run 1 of 3 completed"))
			fail_msg("exit %d, not 1 with the reason:\n%s", cmd_code(&o), o.err);
		cmd_out_free(&o);
		assert_int_equal(access(partial, F_OK), -1);
		if (!existing) {
			if (!access(fresh, F_OK))
				fail_msg("%s written with no run completed", fresh);
			continue;
		}
		kept = cmd_slurp(path, &len);
		assert_non_null(kept);
		assert_string_equal(kept, good);
		free(kept);
	}
}

static void sigint_keeps_completed_runs(void **state)
{
	signal_keeps_completed_runs(SIGINT, false);
}

static void sighup_keeps_completed_runs(void **state)
{
	signal_keeps_completed_runs(SIGHUP, false);
}

static void sigint_keeps_existing_file(void **state)
{
	signal_keeps_completed_runs(SIGINT, true);
}

/*
 * The global --amx (before the command) is taken off the line by main():
 * every re-executed run must ask for AMX permission again, with --no-aslr's
 * own re-exec in between. Each run's warnings or host facts say it asked.
 */
static void global_amx_reaches_every_run(void **state)
{
	const char *argv[] = { cmd_fpl_bin(), "--amx", "xsave", "--part", "misc", "--budget",
			       "0.05", "--runs", "2", "--no-aslr", "--json", "-q", NULL };
	struct cmd_out o;
	json_t *doc, *perm;

	assert_int_equal(cmd_run(argv, 120, &o), 0);
	if (o.status != 0)
		fail_msg("fpulab --amx xsave --runs 2 --no-aslr: status %d\n%s", o.status, o.err);
	doc = json_loads(o.out, 0, NULL);
	assert_non_null(doc);
	perm = json_object_get(json_object_get(doc, "host"), "amx_permission");
	assert_non_null(perm);
	assert_true(json_is_true(json_object_get(perm, "requested")));
	assert_string_equal(json_string_value(json_object_get(perm, "by")), "--amx");
	json_decref(doc);
	cmd_out_free(&o);
}

/*
 * nohup: a HUP ignored when fpulab started stays ignored, in the --runs
 * parent and in its children; every run completes, exit 0, and nothing is
 * marked interrupted.
 */
static void ignored_hup_does_not_end_runs(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	char path[128];
	const char *argv[] = { cmd_fpl_bin(), "ctxsw", "--state", "init", "--budget", "0.2",
			       "--runs", "3", "-q", "-o", path, NULL };
	/* the run's own process gets the HUP too: it must have kept it ignored */
	struct second_run w = { 0, false, SIGHUP, true };
	void (*prev)(int) = signal(SIGHUP, SIG_IGN);
	struct cmd_out o;
	const json_t *runs;
	int rc, st;

	(void)state;
	snprintf(path, sizeof(path), "%s/nohup.json", dir);
	rc = cmd_run_watch(argv, 300, on_second_run, &w, &o);
	signal(SIGHUP, prev);
	assert_int_equal(rc, 0);
	st = o.status;
	cmd_out_free(&o);
	if (!w.sent)
		fail_msg("fpulab ctxsw --runs 3 ended before the HUP was sent");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	if (fpl_result_load(path, &r, &diag))
		fail_msg("no valid file: %s", diag.msg);
	runs = json_object_get(r->host, "runs");
	assert_int_equal(json_integer_value(json_object_get(runs, "completed")), 3);
	assert_false(json_is_true(json_object_get(runs, "interrupted")));
	assert_int_equal(r->nruns, 3);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_runs_exit_2_before_measuring),
		cmocka_unit_test(runs_into_a_device_as_a_user),
		cmocka_unit_test(runs_1_is_one_run_here),
		cmocka_unit_test(bench_runs_one_file),
		cmocka_unit_test(ab_runs_difference_first),
		cmocka_unit_test(runs_table_names_whole),
		cmocka_unit_test(run_runs_3_one_file_three_processes),
		cmocka_unit_test(sigint_keeps_completed_runs),
		cmocka_unit_test(sigint_before_first_run),
		cmocka_unit_test(sighup_keeps_completed_runs),
		cmocka_unit_test(sigint_keeps_existing_file),
		cmocka_unit_test(global_amx_reaches_every_run),
		cmocka_unit_test(ignored_hup_does_not_end_runs),
	};

	return cmocka_run_group_tests(tests, cmd_tmp_setup, cmd_tmp_teardown);
}
