// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for results: JSON round trip through schema fpulab/2, typed metric facts, reading older files, reader errors, atomic file output. */
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
#include "report/summary.h"

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

/*
 * A metric's typed facts go out as keys and come back: family, kind,
 * reps ("varies" too), clock, overhead, conversion, and the method's parts
 * (method_what only where a timing part lies between it and the unit part).
 */
static void test_typed_facts_roundtrip(void **state)
{
	const struct fpl_metric_how how = { .reps = 256, .clock = FPL_MCLOCK_TSC,
					    .overhead = FPL_OVERHEAD_EMPTY_BODY,
					    .conv = FPL_CONV_CYCLES_COUNTED };
	struct fpl_result *r = fpl_result_new(), *b = NULL;
	struct fpl_run *run = fpl_result_add_run(r, "demo");
	struct fpl_metric *c = fpl_run_add_metric(run, "with_cycles", "cycles", NULL);
	struct fpl_metric *d = fpl_run_add_metric(run, "delta", "ns", NULL);
	struct fpl_metric *v = fpl_run_add_metric(run, "speed", "MB/s", "calls vary");
	struct fpl_diag diag = { "" };
	struct fpl_method_parts p;
	json_t *doc, *jc, *jd, *jv;

	(void)state;
	assert_true(c && d && v);
	assert_int_equal(fpl_metric_set_method(c, "throughput: FOO", "N reps per sample",
					       "core cycles counted: TSC ticks x r"), 0);
	assert_string_equal(c->method, "throughput: FOO; N reps per sample; core cycles counted: "
			    "TSC ticks x r");
	assert_int_equal(fpl_metric_set_family(c, "with"), 0);
	fpl_metric_set_how(c, &how);
	assert_int_equal(fpl_metric_set_method(d, "B - A per round", NULL, "ns as timed"), 0);
	fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
	fpl_metric_set_how(v, &(struct fpl_metric_how){ .reps = FPL_REPS_VARIES });
	fpl_metric_add(c, 1);
	doc = fpl_report_json(r);
	jc = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "metrics"), 0);
	jd = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "metrics"), 1);
	jv = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "metrics"), 2);
	assert_string_equal(json_string_value(json_object_get(jc, "family")), "with");
	assert_string_equal(json_string_value(json_object_get(jc, "kind")), "sample");
	assert_int_equal(json_integer_value(json_object_get(jc, "reps")), 256);
	assert_string_equal(json_string_value(json_object_get(jc, "clock")), "tsc");
	assert_string_equal(json_string_value(json_object_get(jc, "overhead")), "empty-body");
	assert_string_equal(json_string_value(json_object_get(jc, "conversion")), "cycles-counted");
	assert_string_equal(json_string_value(json_object_get(jc, "method_what")), "throughput: FOO");
	assert_string_equal(json_string_value(json_object_get(jc, "method_unit")),
			    "core cycles counted: TSC ticks x r");
	assert_string_equal(json_string_value(json_object_get(jd, "kind")), "difference");
	assert_string_equal(json_string_value(json_object_get(jd, "family")), "delta");
	assert_null(json_object_get(jd, "method_what"));	/* all before the unit part */
	assert_null(json_object_get(jd, "clock"));		/* not known: not written */
	assert_string_equal(json_string_value(json_object_get(jv, "reps")), "varies");
	assert_null(json_object_get(jv, "method_unit"));
	assert_int_equal(fpl_result_from_json(doc, &b, &diag), 0);
	c = b->runs[0]->metrics[0];
	assert_string_equal(fpl_metric_family(c), "with");
	assert_int_equal(fpl_metric_kind(c), FPL_KIND_SAMPLE);
	assert_int_equal(fpl_metric_how(c)->reps, how.reps);
	assert_int_equal(fpl_metric_how(c)->clock, how.clock);
	assert_int_equal(fpl_metric_how(c)->overhead, how.overhead);
	assert_int_equal(fpl_metric_how(c)->conv, how.conv);
	fpl_metric_method_parts(c, &p);
	assert_int_equal(p.what_len, strlen("throughput: FOO"));
	assert_int_equal(p.timing_len, strlen("N reps per sample"));
	assert_string_equal(p.unit, "core cycles counted: TSC ticks x r");
	assert_true(fpl_metric_is_difference(b->runs[0]->metrics[1]));
	assert_false(fpl_metric_is_difference(c));
	fpl_metric_method_parts(b->runs[0]->metrics[1], &p);
	assert_int_equal(p.what_len, strlen("B - A per round"));
	assert_int_equal(p.timing_len, 0);
	assert_string_equal(p.unit, "ns as timed");
	assert_int_equal(fpl_metric_how(b->runs[0]->metrics[2])->reps, FPL_REPS_VARIES);
	json_decref(doc);
	fpl_result_free(r);
	fpl_result_free(b);
}

