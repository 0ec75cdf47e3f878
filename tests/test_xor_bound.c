// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the xor L1 bound: load/store figures per core and width from CPUID dumps, the L1D size and footprint flag, scalar C templates. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/cpu.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/xor.h"
#include "runcmd.h"

#define DATA "tests/data/cpuid/"

static struct fpl_cpu *load(const char *name)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };

	assert_non_null(cpu);
	if (fpl_cpu_load(cpu, name, &diag))
		fail_msg("%s: %s", name, diag.msg);
	return cpu;
}

/* A CPU that only says who it is: vendor, and family/model/stepping in leaf 1 EAX. */
static struct fpl_cpu *synthetic(const char *vendor, uint32_t eax1)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag diag = { "" };
	uint32_t v[3];
	char text[256];
	FILE *f;

	assert_non_null(cpu);
	assert_int_equal(strlen(vendor), 12);
	memcpy(v, vendor, 12);
	snprintf(text, sizeof(text), "# fpulab cpuid dump 1\n"
		 "cpuid 0x00000000 0x00 0x00000001 0x%08x 0x%08x 0x%08x\n"
		 "cpuid 0x00000001 0x00 0x%08x 0x00000000 0x00000000 0x00000000\n",
		 v[0], v[2], v[1], eax1);
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	if (fpl_cpu_load_stream(cpu, f, "synthetic", &diag))
		fail_msg("synthetic %s 0x%x: %s", vendor, eax1, diag.msg);
	fclose(f);
	return cpu;
}

/* do_N of the named template on cpu: its bound in bytes of destination per cycle. */
static double bound(const struct fpl_cpu *cpu, const char *tmpl, unsigned arity)
{
	struct fpl_xor_bound b;

	assert_int_equal(fpl_xor_bound(cpu, fpl_xor_find(tmpl), arity, 4096, &b), 0);
	return b.bytes_per_cycle;
}

struct expect {
	const char *what;	/* fixture file, or "synthetic" */
	const char *vendor;	/* synthetic only */
	uint32_t eax1;		/* synthetic only */
	const char *core;	/* substring of the core's name */
	bool known;
	/* do_2 bound of 8regs (8-byte), generic_sse (16), avx (32), avx512 (64) */
	double c2, sse2, avx2, avx512_2;
	double avx512_5;	/* do_5 of avx512 */
};

/*
 * The vendors' figures per core and width (docs/method.md's table), checked
 * through the bound they give: min(loads x width / N, stores x width).
 */
static const struct expect cores[] = {
	/* Zen 4: 3 GPR loads + 2 stores; vectors 2 + 1 of 256 bits, 512 as two halves */
	{ DATA "genoa.cpuid", NULL, 0, "Zen 3/Zen 4", true, 12, 16, 32, 32, 12.8 },
	{ DATA "vermeer.aida", NULL, 0, "Zen 3/Zen 4", true, 12, 16, 32, 32, 12.8 },
	/* Golden Cove and later: 3 + 2 up to 256 bits, 2 + 1 at 512 */
	{ DATA "sapphirerapids.cpuid", NULL, 0, "Golden Cove", true, 12, 24, 48, 64, 25.6 },
	{ DATA "graniterapids.cpuid", NULL, 0, "Golden Cove", true, 12, 24, 48, 64, 25.6 },
	{ DATA "alderlake.cpuid", NULL, 0, "Golden Cove", true, 12, 24, 48, 64, 25.6 },
	/* the project's SPR guest says model 0xa7 (Rocket Lake): AMX decides */
	{ DATA "intel-kvm-a7.cpuid", NULL, 0, "Golden Cove", true, 12, 24, 48, 64, 25.6 },
	/* Haswell to Skylake-SP: 2 + 1 at every width */
	{ DATA "skylake.cpuid", NULL, 0, "Haswell", true, 8, 16, 32, 64, 25.6 },
	{ DATA "skylakex.cpuid", NULL, 0, "Haswell", true, 8, 16, 32, 64, 25.6 },
	/* Sandy Bridge: 16-byte paths, a 32-byte access takes two */
	{ DATA "sandybridge.aida", NULL, 0, "Sandy Bridge", true, 8, 16, 16, 16, 6.4 },
	/* not in the table: the stated default */
	{ DATA "nehalem.aida", NULL, 0, "not in", false, 8, 16, 32, 64, 25.6 },
	/* no dump of these: vendor and leaf 1 only */
	{ "synthetic", "AuthenticAMD", 0x00800f11, "Zen/Zen+", true, 8, 16, 16, 16, 6.4 },
	{ "synthetic", "HygonGenuine", 0x00900f01, "Zen/Zen+", true, 8, 16, 16, 16, 6.4 },
	{ "synthetic", "AuthenticAMD", 0x00830f10, "Zen 2", true, 8, 16, 32, 32, 12.8 },
	{ "synthetic", "AuthenticAMD", 0x00b00f21, "Zen 5", true, 16, 16, 32, 64, 25.6 },
	{ "synthetic", "GenuineIntel", 0x000606a6, "Sunny Cove", true, 8, 16, 32, 64, 25.6 },
	/* a real Rocket Lake (model 0xa7, no AMX in leaf 7) is Cypress Cove */
	{ "synthetic", "GenuineIntel", 0x000a0671, "Sunny Cove", true, 8, 16, 32, 64, 25.6 },
	{ "synthetic", "AuthenticAMD", 0x00100f42, "not in", false, 8, 16, 32, 64, 25.6 },
	{ "synthetic", "CentaurHauls", 0x000006f2, "not in", false, 8, 16, 32, 64, 25.6 },
};

