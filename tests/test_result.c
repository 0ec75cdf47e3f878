// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for results: JSON round trip through schema fpulab/2, reading fpulab/1, reader errors, atomic file output. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "near.h"

#include "fpulab/report.h"
#include "fpulab/result.h"

static struct fpl_result *sample_result(void)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "xsave");
	struct fpl_run *skip = fpl_result_add_run(r, "xsave");
	struct fpl_metric *m = fpl_run_add_metric(run, "cycles", "cycles", "throughput; N=8");
	struct fpl_metric *t = fpl_run_add_metric(run, "tsc", "tsc", "the same, \"quoted\", in ticks");

	assert_non_null(m);
	json_object_set_new(r->host, "clock", json_pack("{s:f}", "tsc_hz", 2.5e9));
	fpl_run_param_str(run, "insn", "xsavec");
	fpl_run_param_int(run, "mask", 0xe7);
	fpl_run_param_real(run, "x", 0.5);
	fpl_run_param_bool(run, "live", true);
	fpl_run_obs_str(run, "xinuse_before", "0xe7");
	fpl_run_obs_real(run, "elapsed_s", 1.25);
	fpl_metric_add(m, 101.5);
	fpl_metric_add(m, 99.25);
	fpl_metric_add(m, NAN);
	fpl_metric_add(t, 1);
	t->extra = json_pack("{s:i}", "reps", 256);
	fpl_run_warn(run, "a warning");
	fpl_run_skip(skip, "no AVX-512 here");
	fpl_result_warn(r, "suspect run");
	return r;
}

static void test_roundtrip(void **state)
{
	struct fpl_result *a = sample_result(), *b = NULL;
	struct fpl_diag diag = { "" };
	json_t *doc = fpl_report_json(a), *again;
	char *text, *text2;

	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "fpulab/2");
	text = json_dumps(doc, JSON_PRESERVE_ORDER);
	/* NaN is written as null */
	assert_non_null(strstr(text, "[101.5, 99.25, null]"));
	assert_int_equal(fpl_result_from_json(doc, &b, &diag), 0);
	assert_int_equal(b->nruns, 2);
	assert_string_equal(b->runs[0]->bench, "xsave");
	assert_int_equal(b->runs[0]->nmetrics, 2);
	assert_int_equal(b->runs[0]->metrics[0]->n, 3);
	assert_near(b->runs[0]->metrics[0]->samples[1], 99.25, 0);
	assert_true(isnan(b->runs[0]->metrics[0]->samples[2]));
	assert_string_equal(b->runs[0]->metrics[1]->method, "the same, \"quoted\", in ticks");
	assert_int_equal(json_integer_value(json_object_get(b->runs[0]->params, "mask")), 0xe7);
	/* Observations come back as observations, not as configuration. */
	assert_string_equal(fpl_run_obs_get_str(b->runs[0], "xinuse_before"), "0xe7");
	assert_null(fpl_run_param_get(b->runs[0], "xinuse_before"));
	assert_int_equal(json_object_size(b->runs[0]->params), 4);
	assert_int_equal(fpl_run_param_get_int(b->runs[0], "mask", -1), 0xe7);
	assert_int_equal(fpl_run_param_get_int(b->runs[0], "x", -1), -1);
	assert_null(fpl_run_param_get_str(b->runs[0], "mask"));
	assert_true(b->runs[1]->skipped);
	assert_string_equal(b->runs[1]->skip_reason, "no AVX-512 here");
	assert_int_equal(json_array_size(b->warnings), 1);
	assert_int_equal(json_array_size(b->runs[0]->warnings), 1);
	assert_int_equal(json_integer_value(json_object_get(b->runs[0]->metrics[1]->extra, "reps")),
			 256);
	/* Written again, the document is the same text. */
	again = fpl_report_json(b);
	text2 = json_dumps(again, JSON_PRESERVE_ORDER);
	assert_string_equal(text, text2);
	/* The summary is computed from the finite samples. */
	assert_near(json_real_value(json_object_get(json_object_get(
		json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					       "metrics"), 0), "summary"), "median")),
		100.375, 1e-12);
	free(text);
	free(text2);
	json_decref(doc);
	json_decref(again);
	fpl_result_free(a);
	fpl_result_free(b);
}

static int parse(const char *text, struct fpl_diag *diag)
{
	json_t *doc = json_loads(text, 0, NULL);
	struct fpl_result *r = NULL;
	int err;

	assert_non_null(doc);
	err = fpl_result_from_json(doc, &r, diag);
	if (!err)
		fpl_result_free(r);
	json_decref(doc);
	return err;
}

