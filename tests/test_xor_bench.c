// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for fpulab xor (the command): bad input exits 2, the kernel's lines, sections, the sweep's metrics. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/stats.h"
#include "runcmd.h"

/* a sweep cell that waits for an episode to end keeps every round it took: megabytes */
#define OUT_MAX (16 * 1024 * 1024)

/* Run "$FPL_BIN args" (stderr into out as well when both), return the exit status. */
static int run_bin(const char *args, bool both, char *out, size_t size)
{
	char *o, *e;
	int rc;

	if (!getenv("FPL_BIN")) {
		print_message("  FPL_BIN unset: no fpulab binary to run (make test sets it)\n");
		skip();
	}
	rc = fplrun("", args, &o, &e);
	snprintf(out, size, "%s%s", o ? o : "", both && e ? e : "");
	free(o);
	free(e);
	return rc;
}

/* The runs of "$FPL_BIN args" (exit 0, JSON on stdout; out a buffer of OUT_MAX); *doc to free. */
static json_t *runs_of(const char *args, char *out, json_t **doc)
{
	json_error_t e;

	assert_int_equal(run_bin(args, false, out, OUT_MAX), 0);
	*doc = json_loads(out, 0, &e);
	if (!*doc)
		fail_msg("not JSON: %s", e.text);
	return json_object_get(*doc, "runs");
}

static void test_bad_input_exits_2(void **state)
{
	static const char *const cases[][2] = {
		{ "xor --sizes 1000", "1000" },
		{ "xor --sizes 4k,0", "'0'" },
		{ "xor --sizes 512m", "512m" },
		{ "xor --impl nosuch", "nosuch" },
		{ "xor --calibrate --impl avx,bogus", "bogus" },
		{ "xor --arities 6", "'6'" },
		{ "xor --calibrate --section fninit", "fninit" },
		{ "xor --kernel-era 4.19", "4.19" },
		{ "xor --repeat 0", "--repeat" },
		{ "xor --calibrate extra", "extra" },
	};
	char *out = malloc(OUT_MAX);

	for (size_t i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		assert_int_equal(run_bin(cases[i][0], true, out, OUT_MAX), 2);
		if (!strstr(out, cases[i][1]))
			fail_msg("'%s': message does not name '%s': %s", cases[i][0], cases[i][1],
				 out);
	}
	free(out);
}

static bool matches(const char *text, const char *re)
{
	regex_t r;
	bool m;

	assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
	m = !regexec(&r, text, 0, NULL, 0);
	regfree(&r);
	return m;
}

/* The lines an LKP parser reads, byte for byte in shape, and the 2021 table. */
static void test_calibrate_lines(void **state)
{
	char *out = malloc(OUT_MAX);

	assert_int_equal(run_bin("xor --calibrate -q --impl 8regs,32regs --section all --repeat 2",
				 false, out, OUT_MAX), 0);
	assert_true(matches(out, "^xor: measuring software checksum speed$"));
	assert_true(matches(out, "^   8regs           : [ 0-9]{5,} MB/sec$"));
	assert_true(matches(out, "^   32regs          : [ 0-9]{5,} MB/sec$"));
	assert_true(matches(out, "^xor: using function: (8|32)regs \\([0-9]+ MB/sec\\)$"));
	assert_true(matches(out, "kernel_fpu_begin_mask\\(387\\|MXCSR\\)"));
	assert_true(matches(out, "MXCSR/none +387\\|MXCSR/none +wins$"));
	assert_true(matches(out, "^8regs +C +[0-9]+ \\[[0-9]+, [0-9]+\\]"));
	assert_true(matches(out, "^# 2 calibration\\(s\\)"));
	free(out);
}

static void test_calibrate_pre510_format(void **state)
{
	char *out = malloc(OUT_MAX);

	assert_int_equal(run_bin("xor --calibrate -q --impl 8regs --kernel-era pre-5.10 --hz 1000",
				 false, out, OUT_MAX), 0);
	assert_true(matches(out, "^   8regs     : [ 0-9]+\\.[0-9]{3} MB/sec$"));
	assert_true(matches(out, "^xor: using function: 8regs \\([0-9]+\\.[0-9]{3} MB/sec\\)$"));
	free(out);
}

static json_t *find_run(json_t *runs, const char *key, const char *val, const char *key2,
			const char *val2)
{
	size_t i;
	json_t *r;

	json_array_foreach(runs, i, r) {
		json_t *p = json_object_get(r, "params");

		if (!strcmp(json_string_value(json_object_get(p, key)) ?: "", val) &&
		    (!key2 || !strcmp(json_string_value(json_object_get(p, key2)) ?: "", val2)))
			return r;
	}
	return NULL;
}

static json_t *metric(json_t *run, const char *name)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(run, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	fail_msg("no metric %s", name);
	return NULL;
}

