/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers for the ctxsw and signal tests: run a benchmark in-process, run the command, parse will-it-scale output. */
#ifndef FPULAB_TESTS_TASKSTEST_H
#define FPULAB_TESTS_TASKSTEST_H

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/cpu.h"
#include "fpulab/result.h"
#include "runcmd.h"

static struct fpl_cpu tt_cpu;

/*
 * The process's clock, as a session has one (created once, kept to the
 * end); the test process is not left pinned by it.
 */
static inline struct fpl_clock *tt_clock(void)
{
	static struct fpl_clock *c;
	struct fpl_diag diag = { "" };
	cpu_set_t old;

	if (c)
		return c;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	if (fpl_clock_create(&c, -1, &diag))
		fail_msg("clock: %s", diag.msg);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	return c;
}

/* Run bench in this process with name/value pairs (NULL-terminated); returns its result. */
static inline struct fpl_result *tt_run(const char *bench, double budget, int *rc, ...)
{
	const struct fpl_bench *b = fpl_bench_find(bench);
	struct fpl_optval ov[16];
	struct fpl_bench_env env = { .bench = b, .cpu = &tt_cpu, .clock = tt_clock(),
				     .budget_s = budget, .pin_cpu = -1, .opts = ov };
	struct fpl_result *r = fpl_result_new();
	struct fpl_diag diag = { "" };
	va_list ap;

	assert_non_null(b);
	assert_non_null(r);
	fpl_cpu_read(&tt_cpu);
	va_start(ap, rc);
	for (const char *n; (n = va_arg(ap, const char *)) && env.nopts < 16; env.nopts++) {
		ov[env.nopts].name = n;
		ov[env.nopts].value = va_arg(ap, const char *);
	}
	va_end(ap);
	if (fpl_bench_check_opts(b, ov, env.nopts, &diag))
		fail_msg("%s", diag.msg);
	*rc = b->run(&env, r);
	return r;
}

static inline const char *tt_param(const struct fpl_run *run, const char *key)
{
	json_t *v = json_object_get(run->params, key);

	return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static inline const char *tt_obs(const struct fpl_run *run, const char *key)
{
	return fpl_run_obs_get_str(run, key);
}

static inline long long tt_obs_int(const struct fpl_run *run, const char *key)
{
	const json_t *v = fpl_run_obs_get(run, key);

	if (!v || !json_is_integer(v))
		fail_msg("observation %s missing or not an integer", key);
	return json_integer_value(v);
}

static inline double tt_obs_real(const struct fpl_run *run, const char *key)
{
	const json_t *v = fpl_run_obs_get(run, key);

	if (!v || !json_is_number(v))
		fail_msg("observation %s missing or not a number", key);
	return json_number_value(v);
}

/* Core cycles per TSC tick as ctxsw and signal convert: the mean of the two estimates. */
static inline double tt_core_ratio(const struct fpl_run *run)
{
	double r = (tt_obs_real(run, "core_per_tsc_before") +
		    tt_obs_real(run, "core_per_tsc_after")) / 2;

	/* core clocks of 0.5-5 GHz against TSCs of 1-5 GHz */
	if (!(r > 0.1 && r < 5))
		fail_msg("core/TSC ratio %g", r);
	return r;
}

/*
 * Every metric of run in unit from has a sibling NAME<suffix> in unit to
 * whose samples are its own times factor (the other time units of ctxsw
 * and signal, issue 14); a name that ends in _FROM loses that ending
 * (anchor_ns: anchor_tsc). Returns how many there are.
 */
static inline size_t tt_units_derived(const struct fpl_run *run, const char *from,
				      const char *suffix, const char *to, double factor)
{
	size_t k = 0;
	char name[128];

	for (size_t i = 0; i < run->nmetrics; i++) {
		const struct fpl_metric *m = run->metrics[i], *d;

		if (strcmp(m->unit, from))
			continue;
		size_t len = strlen(m->name), fl = strlen(from);

		if (len > fl + 1 && m->name[len - fl - 1] == '_' && !strcmp(m->name + len - fl, from))
			len -= fl + 1;
		snprintf(name, sizeof(name), "%.*s%s", (int)len, m->name, suffix);
		d = fpl_run_find_metric(run, name);
		if (!d || strcmp(d->unit, to) || d->n != m->n)
			fail_msg("%s (%s): no %s in %s with its %zu samples", m->name, from, name, to,
				 m->n);
		for (size_t j = 0; j < m->n; j++)
			if (!(fabs(d->samples[j] - m->samples[j] * factor) <=
			      1e-9 * fabs(m->samples[j] * factor)))
				fail_msg("%s[%zu] = %g, not %s[%zu] %g x %g", name, j, d->samples[j],
					 m->name, j, m->samples[j], factor);
		k++;
	}
	return k;
}

static inline long long tt_param_int(const struct fpl_run *run, const char *key)
{
	json_t *v = json_object_get(run->params, key);

	if (!v || !json_is_integer(v))
		fail_msg("param %s missing or not an integer", key);
	return json_integer_value(v);
}

static inline bool tt_warned(const struct fpl_run *run, const char *needle)
{
	size_t i;
	json_t *w;

	json_array_foreach(run->warnings, i, w)
		if (strstr(json_string_value(w), needle))
			return true;
	return false;
}

/* A link to the command under another name (will-it-scale's), in a temporary directory. */
static inline char *tt_link(const char *name, char *dir)
{
	char *path = malloc(4096), real[4096];

	assert_non_null(mkdtemp(dir));
	assert_non_null(realpath(cmd_fpl_bin(), real));
	snprintf(path, 4096, "%s/%s", dir, name);
	assert_int_equal(symlink(real, path), 0);
	return path;
}

static inline void tt_unlink(char *path, const char *dir)
{
	unlink(path);
	rmdir(dir);
	free(path);
}

/*
 * What LKP's will-it-scale parser reads: the "average:" line split on ':'.
 * Also checks the shape will-it-scale prints: testcase, warmup, 6 lines,
 * measurement, s lines, average. Returns the average.
 */
static inline unsigned long long tt_parse_wis(const char *out, const char *testcase, unsigned s)
{
	char *copy = strdup(out), *save = NULL, *line;
	unsigned n = 0, warm = 0, meas = 0;
	unsigned long long avg = 0, sum = 0, all = 0;
	bool in_meas = false;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		unsigned long long mn, mx, tot;
		char *colon = strchr(line, ':');

		if (n == 0) {
			assert_non_null(colon);
			assert_memory_equal(line, "testcase", 8);
			assert_string_equal(colon + 1, testcase);
		} else if (n == 1) {
			assert_string_equal(line, "warmup");
		} else if (!strcmp(line, "measurement")) {
			assert_false(in_meas);
			in_meas = true;
		} else if (sscanf(line, "min:%llu max:%llu total:%llu", &mn, &mx, &tot) == 3) {
			assert_true(mn <= mx);
			assert_true(mx <= tot);
			all += tot;
			if (in_meas) {
				meas++;
				sum += tot;
			} else {
				warm++;
			}
		} else {
			assert_non_null(colon);
			*colon = 0;
			assert_string_equal(line, "average");
			avg = strtoull(colon + 1, NULL, 10);
		}
	}
	free(copy);
	assert_int_equal(warm, 6);
	assert_int_equal(meas, s);
	/*
	 * One second may see no switch at all when other work starves the
	 * tasks (a loaded 2-CPU machine did): the seven seconds together must.
	 */
	assert_true(all > 0);
	assert_true(avg == sum / s);
	return avg;
}

