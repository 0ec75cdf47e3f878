// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the LKP program's run (under a stand-in of LKP's lib), its need_cpu_flags filter and add-to-lkp-tests. */
#include "lkptest.h"
#include "fpulab/cpu.h"

#define CONTRIB "contrib/lkp/"

/* What a job through run with the stand-in lib gave: fpulab's output, the stat names, the golden
 * ones. */
struct job {
	char *out, *keys, *want;
};

/*
 * The job with params through run with the stand-in lib (debug.sh, env.sh,
 * reproduce-log.sh: die, has_cmd, cmd_path, log_echo, log_cmd): exit 0, the
 * repro line has cmd, and parse reads the output (exit 0); the golden names
 * from the file golden.
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
	/* the raw log is the reduced document, after the command line */
	assert_non_null(strstr(j->out, cmd));
	assert_non_null(strstr(j->out, "\n{\n\"schema\": \"fpulab-lkp/1\",\n"));
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

static int count_lines(const char *text)
{
	int n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/* Three skipped runs in the log and, from parse, the one skip stat and nothing else. */
static void assert_skipped_job(const struct job *j)
{
	assert_int_equal(lines_with(j->out, "{\"bench\":\"ctxsw\""), 3);
	assert_int_equal(lines_with(j->out, "\"skipped\":true"), 3);
	assert_int_equal(lines_with(j->keys, ".skip"), 1);
	assert_int_equal(count_lines(j->keys), 1);
}

/*
 * The ctxsw A/B job, three runs (fpulab run --runs): three runs in the log,
 * the golden names of this fpulab (ctxsw-ab-now.keys: those of the stored
 * document ctxsw-ab.keys and the in-run anchor's) once each where this CPU
 * has AVX-512, three skipped runs
 * and one skip stat where it has not: the branch is the CPU's, not the
 * keys' (before, a mismatch of the keys chose it, and its count of lines
 * holding "\n" could never be 1).
 */
static void run_ctxsw_ab_standin(void **state)
{
	struct fpl_cpu cpu;
	struct job j;

	fpl_cpu_read(&cpu);
	standin_job("benchmark=ctxsw state=init,avx512 runs=3 budget=0.3",
		    " run ctxsw --ab init,avx512 --runs 3 --budget 0.3 --json -q",
		    DATA "ctxsw-ab-now.keys", &j);
	assert_int_equal(lines_with(j.out, "{\"bench\":\"ctxsw\""), 3);
	if (fpl_cpu_has(&cpu, FPL_FEAT_AVX512F)) {
		assert_string_equal(j.keys, j.want);
	} else {
		assert_skipped_job(&j);
		print_message("  ctxsw A/B skipped on this CPU: a skip stat, as it should\n");
	}
	job_free(&j);
}

/*
 * The skip branch on every CPU: APX state is never offered live, so the job
 * with it gives three skipped runs and one skip stat wherever it runs.
 */
static void run_ctxsw_ab_skipped_standin(void **state)
{
	struct job j;

	standin_job("benchmark=ctxsw state=init,apx runs=3 budget=0.3",
		    " run ctxsw --ab init,apx --runs 3 --budget 0.3 --json -q",
		    DATA "ctxsw-ab.keys", &j);
	assert_skipped_job(&j);
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
	assert_true(*j.keys || strstr(j.out, "\"skipped\":true"));
	job_free(&j);
}

/* kernel_trace (or kernel-trace, which job2sh passes as kernel_45_trace) adds --kernel-trace; 0
 * does not. */
static void run_kernel_trace_parameter(void **state)
{
	static const struct {
		const char *env;
		bool on;
	} cases[] = {
	    {"kernel_trace=1", true},
	    {"kernel_45_trace=1", true},
	    {"kernel_trace=0", false},
	    {"", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char env[128], *out, *repro;
		int code;

		snprintf(env, sizeof(env), "benchmark=signal budget=0.1 %s", cases[i].env);
		code = lkp_run(STANDIN, env, &out, &repro);
		assert_int_equal(code, 0);
		if (!!strstr(repro, " --kernel-trace") != cases[i].on)
			fail_msg("%s: command %s", cases[i].env, repro);
		/* reduced where ruby is, fpulab's whole document where not */
		assert_true(strstr(out, "\"schema\": \"fpulab-lkp/1\"") ||
			    strstr(out, "\"schema\": \"fpulab/2\""));
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
	int code;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		code = lkp_run(STANDIN, bad[i], &out, &repro);
		if (code != 99)
			fail_msg("%s: exit %d, expected 99", bad[i], code);
		assert_string_equal(repro, "");
		free(out);
		free(repro);
	}
	/* an fpulab that is not there is said, not run */
	code = sh("env -i PATH=/nonexistent LKP_SRC='" STANDIN "' BENCHMARK_ROOT=/nonexistent "
		  "/bin/bash " PROG "run",
		  &out);
	assert_int_equal(code, 99);
	free(out);
}

/*
 * An fpulab killed half-way (a document cut short, exit 1): run keeps the
 * raw text (nothing to reduce) and exits 1, and parse says the document is
 * cut (exit 1): no stats from half a document.
 */
static void run_keeps_a_cut_document(void **state)
{
	char fake[] = "/tmp/fpl-lkp-fake-XXXXXX", cwd[PATH_MAX], *out, *repro, *stats;
	FILE *f;
	int code, fd;

	if (!have_ruby())
		skip();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	fd = mkstemp(fake);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nhead -c 3000 '%s/" DATA "rfbm.json'\nexit 1\n", cwd);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(fake, 0755), 0);
	code = lkp_run_with(STANDIN, fake, "benchmark=xsave", &out, &repro);
	assert_int_equal(code, 1);
	assert_non_null(strstr(out, "\"schema\": \"fpulab/2\""));
	stats = parse_text(out, &code);
	assert_int_equal(code, 1);
	assert_string_equal(stats, "");
	free(stats);
	free(out);
	free(repro);
	unlink(fake);
}

/* need_cpu_flags as LKP runs a filter: its job's variables alone in the environment; exit 0 keeps
 * the job. */
static int cpu_flags_filter(const char *vars)
{
	char *out;
	int code = shf(
	    &out, "env -i %s job_file=job.yaml tbox_group=box " CONTRIB "filters/need_cpu_flags",
	    vars);

	free(out);
	return code;
}

/*
 * The AMX job's filter: a local installation (local_run: 1) reads
 * /proc/cpuinfo, whose flags have fpu on every x86 CPU and never
 * no_such_flag; a hosts/ file's cpu_flags line wins; with neither the job
 * is dropped.
 */
static void need_cpu_flags_filter(void **state)
{
	char *job;

	assert_int_equal(cpu_flags_filter("local_run=1 need_cpu_flags=fpu"), 0);
	assert_int_equal(cpu_flags_filter("local_run=1 need_cpu_flags=fpu,no_such_flag"), 1);
	assert_int_equal(cpu_flags_filter("local_run=1 need_cpu_flags=no_such_flag"), 1);
	assert_int_equal(cpu_flags_filter("'cpu_flags=fpu amx_tile' need_cpu_flags=amx_tile"), 0);
	assert_int_equal(
	    cpu_flags_filter("cpu_flags=fpu,amx_tile local_run=1 need_cpu_flags=amx_tile"), 0);
	assert_int_equal(
	    cpu_flags_filter("'cpu_flags=fpu avx' local_run=1 need_cpu_flags=amx_tile"), 1);
	assert_int_equal(cpu_flags_filter("need_cpu_flags=fpu"), 1);
	/* the AMX job asks for what the kernel shows where it has AMX */
	job = slurp_path(PROG "jobs/fpulab-ctxsw-ab-amx.yaml");
	assert_non_null(strstr(job, "\nneed_cpu_flags: amx_tile\n"));
	free(job);
}

/* A file is sorted as lkp-tests' spec wants: its lines (no comments here) as LC_ALL=C sort -f |
 * uniq puts them. */
static void assert_lkp_sorted(const char *file)
{
	char *out;

	if (shf(&out, "LC_ALL=C sort -f '%s' | uniq | cmp -s - '%s'", file, file))
		fail_msg("%s is not sorted as LC_ALL=C sort -f | uniq sorts", file);
	free(out);
}

/*
 * add-to-lkp-tests on a made-up LKP_SRC: the program and filter copied, each
 * line where the list's order wants it (the lists stay sorted, as
 * lkp-tests' spec checks), the index-perf lines the docs give; a second run
 * changes nothing. pkg/depends* are sorted the same way.
 */
static void add_to_lkp_tests_keeps_lists_sorted(void **state)
{
	char dir[] = "/tmp/fpl-lkp-src-XXXXXX", *out, *before, *after;
	static const char *const lists[] = {
	    "etc/linux-perf-test-cases",
	    "distro/adaptation-pkg/debian",
	    "distro/adaptation-pkg/ubuntu",
	    "etc/index-perf-all.yaml",
	};

	assert_non_null(mkdtemp(dir));
	assert_int_equal(
	    shf(&out,
		"cd %s && mkdir -p lib programs filters etc distro/adaptation-pkg && "
		"touch lib/job.rb && printf 'ebizzy\\nfio-basic\\nFsmark\\nhackbench\\n' "
		">etc/linux-perf-test-cases && printf 'fio::\\nfsmark::\\n' "
		">distro/adaptation-pkg/debian && printf 'fwq::\\n' "
		">distro/adaptation-pkg/ubuntu && printf '.+\\\\.throughput: 1\\n"
		"fio\\\\..+_iops: 1\\nfsmark\\\\.files_per_sec: 1\\n' >etc/index-perf-all.yaml",
		dir),
	    0);
	free(out);
	assert_int_equal(shf(&out, CONTRIB "add-to-lkp-tests %s", dir), 0);
	free(out);
	assert_int_equal(shf(&before,
			     "cd %s && cat etc/* distro/adaptation-pkg/* && "
			     "stat -c %%A.%%s.%%n programs/fpulab/* filters/need_cpu_flags",
			     dir),
			 0);
	assert_int_equal(shf(&out, "LKP_SRC=%s " CONTRIB "add-to-lkp-tests", dir), 0);
	free(out);
	assert_int_equal(shf(&after,
			     "cd %s && cat etc/* distro/adaptation-pkg/* && "
			     "stat -c %%A.%%s.%%n programs/fpulab/* filters/need_cpu_flags",
			     dir),
			 0);
	assert_string_equal(after, before);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, lists[i]);
		assert_lkp_sorted(path);
	}
	assert_non_null(strstr(before, "\nfpulab\nFsmark\n"));
	assert_non_null(strstr(before, "fio::\nfpulab::\nfsmark::\nfpulab::\nfwq::\n"));
	assert_int_equal(lines_with(before, "fpulab\\.[^.]+\\."), 3);
	assert_int_equal(
	    shf(&out,
		"cd %s && test -x programs/fpulab/run && test -x programs/fpulab/parse "
		"&& test -x filters/need_cpu_flags",
		dir),
	    0);
	free(out);
	assert_lkp_sorted(PROG "pkg/depends");
	assert_lkp_sorted(PROG "pkg/depends-dev");
	/* not an lkp-tests checkout: refused, nothing written */
	assert_int_equal(shf(&out, CONTRIB "add-to-lkp-tests /nonexistent 2>&1"), 2);
	free(out);
	free(before);
	free(after);
	assert_int_equal(cmd_rm_rf(dir), 0);
}

