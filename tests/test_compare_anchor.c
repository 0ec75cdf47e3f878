// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * compare's anchored figures (issue 35) on made-up documents: two kernels'
 * ctxsw runs whose raw round trips drift with the host while the ratio to
 * the in-run anchor carries only a known effect of +0.2%.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "runcmd.h"

#define RUNS 5

static void metric(struct fpl_run *run, const char *name, const char *unit, double v)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, "made up");

	assert_non_null(m);
	/* three samples around v: the run's median is v */
	assert_int_equal(fpl_metric_add(m, v * 0.999) || fpl_metric_add(m, v) ||
			 fpl_metric_add(m, v * 1.001), 0);
}

/*
 * RUNS ctxsw runs: raw round trips at level x the run's host drift; the
 * anchored ratio at ratio x a small symmetric jitter (mean 1), so the
 * ratio's mean is ratio exactly.
 */
static void write_case(const char *path, double level, double ratio)
{
	static const double drift[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	static const double jitter[RUNS] = { 1.0002, 0.9998, 1.0001, 0.9999, 1.0 };
	struct fpl_result *r = fpl_result_new();
	struct fpl_diag diag = { "" };

	assert_non_null(r);
	for (int k = 0; k < RUNS; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "ctxsw");

		assert_non_null(run);
		assert_int_equal(fpl_run_param_str(run, "state", "init"), 0);
		assert_int_equal(fpl_run_obs_int(run, "run_index", k + 1), 0);
		metric(run, "round_trip", "ns", level * drift[k]);
		metric(run, "round_trip_per_anchor", "ratio", ratio * jitter[k]);
	}
	if (fpl_emit_file(r, FPL_FMT_JSON, path, &diag))
		fail_msg("%s", diag.msg);
	fpl_result_free(r);
}

/* The known effect, +0.2%, is found by the ratio; the raw figure shows the host's +5% too. */
static void test_known_effect_found(void **state)
{
	char dir[] = "/tmp/fpl-cmpanchor-XXXXXX", a[64], b[64], cmd[512];
	struct cmd_out o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	write_case(a, 7000, 9.0);
	write_case(b, 7350, 9.0 * 1.002);
	snprintf(cmd, sizeof(cmd), "%s compare %s %s", cmd_fpl_bin(), a, b);
	assert_int_equal(cmd_sh(cmd, 60, &o), 0);
	assert_int_equal(cmd_code(&o), 0);
	if (!strstr(o.out, "Anchored (ctxsw's round trip over its in-run anchor"))
		fail_msg("no anchored block:\n%s", o.out);
	/* the ratio: exactly +0.20%, resolved to a few hundredths; the raw: +5.00% */
	if (!strstr(o.out, "round_trip_per_anchor: case 2 +0.20% +/- 0.0") ||
	    !strstr(o.out, "anchored, +5.00% +/- "))
		fail_msg("anchored or raw difference not as made:\n%s", o.out);
	assert_non_null(strstr(o.out, "runs per case for +/- 0.2%: "));
	/* the ratio's +0.2% proven, to a few hundredths of a percent */
	if (!strstr(o.out, "  +0.200% +/- 0.0") || !strstr(o.out, "Different: 2 of 2"))
		fail_msg("the ratio's +0.2%% not proven:\n%s", o.out);
	cmd_out_free(&o);
	/* A/A: the same documents twice: no difference, anchored or not */
	snprintf(cmd, sizeof(cmd), "%s compare %s %s", cmd_fpl_bin(), a, a);
	assert_int_equal(cmd_sh(cmd, 60, &o), 0);
	assert_non_null(strstr(o.out, "Different: 0 of 2 comparisons."));
	assert_non_null(strstr(o.out, "round_trip_per_anchor: case 2 +0.00% +/- "));
	cmd_out_free(&o);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* Documents without the anchor (older ones, other benchmarks): no anchored block. */
static void test_no_anchor_no_block(void **state)
{
	char dir[] = "/tmp/fpl-cmpanchor-XXXXXX", a[64], cmd[512];
	struct fpl_result *r = fpl_result_new();
	struct fpl_diag diag = { "" };
	struct cmd_out o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.json", dir);
	for (int k = 0; k < 3; k++) {
		struct fpl_run *run = fpl_result_add_run(r, "ctxsw");

		assert_non_null(run);
		metric(run, "round_trip", "ns", 7000 + k);
	}
	assert_int_equal(fpl_emit_file(r, FPL_FMT_JSON, a, &diag), 0);
	fpl_result_free(r);
	snprintf(cmd, sizeof(cmd), "%s compare %s %s", cmd_fpl_bin(), a, a);
	assert_int_equal(cmd_sh(cmd, 60, &o), 0);
	assert_null(strstr(o.out, "Anchored"));
	cmd_out_free(&o);
	unlink(a);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_effect_found),
		cmocka_unit_test(test_no_anchor_no_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