/* One metric's JSON with the keys of extra (a JSON object's inside) added, parsed. */
static int parse_metric(const char *extra, struct fpl_result **out, struct fpl_diag *diag)
{
	char text[1024];
	json_t *doc;
	int err;

	snprintf(text, sizeof(text), "{\"schema\":\"fpulab/2\",\"host\":{},\"runs\":[{\"bench\":"
		 "\"x\",\"metrics\":[{\"name\":\"a_ns\",\"unit\":\"ns\",\"method\":\"W; T; U\","
		 "\"samples\":[1]%s%s}]}]}", *extra ? "," : "", extra);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	*out = NULL;
	err = fpl_result_from_json(doc, out, diag);
	json_decref(doc);
	return err;
}

/* The kind a view decides by is checked; the facts that only describe load unknown when new. */
static void test_typed_facts_checked(void **state)
{
	static const struct { const char *keys, *says; } bad[] = {
		{ "\"kind\":\"ratio\",\"family\":\"a\"", "\"kind\" is not" },
		{ "\"kind\":\"sample\"", "\"family\"" },
		{ "\"kind\":\"sample\",\"family\":\"a\",\"method_unit\":\"V\"", "method_unit" },
		{ "\"kind\":\"sample\",\"family\":\"a\",\"method_what\":\"X\"", "method_what" },
		{ "\"kind\":\"sample\",\"family\":\"a\",\"method_what\":\"W;\","
		  "\"method_unit\":\"U\"", "method_what" },
		{ "\"kind\":\"sample\",\"family\":\"a\",\"reps\":0", "\"reps\"" },
		{ "\"kind\":\"sample\",\"family\":\"a\",\"reps\":\"many\"", "\"reps\"" },
	};
	struct fpl_diag d = { "" };
	struct fpl_result *r;
	struct fpl_method_parts p;

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(bad); i++) {
		assert_int_equal(parse_metric(bad[i].keys, &r, &d), -EINVAL);
		if (!strstr(d.msg, bad[i].says) || !strstr(d.msg, "runs[0].metrics[0]"))
			fail_msg("%s: %s", bad[i].keys, d.msg);
	}
	assert_int_equal(parse_metric("\"kind\":\"net\",\"family\":\"a\",\"clock\":\"sundial\","
				      "\"method_what\":\"W\",\"method_unit\":\"U\"", &r, &d), 0);
	assert_int_equal(fpl_metric_how(r->runs[0]->metrics[0])->clock, FPL_MCLOCK_UNKNOWN);
	assert_int_equal(fpl_metric_kind(r->runs[0]->metrics[0]), FPL_KIND_NET);
	fpl_metric_method_parts(r->runs[0]->metrics[0], &p);
	assert_int_equal(p.what_len, 1);
	assert_int_equal(p.timing_len, 1);
	assert_string_equal(p.unit, "U");
	fpl_result_free(r);
	/* no kind: a file written before, inferred from the name */
	assert_int_equal(parse_metric("", &r, &d), 0);
	assert_string_equal(fpl_metric_family(r->runs[0]->metrics[0]), "a");
	fpl_metric_method_parts(r->runs[0]->metrics[0], &p);
	assert_int_equal(p.unit_len, 0);
	fpl_result_free(r);
}

#define RESULT_DATA "tests/data/result/"

