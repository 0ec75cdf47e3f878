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
#include "report/repro.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"
#include "fpulab/sigframe.h"
#include "bench/livestate.h"
#include "bench/xsave/bench.h"
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
	const char *why = NULL;
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
	/* fpulab amx runs there: AMX with tile data XFD can arm (the first-use trap to measure). */
	assert_int_equal(fpl_bench_find("amx")->supported(cpu, &why), 1);
	/* PKRU stays out: a pattern there could lock memory. */
	assert_int_equal(fpl_live_parse(&xs, "pkru", &none, &mask, &diag), -ENOTSUP);
	assert_int_equal(fpl_live_parse(&xs, "bogus", &none, &mask, &diag), -EINVAL);
	free(cpu);
}

/*
 * The Intel guest reads XINUSE bit 1 (SSE) as 1 after every real context
 * switch (METHOD.md): an extra x87/SSE bit, even at every check, is an
 * observation; any other component in use at every check is a wrong state.
 */
static void test_xinuse_extra_rule(void **state)
{
	uint64_t others = 0x600e7 & ~FPL_XFEATURE_MASK_XTILE;	/* state amx on the SPR guest */

	(void)state;
	assert_true(fpl_live_extra_ok(FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_XTILE, others));
	assert_true(fpl_live_extra_ok(FPL_XFEATURE_MASK_FPSSE, others));
	assert_false(fpl_live_extra_ok(FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_SSE, others));
	assert_false(fpl_live_extra_ok(FPL_XFEATURE_MASK_OPMASK, others));
	/* A component outside the task's RFBM is not the state's business. */
	assert_true(fpl_live_extra_ok(FPL_XFEATURE_MASK_XTILE_CFG, others));
}

