// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the section benchmark: its helpers, its metrics on a tiny budget, and its command's exit codes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/cpu.h"
#include "fpulab/result.h"
#include "fpulab/xor.h"
#include "fpulab/xstate.h"
#include "runcmd.h"
#include "clitest.h"

static const char *opt(const struct fpl_optval *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].value;
	return NULL;
}

static void test_check_options(void **state)
{
	const struct fpl_bench *b = fpl_bench_find("section");
	struct fpl_optval bad[][1] = {
		{ { "chunks", "100" } }, { { "chunks", "64,128k" } }, { { "mask", "avx" } },
		{ { "impl", "nosuch" } }, { { "chunks", "48k" } },
	};
	static const char *const named[] = { "100", "128k", "avx", "nosuch", "49152" };
	struct fpl_optval good[] = { { "chunks", "512,4k" }, { "mask", "387|mxcsr" },
				     { "impl", "xor/avx,avx512" } };
	struct fpl_diag diag = { "" };

	assert_non_null(b);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(bad); i++) {
		diag.msg[0] = 0;
		assert_int_equal(fpl_bench_prepare(b, NULL, bad[i], 1, NULL, &diag), -EINVAL);
		if (!strstr(diag.msg, named[i]))
			fail_msg("--%s %s: message does not name it: %s", bad[i][0].name,
				 bad[i][0].value, diag.msg);
	}
	{
		assert_int_equal(fpl_bench_prepare(b, NULL, good, 3, NULL, &diag), 0);
		assert_string_equal(opt(good, 3, "mask"), "387|mxcsr");
	}
}

static const struct fpl_metric *metric(const struct fpl_run *run, const char *name)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, name);

	if (!m)
		fail_msg("run has no metric %s", name);
	return m;
}

static long long obs_int(const struct fpl_run *run, const char *key)
{
	return (long long)json_integer_value(json_object_get(run->observed, key));
}

/* Issue 32: each part of a section timed alone, in the same rounds as the modes. */
static void check_parts(const struct fpl_run *run)
{
	for (size_t k = 0; k < 4; k++) {
		static const char *const parts[] = { "save", "setup", "end", "restore" };
		static const char *const units[] = { "cycles", "tsc", "ns" };

		for (size_t u = 0; u < 3; u++) {
			char name[48], fam[32];
			const struct fpl_metric *pm;

			snprintf(name, sizeof(name), "part_%s_%s", parts[k], units[u]);
			snprintf(fam, sizeof(fam), "part_%s", parts[k]);
			pm = metric(run, name);
			assert_int_equal(pm->n, metric(run, "inside_cycles")->n);
			assert_string_equal(fpl_metric_family(pm), fam);
			assert_int_equal(fpl_metric_kind(pm), FPL_KIND_SAMPLE);
			assert_true(fpl_metric_how(pm)->reps >= 1);
			assert_int_equal(fpl_metric_how(pm)->overhead, FPL_OVERHEAD_N_VS_2N);
		}
	}
}

