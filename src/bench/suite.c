// SPDX-License-Identifier: GPL-3.0-or-later
/* The default suite as a table: presets per benchmark, the CPU feature each needs. */
#include <errno.h>
#include <string.h>

#include "fpulab/suite.h"

#define NO_FEAT (-1)

/*
 * The presets, in the order they run. Rows of one group are alternatives:
 * the first whose feature the CPU has is taken (ctxsw's A/B of the widest
 * state). when: 0 always, 1 only without tiles, 2 only with tiles (AMX on the
 * CPU, or asked for): those rows run last, after every other benchmark.
 */
static const struct preset {
	const char *bench, *group;
	int feat;
	int when;
	double budget_s;
	const char *opts[FPL_SUITE_MAX_OPTS][2];
} presets[] = {
	{ "xsave", "xsave", NO_FEAT, 1, 3.0, { { NULL } } },
	{ "ctxsw", "ctxsw", FPL_FEAT_AVX512F, 0, 6.0, { { "ab", "init,avx512" } } },
	{ "ctxsw", "ctxsw", FPL_FEAT_AVX, 0, 6.0, { { "ab", "init,avx" } } },
	{ "ctxsw", "ctxsw", NO_FEAT, 0, 6.0, { { NULL } } },
	/*
	 * Init against the widest state in one interleaved run: from two runs,
	 * order and drift read as "a wider state is faster" (issue 32 item 5).
	 */
	{ "signal", "signal", FPL_FEAT_AVX512F, 0, 2.0, { { "ab", "init,avx512" } } },
	{ "signal", "signal", FPL_FEAT_AVX, 0, 2.0, { { "ab", "init,avx" } } },
	{ "signal", "signal", NO_FEAT, 0, 1.0, { { "state", "init" } } },
	/* 4 KiB do_2 is the kernel's calibration; the larger sizes show the caches */
	{ "xor", "xor", NO_FEAT, 0, 4.0,
	  { { "sizes", "4k,16k,64k,256k,1M" }, { "arities", "2" } } },
	/* Chunk sizes that suit both workloads (xor wants multiples of 512). */
	{ "section", "section", NO_FEAT, 0, 3.0, { { "chunks", "1k,4k,16k,64k" } } },
	/* Where /dev/kvm cannot be opened the run is skipped with the reason (bench_kvm.c). */
	{ "kvm", "kvm", FPL_FEAT_AVX512F, 0, 3.0, { { "ab", "init,avx512" } } },
	{ "kvm", "kvm", FPL_FEAT_AVX, 0, 3.0, { { "ab", "init,avx" } } },
	{ "kvm", "kvm", NO_FEAT, 0, 2.0, { { NULL } } },
	{ "xsave", "xsave-tiles", NO_FEAT, 2, 3.0, { { NULL } } },
};

static bool planned(const struct fpl_suite_entry *out, size_t n, const char *bench)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].bench, bench))
			return true;
	return false;
}

static bool group_taken(const char *group, const bool *taken, size_t upto)
{
	for (size_t i = 0; i < upto; i++)
		if (taken[i] && !strcmp(presets[i].group, group))
			return true;
	return false;
}

static void entry(struct fpl_suite_entry *e, const char *bench, double budget_s, double est_s,
		  const char *const (*opts)[2])
{
	memset(e, 0, sizeof(*e));
	e->bench = bench;
	e->budget_s = budget_s;
	e->est_s = est_s;
	for (size_t k = 0; opts && k < FPL_SUITE_MAX_OPTS && opts[k][0]; k++)
		e->opts[e->nopts++] = (struct fpl_optval){ opts[k][0], opts[k][1] };
}

static bool applies(const struct preset *p, const struct fpl_cpu *cpu, bool tiles)
{
	return fpl_bench_find(p->bench) && !(p->when == 1 && tiles) && !(p->when == 2 && !tiles) &&
	       (p->feat == NO_FEAT || fpl_cpu_has(cpu, p->feat));
}

/* The presets of one pass (the tile rows or the others) whose group is not taken yet. */
static int plan_presets(const struct fpl_cpu *cpu, bool tiles, bool tile_rows, bool *taken,
			struct fpl_suite_entry *out, size_t max, size_t *n)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(presets); i++) {
		const struct preset *p = &presets[i];

		if ((p->when == 2) != tile_rows || !applies(p, cpu, tiles) ||
		    group_taken(p->group, taken, i))
			continue;
		if (*n == max)
			return -ENOSPC;
		entry(&out[*n], p->bench, p->budget_s, p->budget_s * 1.1, p->opts);
		/* AMX here: the permission is asked in this process right before. */
		out[(*n)++].ask_amx = tile_rows && fpl_cpu_has(cpu, FPL_FEAT_AMX_TILE);
		taken[i] = true;
	}
	return 0;
}

int fpl_suite_plan(const struct fpl_cpu *cpu, bool tiles, struct fpl_suite_entry *out,
		   size_t max, size_t *n)
{
	bool taken[sizeof(presets) / sizeof(presets[0])] = { false };
	int err;

	*n = 0;
	tiles |= fpl_cpu_has(cpu, FPL_FEAT_AMX_TILE);
	err = plan_presets(cpu, tiles, false, taken, out, max, n);
	for (size_t i = 0; i < fpl_nbenches && !err; i++) {
		bool later = false;

		for (size_t k = 0; k < FPL_ARRAY_SIZE(presets); k++)
			later |= presets[k].when == 2 && applies(&presets[k], cpu, tiles) &&
				 !strcmp(presets[k].bench, fpl_benches[i]->name);
		if (later || planned(out, *n, fpl_benches[i]->name))
			continue;
		if (*n == max)
			return -ENOSPC;
		entry(&out[(*n)++], fpl_benches[i]->name, 0, 2.0, NULL);
	}
	/* Last: tile data used once stays used for the process (and its later children). */
	return err ? err : plan_presets(cpu, tiles, true, taken, out, max, n);
}
