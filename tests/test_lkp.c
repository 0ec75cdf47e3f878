// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the LKP program (contrib/lkp/fpulab): parse's stats names against golden lists, its rules, and run with a stand-in of LKP's lib. */
#include <errno.h>
#include <math.h>
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

#include <jansson.h>

#include "runcmd.h"

#define PROG "contrib/lkp/fpulab/"
#define DATA "tests/data/lkp/"
#define STANDIN "tests/lkp-standin"

/* Where ruby is missing the parser cannot run: skip, unless CI says it must. */
static bool have_ruby(void)
{
	const char *argv[] = { "ruby", "-rjson", "-e", "exit 0", NULL };
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

/* Run a shell line; stdout into *out (malloc'd); the exit code. */
static int sh(const char *line, char **out)
{
	const char *argv[] = { "sh", "-c", line, NULL };
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

/* parse on a file (gzip'd where it ends in .gz); its stdout, exit code in *code. */
static char *parse_file(const char *path, int *code)
{
	char line[1024], *out;
	size_t n = strlen(path);

	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		snprintf(line, sizeof(line), "gzip -dc '%s' | ruby " PROG "parse", path);
	else
		snprintf(line, sizeof(line), "ruby " PROG "parse < '%s'", path);
	*code = sh(line, &out);
	return out;
}

static char *parse_json(json_t *doc, int *code)
{
	char path[] = "/tmp/fpl-lkp-XXXXXX", *out;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(1)), 0);
	out = parse_file(path, code);
	unlink(path);
	return out;
}

static char *slurp_path(const char *path)
{
	char *s = cmd_slurp(path, NULL);

	assert_non_null(s);
	return s;
}

/* dump-stat reads "KEY: VALUE"; a value without '.' as an integer, no exponents. */
static bool lkp_number(const char *v)
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
static char *keys_of(const char *out)
{
	size_t n = strlen(out);
	char *keys = calloc(1, n + 1), *k = keys, *copy = strdup(out), *save = NULL;

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

static void check_golden(const char *json, const char *golden)
{
	int code;
	char *out, *keys, *want;

	out = parse_file(json, &code);
	assert_int_equal(code, 0);
	keys = keys_of(out);
	want = slurp_path(golden);
	if (strcmp(keys, want)) {
		const char *a = keys, *b = want;

		while (*a && *a == *b)
			a++, b++;
		while (a > keys && a[-1] != '\n')
			a--, b--;
		fail_msg("%s: stats names drifted from %s; first difference:\n  got  %.200s\n  want %.200s",
			 json, golden, a, b);
	}
	free(out);
	free(keys);
	free(want);
}

/* Real output of this project's machine: the names LKP compares across kernels. */
static void golden_keys_suite(void **state)
{
	if (!have_ruby())
		skip();
	check_golden(DATA "suite.json.gz", DATA "suite.keys");
}

static void golden_keys_ctxsw_ab(void **state)
{
	if (!have_ruby())
		skip();
	check_golden(DATA "ctxsw-ab.json", DATA "ctxsw-ab.keys");
}

static void golden_keys_repro_rfbm(void **state)
{
	if (!have_ruby())
		skip();
	check_golden(DATA "rfbm.json", DATA "rfbm.keys");
}

static json_t *load(const char *path);
static double value_of(const char *out, const char *key);

/* ctxsw A/B with --kernel-trace: the metrics and the kernel's saves and restores per round trip. */
static void golden_keys_ctxsw_ab_ktrace(void **state)
{
	if (!have_ruby())
		skip();
	check_golden(DATA "ctxsw-ab-ktrace.json", DATA "ctxsw-ab-ktrace.keys");
}

/*
 * The kernel's counts are stats only when traced in full: a pass whose buffer
 * lost events (complete: false) or that was not traced gives none; the count
 * is the one of the document (2 saves per round trip in the fixture).
 */
static void kernel_counts_only_when_complete(void **state)
{
	static const char *const key =
		"ctxsw.kernel_saves_per_op_state_a.mode=processes.placement=same."
		"refresh=write.state_a=init.state_b=avx512";
	json_t *doc, *kernel;
	int code;
	char *out;

	if (!have_ruby())
		skip();
	doc = load(DATA "ctxsw-ab-ktrace.json");
	kernel = json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
						 "observed"), "kernel");
	assert_non_null(kernel);
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	assert_true(value_of(out, key) == json_number_value(json_object_get(kernel, "saves_per_op")));
	free(out);
	json_object_set_new(kernel, "complete", json_false());
	out = parse_json(doc, &code);
	assert_null(strstr(out, "kernel_"));
	assert_non_null(strstr(out, "ctxsw.difference_ns."));
	free(out);
	json_object_set_new(kernel, "complete", json_true());
	json_object_set_new(kernel, "status", json_string("skipped"));
	out = parse_json(doc, &code);
	assert_non_null(strstr(out, "ctxsw.difference_ns."));
	assert_null(strstr(out, "kernel_"));
	free(out);
	json_decref(doc);
}

