// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the AMX parts of the benchmarks: states and options parsed, clean skips without AMX, the AMX lifecycle where the CPU has it. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "fpulab/amx.h"
#include "fpulab/cpu.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"
#include "bench/amx_ops.h"
#include "bench/livestate.h"
#include "runcmd.h"

#define SPR "tests/data/amx/spr-amx-kvm.cpuid"
#define GENOA "tests/data/cpuid/genoa.cpuid"

static void load(const char *path, struct fpl_cpu *cpu, struct fpl_xstate *xs)
{
	struct fpl_diag diag = { "" };

	if (fpl_cpu_load(cpu, path, &diag))
		fail_msg("%s: %s", path, diag.msg);
	assert_int_equal(fpl_xstate_init(xs, cpu), 0);
}

/* The AMX machine's snapshot: AMX state names are states a task can make live (permission first). */
static void test_live_parse_amx_on_spr(void **state)
{
	static const struct { const char *s; uint64_t mask; } ok[] = {
		{ "amx", 0x60000 }, { "tiledata", 0x40000 }, { "tilecfg", 0x20000 },
		{ "amx+avx512", 0x600e0 }, { "init", 0 },
	};
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_diag diag = { "" };
	uint64_t mask;
	bool none;

	(void)state;
	assert_non_null(cpu);
	load(SPR, cpu, &xs);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (fpl_live_parse(&xs, ok[i].s, &none, &mask, &diag))
			fail_msg("'%s' refused on the SPR snapshot: %s", ok[i].s, diag.msg);
		assert_false(none);
		assert_int_equal(mask, ok[i].mask);
	}
	assert_int_equal(fpl_live_offered(&xs) & FPL_XFEATURE_MASK_XTILE, FPL_XFEATURE_MASK_XTILE);
	/* PKRU stays out: a pattern there could lock memory. */
	assert_int_equal(fpl_live_parse(&xs, "pkru", &none, &mask, &diag), -ENOTSUP);
	assert_int_equal(fpl_live_parse(&xs, "bogus", &none, &mask, &diag), -EINVAL);
	free(cpu);
}

/* Zen 4: AMX named is a skip with a reason, not a usage error and not SIGILL. */
static void test_live_parse_amx_on_genoa(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_diag diag = { "" };
	uint64_t mask;
	bool none;

	(void)state;
	assert_non_null(cpu);
	load(GENOA, cpu, &xs);
	assert_int_equal(fpl_live_parse(&xs, "amx", &none, &mask, &diag), -ENOTSUP);
	assert_non_null(strstr(diag.msg, "no AMX"));
	assert_int_equal(fpl_live_parse(&xs, "tiledata", &none, &mask, &diag), -ENOTSUP);
	assert_int_equal(fpl_live_offered(&xs) & FPL_XFEATURE_MASK_XTILE, 0);
	assert_int_equal(fpl_live_parse(&xs, "avx512", &none, &mask, &diag), 0);
	free(cpu);
}

static bool host_has_amx(void)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	bool yes;

	assert_non_null(cpu);
	assert_int_equal(fpl_cpu_read(cpu), 0);
	assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
	yes = fpl_amx_supported(&xs, NULL) &&
	      (fpl_xstate_xfd_mask(&xs) & FPL_XFEATURE_MASK_XTILE_DATA);
	free(cpu);
	return yes;
}

/* Run fpulab with --json; the parsed document (caller frees), exit code in *rc. */
static json_t *run_json(const char *args, int *rc)
{
	char *out, *err, full[512];
	json_error_t je;
	json_t *doc;

	snprintf(full, sizeof(full), "%s -q --json", args);
	*rc = fplrun(NULL, full, &out, &err);
	doc = out && *out ? json_loads(out, 0, &je) : NULL;
	if (!doc && *rc != 2)
		fail_msg("fpulab %s: exit %d, no JSON (%s); stderr: %s", args, *rc,
			 out && *out ? je.text : "empty", err ? err : "");
	free(out);
	free(err);
	return doc;
}

static json_t *run_of(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "runs"), i);
}

static const char *str_at(json_t *run, const char *obj, const char *key)
{
	return json_string_value(json_object_get(json_object_get(run, obj), key));
}

static json_int_t int_at(json_t *run, const char *obj, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(run, obj), key));
}

/* The tests that need AMX hardware: this CPU (caller frees) and its xstate in *xs, or a skip. */
static struct fpl_cpu *amx_host_or_skip(struct fpl_xstate *xs)
{
	struct fpl_cpu *cpu;

	if (!host_has_amx()) {
		print_message("no AMX on this CPU\n");
		skip();
	}
	cpu = malloc(sizeof(*cpu));
	assert_non_null(cpu);
	assert_int_equal(fpl_cpu_read(cpu), 0);
	assert_int_equal(fpl_xstate_init(xs, cpu), 0);
	return cpu;
}

