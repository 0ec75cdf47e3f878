// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the LKP program's parse (contrib/lkp/fpulab): golden stats names, their rules, the skips, the reduced raw log. */
#include <math.h>

#include "lkptest.h"

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
		fail_msg("%s: stats names drifted from %s; first difference:\n  got  %.200s\n  "
			 "want %.200s",
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
	kernel = json_object_get(
	    json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "observed"), "kernel");
	assert_non_null(kernel);
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	assert_true(value_of(out, key) ==
		    json_number_value(json_object_get(kernel, "saves_per_op")));
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

/* A run skipped for want of AMX: no figure, but the skip and its reason (the golden name), never a
 * zero. */
static void golden_keys_skipped(void **state)
{
	int code;
	char *out;

	if (!have_ruby())
		skip();
	check_golden(DATA "ctxsw-amx-skipped.json", DATA "ctxsw-amx-skipped.keys");
	out = parse_file(DATA "ctxsw-amx-skipped.json", &code);
	assert_int_equal(lines_with(out, ": "), 1);
	assert_true(value_of(out,
			     "ctxsw.state_amx_mask_0x60000_has_components_this_task_cannot_make."
			     "skip") == 1);
	free(out);
}

/* Skip a run of doc with this reason (a JSON string or null). */
static void skip_run(json_t *doc, size_t i, json_t *reason)
{
	json_t *run = json_array_get(json_object_get(doc, "runs"), i);

	assert_non_null(run);
	json_object_set_new(run, "skipped", json_true());
	json_object_set_new(run, "skip_reason", reason);
	json_object_del(run, "metrics");
}

/*
 * BENCH.REASON.skip counts the configurations skipped for one reason (a
 * configuration run again counts once); REASON is the reason's words before
 * any detail, at most 64 characters, and never one LKP's etc/failure reads
 * as a failure (a word starting with fail, error or warn alone).
 */
static void skip_stats_count_configurations(void **state)
{
	json_t *doc, *runs;
	char *out;
	int code;

	if (!have_ruby())
		skip();
	doc = load(DATA "rfbm.json");
	runs = json_object_get(doc, "runs");
	assert_true(json_array_size(runs) >= 6);
	/* run 6: the configuration of run 0 once more (--runs 2) */
	json_array_append_new(runs, json_deep_copy(json_array_get(runs, 0)));
	skip_run(doc, 0, json_string("no AVX-512 (CPUID bit or XCR0)"));
	skip_run(doc, 1, json_string("no AVX-512; not in XCR0"));
	skip_run(doc, json_array_size(runs) - 1, json_string("no AVX-512 (CPUID bit or XCR0)"));
	skip_run(doc, 2, json_string("Failed"));
	skip_run(doc, 3, json_null());
	skip_run(doc, 4,
		 json_string("a reason that goes on and on, well past what one key "
			     "component should hold for a person to read"));
	out = parse_json(doc, &code);
	assert_int_equal(code, 0);
	free(keys_of(out));
	assert_true(value_of(out, "repro.no_avx_512.skip") == 2);
	assert_true(value_of(out, "repro.skip_failed.skip") == 1);
	assert_true(value_of(out, "repro.no_reason_given.skip") == 1);
	assert_true(value_of(out,
			     "repro.a_reason_that_goes_on_and_on_well_past_what_one_key_component."
			     "skip") == 1);
	assert_int_equal(lines_with(out, ".skip: "), 4);
	/* the configurations not skipped still have their figures */
	assert_int_equal(lines_with(out, "repro.value_"), (int)json_array_size(runs) - 6);
	free(out);
	json_decref(doc);
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
	json_array_foreach(json_object_get(doc, "runs"), i, run)
	{
		json_t *m;
		size_t j;

		json_object_set_new(run, "observed",
				    json_pack("{s:i,s:s}", "batch", 999, "rfbm", "0x600e7"));
		json_array_foreach(json_object_get(run, "metrics"), j, m)
		{
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

/* A run marked skipped, or a metric without a finite sample, loses its figures; the rest stay. */
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
	/* the skip is said: a run skipped without a reason */
	assert_true(value_of(out, "repro.no_reason_given.skip") == 1);
	free(out);
	json_decref(doc);
}

/* One configuration run three times (--runs 3): one stat, the median of the runs' medians. */
static void repeated_runs_give_median_of_medians(void **state)
{
	json_t *doc, *runs, *proto;
	const double s[3][4] = {{3, 1, 2, NAN}, {8, 5, 7, 6}, {10, NAN, NAN, NAN}};
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
				       "table=Context_switches_context_switch1-style") -
			 6.5) < 1e-9);
	free(out);
	json_decref(proto);
	json_decref(doc);
}

