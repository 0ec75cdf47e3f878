// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/bench/session.c: the library's one way to run a benchmark. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/session.h"

static struct fpl_session *open_quick(void)
{
	struct fpl_session_cfg cfg = FPL_SESSION_CFG_INIT;
	struct fpl_diag diag = { "" };
	struct fpl_session *s = NULL;

	cfg.quick = true;
	cfg.budget_s = 0.05;
	if (fpl_session_open(&s, &cfg, &diag))
		fail_msg("fpl_session_open: %s", diag.msg);
	assert_true(s->started);
	assert_non_null(s->clock);
	return s;
}

/* Open, run by name, close: the result has the run, its host and the clock at both ends. */
static void test_open_run_close(void **state)
{
	struct fpl_session *s = open_quick();
	struct fpl_optval o[] = { { "state", "init" } };
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	const json_t *clock;

	(void)state;
	assert_int_equal(fpl_session_run(s, "signal", o, 1, &diag), 0);
	assert_int_equal(s->result->nruns, 1);
	assert_string_equal(s->result->runs[0]->bench, "signal");
	assert_non_null(fpl_run_find_metric(s->result->runs[0], "round_trip"));
	assert_int_equal(fpl_session_close(s, &r), 0);
	assert_non_null(r);
	clock = json_object_get(r->host, "clock");
	assert_non_null(json_object_get(clock, "selfcheck"));
	assert_non_null(json_object_get(clock, "core_hz_end"));
	assert_non_null(json_object_get(r->host, "process"));
	assert_non_null(json_object_get(r->host, "masks_end"));
	fpl_result_free(r);
}

/* Bad input is an error with the input named, before anything runs; nothing is added. */
static void test_bad_input(void **state)
{
	struct fpl_session *s = open_quick();
	struct fpl_optval bad[] = { { "state", "bogus" } }, unknown[] = { { "nosuch", "1" } };
	struct fpl_diag diag = { "" };

	(void)state;
	assert_int_equal(fpl_session_run(s, "nosuch", NULL, 0, &diag), -ENOENT);
	assert_non_null(strstr(diag.msg, "nosuch"));
	diag.msg[0] = 0;
	assert_int_equal(fpl_session_run(s, "signal", bad, 1, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "bogus"));
	assert_non_null(strstr(diag.msg, "--state"));
	diag.msg[0] = 0;
	assert_int_equal(fpl_session_run(s, "ctxsw", unknown, 1, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "--nosuch"));
	assert_int_equal(s->result->nruns, 0);
	fpl_session_free(s);
}

/* A benchmark this CPU cannot run: -ENOTSUP and a skipped run with the reason. */
static void test_unsupported_skips(void **state)
{
	struct fpl_session *s = open_quick();
	const struct fpl_bench *amx = fpl_bench_find("amx");
	const char *why = NULL;
	struct fpl_diag diag = { "" };

	(void)state;
	if (!amx || !amx->supported || amx->supported(s->cpu, &why)) {
		fpl_session_free(s);
		print_message("  AMX is here: nothing to skip\n");
		skip();
	}
	assert_int_equal(fpl_session_run(s, "amx", NULL, 0, &diag), -ENOTSUP);
	assert_int_equal(s->result->nruns, 1);
	assert_true(s->result->runs[0]->skipped);
	assert_string_equal(s->result->runs[0]->skip_reason, why);
	fpl_session_free(s);
}

/*
 * Options are parsed once, by .check, into the configuration .run reads:
 * a call prepared with a good --state runs that state even when the
 * option text it was made from is changed afterwards.
 */
static void test_parsed_once(void **state)
{
	struct fpl_session *s = open_quick();
	struct fpl_optval o[] = { { "state", "init" } };
	struct fpl_bench_call call;
	struct fpl_diag diag = { "" };

	(void)state;
	assert_int_equal(fpl_session_prepare(s, "signal", o, 1, &call, &diag), 0);
	assert_non_null(call.cfg);
	o[0].value = "bogus";		/* a re-parse would refuse it */
	assert_int_equal(fpl_session_call(s, &call, &diag), 0);
	assert_false(s->result->runs[0]->skipped);
	assert_non_null(fpl_run_find_metric(s->result->runs[0], "round_trip"));
	assert_true(fpl_run_find_metric(s->result->runs[0], "round_trip")->n > 0);
	for (size_t i = 0; i < json_array_size(s->result->runs[0]->warnings); i++)
		assert_null(strstr(json_string_value(json_array_get(s->result->runs[0]->warnings,
								    i)), "bogus"));
	fpl_bench_call_free(&call);
	/* what a parse of the changed text says: refused, and named */
	diag.msg[0] = 0;
	assert_int_equal(fpl_session_prepare(s, "signal", o, 1, &call, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "bogus"));
	fpl_session_free(s);
}