/* A fpulab/1 file kept measured values in params: read back, they are observations. */
static void test_reads_v1(void **state)
{
	static const char v1[] =
		"{\"schema\":\"fpulab/1\",\"host\":{},\"runs\":["
		"{\"bench\":\"ctxsw\",\"params\":{\"mode\":\"processes\",\"state\":\"init\","
		"\"batch\":512,\"elapsed_s\":0.5,\"tsc_hz_measured\":2.6e9,\"cpus_echo\":\"0\","
		"\"state_verified\":\"yes\",\"b_minus_a_welch\":\"+1%\",\"mask\":\"0xe0\"},"
		"\"metrics\":[]},"
		"{\"bench\":\"signal\",\"params\":{\"state\":\"avx\",\"batch\":64,"
		"\"frame_bytes\":2904,\"at_minsigstksz\":3376},\"metrics\":[]},"
		"{\"bench\":\"section\",\"params\":{\"chunk\":1024,\"inside_saves\":4,"
		"\"owner_xinuse\":\"0x3\"},\"metrics\":[]},"
		"{\"bench\":\"xsave\",\"params\":{\"mask\":\"0x7\",\"xinuse_before\":\"0x7\"},"
		"\"metrics\":[]}]}";
	json_t *doc = json_loads(v1, 0, NULL);
	struct fpl_diag d = { "" };
	struct fpl_result *r = NULL;

	assert_non_null(doc);
	assert_int_equal(fpl_result_from_json(doc, &r, &d), 0);
	assert_int_equal(json_object_size(r->runs[0]->params), 2);
	assert_string_equal(fpl_run_param_get_str(r->runs[0], "state"), "init");
	assert_int_equal(fpl_run_obs_get_int(r->runs[0], "batch", 0), 512);
	assert_string_equal(fpl_run_obs_get_str(r->runs[0], "mask"), "0xe0");
	assert_string_equal(fpl_run_obs_get_str(r->runs[0], "b_minus_a_welch"), "+1%");
	/* signal's batch is the user's --batch: configuration */
	assert_int_equal(fpl_run_param_get_int(r->runs[1], "batch", 0), 64);
	assert_int_equal(fpl_run_obs_get_int(r->runs[1], "frame_bytes", 0), 2904);
	assert_int_equal(json_object_size(r->runs[1]->params), 2);
	assert_int_equal(json_object_size(r->runs[2]->params), 1);
	assert_int_equal(fpl_run_obs_get_int(r->runs[2], "inside_saves", 0), 4);
	/* xsave's mask is what the user chose */
	assert_string_equal(fpl_run_param_get_str(r->runs[3], "mask"), "0x7");
	assert_string_equal(fpl_run_obs_get_str(r->runs[3], "xinuse_before"), "0x7");
	fpl_result_free(r);
	json_decref(doc);
}