/* Zen 4: AMX named is a skip with a reason, not a usage error and not SIGILL. */
static void test_live_parse_amx_on_genoa(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_diag diag = { "" };
	const char *why = NULL;
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
	assert_int_equal(fpl_bench_find("amx")->supported(cpu, &why), 0);
	assert_non_null(strstr(why, "AMX"));
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

/*
 * A save instruction this CPU has, want first: so that a command's AMX cells
 * reach the AMX check instead of skipping for the instruction (no XSAVEC on
 * Zen 2/3 guests, no XSAVEOPT on some hypervisors). NULL: no XSAVE form here.
 */
static const char *host_insn(const struct fpl_cpu *cpu, enum fpl_save_insn want)
{
	static const enum fpl_save_insn alt[] = { FPL_INSN_XSAVEC, FPL_INSN_XSAVEOPT,
						  FPL_INSN_XSAVE };

	if (fpl_save_insn_supported(cpu, want, NULL))
		return fpl_save_insn_name(want);
	for (size_t k = 0; k < sizeof(alt) / sizeof(alt[0]); k++)
		if (fpl_save_insn_supported(cpu, alt[k], NULL))
			return fpl_save_insn_name(alt[k]);
	return NULL;
}

static void test_skips_without_amx(void **state)
{
	static const char *const cmds[] = {
		"amx --quick --budget 0.05",
		"ctxsw --state amx --budget 0.05",
		"ctxsw --ab init,amx --budget 0.05",
		"ctxsw --ab init,amx+avx512 --budget 0.05",
		"signal --state amx --budget 0.05",
	};
	/* Commands whose cells also need an implementation and a save instruction:
	 * pinned to ones this CPU has (8regs: plain C), so the skip is AMX's. */
	static const struct { const char *fmt; enum fpl_save_insn insn; } pinned[] = {
		{ "section --owner amx --workload xor --impl 8regs --chunks 1k "
		  "--insn %s --budget 0.05", FPL_INSN_XSAVEC },
		{ "xsave --mask amx --part matrix --insn %s --budget 0.05", FPL_INSN_XSAVEC },
		{ "xsave --mask tiledata --part matrix --insn %s --budget 0.05", FPL_INSN_XSAVE },
		{ "xsave --mask all+tilecfg --part matrix --insn %s --budget 0.05",
		  FPL_INSN_XSAVEOPT },
	};
	struct fpl_cpu *cpu;
	char cmd[160];

	(void)state;
	if (host_has_amx()) {
		print_message("this CPU has AMX: test_amx_states_hw and test_xsave_amx_cells_hw "
			      "run these commands instead\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		expect_amx_skip(cmds[i]);
	cpu = malloc(sizeof(*cpu));
	assert_non_null(cpu);
	assert_int_equal(fpl_cpu_read(cpu), 0);
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		const char *insn = host_insn(cpu, pinned[i].insn);

		if (!insn) {
			print_message("no XSAVE instruction on this CPU: '%s' not run\n",
				      pinned[i].fmt);
			continue;
		}
		snprintf(cmd, sizeof(cmd), pinned[i].fmt, insn);
		expect_amx_skip(cmd);
	}
	free(cpu);
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

/* No warning of a run mentions what; the command's own warnings neither. */
static void assert_no_warning(json_t *doc, const char *args, const char *what)
{
	json_t *run, *w;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "warnings"), k, w)
		if (strstr(json_string_value(w) ? json_string_value(w) : "", what))
			fail_msg("fpulab %s: warning: %s", args, json_string_value(w));
	json_array_foreach(json_object_get(doc, "runs"), i, run)
		json_array_foreach(json_object_get(run, "warnings"), k, w)
			if (strstr(json_string_value(w) ? json_string_value(w) : "", what))
				fail_msg("fpulab %s: run %zu: %s", args, i, json_string_value(w));
}

static json_t *run_ok(const char *args)
{
	int rc;
	json_t *doc = run_json(args, &rc);

	if (rc != 0)
		fail_msg("fpulab %s: exit %d on AMX hardware", args, rc);
	return doc;
}

/*
 * section --owner all on AMX hardware: the value names no tile state, so the
 * benchmark asks for permission by itself and host.amx_permission says so;
 * only the AMX rows, the last, save tile data.
 */
static void section_all_hw(void)
{
	json_t *doc = run_ok("section --owner all --workload xor --chunks 1k --budget 0.3");
	json_t *perm = json_object_get(json_object_get(doc, "host"), "amx_permission");
	json_t *run;
	size_t i;

	assert_true(json_is_true(json_object_get(perm, "requested")));
	assert_string_equal(json_string_value(json_object_get(perm, "by")),
			    "section (the benchmark itself)");
	assert_true(json_is_true(json_object_get(perm, "granted")));
	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		const char *rfbm = str_at(run, "observed", "save_rfbm");
		bool amx = !strcmp(str_at(run, "params", "owner"), "amx");

		if (json_is_true(json_object_get(run, "skipped")))
			continue;
		if (!rfbm || !(strtoull(rfbm, NULL, 0) & FPL_XFEATURE_MASK_XTILE_DATA) != !amx)
			fail_msg("section --owner all: run %zu (owner %s) save_rfbm %s", i,
				 str_at(run, "params", "owner"), rfbm ? rfbm : "missing");
	}
	json_decref(doc);
}

/*
 * On AMX hardware: tiles live across a switch (processes and threads: XFD
 * is armed again in each new task) and a signal (own stack and an alternate
 * one of AT_MINSIGSTKSZ), verified; the frame grows; the AMX owner's tiles
 * survive the modelled sections.
 */
static void test_amx_states_hw(void **state)
{
	static const char *const switches[] = {
		"ctxsw --state amx --budget 0.2",
		"ctxsw --state amx --mode threads --budget 0.2",
		"ctxsw --ab init,amx+avx512 --budget 0.2",
	};
	struct fpl_xstate xs;
	struct fpl_cpu *cpu = amx_host_or_skip(&xs);
	json_t *doc, *run;
	char args[160];

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(switches); i++) {
		doc = run_ok(switches[i]);
		run = run_of(doc, 0);
		if (strcmp(str_at(run, "observed", "state_verified"), "yes"))
			fail_msg("%s: state_verified %s", switches[i],
				 str_at(run, "observed", "state_verified"));
		assert_string_equal(str_at(run, "observed", "amx_first_use_echo"), "ok");
		json_decref(doc);
	}
	snprintf(args, sizeof(args), "signal --state amx --budget 0.2 --altstack %ld",
		 (long)fpl_signal_min_altstack());
	for (int alt = 0; alt < 2; alt++) {
		const char *a = alt ? args : "signal --state amx --budget 0.2";

		doc = run_ok(a);
		run = run_of(doc, 0);
		assert_string_equal(str_at(run, "observed", "state_verified"), "yes");
		assert_int_equal(int_at(run, "observed", "frame_xstate_size"),
				 fpl_xstate_size_std(&xs, fpl_xstate_xcr0(&xs)));
		assert_no_warning(doc, a, "exceeds AT_MINSIGSTKSZ");
		json_decref(doc);
	}
	doc = run_ok("section --owner amx --workload xor --chunks 1k --budget 0.2");
	assert_string_equal(str_at(run_of(doc, 0), "params", "owner"), "amx");
	assert_no_warning(doc, "section --owner amx", "owner amx");
	json_decref(doc);
	section_all_hw();
	free(cpu);
}

