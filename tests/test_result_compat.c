// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: results documents an older fpulab wrote (tests/data/results-v2) still load, table and compare. */
#include <ctype.h>
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

#include "report/repro.h"
#include "fpulab/result.h"
#include "report/summary.h"
#include "report/views.h"
#include "clitest.h"

/* Written by fpulab 6e6872d, before issue 21 (tests/data/results-v2/README.md says how). */
#define DATA "tests/data/results-v2/"

CMD_TMPDIR(tmp, "fpl-test-compat")

/* The three documents: fpulab run -o, ctxsw --runs 3 -o, repro rfbm -o. */
static const char *const docs[] = { "small-run", "small-ctxsw3", "small-rfbm" };

/* DATA/name.json.xz decompressed into tmp (once); its path, in buf. Skips without xz. */
static const char *doc_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s.json", tmp, name);
	if (!access(buf, R_OK))
		return buf;
	if (sh(NULL, "command -v xz >/dev/null")) {
		print_message("  no xz here (xz-utils): the stored documents cannot be read\n");
		skip();
	}
	if (sh(NULL, "xz -dc '" DATA "%s.json.xz' > '%s'", name, buf))
		fail_msg("xz -dc " DATA "%s.json.xz failed", name);
	return buf;
}

/* The numbers of r's metric m are the file's, as the old program wrote them. */
static void metric_as_written(const struct fpl_metric *m, json_t *jm, const char *where)
{
	json_t *samples = json_object_get(jm, "samples"), *x;
	size_t i;

	assert_string_equal(m->name, json_string_value(json_object_get(jm, "name")));
	assert_string_equal(m->unit, json_string_value(json_object_get(jm, "unit")));
	assert_string_equal(m->method, json_string_value(json_object_get(jm, "method")));
	if (m->n != json_array_size(samples))
		fail_msg("%s %s: %zu samples loaded, %zu in the file", where, m->name, m->n,
			 json_array_size(samples));
	json_array_foreach(samples, i, x)
		if (!json_is_number(x) || m->samples[i] != json_number_value(x))
			fail_msg("%s %s: sample %zu is %.17g, %.17g in the file", where, m->name, i,
				 m->samples[i], json_number_value(x));
}

/*
 * fpl_result_load reads each stored document whole: the same runs in the
 * same order, each with its bench, params, skip, warnings and metrics, and
 * every sample the same double as jansson reads from the file.
 */
static void test_loads_as_written(void **state)
{
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		char path[600];
		struct fpl_diag diag = { "" };
		struct fpl_result *r = NULL;
		json_t *j = load_json(doc_path(docs[d], path, sizeof(path))), *runs, *jr;
		size_t i, samples = 0;

		assert_string_equal(json_string_value(json_object_get(j, "schema")), "fpulab/2");
		runs = json_object_get(j, "runs");
		assert_true(json_array_size(runs) > 0);
		if (fpl_result_load(path, &r, &diag))
			fail_msg("%s: %s", docs[d], diag.msg);
		assert_int_equal(r->nruns, json_array_size(runs));
		assert_true(json_equal(r->host, json_object_get(j, "host")));
		assert_int_equal(json_array_size(r->warnings),
				 json_array_size(json_object_get(j, "warnings")));
		json_array_foreach(runs, i, jr) {
			const struct fpl_run *run = r->runs[i];
			json_t *jms = json_object_get(jr, "metrics");
			char where[64];

			snprintf(where, sizeof(where), "%s runs[%zu]", docs[d], i);
			assert_string_equal(run->bench, json_string_value(json_object_get(jr, "bench")));
			assert_true(json_equal(run->params, json_object_get(jr, "params")));
			assert_int_equal(run->skipped, json_is_true(json_object_get(jr, "skipped")));
			assert_int_equal(json_array_size(run->warnings),
					 json_array_size(json_object_get(jr, "warnings")));
			if (run->nmetrics != json_array_size(jms))
				fail_msg("%s: %zu metrics loaded, %zu in the file", where, run->nmetrics,
					 json_array_size(jms));
			for (size_t k = 0; k < run->nmetrics; k++) {
				metric_as_written(run->metrics[k], json_array_get(jms, k), where);
				samples += run->metrics[k]->n;
			}
		}
		print_message("  %s: %zu runs, %zu samples\n", docs[d], r->nruns, samples);
		assert_true(samples > 0);
		fpl_result_free(r);
		json_decref(j);
	}
}

