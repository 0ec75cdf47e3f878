// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Tests for a section's cost by its parts (issues 32 and 34): the
 * explanation's arithmetic on made-up runs, its JSON keys, the anomaly's
 * words with and without a part that explains it, and no "-0" anywhere.
 */
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
#include <cmocka.h>
#include <jansson.h>

#include "bench/section_work.h"
#include "fpulab/kexpect.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "report/views.h"

#define ROUNDS 25

struct made {
	const char *policy, *mask;
	long long sections;
	double sc[ROUNDS];			/* section_cycles per round */
	double part[FPL_SECTION_NPARTS][ROUNDS];	/* save, setup, end, restore */
	bool parts;				/* part arms present (false: an older document) */
	const char *work_xinuse;		/* NULL: not recorded */
};

static void add(struct fpl_run *run, const char *name, const double *x, size_t n, bool ci)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, "cycles", "made up");
	struct fpl_ci c;

	assert_non_null(m);
	assert_int_equal(fpl_metric_add_many(m, x, n), 0);
	if (ci) {
		assert_int_equal(fpl_median_ci(x, n, &c), 0);
		m->extra = json_pack("{s:f, s:f, s:f, s:I}", "estimate", c.estimate, "ci95_lo",
				     c.lo, "ci95_hi", c.hi, "n", (json_int_t)c.n);
	}
}

/* A section run of made-up samples: its calls 100000 cycles inside and outside, 99000 bare. */
static struct fpl_run *made_run(struct fpl_result *r, const struct made *d)
{
	struct fpl_run *run = fpl_result_add_run(r, "section");
	double in[ROUNDS], out[ROUNDS], bare[ROUNDS], one[ROUNDS];
	json_t *ex = NULL;

	assert_non_null(run);
	fpl_run_param_str(run, "workload", "chacha20");
	fpl_run_param_str(run, "impl", "avx2");
	fpl_run_param_str(run, "isa", "AVX2");
	fpl_run_param_int(run, "chunk", 65536 / d->sections);
	fpl_run_param_int(run, "total", 65536);
	fpl_run_param_int(run, "sections_inside", d->sections);
	fpl_run_param_str(run, "policy", d->policy);
	fpl_run_param_str(run, "mask", d->mask);
	fpl_run_param_str(run, "insn", "xsavec");
	fpl_run_param_str(run, "owner", "init");
	for (int i = 0; i < ROUNDS; i++) {
		out[i] = 100000 + i % 5;
		in[i] = out[i] + d->sc[i] * (double)(d->sections - 1);
		bare[i] = 99000 + i % 3;
		one[i] = out[i] - bare[i];
	}
	add(run, "inside_cycles", in, ROUNDS, false);
	add(run, "outside_cycles", out, ROUNDS, false);
	add(run, "bare_cycles", bare, ROUNDS, false);
	add(run, "speedup_pct", (double[ROUNDS]){ 0 }, ROUNDS, true);
	if (d->sections > 1)
		add(run, "section_cycles", d->sc, ROUNDS, true);
	add(run, "one_section_cycles", one, ROUNDS, true);
	for (int k = 0; d->parts && k < FPL_SECTION_NPARTS; k++) {
		char name[48];

		snprintf(name, sizeof(name), "part_%s_cycles", fpl_section_parts[k]);
		add(run, name, d->part[k], ROUNDS, false);
	}
	fpl_run_obs_str(run, "owner_xinuse", "0x200");
	if (d->work_xinuse)
		fpl_run_obs_str(run, "work_xinuse", d->work_xinuse);
	assert_int_equal(fpl_section_explain(run, &ex), 0);
	if (ex)
		assert_int_equal(fpl_run_obs_json(run, "explain", ex), 0);
	return run;
}

/* Parts: save 150, set-up 9, end 25, restore 450 (Zen 3), with a spread; the section cost sc. */
static void fill(struct made *d, const char *policy, double sc, double spread)
{
	static const double base[FPL_SECTION_NPARTS] = { 150, 9, 25, 450 };

	memset(d, 0, sizeof(*d));
	d->policy = policy;
	d->mask = "MXCSR";
	d->sections = 4;
	d->parts = true;
	d->work_xinuse = "0x202";
	for (int i = 0; i < ROUNDS; i++) {
		d->sc[i] = sc + spread * (double)(i % 7 - 3);
		for (int k = 0; k < FPL_SECTION_NPARTS; k++)
			d->part[k][i] = base[k] + (double)(i % 3);
	}
}

static double num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("no number %s", key);
	return json_number_value(v);
}