/* A run before the session started, and the interrupted run. */
static void test_not_started_and_stop(void **state)
{
	struct fpl_session_cfg cfg = FPL_SESSION_CFG_INIT;
	volatile sig_atomic_t stop = 1;
	struct fpl_diag diag = { "" };
	struct fpl_session *s;

	(void)state;
	cfg.stop = &stop;
	cfg.budget_s = 0.05;
	assert_int_equal(fpl_session_new(&s, &cfg), 0);
	assert_int_equal(fpl_session_run(s, "signal", NULL, 0, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "not started"));
	assert_int_equal(fpl_session_start(s, &diag), 0);
	assert_int_equal(fpl_session_run(s, "signal", NULL, 0, &diag), -EINTR);
	assert_non_null(strstr(json_string_value(json_array_get(s->result->warnings,
								json_array_size(s->result->warnings) -
								1)), "interrupted"));
	fpl_session_free(s);
}

/* A CPU that cannot be had is bad input (-EINVAL), named. */
static void test_bad_cpu(void **state)
{
	struct fpl_session_cfg cfg = FPL_SESSION_CFG_INIT;
	struct fpl_diag diag = { "" };
	struct fpl_session *s = NULL;

	(void)state;
	cfg.cpu = 1000;
	assert_int_equal(fpl_session_open(&s, &cfg, &diag), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(diag.msg, "1000"));
}

/* The warnings of the result r that start with prefix. */
static size_t warnings_with(const struct fpl_result *r, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(r->warnings); i++)
		n += !strncmp(json_string_value(json_array_get(r->warnings, i)), prefix,
			      strlen(prefix));
	return n;
}

/*
 * A session that measured nothing (ctxsw with APX state, which no CPU offers
 * live: a skipped run) says nothing of the clock or the load, which are
 * about figures (issue 32 item 13: "suspect run: core clock drifted -8.68%"
 * for an amx run without AMX). One that measured keeps them.
 */
static void test_no_figures_no_verdict(void **state)
{
	struct fpl_optval skip[] = { { "state", "apx" } }, ok[] = { { "state", "init" } };
	struct fpl_diag diag = { "" };

	(void)state;
	for (int measured = 0; measured < 2; measured++) {
		struct fpl_session *s = open_quick();
		struct fpl_result *r = NULL;
		int err = measured ? fpl_session_run(s, "signal", ok, 1, &diag) :
				     fpl_session_run(s, "ctxsw", skip, 1, &diag);

		assert_int_equal(err, measured ? 0 : -ENOTSUP);
		assert_int_equal(s->result->runs[0]->skipped, !measured);
		/* as note_load would have said it at the start on a loaded machine */
		fpl_result_warn(s->result, "machine loaded (loadavg_start load average 9.00 on 2 "
				"CPUs): figures may include contention from other work");
		assert_int_equal(fpl_session_close(s, &r), 0);
		/* measured: ours, and the session's own where this machine is loaded */
		if (measured) {
			assert_true(warnings_with(r, "machine loaded (loadavg_start") >= 1);
		} else {
			assert_int_equal(warnings_with(r, "suspect run"), 0);
			assert_int_equal(warnings_with(r, "at the end"), 0);
			assert_int_equal(warnings_with(r, "machine loaded"), 0);
		}
		/* the clock's figures stay in the host object either way */
		assert_non_null(json_object_get(json_object_get(r->host, "clock"), "drift_pct"));
		fpl_result_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_run_close),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unsupported_skips),
		cmocka_unit_test(test_parsed_once),
		cmocka_unit_test(test_not_started_and_stop),
		cmocka_unit_test(test_bad_cpu),
		cmocka_unit_test(test_no_figures_no_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