static struct fpl_result *load(const char *path)
{
	struct fpl_diag d = { "" };
	struct fpl_result *r = NULL;

	if (fpl_result_load(path, &r, &d))
		fail_msg("%s", d.msg);
	return r;
}

/* The metric of the same configuration and name in other, or NULL. */
static const struct fpl_metric *same_metric(const struct fpl_result *other,
					    const struct fpl_run *run, const struct fpl_metric *m)
{
	char *key = fpl_run_config_key(run, NULL, NULL, NULL);
	const struct fpl_metric *found = NULL;

	assert_non_null(key);
	for (size_t i = 0; i < other->nruns && !found; i++) {
		char *k = fpl_run_config_key(other->runs[i], NULL, NULL, NULL);

		assert_non_null(k);
		if (!strcmp(k, key))
			found = fpl_run_find_metric(other->runs[i], m->name);
		free(k);
	}
	free(key);
	return found;
}

/*
 * typed.json and untyped.json: the same configurations of every benchmark
 * (tests/data/result/README.md), written after and before metrics carried
 * their facts. The untyped file's inferred families and kinds are those the
 * benchmarks now write, metric by metric; and so, with every new key
 * removed, are the typed file's own, with its method parts and, where the
 * text says them, its method facts.
 */
static void test_untyped_file_infers_the_same(void **state)
{
	static const char *const keys[] = { "family", "kind", "reps", "clock", "overhead",
					    "conversion", "method_what", "method_unit" };
	struct fpl_result *typed = load(RESULT_DATA "typed.json");
	struct fpl_result *old = load(RESULT_DATA "untyped.json"), *stripped = NULL;
	json_t *doc = json_load_file(RESULT_DATA "typed.json", 0, NULL), *run, *m;
	struct fpl_diag d = { "" };
	size_t i, j, n = 0, kinds[3] = { 0 }, shared = 0;

	(void)state;
	assert_non_null(doc);
	json_array_foreach(json_object_get(doc, "runs"), i, run)
		json_array_foreach(json_object_get(run, "metrics"), j, m)
			for (size_t k = 0; k < FPL_ARRAY_SIZE(keys); k++)
				json_object_del(m, keys[k]);
	assert_int_equal(fpl_result_from_json(doc, &stripped, &d), 0);
	assert_int_equal(stripped->nruns, typed->nruns);
	for (i = 0; i < typed->nruns; i++) {
		for (j = 0; j < typed->runs[i]->nmetrics; j++) {
			const struct fpl_metric *t = typed->runs[i]->metrics[j];
			const struct fpl_metric *o = same_metric(old, typed->runs[i], t);
			const struct fpl_metric *s = stripped->runs[i]->metrics[j];
			const struct fpl_metric_how *th = fpl_metric_how(t), *sh = fpl_metric_how(s);

			if (!o)
				fail_msg("%s %s: not in untyped.json", typed->runs[i]->bench, t->name);
			if (strcmp(fpl_metric_family(o), fpl_metric_family(t)) ||
			    fpl_metric_kind(o) != fpl_metric_kind(t) ||
			    strcmp(fpl_metric_family(s), fpl_metric_family(t)) ||
			    fpl_metric_kind(s) != fpl_metric_kind(t))
				fail_msg("%s %s: family %s, kind %d written; inferred %s/%d, %s/%d",
					 typed->runs[i]->bench, t->name, fpl_metric_family(t),
					 fpl_metric_kind(t), fpl_metric_family(o), fpl_metric_kind(o),
					 fpl_metric_family(s), fpl_metric_kind(s));
			assert_int_equal(s->what_len, t->what_len);
			assert_int_equal(s->timing_len, t->timing_len);
			assert_true(!sh->reps || sh->reps == th->reps);
			assert_true(!sh->clock || sh->clock == th->clock);
			assert_true(!sh->overhead || sh->overhead == th->overhead);
			assert_true(!sh->conv || sh->conv == th->conv);
			kinds[fpl_metric_kind(t)]++;
			shared += strcmp(fpl_metric_family(t), t->name) != 0;
			n++;
		}
	}
	/* not vacuous: every kind, families of several members, facts inferred */
	assert_true(n > 100 && kinds[FPL_KIND_SAMPLE] && kinds[FPL_KIND_DIFFERENCE] &&
		    kinds[FPL_KIND_NET] && shared > 50);
	json_decref(doc);
	fpl_result_free(typed);
	fpl_result_free(old);
	fpl_result_free(stripped);
}