static void test_bound_per_core(void **state)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cores); i++) {
		const struct expect *e = &cores[i];
		struct fpl_cpu *cpu = e->vendor ? synthetic(e->vendor, e->eax1) : load(e->what);
		struct fpl_cpu_lsu lsu;
		const double got[5] = { bound(cpu, "8regs", 2), bound(cpu, "generic_sse", 2),
					bound(cpu, "avx", 2), bound(cpu, "avx512", 2),
					bound(cpu, "avx512", 5) };
		const double want[5] = { e->c2, e->sse2, e->avx2, e->avx512_2, e->avx512_5 };

		assert_int_equal(fpl_cpu_lsu(cpu, 8, &lsu), 0);
		if (!strstr(lsu.core, e->core) || lsu.known != e->known)
			fail_msg("%s (0x%x): core '%s' (known %d), expected '%s' (known %d)", e->what,
				 e->eax1, lsu.core, lsu.known, e->core, e->known);
		assert_non_null(lsu.source);
		assert_true(strlen(lsu.source) > 20);
		for (int k = 0; k < 5; k++)
			if (fabs(got[k] - want[k]) > 1e-9)
				fail_msg("%s (0x%x, %s): bound %d is %.2f bytes/cycle, expected %.2f",
					 e->what, e->eax1, lsu.core, k, got[k], want[k]);
		/* 32regs moves the same 8-byte words as 8regs */
		assert_true(fabs(bound(cpu, "32regs", 3) - bound(cpu, "8regs", 3)) < 1e-9);
		free(cpu);
	}
}

/* The formula itself, at every arity and width, on one CPU. */
static void test_bound_formula(void **state)
{
	struct fpl_cpu *cpu = load(DATA "genoa.cpuid");
	size_t n;
	const struct fpl_xor_impl *all = fpl_xor_impls(&n);

	for (size_t i = 0; i < n; i++) {
		for (unsigned a = 2; a <= 5; a++) {
			struct fpl_xor_bound b;

			assert_int_equal(fpl_xor_bound(cpu, &all[i], a, 4096, &b), 0);
			assert_int_equal(b.width, all[i].width);
			assert_true(fabs(b.bytes_per_cycle - fmin(b.loads * b.width / a,
								  b.stores * b.width)) < 1e-9);
			assert_true(b.bytes_per_cycle > 0);
		}
	}
	{
		struct fpl_xor_bound b;

		assert_int_equal(fpl_xor_bound(cpu, &all[0], 1, 4096, &b), -EINVAL);
		assert_int_equal(fpl_xor_bound(cpu, &all[0], 6, 4096, &b), -EINVAL);
		assert_int_equal(fpl_xor_bound(NULL, &all[0], 2, 4096, &b), -EINVAL);
	}
	free(cpu);
}