/*
 * The L1 bound of x, the 8regs run (8-byte words; do_2 loads 2 streams and
 * stores 1); mc, memcpy's run, has none.
 */
static void check_bound(json_t *x, json_t *mc)
{
	json_t *bp = metric(x, "bound_pct"), *bx = json_object_get(bp, "extra");
	json_t *bs = json_object_get(bp, "samples"), *bb;
	double b = json_number_value(json_object_get(bx, "bound_bytes_per_cycle"));
	double l = json_number_value(json_object_get(bx, "loads_per_cycle"));
	double st = json_number_value(json_object_get(bx, "stores_per_cycle"));
	size_t k;

	assert_string_equal(json_string_value(json_object_get(bp, "unit")), "percent");
	assert_true(fabs(b - fmin(l * 8 / 2, st * 8)) < 1e-9);
	assert_int_equal(json_array_size(bs), json_array_size(
		json_object_get(metric(x, "bytes_per_cycle"), "samples")));
	json_array_foreach(bs, k, bb)
		assert_true(fabs(json_number_value(bb) - 100 * json_number_value(
			json_array_get(json_object_get(metric(x, "bytes_per_cycle"),
						       "samples"), k)) / b) < 1e-6);
	json_array_foreach(json_object_get(mc, "metrics"), k, bb)
		assert_string_not_equal(json_string_value(json_object_get(bb, "name")),
					"bound_pct");
	assert_non_null(json_string_value(json_object_get(bx, "source")));
	assert_non_null(json_string_value(json_object_get(bx, "core")));
}

/* The bound applies with the N x size bytes in L1D: the flag says whether they are. */
static void check_fits_l1d(json_t *x)
{
	json_t *ob = json_object_get(x, "observed"), *fits = json_object_get(ob, "fits_l1d");
	json_t *l1d = json_object_get(ob, "l1d_bytes");
	json_t *bs = json_object_get(metric(x, "bound_pct"), "samples"), *bb;
	double v[1024];
	struct fpl_summary sum;
	size_t k, nv = 0;

	assert_int_equal(json_integer_value(json_object_get(ob, "footprint_bytes")), 2 * 4096);
	if (json_is_integer(l1d))
		assert_true(json_is_boolean(fits) &&
			    json_is_true(fits) == (2 * 4096 <= json_integer_value(l1d)));
	else
		assert_true(json_is_null(l1d) && json_is_null(fits));
	/*
	 * a median above 105% of the bound is an anomaly, flagged as such, and
	 * only then; of the finite samples, as the benchmark takes it (a sample
	 * that is not a number, a zero-tick difference, is null in the JSON)
	 */
	json_array_foreach(bs, k, bb)
		if (nv < FPL_ARRAY_SIZE(v) && json_is_number(bb))
			v[nv++] = json_number_value(bb);
	if (nv && !fpl_summarize(v, nv, 0, &sum) && sum.median > 105)
		assert_non_null(strstr(json_string_value(json_object_get(ob, "bound_anomaly")) ?:
				       "", "do_2 8regs at 4096 bytes"));
	else
		assert_null(json_object_get(ob, "bound_anomaly"));
}

/* Of one sweep's template samples, how many MB/s figures are positive; asserts the structure. */
static size_t sweep_positive(char *out, size_t *nsamples)
{
	json_t *doc, *x, *mc, *samples, *ns, *s;
	json_t *runs = runs_of("xor -q --json --sizes 4k --arities 2,3 --impl 8regs --budget 0.1",
			       out, &doc);
	size_t i, pos = 0;

	/* two arities, each with the template and memcpy measured in the same rounds */
	assert_int_equal(json_array_size(runs), 4);
	x = find_run(runs, "template", "8regs", NULL, NULL);
	mc = find_run(runs, "template", "memcpy", NULL, NULL);
	assert_non_null(x);
	assert_non_null(mc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "params"), "size")),
			 4096);
	samples = json_object_get(metric(x, "speed"), "samples");
	ns = json_object_get(metric(x, "ns"), "samples");
	assert_true(json_array_size(samples) >= 2);
	assert_int_equal(json_array_size(samples), json_array_size(ns));
	json_array_foreach(samples, i, s) {
		double t = json_number_value(json_array_get(ns, i));

		/* MB/s is the kernel's: 4096 bytes / ns per call * 1000, sample by sample */
		assert_true(fabs(json_number_value(s) - 4096 / t * 1000) <=
			    1e-6 * fabs(json_number_value(s)));
		pos += json_number_value(s) > 0;
	}
	assert_string_equal(json_string_value(json_object_get(metric(mc, "speed"), "unit")),
			    "MB/s");
	assert_true(json_array_size(json_object_get(metric(x, "bytes_per_cycle"), "samples")) >= 2);
	check_bound(x, mc);
	check_fits_l1d(x);
	*nsamples = json_array_size(samples);
	json_decref(doc);
	return pos;
}