/* The benchmark itself on a tiny budget: every metric there, and the model's counts. */
static void test_run_metrics(void **state)
{
	const struct fpl_bench *b = fpl_bench_find("section");
	struct fpl_optval o[] = { { "workload", "xor" }, { "chunks", "4k,16k" },
				  { "total", "16k" }, { "policy", "both" } };
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	struct fpl_clock *clock = NULL;
	struct fpl_result *r = fpl_result_new();
	size_t measured = 0;

	assert_non_null(r);
	fpl_cpu_read(cpu);
	if (fpl_clock_create(&clock, -1, &diag))
		skip();
	{
		struct fpl_bench_env env = { .bench = b, .cpu = cpu, .clock = clock, .quick = true,
					     .budget_s = 0.2, .pin_cpu = clock->cpu, .opts = o,
					     .nopts = FPL_ARRAY_SIZE(o) };

		assert_int_equal(b->run(&env, r), 0);
	}
	assert_true(r->nruns >= 4);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *pol = json_string_value(json_object_get(run->params, "policy"));
		long long chunks = fpl_run_param_get_int(run, "sections_inside", 0);

		if (run->skipped)
			continue;
		measured++;
		assert_true(chunks == 4 || chunks == 1);
		assert_true(metric(run, "inside_cycles")->n >= 2);
		assert_int_equal(metric(run, "speedup_pct")->n, metric(run, "inside_cycles")->n);
		assert_true(metric(run, "outside_ns")->n >= 2);
		assert_true(metric(run, "bare_tsc")->n >= 2);
		assert_true(metric(run, "one_section_cycles")->n >= 2);
		assert_int_equal(!!fpl_run_find_metric(run, "section_cycles"), chunks > 1);
		/* costs net of a baseline variant, the speedup a difference between two */
		assert_int_equal(fpl_metric_kind(metric(run, "one_section_ns")), FPL_KIND_NET);
		assert_string_equal(fpl_metric_family(metric(run, "one_section_ns")), "one_section");
		assert_true(fpl_metric_is_difference(metric(run, "speedup_pct")));
		assert_int_equal(fpl_metric_kind(metric(run, "inside_cycles")), FPL_KIND_SAMPLE);
		/* Eager saves and restores around every chunk; lazy once per call. */
		assert_int_equal(obs_int(run, "inside_saves"),
				 !strcmp(pol, "eager") ? chunks : 1);
		assert_int_equal(obs_int(run, "inside_restores"),
				 !strcmp(pol, "eager") ? chunks : 1);
		assert_int_equal(obs_int(run, "outside_saves"), 1);
		assert_int_equal(obs_int(run, "outside_restores"), 1);
		check_parts(run);
		/* issue 34: the cost per extra section by its parts, where there is one */
		{
			const json_t *ex = json_object_get(run->observed, "explain");

			assert_int_equal(ex != NULL, chunks > 1);
			if (ex) {
				const json_t *p = json_array_get(json_object_get(ex, "parts"), 0);

				assert_true(json_is_number(json_object_get(
					json_object_get(ex, "residual"), "ci_lo")));
				/* saves per extra section: eager 1, lazy 0 */
				assert_true(json_number_value(json_object_get(p, "count_per_op")) ==
					    (!strcmp(pol, "eager") ? 1 : 0));
			}
		}
	}
	assert_true(measured >= 4);	/* the C templates run everywhere */
	fpl_result_free(r);
	fpl_clock_free(clock);
	free(cpu);
}

/* The section benchmark in this process with --owner owner and a small fixed plan. */
static struct fpl_result *run_owner(const struct fpl_cpu *cpu, struct fpl_clock *clock,
				    const char *owner)
{
	const struct fpl_bench *b = fpl_bench_find("section");
	struct fpl_optval o[] = { { "workload", "xor" }, { "impl", "8regs" },
				  { "chunks", "4k,16k" }, { "total", "16k" },
				  { "policy", "eager" }, { "owner", owner } };
	struct fpl_bench_env env = { .bench = b, .cpu = cpu, .clock = clock, .quick = true,
				     .budget_s = 0.1, .pin_cpu = clock->cpu, .opts = o,
				     .nopts = FPL_ARRAY_SIZE(o) };
	struct fpl_result *r = fpl_result_new();

	assert_non_null(r);
	assert_int_equal(b->run(&env, r), 0);
	return r;
}

static const char *owner_of(const struct fpl_run *run)
{
	return json_string_value(json_object_get(run->params, "owner"));
}

/*
 * --owner all is --owner both, then the AMX owner. The AMX owner's first
 * tile use makes TILEDATA part of the task's active mask, and so of every
 * later row's modelled save: it comes after the last init and avx512 row,
 * so those rows are the rows of --owner both (same order, same params, same
 * save mask), and every AMX row comes after them. --owner both runs first:
 * on AMX hardware --owner all leaves this process with tiles used.
 */