/*
 * parse --reduce (what run keeps as the raw log) gives the same stats as the
 * whole document, byte for byte, in a small part of its size; reducing again
 * changes nothing.
 */
static void reduced_log_gives_the_same_stats(void **state)
{
	static const char *const docs[] = {
	    DATA "suite.json.gz", DATA "ctxsw-ab.json",		 DATA "ctxsw-ab-ktrace.json",
	    DATA "rfbm.json",	  DATA "ctxsw-amx-skipped.json",
	};
	size_t with_samples = 0;

	if (!have_ruby())
		skip();
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char *doc, *whole, *reduced, *again, *from_reduced;
		int code;

		assert_int_equal(shf(&doc, "gzip -dcf '%s'", docs[i]), 0);
		whole = parse_text(doc, &code);
		assert_int_equal(code, 0);
		reduced = parse_text_args(doc, "--reduce", &code);
		assert_int_equal(code, 0);
		with_samples += strstr(doc, "\"samples\"") != NULL;
		assert_non_null(strstr(reduced, "\"schema\": \"fpulab-lkp/1\""));
		assert_null(strstr(reduced, "\"samples\""));
		/* the fixtures keep five samples a metric, real documents thousands */
		assert_true(strlen(reduced) * 2 < strlen(doc));
		from_reduced = parse_text(reduced, &code);
		assert_int_equal(code, 0);
		if (strcmp(whole, from_reduced))
			fail_msg("%s: the reduced log gives other stats:\n%.300s\nnot\n%.300s",
				 docs[i], from_reduced, whole);
		again = parse_text_args(reduced, "--reduce", &code);
		assert_int_equal(code, 0);
		assert_string_equal(again, reduced);
		free(doc);
		free(whole);
		free(reduced);
		free(again);
		free(from_reduced);
	}
	/* what the reduced logs leave out, every document but the skipped run's had */
	assert_int_equal(with_samples, sizeof(docs) / sizeof(docs[0]) - 1);
}

/* A document cut short is not reduced: no output, exit 1 (run keeps the raw text then). */
static void reduce_refuses_a_cut_document(void **state)
{
	char *out;
	int code;

	if (!have_ruby())
		skip();
	code = sh("head -c 3000 " DATA "rfbm.json | ruby " PROG "parse --reduce", &out);
	assert_int_equal(code, 1);
	assert_string_equal(out, "");
	free(out);
	code = sh("ruby " PROG "parse --reduce < /dev/null", &out);
	assert_int_equal(code, 0);
	assert_string_equal(out, "");
	free(out);
}

/* Text around the document is skipped; a cut or foreign document is an error, not figures. */
static void bad_documents_are_errors(void **state)
{
	char *out, *compact;
	int code;

	if (!have_ruby())
		skip();
	code =
	    sh("{ echo '2026-12-01 20:00:00 /x/fpulab repro rfbm --json -q'; cat " DATA "rfbm.json;"
	       " echo 'done'; } | ruby " PROG "parse",
	       &out);
	assert_int_equal(code, 0);
	free(keys_of(out));
	compact = out;
	code = sh("jq -c . " DATA "rfbm.json 2>/dev/null | ruby " PROG "parse", &out);
	if (*out) /* where jq is installed: one line is one document too */
		assert_string_equal(out, compact);
	free(out);
	free(compact);
	code = sh("head -c 3000 " DATA "rfbm.json | ruby " PROG "parse", &out);
	assert_int_equal(code, 1);
	assert_string_equal(out, "");
	free(out);
	code =
	    sh("sed 's|\"fpulab/2\"|\"fpulab/3\"|' " DATA "rfbm.json | ruby " PROG "parse", &out);
	assert_int_equal(code, 1);
	assert_string_equal(out, "");
	free(out);
	code = sh("ruby " PROG "parse < /dev/null", &out);
	assert_int_equal(code, 0);
	assert_string_equal(out, "");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(golden_keys_suite),
	    cmocka_unit_test(golden_keys_ctxsw_ab),
	    cmocka_unit_test(golden_keys_repro_rfbm),
	    cmocka_unit_test(golden_keys_ctxsw_ab_ktrace),
	    cmocka_unit_test(kernel_counts_only_when_complete),
	    cmocka_unit_test(golden_keys_skipped),
	    cmocka_unit_test(skip_stats_count_configurations),
	    cmocka_unit_test(keys_ignore_observed_and_host),
	    cmocka_unit_test(missing_figures_give_no_line),
	    cmocka_unit_test(repeated_runs_give_median_of_medians),
	    cmocka_unit_test(reduced_log_gives_the_same_stats),
	    cmocka_unit_test(reduce_refuses_a_cut_document),
	    cmocka_unit_test(bad_documents_are_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