/* Every run skipped, each with a reason naming AMX; the command exits 77. */
static void expect_amx_skip(const char *args)
{
	json_t *doc, *runs, *run;
	size_t i;
	int rc;

	doc = run_json(args, &rc);
	if (rc != 77)
		fail_msg("fpulab %s on a CPU without AMX: exit %d, not 77", args, rc);
	runs = json_object_get(doc, "runs");
	assert_true(json_array_size(runs) > 0);
	json_array_foreach(runs, i, run) {
		const char *why = json_string_value(json_object_get(run, "skip_reason"));

		if (!json_is_true(json_object_get(run, "skipped")) || !why)
			fail_msg("fpulab %s: run %zu not skipped with a reason", args, i);
		if (!strstr(why, "AMX"))
			fail_msg("fpulab %s: reason '%s' does not name AMX", args, why);
	}
	json_decref(doc);
}

static void test_skips_without_amx(void **state)
{
	static const char *const cmds[] = {
		"amx --quick --budget 0.05",
		"ctxsw --state amx --budget 0.05",
		"ctxsw --ab init,amx --budget 0.05",
		"ctxsw --ab init,amx+avx512 --budget 0.05",
		"signal --state amx --budget 0.05",
		"section --owner amx --workload xor --chunks 1k --budget 0.05",
		"xsave --mask amx --part matrix --insn xsavec --budget 0.05",
		"xsave --mask tiledata --part matrix --insn xsave --budget 0.05",
		"xsave --mask all+tilecfg --part matrix --insn xsaveopt --budget 0.05",
	};

	(void)state;
	if (host_has_amx())
		skip();
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		expect_amx_skip(cmds[i]);
}

/* Values no CPU accepts are usage errors before anything runs. */
static void test_bad_options(void **state)
{
	static const char *const cmds[] = {
		"amx --samples 1", "amx --samples 100000", "amx --bogus 1",
		"section --owner tiles", "ctxsw --state amx+bogus", "xsave --state released2",
	};
	char *out, *err;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int rc = fplrun(NULL, cmds[i], &out, &err);

		if (rc != 2)
			fail_msg("fpulab %s: exit %d, not 2 (%s)", cmds[i], rc, err ? err : "");
		free(out);
		free(err);
	}
}

/* The benchmark is in the default suite's list and skips with the reason here. */
static void test_amx_listed(void **state)
{
	char *out, *err;

	(void)state;
	assert_int_equal(fplrun(NULL, "list", &out, &err), 0);
	assert_non_null(strstr(out, "amx"));
	free(out);
	free(err);
}

/* On AMX hardware: the lifecycle facts of METHOD.md ("AMX and XFD"). */
static void test_amx_lifecycle_hw(void **state)
{
	struct fpl_xstate xs;
	struct fpl_cpu *cpu = amx_host_or_skip(&xs);
	json_t *doc, *run, *m = NULL;
	size_t i;
	int rc;

	(void)state;
	doc = run_json("amx --samples 5 --budget 0.1", &rc);
	assert_int_equal(rc, 0);
	run = run_of(doc, 0);
	assert_string_equal(str_at(run, "observed", "perm_with_small_altstack"), "ENOSPC");
	assert_string_equal(str_at(run, "observed", "altstack_small_after_perm"), "ENOMEM");
	assert_string_equal(str_at(run, "observed", "altstack_min_after_perm"), "ok");
	assert_int_equal(int_at(run, "observed", "frame_xstate_size_noperm"),
			 fpl_xstate_size_std(&xs, fpl_xstate_default_perm(&xs)));
	assert_int_equal(int_at(run, "observed", "frame_xstate_size_tiles_used"),
			 fpl_xstate_size_std(&xs, fpl_xstate_xcr0(&xs)));
	json_array_foreach(json_object_get(run, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), "first_use"))
			break;
	assert_true(i < json_array_size(json_object_get(run, "metrics")));
	assert_true(json_array_size(json_object_get(m, "samples")) >= 5);
	json_decref(doc);
	free(cpu);
}

/* On AMX hardware: tiles live across a switch and a signal, verified; the frame grows. */
static void test_amx_states_hw(void **state)
{
	struct fpl_xstate xs;
	struct fpl_cpu *cpu = amx_host_or_skip(&xs);
	json_t *doc, *run;
	int rc;

	(void)state;
	doc = run_json("ctxsw --state amx --budget 0.2", &rc);
	assert_int_equal(rc, 0);
	run = run_of(doc, 0);
	assert_string_equal(str_at(run, "observed", "state_verified"), "yes");
	assert_string_equal(str_at(run, "observed", "amx_first_use_echo"), "ok");
	json_decref(doc);
	doc = run_json("signal --state amx --budget 0.2", &rc);
	assert_int_equal(rc, 0);
	run = run_of(doc, 0);
	assert_string_equal(str_at(run, "observed", "state_verified"), "yes");
	assert_int_equal(int_at(run, "observed", "frame_xstate_size"),
			 fpl_xstate_size_std(&xs, fpl_xstate_xcr0(&xs)));
	json_decref(doc);
	free(cpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_parse_amx_on_spr),
		cmocka_unit_test(test_live_parse_amx_on_genoa),
		cmocka_unit_test(test_skips_without_amx),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_amx_listed),
		cmocka_unit_test(test_amx_lifecycle_hw),
		cmocka_unit_test(test_amx_states_hw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
