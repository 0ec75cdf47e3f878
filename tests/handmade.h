/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helper: small results made by hand (xsave cells, xor sweeps) for the report's tests. */
#ifndef FPL_TESTS_HANDMADE_H
#define FPL_TESTS_HANDMADE_H

#include <stddef.h>
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/result.h"

/* A metric of eleven samples, from..from + 10, on run. */
static inline void add_samples(struct fpl_run *run, const char *name, const char *unit, double from)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, "test");

	for (int i = 0; i < 11; i++)
		fpl_metric_add(m, from + i);
}
/* An xsave cell (mask NULL: none recorded) whose cycles start at from. */
static inline void add_xsave_cell(struct fpl_result *r, const char *mask, double from)
{
	struct fpl_run *run = fpl_result_add_run(r, "xsave");

	fpl_run_param_str(run, "insn", "xsave");
	if (mask)
		fpl_run_param_str(run, "mask", mask);
	fpl_run_param_str(run, "mask_name", "all");
	fpl_run_param_str(run, "state", "live");
	fpl_run_param_str(run, "method", "throughput");
	add_samples(run, "cycles", "cycles", from);
}
static inline void add_xor_sweep(struct fpl_result *r, const char *template, double from)
{
	struct fpl_run *run = fpl_result_add_run(r, "xor");

	fpl_run_param_str(run, "mode", "sweep");
	fpl_run_param_str(run, "template", template);
	fpl_run_param_int(run, "size", 4096);
	fpl_run_param_int(run, "arity", 2);
	add_samples(run, "speed", "MB/s", from);
}
/* A small result made by hand: an xsave cell and a sweep of two templates. */
static inline struct fpl_result *handmade(void)
{
	struct fpl_result *r = fpl_result_new();

	assert_non_null(r);
	json_object_set_new(r->host, "xcr0", json_string("0xe7"));
	json_object_set_new(r->host, "name", json_string("Test CPU"));
	add_xsave_cell(r, NULL, 140);
	add_xor_sweep(r, "avx", 100000);
	add_xor_sweep(r, "8regs", 50000);
	return r;
}

#endif
