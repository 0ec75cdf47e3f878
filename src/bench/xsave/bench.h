/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside fpulab xsave: the benchmark's context, shared by the matrix, RFBM and misc parts. */
#ifndef FPULAB_XSAVE_BENCH_H
#define FPULAB_XSAVE_BENCH_H

#include "internal.h"

struct fpl_xs_bench {
	const struct fpl_bench_env *env;
	struct fpl_result *result;
	struct fpl_xstate xs;
	/*
	 * The components measured: fpl_xstate_permitted() (XCR0 without AMX
	 * tile data until the process has permission; x87|SSE without XSAVE),
	 * with XFD disarmed by fpl_amx_first_use() at set-up where it includes
	 * tile data. Every XRSTOR here uses it as RFBM.
	 */
	uint64_t permitted;
	bool xgetbv1, avx, avx512;
	size_t size;			/* bytes per buffer: the standard size of every user component */
	size_t max_samples;
	const char *method, *state, *insn;
	uint64_t one_mask;
	bool has_one_mask;
	double budget;			/* seconds for the whole benchmark */
	uint64_t t_start;		/* TSC at the start: parts share what is left */
	void **allocs;			/* image buffers, freed at the end */
	size_t nallocs;
};

/* Seconds left of the budget for a part that gets share of it, from now on. */
double fpl_xs_left(const struct fpl_xs_bench *x, double share_end);

/* A zeroed, 64-byte-aligned buffer of x->size bytes, freed by fpl_xs_free. */
void *fpl_xs_alloc(struct fpl_xs_bench *x);
void fpl_xs_free(struct fpl_xs_bench *x);

/* A run of this benchmark with the parameters every cell has. NULL on ENOMEM. */
struct fpl_run *fpl_xs_run_new(struct fpl_xs_bench *x, const char *insn, uint64_t mask, const char *mask_name,
			   const char *state, const char *method);

/*
 * Run the harness over n cells at once (interleaved), then record in each
 * cell's run the XINUSE seen before timing and a warning where it differed
 * from the state claimed.
 */
int fpl_xs_group_run(struct fpl_xs_bench *x, struct fpl_xs_cell *cells, struct fpl_variant *v, size_t n,
		 double budget_s);

/* Each part runs until share_end of the budget is spent (see fpl_xs_left). */
int fpl_xs_matrix(struct fpl_xs_bench *x, const uint64_t *masks, const char *const *names, size_t nmasks,
	      double share_end);
int fpl_xs_rfbm(struct fpl_xs_bench *x, double share_end);
int fpl_xs_misc(struct fpl_xs_bench *x, double share_end);

/* The compacted image of the state in img (RFBM = XCR0): XRSTOR then XSAVEC. */
void fpl_xs_make_compacted(struct fpl_xs_bench *x, const void *img, void *out);

#endif