/* A run skipped for want of AMX: no stat at all, not a zero. */
static void skipped_run_gives_nothing(void **state)
{
	int code;
	char *out;

	if (!have_ruby())
		skip();
	out = parse_file(DATA "ctxsw-amx-skipped.json", &code);
	assert_int_equal(code, 0);
	assert_string_equal(out, "");
	free(out);
}

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	if (!doc)
		fail_msg("%s: %s", path, err.text);
	return doc;
}

/* Stats names come from params alone: what was measured never renames them. */
static void keys_ignore_observed_and_host(void **state)
{
	json_t *doc, *run;
	size_t i;
	int code;
	char *out, *keys, *want, *before;

	if (!have_ruby())
		skip();
	doc = load(DATA "rfbm.json");
	before = parse_file(DATA "rfbm.json", &code);
	json_object_set_new(doc, "host", json_pack("{s:s}", "name", "another machine"));
	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		json_t *m;
		size_t j;

		json_object_set_new(run, "observed", json_pack("{s:i,s:s}", "batch", 999, "rfbm", "0x600e7"));
		json_array_foreach(json_object_get(run, "metrics"), j, m) {
			json_t *s = json_object_get(m, "samples"), *x;
			size_t k;

			json_array_foreach(s, k, x)
				json_array_set_new(s, k, json_real(json_number_value(x) * 2 + 1));
		}
	}
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	keys = keys_of(out);
	want = slurp_path(DATA "rfbm.keys");
	assert_string_equal(keys, want);
	/* the values did move: they are the samples' medians, not constants */
	assert_string_not_equal(out, before);
	free(before);
	free(out);
	free(keys);
	free(want);
	/* and a change of configuration does rename */
	run = json_array_get(json_object_get(doc, "runs"), 0);
	json_object_set_new(json_object_get(run, "params"), "case", json_integer(9));
	out = parse_json(doc, &code);
	assert_non_null(strstr(out, ".case=9."));
	free(out);
	json_decref(doc);
}

/* A run marked skipped, or a metric without a finite sample, loses its stats; the rest stay. */
static void missing_figures_give_no_line(void **state)
{
	json_t *doc, *runs, *m;
	int code;
	char *out;

	if (!have_ruby())
		skip();
	doc = load(DATA "rfbm.json");
	runs = json_object_get(doc, "runs");
	/* as written: every case has its lines */
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	assert_non_null(strstr(out, ".case=1.experiment=rfbm.table=Context_switches"));
	assert_non_null(strstr(out, ".case=2.experiment=rfbm.table=Context_switches"));
	free(out);
	json_object_set_new(json_array_get(runs, 0), "skipped", json_true());
	m = json_array_get(json_object_get(json_array_get(runs, 1), "metrics"), 0);
	json_object_set_new(m, "samples", json_pack("[n,n]"));
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	assert_null(strstr(out, ".case=1.experiment=rfbm.table=Context_switches"));
	assert_null(strstr(out, ".case=2.experiment=rfbm.table=Context_switches"));
	assert_non_null(strstr(out, ".case=3.experiment=rfbm.table=Context_switches"));
	assert_null(strstr(out, ": 0\n"));
	free(out);
	json_decref(doc);
}

static double value_of(const char *out, const char *key)
{
	char needle[512];
	const char *p;

	snprintf(needle, sizeof(needle), "%s: ", key);
	p = strstr(out, needle);
	if (!p)
		fail_msg("no stat %s in:\n%s", key, out);
	return strtod(p + strlen(needle), NULL);
}

/* One configuration run three times (--runs 3): one stat, the median of the runs' medians. */
static void repeated_runs_give_median_of_medians(void **state)
{
	json_t *doc, *runs, *proto;
	const double s[3][4] = { { 3, 1, 2, NAN }, { 8, 5, 7, 6 }, { 10, NAN, NAN, NAN } };
	int code;
	char *out;

	if (!have_ruby())
		skip();
	doc = load(DATA "rfbm.json");
	runs = json_object_get(doc, "runs");
	proto = json_deep_copy(json_array_get(runs, 0));
	json_array_clear(runs);
	for (int r = 0; r < 3; r++) {
		json_t *run = json_deep_copy(proto), *samples = json_array();
		json_t *m = json_array_get(json_object_get(run, "metrics"), 0);

		for (int i = 0; i < 4; i++)
			if (!isnan(s[r][i]))
				json_array_append_new(samples, json_real(s[r][i]));
		json_object_set_new(m, "samples", samples);
		json_array_append_new(runs, run);
	}
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	/* medians 2, 6.5 and 10: one line, 6.5 */
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	assert_true(fabs(value_of(out, "repro.value_per_sec.case=1.experiment=rfbm."
				       "table=Context_switches_context_switch1-style") - 6.5) < 1e-9);
	free(out);
	json_decref(proto);
	json_decref(doc);
}