/* fplrun_rejected_early, failing the test with fpulab's stderr when it is not refused so. */
static inline void tt_rejected_early(const char *args, const char *names)
{
	char *why;

	if (!fplrun_rejected_early(args, names, &why))
		fail_msg("%s: %s", args, why ? why : "(no stderr)");
}

/* cmd_run_interrupt, failing the test on what went wrong. Returns the command's wait status. */
static inline int tt_interrupt(const char *const argv[], int sig, int want_children)
{
	struct cmd_out o;
	char why[160];
	int st;

	if (cmd_run_interrupt(argv, sig, want_children, &o, why, sizeof(why)))
		fail_msg("%s: %s", argv[0], why);
	st = o.status;
	cmd_out_free(&o);
	return st;
}

/*
 * The command a and the will-it-scale name wis with the arguments b, side
 * by side to keep the test short: both exit, both print will-it-scale
 * output for testcase over one second.
 */
static inline void tt_wis_pair(const char *const a[], const char *wis, const char *const b[],
			       const char *testcase)
{
	char dir[] = "/tmp/fpl-wis-XXXXXX";
	char *link = tt_link(wis, dir);
	const char *argv[16] = { link };
	struct cmd_job ja, jb;
	struct cmd_out oa, ob;

	for (int i = 0; b[i] && i < 14; i++)
		argv[i + 1] = b[i];
	assert_int_equal(cmd_start(a, &ja), 0);
	assert_int_equal(cmd_start(argv, &jb), 0);
	assert_int_equal(cmd_finish(&ja, FPLRUN_LIMIT_S, NULL, NULL, &oa), 0);
	assert_int_equal(cmd_finish(&jb, FPLRUN_LIMIT_S, NULL, NULL, &ob), 0);
	assert_true(WIFEXITED(oa.status));
	assert_true(WIFEXITED(ob.status));
	tt_parse_wis(oa.out, testcase, 1);
	tt_parse_wis(ob.out, testcase, 1);
	cmd_out_free(&oa);
	cmd_out_free(&ob);
	tt_unlink(link, dir);
}

#endif
