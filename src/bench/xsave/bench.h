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
	/*
	 * AMX: amx_avail when the CPU and OS have tile state and a valid
	 * TILECFG is built (TILECFG cells and LDTILECFG need no permission);
	 * amx when tile data is permitted and this task has used it (XFD
	 * disarmed): tile-data cells, TILERELEASE and TILELOADD can run. amx_why: why a tile
	 * mask is skipped (no AMX, permission refused or not asked). Naming
	 * tilecfg, tiledata or amx in --mask asks for permission.
	 */
	bool amx_avail, amx, amx_asked;
	char amx_why[sizeof(struct fpl_diag) + 64];
	uint64_t perm_before, perm_after;
	unsigned char *tilecfg;		/* a valid palette-1 TILECFG (64 bytes) */
	unsigned char *tile_src;	/* one tile's rows, 64 bytes apart, none zero */
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
 * from the state claimed. paired: the cells are compared round by round
 * (the RFBM experiment's with/without), so no sample is dropped for
 * interference (harness.h, drop_disturbed); else disturbed ones are.
 */
int fpl_xs_group_run(struct fpl_xs_bench *x, struct fpl_xs_cell *cells, struct fpl_variant *v, size_t n,
		 double budget_s, bool paired);

/*
 * The benchmark's context from env (options, CPU, AMX: permission where
 * --mask names a tile component, the first tile use where tile data is
 * permitted). With a CPU dump in env->cpu the kernel is not asked and no
 * state instruction runs: the masks are the dump's defaults (what the tests
 * plan with). -EINVAL for a bad --mask (a warning in r).
 */
int fpl_xs_setup(struct fpl_xs_bench *x, const struct fpl_bench_env *env, struct fpl_result *r);
/* The masks to measure: --mask, or the default list with what this CPU lacks left out. */
size_t fpl_xs_masks(const struct fpl_xs_bench *x, uint64_t *out, const char **names, size_t max);

/*
 * The matrix's states. RELEASED: the mask live, then TILERELEASE (tiles
 * init, the rest live); TILECFG: the mask live but tile data init. Both only
 * for masks with AMX and something else (otherwise they are init or live).
 */
enum fpl_xs_state {
	XS_ST_INIT, XS_ST_LIVE, XS_ST_UNMOD, XS_ST_RELEASED, XS_ST_TILECFG, XS_ST_NR
};

/* One cell of the matrix as planned from x's masks, flags and CPU tables alone. */
struct fpl_xs_plan {
	enum fpl_xs_op op;
	const char *insn, *mnemonic;	/* the run's insn param; the method's words */
	const char *method;		/* "throughput", "latency"; "any" for a skipped insn */
	bool lat;
	uint64_t mask;			/* the instruction's RFBM */
	const char *mask_name;
	enum fpl_xs_state st;		/* XS_ST_NR: the mask or the instruction is skipped */
	const char *state;		/* the run's state param */
	uint64_t live;			/* the state's components (in RFBM) */
	uint64_t setup;			/* live before each timed call: live, and what the write needs */
	int modified;			/* XSAVEOPT "modified": the component written; -1 none */
	const struct fpl_xs_modify *mod;
	char skip[sizeof(struct fpl_diag) + 128];	/* "" or why the run is skipped */
};
typedef int (*fpl_xs_plan_fn)(void *arg, const struct fpl_xs_plan *p);
/*
 * Call fn for every cell and skipped run of the matrix over masks, in the
 * order they are made; no instruction runs. Stops at fn's first error.
 */
int fpl_xs_plan_matrix(const struct fpl_xs_bench *x, const uint64_t *masks,
		       const char *const *names, size_t nmasks, fpl_xs_plan_fn fn, void *arg);

/* Each part runs until share_end of the budget is spent (see fpl_xs_left). */
int fpl_xs_matrix(struct fpl_xs_bench *x, const uint64_t *masks, const char *const *names, size_t nmasks,
	      double share_end);
/* One row of the RFBM experiment: the component id in init, in RFBM (with) or not (without). */
struct fpl_xs_rfbm_row {
	enum fpl_xs_op op;
	const char *insn, *mnemonic;
	unsigned id;
	uint64_t with, without;		/* the two RFBMs */
	uint64_t live;			/* the state: with minus id (and tile data with TILECFG) */
};
typedef int (*fpl_xs_rfbm_fn)(void *arg, const struct fpl_xs_rfbm_row *row);
/* Call fn for every row of the RFBM experiment, in order; no instruction runs. */
int fpl_xs_plan_rfbm(const struct fpl_xs_bench *x, fpl_xs_rfbm_fn fn, void *arg);
/* The run of one row, with its params (experiment, insn, component, rfbm_with/without). NULL: ENOMEM. */
struct fpl_run *fpl_xs_rfbm_run(struct fpl_xs_bench *x, const struct fpl_xs_rfbm_row *row);
int fpl_xs_rfbm(struct fpl_xs_bench *x, double share_end);
int fpl_xs_misc(struct fpl_xs_bench *x, double share_end);

/* The compacted image of the state in img (RFBM = XCR0): XRSTOR then XSAVEC. */
void fpl_xs_make_compacted(struct fpl_xs_bench *x, const void *img, void *out);

#endif