/*
 * On AMX hardware: every xsave cell with tile state runs (no SIGILL, no
 * skip) and its set-up shows in XINUSE, tile data alone (TILECFG init) and
 * released tiles included; LDTILECFG without any permission does not trap.
 */
static void test_xsave_amx_cells_hw(void **state)
{
	static const char *const cmds[] = {
		"xsave --part matrix --mask tiledata --budget 0.3",
		"xsave --part matrix --mask all --amx --budget 0.5",
		"xsave --part matrix --mask all --insn xsaveopt --budget 0.2",
		"xsave --part rfbm --mask amx --budget 0.3",
	};
	json_t *doc, *run;
	size_t i;

	(void)state;
	if (!host_has_amx()) {
		print_message("no AMX on this CPU\n");
		skip();
	}
	for (size_t k = 0; k < FPL_ARRAY_SIZE(cmds); k++) {
		doc = run_ok(cmds[k]);
		json_array_foreach(json_object_get(doc, "runs"), i, run)
			if (json_is_true(json_object_get(run, "skipped")))
				fail_msg("%s: run %zu skipped: %s", cmds[k], i,
					 json_string_value(json_object_get(run, "skip_reason")));
		assert_no_warning(doc, cmds[k], "XINUSE");
		json_decref(doc);
	}
}

#define MAX_PLANS 640

/*
 * The xsave benchmark's own set-up on a CPU dump (nothing is asked or
 * executed there: the masks are the dump's defaults), then, with
 * tiles_used, as after ARCH_REQ_XCOMP_PERM and the first tile use on that
 * machine; and the cells and RFBM rows it would make.
 */
struct xsb {
	struct fpl_cpu cpu;
	struct fpl_xstate dump_xs;
	struct fpl_bench_env env;
	struct fpl_optval opt;
	struct fpl_result *r;
	struct fpl_xs_bench x;
	uint64_t masks[16];
	const char *names[16];
	size_t nmasks, n, nrows;
	struct fpl_xs_plan p[MAX_PLANS];
	struct fpl_xs_rfbm_row rows[128];
};

static int keep_plan(void *arg, const struct fpl_xs_plan *p)
{
	struct xsb *b = arg;

	assert_true(b->n < MAX_PLANS);
	b->p[b->n++] = *p;
	return 0;
}

static int keep_row(void *arg, const struct fpl_xs_rfbm_row *row)
{
	struct xsb *b = arg;

	assert_true(b->nrows < FPL_ARRAY_SIZE(b->rows));
	b->rows[b->nrows++] = *row;
	return 0;
}

static struct xsb *xsb_new(const char *dump, const char *mask, bool tiles_used)
{
	struct xsb *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	load(dump, &b->cpu, &b->dump_xs);
	b->env.cpu = &b->cpu;
	b->env.quick = true;
	b->env.pin_cpu = -1;
	if (mask) {
		b->opt = (struct fpl_optval){ "mask", mask };
		b->env.opts = &b->opt;
		b->env.nopts = 1;
	}
	b->r = fpl_result_new();
	assert_non_null(b->r);
	assert_int_equal(fpl_xs_setup(&b->x, &b->env, b->r), 0);
	if (tiles_used) {
		b->x.permitted = fpl_xstate_xcr0(&b->x.xs);
		b->x.amx = true;
		b->x.amx_why[0] = 0;
	}
	b->nmasks = fpl_xs_masks(&b->x, b->masks, b->names, FPL_ARRAY_SIZE(b->masks));
	assert_int_equal(fpl_xs_plan_matrix(&b->x, b->masks, b->names, b->nmasks, keep_plan, b),
			 0);
	assert_int_equal(fpl_xs_plan_rfbm(&b->x, keep_row, b), 0);
	return b;
}