/* Text around the document is skipped; a cut or foreign document is an error, not figures. */
static void bad_documents_are_errors(void **state)
{
	char *out, *compact;
	int code;

	if (!have_ruby())
		skip();
	code = sh("{ echo '2026-12-01 20:00:00 /x/fpulab repro rfbm --json -q'; cat " DATA "rfbm.json;"
		  " echo 'done'; } | ruby " PROG "parse", &out);
	assert_int_equal(code, 0);
	free(keys_of(out));
	compact = out;
	code = sh("jq -c . " DATA "rfbm.json 2>/dev/null | ruby " PROG "parse", &out);
	if (*out)	/* where jq is installed: one line is one document too */
		assert_string_equal(out, compact);
	free(out);
	free(compact);
	code = sh("head -c 3000 " DATA "rfbm.json | ruby " PROG "parse", &out);
	assert_int_equal(code, 1);
	assert_string_equal(out, "");
	free(out);
	code = sh("sed 's|\"fpulab/2\"|\"fpulab/3\"|' " DATA "rfbm.json | ruby " PROG "parse", &out);
	assert_int_equal(code, 1);
	assert_string_equal(out, "");
	free(out);
	code = sh("ruby " PROG "parse < /dev/null", &out);
	assert_int_equal(code, 0);
	assert_string_equal(out, "");
	free(out);
}

/* run under LKP_SRC: stdout what it printed, exit code returned; reproduce.sh in *repro. */
static int lkp_run(const char *lkp_src, const char *env, char **out, char **repro)
{
	char dir[] = "/tmp/fpl-lkp-run-XXXXXX", line[2048], path[128];
	int code;

	assert_non_null(mkdtemp(dir));
	snprintf(line, sizeof(line),
		 "env -i PATH=\"$PATH\" LKP_SRC='%s' TMP_RESULT_ROOT='%s' BENCHMARK_ROOT='%s' FPULAB='%s' %s "
		 "bash " PROG "run",
		 lkp_src, dir, dir, cmd_fpl_bin(), env);
	code = sh(line, out);
	snprintf(path, sizeof(path), "%s/reproduce.sh", dir);
	if (access(path, R_OK) == 0)
		*repro = slurp_path(path);
	else
		*repro = strdup("");
	unlink(path);
	rmdir(dir);
	return code;
}

static char *parse_text(const char *text, int *code)
{
	char path[] = "/tmp/fpl-lkp-XXXXXX", *out;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	out = parse_file(path, code);
	unlink(path);
	return out;
}

/* What a job through run with the stand-in lib gave: fpulab's output, the stat names, the golden ones. */
struct job {
	char *out, *keys, *want;
};

/*
 * The job with params through run with the stand-in lib (debug.sh, env.sh,
 * reproduce-log.sh: die, has_cmd, cmd_path, log_cmd): exit 0, the repro
 * line has cmd, and parse reads the output (exit 0); the golden names from
 * the file golden.
 */
static void standin_job(const char *params, const char *cmd, const char *golden, struct job *j)
{
	char *repro, *stats;
	int code;

	if (!have_ruby())
		skip();
	code = lkp_run(STANDIN, params, &j->out, &repro);
	assert_int_equal(code, 0);
	assert_non_null(strstr(repro, cmd));
	stats = parse_text(j->out, &code);
	assert_int_equal(code, 0);
	j->keys = keys_of(stats);
	j->want = slurp_path(golden);
	free(repro);
	free(stats);
}

static void job_free(struct job *j)
{
	free(j->out);
	free(j->keys);
	free(j->want);
}

/*
 * The ctxsw A/B job, three runs (fpulab run --runs): the golden names once
 * each, or (a CPU without AVX-512) a skipped run and none.
 */
static void run_ctxsw_ab_standin(void **state)
{
	struct job j;

	standin_job("benchmark=ctxsw state=init,avx512 runs=3 budget=0.3",
		    " run ctxsw --ab init,avx512 --runs 3 --budget 0.3 --json -q",
		    DATA "ctxsw-ab.keys", &j);
	assert_non_null(strstr(j.out, "\"run_index\": 3"));
	if (strcmp(j.keys, j.want)) {
		assert_string_equal(j.keys, "");
		assert_non_null(strstr(j.out, "\"skipped\": true"));
		print_message("  ctxsw A/B skipped on this CPU: no stats, as it should\n");
	}
	job_free(&j);
}