/* One key per configuration: bench, canonical params, metric; keys left out on request. */
static void test_config_key(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *a = fpl_result_add_run(r, "xsave"), *b = fpl_result_add_run(r, "xsave");
	char *ka, *kb, *kc;
	uint64_t found = 0;

	(void)state;
	fpl_run_param_str(a, "state", "init");
	fpl_run_param_int(a, "mask", 7);
	fpl_run_param_int(b, "mask", 7);
	fpl_run_param_str(b, "state", "live");
	ka = fpl_run_config_key(a, "cycles", NULL, NULL);
	assert_string_equal(ka, "xsave\x1f{\"mask\":7,\"state\":\"init\"}\x1f" "cycles");
	kb = fpl_run_config_key(b, "cycles", NULL, NULL);
	assert_string_not_equal(ka, kb);
	free(kb);
	/* the order params were set in does not matter; ignored keys, and which were there */
	kb = fpl_run_config_key(b, "cycles", "nope,state", &found);
	kc = fpl_run_config_key(a, "cycles", "state", NULL);
	assert_string_equal(kb, kc);
	assert_string_equal(kb, "xsave\x1f{\"mask\":7}\x1f" "cycles");
	assert_int_equal(found, 2);
	assert_string_equal(json_string_value(json_object_get(b->params, "state")), "live");
	free(kb);
	kb = fpl_run_config_key(a, NULL, NULL, NULL);
	assert_string_equal(kb, "xsave\x1f{\"mask\":7,\"state\":\"init\"}");
	free(ka);
	free(kb);
	free(kc);
	fpl_result_free(r);
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

/* One process's result of a series: a run, a warning, the per-process host keys. */
static struct fpl_result *child_result(long long pid, long long cpu)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "signal");

	assert_non_null(run);
	assert_int_equal(json_object_set_new(r->host, "name", json_string("CPU X")) ||
			 json_object_set_new(r->host, "process", json_pack("{s:I, s:b}", "pid",
									   pid, "aslr", 1)) ||
			 json_object_set_new(r->host, "clock", json_pack("{s:I, s:f}", "cpu", cpu,
									 "core_hz_start", 3.5e9)) ||
			 json_object_set_new(r->host, "loadavg_start", json_pack("[f,f,f]", 0.5,
										 0.25, 0.125)),
			 0);
	assert_int_equal(fpl_result_warn(r, "machine loaded"), 0);
	assert_int_equal(fpl_result_note_ran(r, "signal", 0.25, "ok"), 0);
	return r;
}

/*
 * host.command word for word, read back by fpl_result_command_word; a word
 * that is not UTF-8 (a path's bytes) kept with its bytes as \xNN (and its
 * backslash, so the form reads one way); a second call replaces the first.
 */
static void test_command_words(void **state)
{
	char *argv[] = { "fpulab", "ctxsw", "--ab", "init,avx512", "-o", "caf\xe9.json",
			 "a\\b\xff", NULL };
	char *again[] = { "fpulab", "run", NULL };
	struct fpl_result *r = fpl_result_new();

	(void)state;
	assert_non_null(r);
	assert_null(fpl_result_command_word(r, 0));
	assert_int_equal(fpl_result_set_command(r, argv), 0);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(fpl_result_command_word(r, i), argv[i]);
	assert_string_equal(fpl_result_command_word(r, 5), "caf\\xe9.json");
	assert_string_equal(fpl_result_command_word(r, 6), "a\\x5cb\\xff");
	assert_null(fpl_result_command_word(r, 7));
	assert_int_equal(fpl_result_set_command(r, again), 0);
	assert_string_equal(fpl_result_command_word(r, 1), "run");
	assert_null(fpl_result_command_word(r, 2));
	fpl_result_free(r);
}