static void xsb_free(struct xsb *b)
{
	fpl_xs_free(&b->x);
	fpl_result_free(b->r);
	free(b);
}

static const struct fpl_xs_plan *plan_of(const struct xsb *b, const char *insn,
					 const char *mask_name, const char *state, bool lat)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->p[i].insn, insn) && !strcmp(b->p[i].mask_name, mask_name) &&
		    !strcmp(b->p[i].state, state) && b->p[i].lat == lat)
			return &b->p[i];
	return NULL;
}

static bool has_mask_name(const struct xsb *b, const char *name)
{
	for (size_t i = 0; i < b->nmasks; i++)
		if (!strcmp(b->names[i], name))
			return true;
	return false;
}

static uint64_t mask_named(const struct xsb *b, const char *name)
{
	for (size_t i = 0; i < b->nmasks; i++)
		if (!strcmp(b->names[i], name))
			return b->masks[i];
	fail_msg("no mask named %s", name);
	return 0;
}

/*
 * What must never be planned (each would be SIGILL or #UD on the AMX
 * machine, or a first-use trap inside a timed loop): tile data before
 * permission and first use, TILERELEASE with XFD armed, TILELOADD with
 * TILECFG in init, a state outside the permitted mask.
 */
static void check_plans_safe(const struct xsb *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct fpl_xs_plan *p = &b->p[i];

		if (p->skip[0])
			continue;
		if (((p->setup | p->mask) & FPL_XFEATURE_MASK_XTILE_DATA) && !b->x.amx)
			fail_msg("%s %s %s: tile data without first use", p->insn, p->mask_name,
				 p->state);
		if (p->st == XS_ST_RELEASED && !b->x.amx)
			fail_msg("%s %s: TILERELEASE with XFD armed", p->insn, p->mask_name);
		if (p->modified == FPL_XFEATURE_XTILE_DATA &&
		    !(p->setup & FPL_XFEATURE_MASK_XTILE_CFG))
			fail_msg("%s %s: TILELOADD with TILECFG in init (#UD)", p->insn,
				 p->mask_name);
		if ((p->setup | p->mask) & ~b->x.permitted)
			fail_msg("%s %s %s: 0x%" PRIx64 " outside permitted 0x%" PRIx64, p->insn,
				 p->mask_name, p->state, p->setup | p->mask, b->x.permitted);
		if ((p->setup & FPL_XFEATURE_MASK_XTILE) && !b->x.amx_avail)
			fail_msg("%s %s: tile state without a palette", p->insn, p->mask_name);
	}
}

/* The SPR snapshot before permission: TILECFG cells run (no permission needed), tile data is skipped with the reason. */
static void test_xsave_plan_spr_no_permission(void **state)
{
	struct xsb *b = xsb_new(SPR, NULL, false);
	const struct fpl_xs_plan *p;

	(void)state;
	assert_int_equal(b->x.permitted, 0x200e7);
	assert_true(b->x.amx_avail);
	assert_false(b->x.amx);
	assert_true(has_mask_name(b, "tilecfg") && has_mask_name(b, "tiledata") &&
		    has_mask_name(b, "amx"));
	assert_int_equal(mask_named(b, "all"), 0x200e7);
	for (size_t i = 0; i < b->n; i++) {
		p = &b->p[i];
		if (p->mask & FPL_XFEATURE_MASK_XTILE_DATA) {
			assert_true(p->skip[0]);
			assert_non_null(strstr(p->skip, "not permitted"));
			assert_non_null(strstr(p->skip, "--amx"));
		}
		assert_true(p->st != XS_ST_RELEASED && p->st != XS_ST_TILECFG);
	}
	/* LDTILECFG makes TILECFG "modified", with and without the rest of the permitted mask. */
	p = plan_of(b, "xsaveopt", "tilecfg", "modified", false);
	assert_non_null(p);
	assert_false(p->skip[0]);
	assert_int_equal(p->modified, FPL_XFEATURE_XTILE_CFG);
	assert_int_equal(p->setup, FPL_XFEATURE_MASK_XTILE_CFG);
	p = plan_of(b, "xsaveopt", "all", "modified", true);
	assert_non_null(p);
	if (p->skip[0])
		fail_msg("xsaveopt all modified skipped: %s", p->skip);
	assert_int_equal(p->modified, FPL_XFEATURE_XTILE_CFG);
	check_plans_safe(b);
	xsb_free(b);

	/* --mask tiledata asks, and the refusal (here: a dump cannot be asked) is the reason. */
	b = xsb_new(SPR, "tiledata", false);
	assert_int_equal(b->nmasks, 1);
	assert_int_equal(b->masks[0], FPL_XFEATURE_MASK_XTILE_DATA);
	assert_true(b->x.amx_asked);
	assert_true(b->n > 0);
	for (size_t i = 0; i < b->n; i++) {
		if (!strcmp(b->p[i].insn, "fxsave") || !strcmp(b->p[i].insn, "fxrstor"))
			continue;
		assert_true(b->p[i].skip[0]);
		assert_non_null(strstr(b->p[i].skip, "AMX permission"));
	}
	check_plans_safe(b);
	xsb_free(b);
}