static void test_reader_rejects(void **state)
{
	struct fpl_diag d = { "" };

	assert_int_equal(parse("{\"schema\":\"fpulab/3\",\"host\":{},\"runs\":[]}", &d), -EINVAL);
	assert_non_null(strstr(d.msg, "schema"));
	assert_int_equal(parse("{\"schema\":\"fpulab/1\",\"runs\":[]}", &d), -EINVAL);
	assert_non_null(strstr(d.msg, "host"));
	assert_int_equal(parse("{\"schema\":\"fpulab/1\",\"host\":{},\"runs\":[{\"bench\":\"x\","
			       "\"metrics\":[{\"name\":\"a\",\"unit\":\"ns\",\"samples\":[1,\"2\"]}]}]}",
			       &d), -EINVAL);
	assert_non_null(strstr(d.msg, "runs[0].metrics[0].samples[1]"));
	assert_int_equal(parse("{\"schema\":\"fpulab/1\",\"host\":{},\"runs\":[{\"params\":{}}]}",
			       &d), -EINVAL);
	assert_non_null(strstr(d.msg, "runs[0]"));
	/* unknown keys are allowed */
	assert_int_equal(parse("{\"schema\":\"fpulab/1\",\"host\":{},\"runs\":[],\"later\":1}", &d),
			 0);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_atomic_file(void **state)
{
	char dir[] = "/tmp/fpl-test-XXXXXX", path[128], sub[128];
	struct fpl_result *r = sample_result(), *back = NULL;
	struct fpl_diag d = { "" };

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	mode_t old = umask(022);
	struct stat st;

	assert_int_equal(fpl_emit_file(r, FPL_FMT_JSON, path, &d), 0);
	umask(old);
	assert_int_equal(count_entries(dir), 1);
	/* not mkstemp's 0600: what a new file gets under the umask */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(fpl_result_load(path, &back, &d), 0);
	assert_int_equal(back->nruns, 2);
	fpl_result_free(back);

	/* The target is a directory: rename fails, and nothing is left behind. */
	snprintf(sub, sizeof(sub), "%s/taken", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_true(fpl_emit_file(r, FPL_FMT_JSON, sub, &d) < 0);
	assert_non_null(strstr(d.msg, "taken"));
	assert_int_equal(count_entries(dir), 2);
	/* A directory that does not exist: an error naming the file, no file. */
	snprintf(path, sizeof(path), "%s/nope/out.json", dir);
	assert_true(fpl_emit_file(r, FPL_FMT_JSON, path, &d) < 0);
	assert_int_equal(access(path, F_OK), -1);
	/* A missing file to load says so. */
	assert_int_equal(fpl_result_load(path, &back, &d), -ENOENT);
	assert_null(back);

	rmdir(sub);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	fpl_result_free(r);
}

/* The file at path could not be written for reason e: no file, and the message says so. */
static void assert_write_failed(const char *path, int e, int rc, const struct fpl_diag *d)
{
	if (rc != -e || !strstr(d->msg, path) || !strstr(d->msg, strerror(e)))
		fail_msg("%s: %d (%s), not %d (%s)", path, rc, d->msg, -e, strerror(e));
}

/*
 * A write that fails says why (issue: "not written: Input/output error"
 * for a full disk): into a device that is full (written into, not
 * replaced), and into a regular file past the size limit (the atomic
 * path), in each format; no temporary file is left.
 */
static void test_write_error_says_why(void **state)
{
	static const enum fpl_format fmts[] = { FPL_FMT_JSON, FPL_FMT_CSV, FPL_FMT_TABLE };
	char dir[] = "/tmp/fpl-test-XXXXXX", path[128];
	struct fpl_result *r = sample_result();
	struct rlimit old, small;
	void (*old_xfsz)(int);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 64;
	/* past the limit a write fails with EFBIG, once SIGXFSZ does not end the process */
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct fpl_diag d = { "" };
		int rc;

		if (!access("/dev/full", W_OK)) {
			rc = fpl_emit_file(r, fmts[i], "/dev/full", &d);
			assert_write_failed("/dev/full", ENOSPC, rc, &d);
		}
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
		rc = fpl_emit_file(r, fmts[i], path, &d);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		assert_write_failed(path, EFBIG, rc, &d);
		assert_int_equal(count_entries(dir), 0);
	}
	signal(SIGXFSZ, old_xfsz);
	assert_int_equal(rmdir(dir), 0);
	/* diag may be NULL: an error without a failed write (a format there is not) */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_true(fpl_emit(r, (enum fpl_format)7, f, NULL) < 0);
		fclose(f);
		free(buf);
	}
	fpl_result_free(r);
}

static void test_table_and_csv(void **state)
{
	struct fpl_result *r = sample_result();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fpl_emit(r, FPL_FMT_TABLE, f, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "skipped: no AVX-512 here"));
	assert_non_null(strstr(buf, "[1] throughput; N=8"));
	assert_non_null(strstr(buf, "xsave insn=xsavec mask=231"));
	/* the median of the finite samples, with its unit and note */
	assert_non_null(strstr(buf, "cycles 100.38 cycles (IQR 1.12) [1]; n=2"));
	/* warnings in full in a table that is not on a terminal */
	assert_non_null(strstr(buf, "warning (xsave): a warning"));
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(fpl_emit(r, FPL_FMT_CSV, f, NULL), 0);
	fclose(f);
	/* quotes doubled, the field quoted */
	assert_non_null(strstr(buf, "\"the same, \"\"quoted\"\", in ticks\""));
	assert_non_null(strstr(buf, "xsave,insn=xsavec;mask=231;x=0.5;live=yes,cycles,cycles,2,"));
	free(buf);
	fpl_result_free(r);
}

static void test_result_load(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r;

	assert_int_equal(fpl_result_load("tests/data/compare/json/a.json", &r, &diag), 0);
	assert_int_equal(r->nruns, 3);
	assert_true(r->runs[2]->skipped);
	assert_string_equal(r->runs[2]->skip_reason, "AMX not supported");
	assert_int_equal(r->runs[0]->metrics[0]->n, 20);
	assert_string_equal(r->runs[0]->metrics[1]->unit, "ns");
	fpl_result_free(r);
	assert_int_equal(fpl_result_load("tests/data/compare/bad/three.txt", &r, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "three.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_reader_rejects),
		cmocka_unit_test(test_reads_v1),
		cmocka_unit_test(test_atomic_file),
		cmocka_unit_test(test_write_error_says_why),
		cmocka_unit_test(test_table_and_csv),
		cmocka_unit_test(test_result_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