/* Template widths: the ISA's register, 8 bytes for general registers. */
static void test_template_widths(void **state)
{
	static const struct { const char *isa; unsigned width; } w[] = {
		{ "C", 8 }, { "SSE2", 16 }, { "AVX", 32 }, { "AVX-512F", 64 },
	};
	size_t n;
	const struct fpl_xor_impl *all = fpl_xor_impls(&n);

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < FPL_ARRAY_SIZE(w) && strcmp(w[k].isa, all[i].isa); k++)
			;
		assert_true(k < FPL_ARRAY_SIZE(w));
		assert_int_equal(all[i].width, w[k].width);
	}
}

static void test_l1d_size(void **state)
{
	static const struct { const char *file; size_t l1d; } t[] = {
		{ DATA "genoa.cpuid", 32 << 10 },	 /* 0x8000001D */
		{ DATA "vermeer.aida", 32 << 10 },	 /* unlabelled 0x8000001D lines */
		{ DATA "sapphirerapids.cpuid", 48 << 10 }, /* leaf 4 */
		{ DATA "intel-kvm-a7.cpuid", 48 << 10 },
		{ DATA "alderlake.cpuid", 48 << 10 },
		{ DATA "skylakex.cpuid", 32 << 10 },
		{ DATA "sandybridge.aida", 32 << 10 },
		{ DATA "no-osxsave.cpuid", 0 },		 /* no cache leaves: unknown */
	};

	for (size_t i = 0; i < FPL_ARRAY_SIZE(t); i++) {
		struct fpl_cpu *cpu = load(t[i].file);

		if (fpl_cpu_l1d_bytes(cpu) != t[i].l1d)
			fail_msg("%s: L1D %zu bytes, expected %zu", t[i].file,
				 fpl_cpu_l1d_bytes(cpu), t[i].l1d);
		free(cpu);
	}
	/* AMD without 0x8000001D: the older leaf 0x80000005 ECX[31:24] */
	{
		struct fpl_cpu *cpu = load(DATA "genoa.cpuid");

		for (unsigned i = 0; i < cpu->nleaves; i++)
			if (cpu->leaves[i].leaf == 0x8000001d)
				cpu->leaves[i].eax = 0;
		assert_int_equal(fpl_cpu_l1d_bytes(cpu), 32 << 10);
		free(cpu);
	}
}

/* fits_l1d: N x size bytes against the L1D, unknown (-1) without one. */
static void test_footprint_flag(void **state)
{
	static const struct { const char *file; unsigned arity; size_t size; int fits; } t[] = {
		{ DATA "genoa.cpuid", 5, 4096, 1 },	/* 20 KiB of 32 */
		{ DATA "genoa.cpuid", 2, 16384, 1 },	/* exactly 32 KiB */
		{ DATA "genoa.cpuid", 3, 16384, 0 },
		{ DATA "sapphirerapids.cpuid", 3, 16384, 1 },	/* 48 KiB of 48 */
		{ DATA "sapphirerapids.cpuid", 4, 16384, 0 },
		{ DATA "no-osxsave.cpuid", 2, 4096, -1 },
	};

	for (size_t i = 0; i < FPL_ARRAY_SIZE(t); i++) {
		struct fpl_cpu *cpu = load(t[i].file);
		struct fpl_xor_bound b;

		assert_int_equal(fpl_xor_bound(cpu, fpl_xor_find("avx"), t[i].arity, t[i].size, &b),
				 0);
		assert_int_equal(b.footprint, t[i].arity * t[i].size);
		if (b.fits_l1d != t[i].fits)
			fail_msg("%s do_%u at %zu: fits_l1d %d, expected %d", t[i].file,
				 t[i].arity, t[i].size, b.fits_l1d, t[i].fits);
		free(cpu);
	}
}

/*
 * The bound gives the C rows 8-byte accesses: that holds only while their
 * object code stays on general registers (the kernel builds them with
 * -mno-sse), which gcc would otherwise vectorize. No xmm/ymm/zmm register.
 */