/* The SPR snapshot once tile data is permitted and used: every AMX state and write planned safely. */
static void test_xsave_plan_spr_tiles_used(void **state)
{
	static const char *const amx_states[] = { "init", "live", "tilecfg" };
	struct xsb *b = xsb_new(SPR, NULL, true);
	const struct fpl_xs_plan *p;

	(void)state;
	assert_int_equal(mask_named(b, "all"), 0x600e7);
	for (size_t i = 0; i < b->n; i++)
		if (b->p[i].skip[0])
			fail_msg("%s %s %s skipped: %s", b->p[i].insn, b->p[i].mask_name,
				 b->p[i].state, b->p[i].skip);
	/* Tile data alone: TILELOADD needs TILECFG live, outside RFBM. */
	p = plan_of(b, "xsaveopt", "tiledata", "modified", false);
	assert_non_null(p);
	assert_int_equal(p->modified, FPL_XFEATURE_XTILE_DATA);
	assert_int_equal(p->live, FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(p->setup, FPL_XFEATURE_MASK_XTILE);
	p = plan_of(b, "xsave", "tiledata", "live", false);
	assert_non_null(p);
	assert_int_equal(p->setup, FPL_XFEATURE_MASK_XTILE_DATA);
	/* amx: released needs more in RFBM than the tiles; TILECFG-only is a state of its own. */
	for (size_t k = 0; k < FPL_ARRAY_SIZE(amx_states); k++)
		assert_non_null(plan_of(b, "xsave", "amx", amx_states[k], false));
	assert_null(plan_of(b, "xsave", "amx", "released", false));
	assert_int_equal(plan_of(b, "xsave", "amx", "tilecfg", true)->live,
			 FPL_XFEATURE_MASK_XTILE_CFG);
	p = plan_of(b, "xsaveopt", "amx", "modified", true);
	assert_non_null(p);
	assert_int_equal(p->modified, FPL_XFEATURE_XTILE_DATA);
	assert_non_null(plan_of(b, "xsaveopt", "amx", "unmodified", false));
	/* all: tiles released (the rest live) and TILECFG only, for every XSAVE-family instruction. */
	for (size_t k = 0; k < 5; k++) {
		static const char *const insns[] = { "xsave", "xsaveopt", "xsavec", "xrstor",
						     "xrstor-c" };

		p = plan_of(b, insns[k], "all", "released", false);
		assert_non_null(p);
		assert_int_equal(p->setup, 0xe7);
		p = plan_of(b, insns[k], "all", "tilecfg", true);
		assert_non_null(p);
		assert_int_equal(p->setup, 0x200e7);
	}
	assert_null(plan_of(b, "fxsave", "x87+sse", "released", false));
	check_plans_safe(b);
	xsb_free(b);
}

/* Zen 4: no AMX mask in the default list, "all" is the dump's XCR0, nothing AMX planned. */
static void test_xsave_plan_genoa(void **state)
{
	struct xsb *b = xsb_new(GENOA, NULL, false);
	size_t modified = 0;

	(void)state;
	assert_false(has_mask_name(b, "tilecfg") || has_mask_name(b, "tiledata") ||
		     has_mask_name(b, "amx"));
	assert_int_equal(mask_named(b, "all"), fpl_xstate_xcr0(&b->dump_xs));
	for (size_t i = 0; i < b->n; i++)
		assert_int_equal(b->p[i].mask & FPL_XFEATURE_MASK_XTILE, 0);
	for (size_t i = 0; i < b->nrows; i++)
		assert_true(strcmp(b->rows[i].insn, "xsave") && strcmp(b->rows[i].insn, "xrstor"));
	/*
	 * Genoa's XCR0 0x2e7 has PKRU, for which there is no write loop: the
	 * XSAVEOPT "modified" cell of the full mask writes the next component
	 * down (Hi16_ZMM), never skipped (it was, on every CPU with PKRU).
	 */
	for (size_t i = 0; i < b->n; i++) {
		const struct fpl_xs_plan *p = &b->p[i];

		if (strcmp(p->insn, "xsaveopt") || p->st != XS_ST_LIVE ||
		    p->mask != fpl_xstate_xcr0(&b->dump_xs))
			continue;
		if (p->skip[0])
			fail_msg("xsaveopt modified, mask 0x%llx: skipped: %s",
				 (unsigned long long)p->mask, p->skip);
		assert_int_equal(p->modified, FPL_XFEATURE_Hi16_ZMM);
		modified++;
	}
	assert_int_equal(modified, 2);	/* throughput and latency */
	check_plans_safe(b);
	xsb_free(b);
}

static const struct fpl_xs_rfbm_row *row_of(const struct xsb *b, const char *insn, unsigned id)
{
	for (size_t i = 0; i < b->nrows; i++)
		if (!strcmp(b->rows[i].insn, insn) && b->rows[i].id == id)
			return &b->rows[i];
	return NULL;
}

/* The RFBM experiment's rows on the SPR snapshot: AMX_TILEDATA's only with tile data permitted. */
static void test_rfbm_rows_spr(void **state)
{
	static const char *const all5[] = { "xsavec", "xsaveopt", "xrstor-c", "xsave", "xrstor" };
	struct xsb *b = xsb_new(SPR, NULL, false);
	const struct fpl_xs_rfbm_row *row;

	(void)state;
	for (size_t k = 0; k < 5; k++)
		assert_null(row_of(b, all5[k], FPL_XFEATURE_XTILE_DATA));
	/* XSAVE and XRSTOR (standard form) rows are for XFD components only. */
	assert_null(row_of(b, "xsave", FPL_XFEATURE_YMM));
	row = row_of(b, "xsavec", FPL_XFEATURE_XTILE_CFG);
	assert_non_null(row);
	assert_int_equal(row->with, 0x200e7);
	assert_int_equal(row->without, 0xe7);
	assert_int_equal(row->live, 0xe7);
	xsb_free(b);

	b = xsb_new(SPR, NULL, true);
	for (size_t k = 0; k < 5; k++) {
		row = row_of(b, all5[k], FPL_XFEATURE_XTILE_DATA);
		if (!row)
			fail_msg("no AMX_TILEDATA row for %s", all5[k]);
		assert_int_equal(row->with, 0x600e7);
		assert_int_equal(row->without, 0x200e7);
		assert_int_equal(row->live, 0x200e7);	/* TILECFG live, tile data init */
	}
	assert_null(row_of(b, "xsave", FPL_XFEATURE_XTILE_CFG));
	row = row_of(b, "xsaveopt", FPL_XFEATURE_XTILE_CFG);
	assert_non_null(row);
	assert_int_equal(row->without, 0x400e7);
	assert_int_equal(row->live, 0xe7);	/* no tile data without a configuration */
	xsb_free(b);
}

/*
 * repro rfbm's AMX table from what xsave --part rfbm makes on that machine
 * (the rows' own runs, figures synthetic): XSAVE and XSAVEC with
 * AMX_TILEDATA, 0x600e7 against 0x200e7; nothing without permission.
 */
static void repro_rounds(struct xsb *b, struct fpl_repro_xs_case *ac, size_t nac, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		size_t from = b->r->nruns;

		for (size_t i = 0; i < b->nrows; i++) {
			struct fpl_run *run = fpl_xs_rfbm_run(&b->x, &b->rows[i]);
			struct fpl_metric *w, *wo;

			assert_non_null(run);
			w = fpl_run_add_metric(run, "with_cycles", "cycles", "synthetic");
			wo = fpl_run_add_metric(run, "without_cycles", "cycles", "synthetic");
			assert_non_null(w);
			assert_non_null(wo);
			for (int k = 0; k < 11; k++) {
				fpl_metric_add(w, 600 + b->rows[i].id + r + k % 3);
				fpl_metric_add(wo, 390 + r + k % 2);
			}
		}
		fpl_repro_xs_round(b->r, from, ac, nac);
	}
}