/*
 * With a real lkp-tests checkout (FPL_LKP_SRC, or /lkp/lkp/src), run under
 * its own lib scripts. Skips where there is none: CI has no lkp-tests.
 */
static void run_with_real_lkp_lib(void **state)
{
	char src[PATH_MAX], *out, *repro, *stats;
	int code;

	if (!lkp_src_real(src, sizeof(src)))
		skip();
	if (!have_ruby())
		skip();
	code = lkp_run(src, "benchmark=ctxsw state=init,avx512 budget=0.2", &out, &repro);
	assert_int_equal(code, 0);
	assert_non_null(strstr(repro, "--ab init,avx512"));
	assert_non_null(strstr(out, "\"schema\": \"fpulab-lkp/1\""));
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
	    cmocka_unit_test(run_ctxsw_ab_standin),
	    cmocka_unit_test(run_ctxsw_ab_skipped_standin),
	    cmocka_unit_test(run_repro_rfbm_standin),
	    cmocka_unit_test(run_kernel_trace_parameter),
	    cmocka_unit_test(run_refuses_bad_parameters),
	    cmocka_unit_test(run_keeps_a_cut_document),
	    cmocka_unit_test(need_cpu_flags_filter),
	    cmocka_unit_test(add_to_lkp_tests_keeps_lists_sorted),
	    cmocka_unit_test(run_with_real_lkp_lib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