/*
 * host.ran, in order, and the Ran: line made from it: each status's words,
 * a step not run listed apart and out of the total (1.25 + 0.5 + 2.0).
 */
static void test_ran_line(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(r);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_summary_ran(r, f), 0);	/* no host.ran: nothing */
	fflush(f);
	assert_int_equal(len, 0);
	assert_int_equal(fpl_result_note_ran(r, "xsave", 1.25, "ok"), 0);
	assert_int_equal(fpl_result_note_ran(r, "amx", 0.5, "skipped"), 0);
	assert_int_equal(fpl_result_note_ran(r, "signal --state avx512", 2.0,
					     "failed or interrupted"), 0);
	assert_int_equal(fpl_result_note_ran(r, "xor", NAN, "not run"), 0);
	assert_int_equal(fpl_result_note_ran(r, "section", NAN, "not run"), 0);
	assert_int_equal(fpl_summary_ran(r, f), 0);
	fclose(f);
	assert_string_equal(buf, "\nRan: xsave 1.2 s, amx 0.5 s (skipped), signal --state avx512 "
			    "2.0 s (failed or interrupted); not run: xor, section; 3.8 s in all.\n");
	assert_int_equal(json_array_size(json_object_get(r->host, "ran")), 5);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(r->host, "ran"), 3),
						 "took_s")));
	free(buf);
	fpl_result_free(r);
}

/*
 * The Ran: line says what ran (issue 31 item 7): a step whose runs hold
 * metrics is not called skipped, whatever its status, and a step under
 * 0.05 s is not "0.0 s". Its runs are host.ran's first_run and runs, or in a
 * document without them every run of a benchmark the line names once. A
 * step whose runs were all skipped stays "(skipped)". The AMX permission
 * asked in the run is said after it.
 */
static void test_ran_line_from_runs(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *x = fpl_result_add_run(r, "xsave"), *a = fpl_result_add_run(r, "amx");
	struct fpl_run *k = fpl_result_add_run(r, "kvm"), *s = fpl_result_add_run(r, "section");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(r);
	fpl_metric_add(fpl_run_add_metric(x, "cycles", "cycles", NULL), 190);
	fpl_metric_add(fpl_run_add_metric(a, "first_use", "tsc", NULL), 43754);
	fpl_run_skip(k, "no /dev/kvm");
	fpl_metric_add(fpl_run_add_metric(s, "section_cycles", "cycles", NULL), 164);
	assert_int_equal(fpl_result_note_ran_runs(r, "xsave", 1.6, "ok", 0, 1), 0);
	assert_int_equal(fpl_result_note_ran_runs(r, "amx", 0.031, "skipped", 1, 1), 0);
	assert_int_equal(fpl_result_note_ran_runs(r, "kvm", 0.2, "skipped", 2, 1), 0);
	/* An older document's step: no run indices, its benchmark named once. */
	assert_int_equal(fpl_result_note_ran(r, "section", 3.3, "skipped"), 0);
	json_object_set_new(r->host, "amx_permission",
			    json_pack("{s:b, s:s, s:b, s:s, s:s, s:s}", "requested", 1, "by",
				      "the default suite, before xsave's AMX rows", "granted", 1,
				      "result", "granted", "permitted_before", "0x200e7",
				      "permitted_after", "0x600e7"));
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fpl_summary_ran(r, f), 0);
	fclose(f);
	assert_string_equal(buf, "\nRan: xsave 1.6 s, amx 31 ms, kvm 0.2 s (skipped), section 3.3 s; "
			    "5.1 s in all.\nAMX tile data permission (ARCH_REQ_XCOMP_PERM) asked in "
			    "this process by the default suite, before xsave's AMX rows: granted; "
			    "permitted 0x200e7 -> 0x600e7.\n");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(r->host, "ran"), 1), "first_run")), 1);
	free(buf);
	fpl_result_free(r);
}