/*
 * The figures of a line: its numbers as written ("2396", "+8.10%", "3.695",
 * "2.294e+05", "~108.10%"), those inside words ("avx512", "0xe7", "do_2")
 * left out. At most max; how many.
 */
static size_t figures(const char *l, size_t len, char (*fig)[32], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < max; i++) {
		size_t e = i;

		if (i > 0 && (isalnum((unsigned char)l[i - 1]) || l[i - 1] == '_' || l[i - 1] == '.'))
			continue;
		if ((l[e] == '+' || l[e] == '-' || l[e] == '~') && e + 1 < len)
			e++;
		if (!isdigit((unsigned char)l[e]))
			continue;
		while (e < len && (isdigit((unsigned char)l[e]) || l[e] == '.'))
			e++;
		if (e + 2 < len && l[e] == 'e' && (l[e + 1] == '+' || l[e + 1] == '-') &&
		    isdigit((unsigned char)l[e + 2]))
			for (e += 2; e < len && isdigit((unsigned char)l[e]); e++)
				;
		if (e < len && l[e] == '%')
			e++;
		if (e < len && (isalpha((unsigned char)l[e]) || l[e] == '_'))
			continue;	/* a word that starts with digits: 0xe7 */
		snprintf(fig[n++], sizeof(fig[0]), "%.*s", (int)(e - i), l + i);
		i = e - 1;
	}
	return n;
}

/* Whether some line of text has the figures want[0..n) side by side, in order. */
static bool has_figures(const char *text, char (*want)[32], size_t n)
{
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		char fig[64][32];
		size_t k = figures(l, strcspn(l, "\n"), fig, 64);

		for (size_t at = 0; at + n <= k; at++) {
			size_t j = 0;

			while (j < n && !strcmp(fig[at + j], want[j]))
				j++;
			if (j == n)
				return true;
		}
	}
	return false;
}

/*
 * Every line of the old program's stdout (DATA/name.txt) above the one
 * starting with to (NULL: to the end) that holds figures has them, in
 * order, on one line of now: the same figures from the same file, whatever
 * the words around them became. Lines starting with "==" (the command's
 * own heading, not the table's) are not compared.
 */
static void same_figures(const char *name, const char *now, const char *to)
{
	char path[600], *old;
	unsigned lines = 0;

	snprintf(path, sizeof(path), DATA "%s.txt", name);
	old = cmd_slurp(path, NULL);
	assert_non_null(old);
	for (const char *l = old; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		size_t len = strcspn(l, "\n"), n;
		char fig[64][32];

		if (to && !strncmp(l, to, strlen(to)))
			break;
		n = figures(l, len, fig, 64);
		if (!n || !strncmp(l, "==", 2))
			continue;
		if (!has_figures(now, fig, n))
			fail_msg("%s: the old line\n%.*s\nhas no line with its figures (%s ...) now:\n%s",
				 name, (int)len, l, fig[0], now);
		lines++;
	}
	print_message("  %s: %u lines of figures as before\n", name, lines);
	assert_true(lines >= 5);
	free(old);
}

/* The stored document at name, loaded (the caller frees). */
static struct fpl_result *load_doc(const char *name)
{
	char path[600];
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;

	if (fpl_result_load(doc_path(name, path, sizeof(path)), &r, &diag))
		fail_msg("%s: %s", name, diag.msg);
	return r;
}

/*
 * The tables for people of each document show the old program's figures:
 * run's summary (down to its warnings, which also spoke of the runs that
 * small-run.json leaves out), the --runs series and the RFBM tables.
 */
static void test_tables_as_before(void **state)
{
	struct fpl_table_opts o = { .warnings = true };
	struct fpl_diag diag = { "" };
	struct fpl_result *r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	r = load_doc("small-run");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fpl_summary_write(r, f), 0);
	fclose(f);
	same_figures("small-run", text, "Warnings:");
	free(text);
	fpl_result_free(r);

	r = load_doc("small-ctxsw3");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fpl_view_series(r, &o, (long)r->nruns, (long)r->nruns, f), 0);
	fclose(f);
	same_figures("small-ctxsw3", text, NULL);
	free(text);
	fpl_result_free(r);

	r = load_doc("small-rfbm");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	if (fpl_repro_rfbm_write(r, f, &diag))
		fail_msg("repro rfbm table of small-rfbm.json: %s", diag.msg);
	fclose(f);
	same_figures("small-rfbm", text, NULL);
	free(text);
	fpl_result_free(r);
}