/* repro rfbm through run: runs and budget reach fpulab; the golden names or a skip. */
static void run_repro_rfbm_standin(void **state)
{
	struct job j;

	standin_job("benchmark=repro-rfbm runs=3 budget=0.05",
		    " repro rfbm --runs 3 --budget 0.05 --json -q", DATA "rfbm.keys", &j);
	if (strcmp(j.keys, j.want))
		print_message("  repro rfbm here gave other cases than the fixture's machine:\n%s",
			      j.keys);
	assert_true(*j.keys || strstr(j.out, "\"skipped\": true"));
	job_free(&j);
}

/* kernel_trace (or kernel-trace, which job2sh passes as kernel_45_trace) adds --kernel-trace; 0 does not. */
static void run_kernel_trace_parameter(void **state)
{
	static const struct {
		const char *env;
		bool on;
	} cases[] = {
		{ "kernel_trace=1", true },
		{ "kernel_45_trace=1", true },
		{ "kernel_trace=0", false },
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char env[128], *out, *repro;
		int code;

		snprintf(env, sizeof(env), "benchmark=signal budget=0.1 %s", cases[i].env);
		code = lkp_run(STANDIN, env, &out, &repro);
		assert_int_equal(code, 0);
		if (!!strstr(repro, " --kernel-trace") != cases[i].on)
			fail_msg("%s: command %s", cases[i].env, repro);
		assert_non_null(strstr(out, "\"schema\": \"fpulab/2\""));
		free(out);
		free(repro);
	}
}

/* Parameters that cannot go together stop the job (LKP's die: 99) before fpulab runs. */
static void run_refuses_bad_parameters(void **state)
{
	static const char *const bad[] = {
		"benchmark=suite state=avx512",
		"benchmark=repro-rfbm state=init,avx512",
		"benchmark='ctxsw;true'",
	};
	char *out, *repro;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int code = lkp_run(STANDIN, bad[i], &out, &repro);

		if (code != 99)
			fail_msg("%s: exit %d, expected 99", bad[i], code);
		assert_string_equal(repro, "");
		free(out);
		free(repro);
	}
	/* an fpulab that is not there is said, not run */
	{
		char line[512];
		int code;

		snprintf(line, sizeof(line),
			 "env -i PATH=/nonexistent LKP_SRC='%s' BENCHMARK_ROOT=/nonexistent "
			 "/bin/bash " PROG "run", STANDIN);
		code = sh(line, &out);
		assert_int_equal(code, 99);
		free(out);
	}
}

/*
 * With a real lkp-tests checkout (FPL_LKP_SRC, or /lkp/lkp/src), run under its
 * own lib scripts. Skips where there is none: CI has no lkp-tests.
 */
static void run_with_real_lkp_lib(void **state)
{
	const char *src = getenv("FPL_LKP_SRC");
	char path[1024], *out, *repro, *stats;
	int code;

	if (!src || !*src)
		src = "/lkp/lkp/src";
	snprintf(path, sizeof(path), "%s/lib/reproduce-log.sh", src);
	if (access(path, R_OK)) {
		print_message("no lkp-tests at %s (set FPL_LKP_SRC): skipped\n", src);
		skip();
	}
	if (!have_ruby())
		skip();
	code = lkp_run(src, "benchmark=ctxsw state=init,avx512 budget=0.2", &out, &repro);
	assert_int_equal(code, 0);
	assert_non_null(strstr(repro, "--ab init,avx512"));
	stats = parse_text(out, &code);
	assert_int_equal(code, 0);
	free(keys_of(stats));
	free(out);
	free(repro);
	free(stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_keys_suite),
		cmocka_unit_test(golden_keys_ctxsw_ab),
		cmocka_unit_test(golden_keys_repro_rfbm),
		cmocka_unit_test(golden_keys_ctxsw_ab_ktrace),
		cmocka_unit_test(kernel_counts_only_when_complete),
		cmocka_unit_test(skipped_run_gives_nothing),
		cmocka_unit_test(keys_ignore_observed_and_host),
		cmocka_unit_test(missing_figures_give_no_line),
		cmocka_unit_test(repeated_runs_give_median_of_medians),
		cmocka_unit_test(bad_documents_are_errors),
		cmocka_unit_test(run_ctxsw_ab_standin),
		cmocka_unit_test(run_repro_rfbm_standin),
		cmocka_unit_test(run_kernel_trace_parameter),
		cmocka_unit_test(run_refuses_bad_parameters),
		cmocka_unit_test(run_with_real_lkp_lib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
