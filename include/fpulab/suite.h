/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The default suite (fpulab run): which benchmarks, with which options, for how long. */
#ifndef FPULAB_SUITE_H
#define FPULAB_SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include "fpulab/bench.h"
#include "fpulab/cpu.h"

#define FPL_SUITE_MAX_OPTS 4

/* One benchmark of the suite: its options (static strings) and its share of the time. */
struct fpl_suite_entry {
	const char *bench;
	double budget_s;		/* seconds it is given; 0: its own quick default */
	double est_s;			/* seconds expected (the share of a --budget, progress) */
	struct fpl_optval opts[FPL_SUITE_MAX_OPTS];
	size_t nopts;
	bool ask_amx;			/* ask ARCH_REQ_XCOMP_PERM(18) in this process just before it */
};

/*
 * The default suite for this CPU, in the order it runs: every benchmark
 * built in, quick; those with a preset get the options that make the
 * summary's figures (AVX-512 state where the CPU has it, else AVX); a
 * benchmark without one runs with its own quick defaults (about 2 s). On a
 * CPU with AMX, or with tiles (AMX tile data asked for already, --amx),
 * xsave measures the tile rows (TILEDATA in RFBM) and runs last: its tile
 * cells make the process use tile data for good, so every other benchmark
 * (amx's children included) runs before, as a task without AMX permission
 * or tile use. On a CPU with AMX that entry has ask_amx: the permission is
 * asked in the measuring process right before it. At most max entries into
 * out; their count in *n. 0, or -ENOSPC when max is short.
 */
int fpl_suite_plan(const struct fpl_cpu *cpu, bool tiles, struct fpl_suite_entry *out,
		   size_t max, size_t *n);

#endif