static double median(const double *x, size_t n)
{
	struct fpl_ci c;

	assert_int_equal(fpl_median_ci(x, n, &c), 0);
	return c.estimate;
}

/* The parts add up: count x each = total, the totals = predicted; the residual is per round. */
static void test_explain_arithmetic(void **state)
{
	static const double eager[FPL_SECTION_NPARTS] = { 1, 1, 1, 1 };
	static const double lazy[FPL_SECTION_NPARTS] = { 0, 1, 1, 0 };
	struct fpl_result *r = fpl_result_new();
	struct made d;
	double res[ROUNDS];

	fill(&d, "eager", 700, 10);
	made_run(r, &d);
	fill(&d, "lazy", 40, 2);
	made_run(r, &d);
	for (size_t j = 0; j < 2; j++) {
		const json_t *ex = fpl_run_obs_get(r->runs[j], "explain");
		json_t *parts = json_object_get(ex, "parts"), *p, *rv;
		const double *want = j ? lazy : eager;
		double predicted = 0, sum = 0;
		size_t k;

		assert_non_null(ex);
		assert_int_equal(json_array_size(parts), FPL_SECTION_NPARTS);
		json_array_foreach(parts, k, p) {
			double each = median(fpl_run_find_metric(r->runs[j], json_string_value(
					json_object_get(p, "metric")))->samples, ROUNDS);

			assert_string_equal(json_string_value(json_object_get(p, "name")),
					    fpl_section_parts[k]);
			assert_true(num(p, "count_per_op") == want[k]);
			assert_true(fabs(num(p, "each") - each) < 1e-9);
			assert_true(fabs(num(p, "total") - want[k] * each) < 1e-9);
			predicted += num(p, "total");
		}
		assert_true(fabs(num(ex, "predicted") - predicted) < 1e-9);
		/* residual: median of (section cost - sum count x part) per round */
		for (int i = 0; i < ROUNDS; i++) {
			res[i] = fpl_run_find_metric(r->runs[j], "section_cycles")->samples[i];
			for (k = 0; k < FPL_SECTION_NPARTS; k++)
				res[i] -= want[k] * fpl_run_find_metric(r->runs[j], json_string_value(
					json_object_get(json_array_get(parts, k), "metric")))->samples[i];
			sum += res[i];
		}
		rv = json_object_get(ex, "residual");
		assert_true(fabs(num(rv, "value") - median(res, ROUNDS)) < 1e-9);
		assert_true(num(rv, "ci_lo") <= num(rv, "value"));
		assert_true(num(rv, "value") <= num(rv, "ci_hi"));
		assert_true(num(rv, "ci_lo") < num(rv, "ci_hi"));
		(void)sum;
	}
	/* eager: 700 measured, 634 (+1 from the spread of each part) predicted */
	assert_true(fabs(num(fpl_run_obs_get(r->runs[0], "explain"), "predicted") - 638) < 1e-9);
	/* lazy: set-up 10 + end 26 */
	assert_true(fabs(num(fpl_run_obs_get(r->runs[1], "explain"), "predicted") - 36) < 1e-9);
	fpl_result_free(r);
}

/* The "unexplained" rule: the residual's interval excludes zero and it exceeds 20% of measured. */
static void test_explain_unexplained_rule(void **state)
{
	struct {
		const char *policy;
		double sc, spread;
		bool unexplained;
	} c[] = {
		{ "eager", 638, 10, false },	/* residual 0: explained */
		{ "eager", 700, 1, false },	/* residual +62, interval off zero, 8.9% of 700 */
		{ "eager", 900, 1, true },	/* +262, 29% of 900 */
		{ "eager", 900, 200, false },	/* +262, but its interval holds zero */
		{ "lazy", -150, 20, true },	/* the Zen 3 cell: -186 against -150 measured */
		{ "lazy", 36, 30, false },
	};
	for (size_t i = 0; i < FPL_ARRAY_SIZE(c); i++) {
		struct fpl_result *r = fpl_result_new();
		struct made d;
		const json_t *ex;

		fill(&d, c[i].policy, c[i].sc, c[i].spread);
		ex = fpl_run_obs_get(made_run(r, &d), "explain");
		assert_non_null(ex);
		if (json_is_true(json_object_get(ex, "unexplained")) != c[i].unexplained)
			fail_msg("case %zu: %s %g: unexplained should be %d (residual %g [%g, %g])",
				 i, c[i].policy, c[i].sc, c[i].unexplained,
				 num(json_object_get(ex, "residual"), "value"),
				 num(json_object_get(ex, "residual"), "ci_lo"),
				 num(json_object_get(ex, "residual"), "ci_hi"));
		fpl_result_free(r);
	}
}