static void test_c_templates_scalar(void **state)
{
	const char *build = getenv("FPL_BUILD");
	char path[4096], line[4200];
	struct cmd_out o = { 0 };

	if (!build)
		build = "build";
	snprintf(path, sizeof(path), "%s/src/kernels/xor_generic.o", build);
	if (!cmd_exists(path)) {
		print_message("skipped: no %s (run from make test)\n", path);
		skip();
	}
	snprintf(line, sizeof(line), "objdump -d --no-show-raw-insn '%s'", path);
	if (cmd_sh(line, 60, &o) || cmd_code(&o) != 0) {
		cmd_out_free(&o);
		print_message("skipped: objdump did not run\n");
		skip();
	}
	assert_non_null(strstr(o.out, "<fpl_xor_8regs_2>:"));
	assert_non_null(strstr(o.out, "<fpl_xor_32regs_5>:"));
	for (const char *r = o.out; (r = strstr(r, "mm")); r++)
		if (r > o.out && strchr("xyz", r[-1]) && r[2] >= '0' && r[2] <= '9')
			fail_msg("xor_generic.o uses a vector register: ...%.40s", r - 1);
	cmd_out_free(&o);
}

/* One sweep row as the benchmark writes it: speed, B/cycle, the bound and its flags. */
static void sweep_row(struct fpl_result *r, const char *tmpl, unsigned arity, size_t size,
		      double pct, int fits, const char *anomaly)
{
	struct fpl_run *run = fpl_result_add_run(r, "xor");
	struct fpl_metric *mb, *bpc, *bp;

	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "mode", "sweep") ||
			 fpl_run_param_str(run, "template", tmpl) ||
			 fpl_run_param_str(run, "isa", strcmp(tmpl, "memcpy") ? "AVX" : "libc") ||
			 fpl_run_param_int(run, "size", (long long)size) ||
			 fpl_run_param_int(run, "arity", arity), 0);
	mb = fpl_run_add_metric(run, "speed", "MB/s", "m");
	bpc = fpl_run_add_metric(run, "bytes_per_cycle", "ratio", "m");
	assert_true(mb && bpc);
	assert_int_equal(fpl_metric_add(mb, 1000) || fpl_metric_add(bpc, pct * 0.32), 0);
	if (!strcmp(tmpl, "memcpy"))
		return;
	bp = fpl_run_add_metric(run, "bound_pct", "percent", "m");
	assert_non_null(bp);
	bp->extra = json_pack("{s:s, s:s}", "core", "Test core", "source", "the test's guide");
	assert_int_equal(fpl_metric_add(bp, pct), 0);
	assert_int_equal(fpl_run_obs_real(run, "bound_bytes_per_cycle", 32) ||
			 fpl_run_obs_int(run, "l1d_bytes", 32768) ||
			 (fits < 0 ? fpl_run_obs_json(run, "fits_l1d", json_null()) :
				     fpl_run_obs_bool(run, "fits_l1d", fits)) ||
			 (anomaly && fpl_run_obs_str(run, "bound_anomaly", anomaly)), 0);
}

/* The table never shows a percentage of the L1 bound where it does not apply or cannot be true unmarked. */
static void test_table_marks(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	assert_non_null(r);
	sweep_row(r, "avx", 2, 4096, 91.25, 1, NULL);
	sweep_row(r, "memcpy", 2, 4096, 0, 1, NULL);
	sweep_row(r, "avx", 3, 4096, 137.5, 1, "do_3 avx at 4096 bytes: 138% of the L1 bound");
	sweep_row(r, "memcpy", 3, 4096, 0, 1, NULL);
	sweep_row(r, "avx", 3, 65536, 47.75, 0, NULL);
	sweep_row(r, "memcpy", 3, 65536, 0, 0, NULL);
	sweep_row(r, "avx", 4, 8192, 66.5, -1, NULL);
	sweep_row(r, "memcpy", 4, 8192, 0, 0, NULL);
	f = open_memstream(&out, &n);
	assert_non_null(f);
	fpl_table_xor(r, NULL, f);
	fclose(f);
	/* in L1D: the plain percentage; beyond: >L1D and not 48; anomaly: marked */
	assert_non_null(strstr(out, " 91\n"));
	assert_non_null(strstr(out, " 138!\n"));
	assert_non_null(strstr(out, " >L1D\n"));
	assert_null(strstr(out, " 48\n"));
	assert_non_null(strstr(out, " 66?\n"));
	assert_non_null(strstr(out, ">L1D: do_N touches N x size bytes, more than the L1D (32 KiB"));
	assert_non_null(strstr(out, "!: above 105%"));
	assert_non_null(strstr(out, "?: this CPU does not tell its L1D size"));
	assert_non_null(strstr(out, "Bound model: Test core: the test's guide."));
	free(out);
	fpl_result_free(r);
}