static void test_repro_tiledata_rows(void **state)
{
	struct fpl_repro_xs_case ac[] = {
		{ "xsave", "XSAVE", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
		{ "xsavec", "XSAVEC", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
	};
	double v[2][2][4];
	struct xsb *b = xsb_new(SPR, NULL, false);
	struct fpl_result *out = fpl_result_new();
	struct fpl_diag diag = { "" };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++)
			ac[i].v[k] = v[i][k];
	repro_rounds(b, ac, 2, 3);
	assert_int_equal(ac[0].n, 0);
	assert_int_equal(ac[1].n, 0);
	xsb_free(b);

	b = xsb_new(SPR, NULL, true);
	repro_rounds(b, ac, 2, 3);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(ac[i].n, 3);
		assert_string_equal(ac[i].comp, "AMX_TILEDATA");
		assert_string_equal(ac[i].with, "0x600e7");
		assert_string_equal(ac[i].without, "0x200e7");
		for (size_t r = 0; r < 3; r++)
			assert_true(ac[i].v[1][r] > ac[i].v[0][r]);
	}
	assert_int_equal(fpl_repro_rfbm_cases(out, NULL, 0, ac, 2, 0.25), 0);
	assert_int_equal(out->nruns, 4);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fpl_repro_rfbm_write(out, f, &diag), 0);
	fclose(f);
	if (!strstr(text, "XSAVE with AMX_TILEDATA in RFBM or not") ||
	    !strstr(text, "XSAVEC with AMX_TILEDATA in RFBM or not") ||
	    !strstr(text, "RFBM 0x600e7, with AMX_TILEDATA") ||
	    !strstr(text, "RFBM 0x200e7, without AMX_TILEDATA"))
		fail_msg("repro rfbm AMX tables:\n%s", text);
	free(text);
	fpl_result_free(out);
	xsb_free(b);
}