/* Keys of observed.explain, through a JSON document and back; none without the figure. */
static void test_explain_json_keys(void **state)
{
	static const char *const top[] = { "measured_cycles", "parts", "predicted", "residual",
					   "unexplained", "unit", "per" };
	static const char *const part[] = { "name", "count_per_op", "each", "total", "source" };
	static const char *const ci[] = { "value", "ci_lo", "ci_hi" };
	struct fpl_result *r = fpl_result_new(), *back = NULL;
	struct fpl_diag diag = { "" };
	struct made d;
	const json_t *ex;
	json_t *doc;

	fill(&d, "eager", 700, 10);
	made_run(r, &d);
	doc = fpl_report_json(r);
	assert_non_null(doc);
	assert_int_equal(fpl_result_from_json(doc, &back, &diag), 0);
	ex = fpl_run_obs_get(back->runs[0], "explain");
	assert_non_null(ex);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(top); i++)
		if (!json_object_get(ex, top[i]))
			fail_msg("observed.explain has no %s", top[i]);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(ci); i++) {
		assert_true(json_is_number(json_object_get(json_object_get(ex, "measured_cycles"),
							   ci[i])));
		assert_true(json_is_number(json_object_get(json_object_get(ex, "residual"), ci[i])));
	}
	for (size_t i = 0; i < FPL_ARRAY_SIZE(part); i++)
		assert_non_null(json_object_get(json_array_get(json_object_get(ex, "parts"), 3),
						part[i]));
	json_decref(doc);
	fpl_result_free(back);
	fpl_result_free(r);
	/* one chunk (no extra section), no part arms (an older document): no explanation */
	r = fpl_result_new();
	fill(&d, "eager", 700, 10);
	d.sections = 1;
	assert_null(fpl_run_obs_get(made_run(r, &d), "explain"));
	fill(&d, "eager", 700, 10);
	d.parts = false;
	assert_null(fpl_run_obs_get(made_run(r, &d), "explain"));
	fpl_result_free(r);
	/* the model's expected counts */
	{
		struct fpl_kx_section k;

		assert_int_equal(fpl_kexpect_section_model("eager", 16, &k), 0);
		assert_true(k.saves == 16 && k.restores == 16);
		assert_int_equal(fpl_kexpect_section_model("lazy", 16, &k), 0);
		assert_true(k.saves == 1 && k.restores == 1);
		assert_int_equal(fpl_kexpect_section_model("never", 16, &k), -EINVAL);
		assert_int_equal(fpl_kexpect_section_model("eager", 0, &k), -EINVAL);
	}
}

/* The section table, the suite's section lines, and the anomaly block: the caller frees. */
static char *text(const struct fpl_result *r)
{
	struct fpl_table_opts o = { .warnings = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fpl_table_section(r, &o, f), 0);
	fpl_summary_section(r, f);
	fclose(f);
	return buf;
}