/* A series: each process's runs stamped with its facts, its warnings named by run, one host. */
static void test_merge_process(void **state)
{
	struct fpl_result *dst = fpl_result_new(), *a = child_result(100, 1), *b = child_result(0, 0);
	long long s0[3] = { 10, 5, 20 }, s1[3] = { 60, 5, 45 };
	struct fpl_process_run pa = { .index = 1, .pid = 7, .started = "2026-12-03T00:00:00.000Z",
				      .wall_s = 1.5, .preempted = 3, .steal0 = s0, .steal1 = s1,
				      .nsteal = 3, .tick_hz = 100 };
	struct fpl_process_run pb = pa;

	(void)state;
	pb.index = 2;
	pb.pid = 8;
	assert_int_equal(fpl_result_merge_process(dst, a, &pa), 0);
	assert_int_equal(fpl_result_merge_process(dst, b, &pb), 0);
	assert_int_equal(dst->nruns, 2);
	assert_int_equal(a->nruns, 0);
	/* the document's pid wins; without one, the process's */
	assert_int_equal(fpl_run_obs_get_int(dst->runs[0], "run_pid", 0), 100);
	assert_int_equal(fpl_run_obs_get_int(dst->runs[1], "run_pid", 0), 8);
	assert_int_equal(fpl_run_obs_get_int(dst->runs[1], "run_index", 0), 2);
	assert_int_equal(fpl_run_obs_get_int(dst->runs[0], "run_cpu", -1), 1);
	/* steal: (60 - 10) / 100 s on all CPUs; CPU 1's slot is [2]: (45 - 20) / 100 */
	assert_near(json_number_value(fpl_run_obs_get(dst->runs[0], "run_steal_s_all")), 0.5, 1e-12);
	assert_near(json_number_value(fpl_run_obs_get(dst->runs[0], "run_steal_s")), 0.25, 1e-12);
	/* CPU 0's slot [1] did not move */
	assert_near(json_number_value(fpl_run_obs_get(dst->runs[1], "run_steal_s")), 0, 1e-12);
	assert_near(json_number_value(fpl_run_obs_get(dst->runs[0], "run_core_hz")), 3.5e9, 1);
	assert_string_equal(fpl_run_obs_get_str(dst->runs[0], "run_started"),
			    "2026-12-03T00:00:00.000Z");
	/* one host without the per-process keys, which went to the runs */
	assert_string_equal(json_string_value(json_object_get(dst->host, "name")), "CPU X");
	assert_null(json_object_get(dst->host, "clock"));
	assert_null(json_object_get(dst->host, "process"));
	assert_null(json_object_get(dst->host, "ran"));	/* run 1's durations are not the series' */
	assert_non_null(fpl_run_obs_get(dst->runs[0], "run_loadavg_start"));
	/* a child whose host has no clock.cpu: no per-CPU steal time (not CPU 0's slot) */
	{
		struct fpl_result *c = child_result(9, 0);
		struct fpl_process_run pc = pa;

		json_object_del(json_object_get(c->host, "clock"), "cpu");
		pc.index = 3;
		assert_int_equal(fpl_result_merge_process(dst, c, &pc), 0);
		assert_null(fpl_run_obs_get(dst->runs[2], "run_steal_s"));
		assert_non_null(fpl_run_obs_get(dst->runs[2], "run_steal_s_all"));
		fpl_result_free(c);
	}
	assert_int_equal(json_array_size(dst->warnings), 3);
	assert_string_equal(json_string_value(json_array_get(dst->warnings, 1)),
			    "run 2: machine loaded");
	fpl_result_free(a);
	fpl_result_free(b);
	fpl_result_free(dst);
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
		cmocka_unit_test(test_command_words),
		cmocka_unit_test(test_ran_line),
		cmocka_unit_test(test_ran_line_from_runs),
		cmocka_unit_test(test_merge_process),
		cmocka_unit_test(test_reader_rejects),
		cmocka_unit_test(test_reads_v1),
		cmocka_unit_test(test_typed_facts_roundtrip),
		cmocka_unit_test(test_typed_facts_checked),
		cmocka_unit_test(test_untyped_file_infers_the_same),
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_atomic_file),
		cmocka_unit_test(test_write_error_says_why),
		cmocka_unit_test(test_table_and_csv),
		cmocka_unit_test(test_result_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
