/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One cell of fpulab xor's size sweep (bench_xor.c): the templates and memcpy at one size and arity. */
#ifndef FPULAB_BENCH_XORSWEEP_H
#define FPULAB_BENCH_XORSWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "fpulab/bench.h"
#include "fpulab/harness.h"
#include "fpulab/xor.h"

struct fpl_xor_cell {
	const struct fpl_xor_impl *const *impl;	/* the templates; memcpy is measured after them */
	size_t nimpl;
	size_t size;				/* bytes per call, a multiple of FPL_XOR_LINE */
	unsigned arity;				/* do_2 .. do_5 */
	uint64_t **buf;				/* dest, then four sources, size bytes at least each */
	double budget_s;
	double hard_s;				/* the most it may take waiting for quiet rounds */
	double progress_lo, progress_span;	/* this cell's share of the benchmark's progress */
	/*
	 * The interference reference's floor, carried from cell to cell
	 * (harness.h): a cell spent wholly in a slow episode is judged against
	 * the floor of the cells before it. NULL: each cell its own.
	 */
	struct fpl_ref_floor *ref_floor;
	fpl_timed_fn ref;			/* NULL: FXSAVE64; tests give a made-up reference */
};

/*
 * One run per template (skipped where the CPU cannot run it) and one for
 * memcpy, measured in the same interleaved rounds, whole rounds dropped
 * where the reference was disturbed (the same rounds in every run); then
 * each run's speed, bytes_per_cycle and bound_pct from its kept samples.
 * 0, -EINTR (stopped), -ENOMEM.
 */
int fpl_xor_sweep_cell(const struct fpl_bench_env *env, struct fpl_result *result,
		       const struct fpl_xor_cell *cell);

/*
 * The sweep of env's options (--sizes, --arities, --impl) with reference
 * ref (NULL: FXSAVE64; tests give a made-up one), as fpulab xor runs it:
 * every cell, the reference's floor carried from cell to cell, then the
 * cells whose floor was over 4% above the sweep's lowest (measured wholly
 * inside a slow episode before the floor was known) measured again in the
 * time left, their runs with observed first_floor_tsc, or warned about.
 * 0, -EINVAL (a bad option), -EINTR, -ENOMEM.
 */
int fpl_xor_sweep(const struct fpl_bench_env *env, struct fpl_result *result, fpl_timed_fn ref);

#endif