/*
 * Samples are differences of timings (N and 2N calls): a preempted round
 * can make one negative, and on a loaded machine many. Most are positive in
 * at least one of three runs unless the difference is taken the wrong way.
 */
static void test_sweep_json(void **state)
{
	char *out = malloc(OUT_MAX);
	size_t pos = 0, n = 0;

	for (int attempt = 0; attempt < 3; attempt++) {
		pos = sweep_positive(out, &n);
		if (pos * 2 > n)
			break;
		print_message("attempt %d: %zu of %zu samples positive\n", attempt, pos, n);
	}
	assert_true(pos * 2 > n);
	free(out);
}

static long long interf_int(json_t *run, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(json_object_get(
		metric(run, "tsc"), "extra"), "interference"), key));
}

/*
 * How samples were kept, in the file: below 4 MiB a template and memcpy
 * keep the same rounds (those between quiet readings of the interference
 * reference: observed.interference, extra.interference by round), and
 * every derived figure has exactly the samples kept; from 4 MiB on every
 * sample is kept, no reference read, and the method strings say which.
 */
static void test_sweep_kept(void **state)
{
	char *out = malloc(OUT_MAX);
	json_t *doc, *runs = runs_of("xor -q --json --sizes 4k,4M --arities 2 --impl 8regs "
				     "--budget 0.2", out, &doc);
	static const char *const derived[] = { "cycles", "ns", "speed", "bytes_per_cycle" };
	json_t *run;
	size_t i;

	(void)state;
	assert_int_equal(json_array_size(runs), 4);
	json_array_foreach(runs, i, run) {
		long long size = json_integer_value(json_object_get(json_object_get(run, "params"),
								    "size"));
		json_t *obs = json_object_get(json_object_get(run, "observed"), "interference");
		size_t n = json_array_size(json_object_get(metric(run, "tsc"), "samples"));

		for (size_t k = 0; k < FPL_ARRAY_SIZE(derived); k++)
			assert_int_equal(json_array_size(json_object_get(metric(run, derived[k]),
									 "samples")), n);
		if (size >= (4 << 20)) {
			assert_null(obs);
			assert_non_null(strstr(json_string_value(json_object_get(
				metric(run, "speed"), "method")), "every one kept"));
			continue;
		}
		assert_non_null(obs);
		assert_string_equal(json_string_value(json_object_get(obs, "kept_by")), "round");
		/*
		 * The quiet rounds kept; or, where too few were quiet (a slow
		 * host, a sanitizer build), every round taken, and not applied.
		 */
		if (json_is_true(json_object_get(json_object_get(json_object_get(
			    metric(run, "tsc"), "extra"), "interference"), "applied")))
			assert_int_equal(interf_int(run, "samples_quiet"), n);
		else
			assert_int_equal(interf_int(run, "samples_taken"), n);
		assert_non_null(strstr(json_string_value(json_object_get(metric(run, "speed"),
									 "method")),
				       "per kept sample"));
	}
	/* the 4 KiB template and memcpy: the same rounds taken and kept */
	assert_int_equal(interf_int(json_array_get(runs, 0), "samples_taken"),
			 interf_int(json_array_get(runs, 1), "samples_taken"));
	assert_int_equal(interf_int(json_array_get(runs, 0), "samples_quiet"),
			 interf_int(json_array_get(runs, 1), "samples_quiet"));
	assert_int_equal(json_array_size(json_object_get(metric(json_array_get(runs, 0),
								"bound_pct"), "samples")),
			 json_array_size(json_object_get(metric(json_array_get(runs, 0), "tsc"),
							 "samples")));
	json_decref(doc);
	free(out);
}

static void test_section_json(void **state)
{
	char *out = malloc(OUT_MAX);
	json_t *doc, *none, *mx;
	json_t *runs = runs_of("xor -q --json --calibrate --impl 8regs --section mxcsr "
			       "--repeat 3 --policy eager --insn xsave", out, &doc);

	assert_int_equal(json_array_size(runs), 2);
	none = find_run(runs, "section", "no section", NULL, NULL);
	mx = find_run(runs, "section", "MXCSR", "policy", "eager");
	assert_non_null(none);
	assert_non_null(mx);
	assert_int_equal(json_array_size(json_object_get(metric(none, "speed"), "samples")), 3);
	assert_int_equal(json_array_size(json_object_get(metric(mx, "speed"), "samples")), 3);
	/* the kernel times at least 800 calls per calibration */
	assert_true(json_number_value(json_array_get(json_object_get(metric(mx, "calls"),
								     "samples"), 0)) >= 800);
	json_decref(doc);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input_exits_2),
		cmocka_unit_test(test_calibrate_lines),
		cmocka_unit_test(test_calibrate_pre510_format),
		cmocka_unit_test(test_sweep_json),
		cmocka_unit_test(test_sweep_kept),
		cmocka_unit_test(test_section_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