static void test_owner_all_amx_last(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	struct fpl_clock *clock = NULL;
	struct fpl_result *both, *all;
	size_t i;

	assert_non_null(cpu);
	fpl_cpu_read(cpu);
	if (fpl_clock_create(&clock, -1, &diag)) {
		free(cpu);
		skip();
	}
	both = run_owner(cpu, clock, "both");
	all = run_owner(cpu, clock, "all");
	assert_int_equal(both->nruns, 4);	/* 2 chunks x owners init, avx512 */
	assert_int_equal(all->nruns, 6);
	for (i = 0; i < both->nruns; i++)
		if (!json_equal(all->runs[i]->params, both->runs[i]->params))
			fail_msg("row %zu of --owner all (owner %s) is not row %zu of --owner "
				 "both (owner %s)", i, owner_of(all->runs[i]), i,
				 owner_of(both->runs[i]));
	for (i = 0; i < both->nruns; i++) {
		const struct fpl_run *a = all->runs[i], *b = both->runs[i];
		json_t *ra = json_object_get(a->observed, "save_rfbm");
		json_t *rb = json_object_get(b->observed, "save_rfbm");

		assert_int_equal(a->skipped, b->skipped);
		if (!a->skipped && (!ra || !rb || !json_equal(ra, rb)))
			fail_msg("row %zu (owner %s): save mask %s under --owner all, %s under "
				 "--owner both", i, owner_of(a), json_string_value(ra),
				 json_string_value(rb));
	}
	for (; i < all->nruns; i++) {
		const struct fpl_run *a = all->runs[i];
		const char *rfbm = json_string_value(json_object_get(a->observed, "save_rfbm"));

		assert_string_equal(owner_of(a), "amx");
		/* Measured only on AMX hardware: the tiles are in the save mask there. */
		if (!a->skipped)
			assert_true(strtoull(rfbm, NULL, 0) & FPL_XFEATURE_MASK_XTILE_DATA);
		else
			assert_non_null(strstr(a->skip_reason, "owner state amx"));
	}
	fpl_result_free(both);
	fpl_result_free(all);
	fpl_clock_free(clock);
	free(cpu);
}

/* Exit status of "$FPL_BIN args" with stderr in err. */
static int run_bin(const char *args, char *err, size_t size)
{
	char *out, *e;
	int rc;

	if (!getenv("FPL_BIN")) {
		print_message("  FPL_BIN unset: no fpulab binary to run (make test sets it)\n");
		skip();
	}
	rc = fplrun("", args, &out, &e);
	snprintf(err, size, "%s", e ? e : "");
	free(out);
	free(e);
	return rc;
}

/*
 * A CPU without XSAVEC (qemu-user models): the skip names the instruction
 * and an alternative. A template the CPU cannot run says that first (the
 * AVX-512 one without AVX-512). Fed recorded CPUs, Zen 4 (AVX-512) and Zen 3
 * (AVX2 only), each less XSAVEC, so that both branches run on every host;
 * every cell skips, so nothing of the recorded CPU is executed here.
 */