/*
 * A row's samples as the sweep keeps them: a tsc metric whose
 * extra.interference says how many of taken were quiet and whether the
 * others were dropped (NULL taken: no reference read, from 4 MiB on).
 */
static void kept_as(struct fpl_result *r, size_t i, long long taken, long long quiet,
		    bool applied)
{
	struct fpl_metric *m = fpl_run_add_metric(r->runs[i], "tsc", "tsc", "m");

	assert_non_null(m);
	assert_int_equal(fpl_metric_add(m, 100), 0);
	m->extra = json_pack("{s:{s:I, s:I, s:b, s:s}}", "interference", "samples_taken",
			     (json_int_t)taken, "samples_quiet", (json_int_t)quiet, "applied",
			     applied, "kept_by", "round");
	assert_non_null(m->extra);
}

static char *table_of(const struct fpl_result *r)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	fpl_table_xor(r, NULL, f);
	fclose(f);
	return out;
}

/*
 * The table says how its samples were kept: rows between quiet readings of
 * the reference, rows of every sample (4 MiB on), and "~" on a row (memcpy's
 * too) where too few rounds were quiet, so that every sample was kept.
 */
static void test_table_says_kept(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *out;

	(void)state;
	sweep_row(r, "avx", 2, 4096, 91.25, 1, NULL);
	sweep_row(r, "memcpy", 2, 4096, 0, 1, NULL);
	sweep_row(r, "avx", 3, 4096, 61.5, 1, NULL);
	sweep_row(r, "memcpy", 3, 4096, 0, 1, NULL);
	kept_as(r, 0, 1000, 640, true);
	kept_as(r, 1, 1000, 640, true);
	kept_as(r, 2, 3000, 4, false);
	kept_as(r, 3, 3000, 4, false);
	out = table_of(r);
	assert_non_null(strstr(out, " 91\n"));
	assert_non_null(strstr(out, " 62~\n"));
	assert_non_null(strstr(out, " -~\n"));
	assert_non_null(strstr(out, "Samples kept: in every row, only the rounds between quiet "
				    "readings of an FXSAVE64 reference"));
	assert_non_null(strstr(out, "the same rounds kept"));
	assert_non_null(strstr(out, "~: too few rounds between quiet readings"));
	free(out);
	/* from 4 MiB on: every sample, said so */
	sweep_row(r, "avx", 2, 4 << 20, 40, 0, NULL);
	sweep_row(r, "memcpy", 2, 4 << 20, 0, 0, NULL);
	out = table_of(r);
	assert_non_null(strstr(out, "Samples kept: below 4 MiB, only the rounds"));
	assert_non_null(strstr(out, "from 4 MiB on every sample"));
	free(out);
	fpl_result_free(r);
	/* a file without the record (before the reference): every sample, no mark */
	r = fpl_result_new();
	sweep_row(r, "avx", 2, 4096, 91.25, 1, NULL);
	sweep_row(r, "memcpy", 2, 4096, 0, 1, NULL);
	out = table_of(r);
	assert_non_null(strstr(out, "Samples kept: every one"));
	assert_null(strstr(out, "~"));
	/* nor a claim about where its buffers lay, which it did not record */
	assert_null(strstr(out, "Buffers:"));
	free(out);
	/* a row that recorded it: the layout is said beside the figures */
	assert_int_equal(fpl_run_obs_int(r->runs[0], "buffers_apart_bytes", 4096), 0);
	out = table_of(r);
	assert_non_null(strstr(out, "Buffers: a row's destination and sources back to back"));
	free(out);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_per_core),
		cmocka_unit_test(test_bound_formula),
		cmocka_unit_test(test_template_widths),
		cmocka_unit_test(test_l1d_size),
		cmocka_unit_test(test_footprint_flag),
		cmocka_unit_test(test_c_templates_scalar),
		cmocka_unit_test(test_table_marks),
		cmocka_unit_test(test_table_says_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