/*
 * fpulab show of each stored document (written before documents kept their
 * command line): the view is chosen by what the runs are, and shows the
 * old program's figures as the library's own view does.
 */
static void test_show_by_content(void **state)
{
	static const char *const head[] = { "Summary: ", "3 of 3 runs, each a fresh process",
					    "== RFBM and context switches (2024 report" };
	char path[600], *out;

	(void)state;
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		assert_int_equal(sh(&out, "'%s' show '%s'", cmd_fpl_bin(),
				    doc_path(docs[d], path, sizeof(path))), 0);
		if (strncmp(out, head[d], strlen(head[d])))
			fail_msg("show %s begins:\n%.300s\nnot with '%s'", docs[d], out, head[d]);
		same_figures(docs[d], out, d == 0 ? "Warnings:" : NULL);
		free(out);
	}
}

/* a and b are one number, within what compare's JSON kept of it (12 significant digits until af60486). */
static bool same_real(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

/* Params of a run (the file's) and of a metric of compare's JSON: equal, reals as rounded. */
static bool params_match(json_t *file, json_t *cmp)
{
	const char *k;
	json_t *v;

	if (json_object_size(file) != json_object_size(cmp))
		return false;
	json_object_foreach(file, k, v) {
		json_t *w = json_object_get(cmp, k);

		if (json_is_number(v) && json_is_number(w) ?
		    !same_real(json_number_value(v), json_number_value(w)) : !json_equal(v, w))
			return false;
	}
	return true;
}

/* The metric of run jr named name, or NULL. */
static json_t *run_metric(json_t *jr, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(jr, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

/* How many metrics of the file compare sees: a configuration's metric once, however many runs. */
static size_t file_metrics(json_t *runs)
{
	json_t *jr, *m;
	size_t i, k, n = 0;

	json_array_foreach(runs, i, jr) {
		if (json_is_true(json_object_get(jr, "skipped")))
			continue;
		json_array_foreach(json_object_get(jr, "metrics"), k, m) {
			const char *name = json_string_value(json_object_get(m, "name"));
			bool seen = false;

			for (size_t p = 0; p < i && !seen; p++) {
				json_t *prev = json_array_get(runs, p);

				seen = !json_is_true(json_object_get(prev, "skipped")) &&
				       json_equal(json_object_get(prev, "bench"),
						  json_object_get(jr, "bench")) &&
				       json_equal(json_object_get(prev, "params"),
						  json_object_get(jr, "params")) &&
				       run_metric(prev, name);
			}
			n += !seen;
		}
	}
	return n;
}

/*
 * One metric of compare --format json, A against A, checked against the
 * file: in each case the runs of its configuration (a repro case's
 * samples are its runs, one figure per repeated run), every sample of
 * them, each run's value the median the old program wrote in the metric's
 * summary (a repro value its sample), and no difference.
 */
static void cmp_metric_from_file(json_t *cm, json_t *runs, const char *name)
{
	const char *bench = json_string_value(json_object_get(cm, "bench"));
	const char *mname = json_string_value(json_object_get(cm, "name"));
	bool repro = !strcmp(bench, FPL_REPRO_BENCH);
	json_t *c, *jr, *want[64];
	size_t i, k, nrun = 0, nsamples = 0, nvalues = 0;
	double values[1024];

	json_array_foreach(runs, i, jr) {
		json_t *m = run_metric(jr, mname);

		if (!m || strcmp(json_string_value(json_object_get(jr, "bench")), bench) ||
		    !params_match(json_object_get(jr, "params"), json_object_get(cm, "params")))
			continue;
		assert_true(nrun < 64);
		want[nrun++] = m;
		nsamples += json_array_size(json_object_get(m, "samples"));
	}
	if (!nrun)
		fail_msg("%s: compare's metric %s matches no run of the file", name,
			 json_string_value(json_object_get(cm, "metric")));
	for (i = 0; i < nrun; i++) {
		json_t *x;

		if (!repro) {
			values[nvalues++] = json_number_value(json_object_get(json_object_get(want[i],
							      "summary"), "median"));
			continue;
		}
		json_array_foreach(json_object_get(want[i], "samples"), k, x)
			if (nvalues < 1024)
				values[nvalues++] = json_number_value(x);
	}
	assert_true(json_is_false(json_object_get(cm, "different")));
	assert_int_equal(json_array_size(json_object_get(cm, "cases")), 2);
	json_array_foreach(json_object_get(cm, "cases"), i, c) {
		json_t *rv = json_object_get(c, "run_values");

		assert_int_equal(json_integer_value(json_object_get(c, "samples")), nsamples);
		assert_int_equal(json_integer_value(json_object_get(c, "runs")), nvalues);
		assert_int_equal(json_array_size(rv), nvalues);
		for (k = 0; k < nvalues; k++)
			if (!same_real(json_number_value(json_array_get(rv, k)), values[k]))
				fail_msg("%s, %s: run %zu's value %.12g, the file's %.12g", name,
					 json_string_value(json_object_get(cm, "metric")), k,
					 json_number_value(json_array_get(rv, k)), values[k]);
	}
}

/*
 * fpulab compare of each stored document with itself: exit 0, every
 * metric of the file compared, none different (--format json, the numbers
 * checked against the file read with jansson); the table says the same.
 */
static void test_compare_with_itself(void **state)
{
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		char path[600], head[128];
		struct cmd_out o;
		json_t *file, *cmp, *cm;
		size_t i, nmetrics, no_verdict = 0;
		int rc;

		doc_path(docs[d], path, sizeof(path));
		file = load_json(path);
		nmetrics = file_metrics(json_object_get(file, "runs"));
		rc = fpl(&o, 300, "compare", "--format", "json", path, path, NULL);
		if (rc)
			fail_msg("compare --format json %s %s: exit %d\n%s", docs[d], docs[d], rc,
				 o.err);
		cmp = out_json(&o, docs[d]);
		cmd_out_free(&o);
		assert_string_equal(json_string_value(json_object_get(cmp, "kind")),
				    "fpulab results JSON");
		assert_int_equal(json_array_size(json_object_get(cmp, "metrics")), nmetrics);
		assert_int_equal(json_integer_value(json_object_get(cmp, "different")), 0);
		json_array_foreach(json_object_get(cmp, "metrics"), i, cm) {
			cmp_metric_from_file(cm, json_object_get(file, "runs"), docs[d]);
			no_verdict += json_integer_value(json_object_get(json_array_get(
				json_object_get(cm, "cases"), 0), "runs")) <
				json_integer_value(json_object_get(cmp, "min_runs"));
		}
		assert_int_equal(json_integer_value(json_object_get(cmp, "no_verdict")), no_verdict);
		print_message("  %s: %zu metrics, %zu without a verdict (under %lld runs)\n",
			      docs[d], nmetrics, no_verdict,
			      json_integer_value(json_object_get(cmp, "min_runs")));
		json_decref(cmp);
		json_decref(file);

		rc = fpl(&o, 300, "compare", path, path, NULL);
		if (rc)
			fail_msg("compare %s %s: exit %d\n%s", docs[d], docs[d], rc, o.err);
		snprintf(head, sizeof(head), "2 cases, case 1 the baseline; %zu metrics;", nmetrics);
		if (!strstr(o.out, head))
			fail_msg("compare %s %s: no '%s' in\n%s", docs[d], docs[d], head, o.out);
		/* a real param in a label as people write it: 0.2, not the double's 17 digits */
		if (!strcmp(docs[d], "small-ctxsw3") &&
		    (!strstr(o.out, "ctxsw budget_s=0.2 ") || strstr(o.out, "0.2000000")))
			fail_msg("compare %s: budget_s not as 0.2 in its labels\n%s", docs[d], o.out);
		cmd_out_free(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_as_written),
		cmocka_unit_test(test_tables_as_before),
		cmocka_unit_test(test_show_by_content),
		cmocka_unit_test(test_compare_with_itself),
	};

	return cmocka_run_group_tests(tests, cmd_tmp_setup, cmd_tmp_teardown);
}