/*
 * scripts/amx-check.sh, the AMX machine's checklist: on a CPU without AMX
 * it stops at once with 77 and the reason, having measured nothing.
 */
static void test_amx_check_script(void **state)
{
	char line[600];
	struct cmd_out o;

	(void)state;
	if (host_has_amx()) {
		print_message("this CPU has AMX: run scripts/amx-check.sh itself (minutes)\n");
		skip();
	}
	snprintf(line, sizeof(line), "AMX_CHECK_DIR=/nonexistent/amx-check FPL_BIN='%s' "
		 "scripts/amx-check.sh --quick", cmd_fpl_bin());
	assert_int_equal(cmd_sh(line, 60, &o), 0);
	if (cmd_code(&o) != 77 || !strstr(o.err, "nothing to check here") ||
	    !strstr(o.err, "AMX"))
		fail_msg("amx-check.sh without AMX: exit %d\nstdout: %s\nstderr: %s", cmd_code(&o),
			 o.out, o.err);
	assert_int_equal(o.nout, 0);
	cmd_out_free(&o);
	snprintf(line, sizeof(line), "scripts/amx-check.sh --bogus");
	assert_int_equal(cmd_sh(line, 60, &o), 0);
	assert_int_equal(cmd_code(&o), 2);
	cmd_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_parse_amx_on_spr),
		cmocka_unit_test(test_live_parse_amx_on_genoa),
		cmocka_unit_test(test_xinuse_extra_rule),
		cmocka_unit_test(test_skips_without_amx),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_amx_listed),
		cmocka_unit_test(test_xsave_plan_spr_no_permission),
		cmocka_unit_test(test_xsave_plan_spr_tiles_used),
		cmocka_unit_test(test_xsave_plan_genoa),
		cmocka_unit_test(test_rfbm_rows_spr),
		cmocka_unit_test(test_repro_tiledata_rows),
		cmocka_unit_test(test_amx_lifecycle_hw),
		cmocka_unit_test(test_amx_states_hw),
		cmocka_unit_test(test_xsave_amx_cells_hw),
		cmocka_unit_test(test_amx_check_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