static void test_skip_names_insn(void **state)
{
	static const struct {
		const char *dump;
		bool avx512;
	} dumps[] = { { "genoa.cpuid", true }, { "zen3-pku-kvm.cpuid", false } };
	const struct fpl_bench *b = fpl_bench_find("section");
	/* the AVX-512 template named on both CPUs: its own reason where the CPU lacks it */
	struct fpl_optval o[] = { { "workload", "xor" }, { "impl", "8regs,avx512" },
				  { "chunks", "4k" }, { "total", "16k" } };
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	struct fpl_clock *clock = NULL;

	assert_non_null(cpu);
	if (fpl_clock_create(&clock, -1, &diag)) {
		free(cpu);
		print_message("  skipped: no clock here: %s\n", diag.msg);
		skip();
	}
	for (size_t d = 0; d < FPL_ARRAY_SIZE(dumps); d++) {
		struct fpl_result *r = fpl_result_new();
		struct fpl_bench_env env = { .bench = b, .cpu = cpu, .clock = clock, .quick = true,
					     .budget_s = 0.1, .pin_cpu = clock->cpu, .opts = o,
					     .nopts = FPL_ARRAY_SIZE(o) };
		char path[128];
		size_t insn_skips = 0, isa_skips = 0;

		assert_non_null(r);
		snprintf(path, sizeof(path), "tests/data/cpuid/%s", dumps[d].dump);
		if (fpl_cpu_load(cpu, path, &diag))
			fail_msg("%s: %s", path, diag.msg);
		for (unsigned i = 0; i < cpu->nleaves; i++)
			if (cpu->leaves[i].leaf == 0xd && cpu->leaves[i].subleaf == 1)
				cpu->leaves[i].eax &= ~2u;	/* CPUID.(0xD,1):EAX[1] XSAVEC */
		assert_false(fpl_save_insn_supported(cpu, FPL_INSN_XSAVEC, NULL));
		assert_true(fpl_save_insn_supported(cpu, FPL_INSN_XSAVEOPT, NULL));
		assert_int_equal(fpl_cpu_has(cpu, FPL_FEAT_AVX512F), dumps[d].avx512);
		b->run(&env, r);
		assert_true(r->nruns >= 1);
		for (size_t i = 0; i < r->nruns; i++) {
			const struct fpl_run *run = r->runs[i];
			const struct fpl_xor_impl *x = fpl_xor_find(fpl_run_param_get_str(run, "impl"));
			const char *why = NULL;

			assert_non_null(x);
			assert_true(run->skipped);
			if (x->supported(cpu, &why)) {
				insn_skips++;
				if (!strstr(run->skip_reason, "xsavec: not on this CPU; try --insn "
					    "xsaveopt"))
					fail_msg("%s, %s: skip reason: %s", dumps[d].dump, x->name,
						 run->skip_reason);
			} else {
				isa_skips++;
				if (strcmp(run->skip_reason, why))
					fail_msg("%s, %s: skip reason '%s', not the template's '%s'",
						 dumps[d].dump, x->name, run->skip_reason, why);
			}
		}
		/* both branches: the instruction's reason on both, the template's without AVX-512 */
		assert_true(insn_skips > 0);
		assert_int_equal(isa_skips > 0, !dumps[d].avx512);
		fpl_result_free(r);
	}
	fpl_clock_free(clock);
	free(cpu);
}

static void test_cli_bad_input(void **state)
{
	static const char *const cases[][2] = {
		{ "section --chunks 100", "100" },
		{ "section --chunks 64,3k --total 4k", "3072" },
		{ "section --mask avx", "avx" },
		{ "section --impl nosuch", "nosuch" },
		{ "section --total 1k", "--total" },
		{ "section --policy sometimes", "sometimes" },
	};
	char err[2048];

	for (size_t i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		assert_int_equal(run_bin(cases[i][0], err, sizeof(err)), 2);
		if (!strstr(err, cases[i][1]))
			fail_msg("'%s': message does not name '%s': %s", cases[i][0], cases[i][1],
				 err);
	}
}

/* The defaults are sizes every workload takes: no cell skipped for its chunk size. */
static void test_section_defaults_fit(void **state)
{
	struct cmd_out o;
	int rc = fpl(&o, 120, "section", "--quick", "-q", "--budget", "0.05", "--workload", "xor",
		     NULL);

	if (rc == 77) {
		print_unsupported("section --workload xor", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	if (!strstr(o.out, "\nxor      8regs ") || strstr(o.out, "works on multiples"))
		fail_msg("section defaults with sizes the workload does not take:\n%s", o.out);
	cmd_out_free(&o);
	/* what a size xor does not take gives: the cell skipped, and why */
	rc = fpl(&o, 120, "section", "--quick", "-q", "--budget", "0.05", "--workload", "xor",
		 "--impl", "8regs", "--chunks", "64", "--total", "4k", "--policy", "eager", NULL);
	assert_int_equal(rc, 77);	/* its only cell skipped */
	if (!strstr(o.out, "skipped: xor works on multiples of "))
		fail_msg("section --chunks 64 with xor:\n%s", o.out);
	cmd_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_options),
		cmocka_unit_test(test_run_metrics),
		cmocka_unit_test(test_skip_names_insn),
		cmocka_unit_test(test_owner_all_amx_last),
		cmocka_unit_test(test_cli_bad_input),
		cmocka_unit_test(test_section_defaults_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