/* A cost below zero in every round, beyond chance: the sentence names the part, or none. */
static void test_anomaly_names_the_part(void **state)
{
	struct {
		const char *policy, *work_xinuse;
		bool parts;
		const char *want, *also;
	} c[] = {
		/* eager, the work ends with YMM dirty, the owner's upper state init: the restore */
		{ "eager", "0x206", true, "Cause, from the parts: the restore",
		  "cleaned the upper halves, which the work leaves dirty (XINUSE 0x206" },
		/* the same work, lazy: no restore in the cost */
		{ "lazy", "0x206", true, "Cause, from the parts: none of them",
		  "this cost holds no restore" },
		/* eager, the work ends clean (VZEROUPPER) */
		{ "eager", "0x202", true, "Cause, from the parts: none of them",
		  "ends with its upper halves clean (XINUSE 0x202" },
		/* eager, not recorded */
		{ "eager", NULL, true, "Cause, from the parts: none of them", "was not recorded" },
		/* a document from before the part arms: the older sentence */
		{ "eager", "0x206", false, "lies below zero", "A fault of the measurement" },
	};

	for (size_t i = 0; i < FPL_ARRAY_SIZE(c); i++) {
		struct fpl_result *r = fpl_result_new();
		struct fpl_run *run;
		struct made d;
		char why[1200], *buf;

		fill(&d, c[i].policy, -300, 2);
		d.parts = c[i].parts;
		d.work_xinuse = c[i].work_xinuse;
		run = made_run(r, &d);
		assert_non_null(fpl_section_anomaly(r, run, why, sizeof(why)));
		if (!strstr(why, c[i].want) || !strstr(why, c[i].also))
			fail_msg("case %zu: %s", i, why);
		assert_true(strlen(why) < sizeof(why) - 1);	/* not cut short */
		assert_true(fpl_section_cost_anomalous(r, run, false));
		assert_false(fpl_section_cost_anomalous(r, run, true));
		if (c[i].parts)
			assert_non_null(strstr(why, "the parts alone cost") ? why :
					strstr(why, "Each costs more than nothing alone"));
		buf = text(r);
		/* never a plain cost: not the median, not its interval in the cost column */
		assert_non_null(strstr(buf, "anomaly (see below)"));
		assert_null(strstr(buf, "-300 ["));
		assert_non_null(strstr(buf, "restore: an anomaly, not a cost"));
		assert_null(strstr(buf, "restore -300"));
		assert_non_null(strstr(buf, c[i].want));
		free(buf);
		fpl_result_free(r);
	}
	/* no part: the cause said from how the rounds were ordered */
	for (int shuffled = 0; shuffled < 2; shuffled++) {
		struct fpl_result *r = fpl_result_new();
		struct fpl_run *run;
		struct made d;
		char why[1200];

		fill(&d, "lazy", -300, 2);
		run = made_run(r, &d);
		if (shuffled)
			fpl_run_obs_str(run, "order", "shuffled");
		assert_non_null(fpl_section_anomaly(r, run, why, sizeof(why)));
		assert_non_null(strstr(why, shuffled ? "the rounds' order was shuffled" :
					    "the rounds' fixed order: each arm always ran right after"));
		assert_null(strstr(why, "different loops"));
		fpl_result_free(r);
	}
}

/* Whether s holds a negative figure whose digits are all zero ("-0", "-0.0", "-0.00"). */
static const char *minus_zero(const char *s)
{
	for (const char *p = strchr(s, '-'); p; p = strchr(p + 1, '-')) {
		const char *q = p + 1;
		bool digit = false, nonzero = false;

		for (; (*q >= '0' && *q <= '9') || *q == '.'; q++) {
			digit |= *q != '.';
			nonzero |= *q >= '1' && *q <= '9';
		}
		if (digit && !nonzero)
			return p;
	}
	return NULL;
}

/* No "-0" in any figure: a tiny negative cost rounds to 0, alone, in a table, in a sentence. */
static void test_no_minus_zero(void **state)
{
	static const struct {
		double v;
		int prec;
		const char *want;
	} f[] = {
		{ -0.4, 0, "0" }, { -0.04, 1, "0.0" }, { -1e-9, 2, "0.00" }, { -0.0, 0, "0" },
		{ -0.6, 0, "-1" }, { -0.06, 1, "-0.1" }, { 0.4, 0, "0" }, { -12.5, 1, "-12.5" },
	};
	struct fpl_result *r = fpl_result_new();
	struct made d;
	char buf[32], why[1200], *t;
	const char *at;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(f); i++)
		assert_string_equal(fpl_section_num(buf, sizeof(buf), f[i].v, f[i].prec),
				    f[i].want);
	assert_null(minus_zero("-1 [-0.5, 10] 0.0 x-0.1"));
	assert_non_null(minus_zero("[-0, -0]"));
	assert_non_null(minus_zero("x -0.00 y"));
	/* tiny negative costs, beyond chance and within: Intel's "[-0, -0]" */
	fill(&d, "lazy", -0.3, 0.02);
	for (int k = 0; k < FPL_SECTION_NPARTS; k++)
		for (int i = 0; i < ROUNDS; i++)
			d.part[k][i] = 0.2 + 0.01 * (i % 3);
	made_run(r, &d);
	assert_non_null(fpl_section_anomaly(r, r->runs[0], why, sizeof(why)));
	at = minus_zero(why);
	if (at)
		fail_msg("the anomaly prints -0: ...%.40s", at);
	fill(&d, "eager", -0.2, 0.1);
	for (int i = 0; i < ROUNDS; i++)
		d.sc[i] = i % 2 ? 0.3 : -0.3;	/* around zero, within chance */
	made_run(r, &d);
	t = text(r);
	at = minus_zero(t);
	if (at)
		fail_msg("the section text prints -0: ...%.60s", at);
	free(t);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explain_arithmetic),
		cmocka_unit_test(test_explain_unexplained_rule),
		cmocka_unit_test(test_explain_json_keys),
		cmocka_unit_test(test_anomaly_names_the_part),
		cmocka_unit_test(test_no_minus_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
