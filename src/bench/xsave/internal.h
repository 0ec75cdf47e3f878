/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside fpulab xsave: the timed loops (one asm block each) and the cells that drive them. */
#ifndef FPULAB_XSAVE_INTERNAL_H
#define FPULAB_XSAVE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/harness.h"
#include "fpulab/xstate.h"

/*
 * What one loop needs: the buffer the instruction works on (the save
 * target, or the image restored), the image that re-establishes the state
 * (latency method), the RFBM of the instruction and the mask of the
 * re-establishing XRSTOR (every component this task may have live).
 */
struct fpl_xs_loop {
	void *buf;
	const void *state;
	uint32_t lo, hi;	/* RFBM */
	uint32_t slo, shi;	/* set-up XRSTOR's RFBM */
};

typedef uint64_t (*fpl_xs_loop_fn)(const struct fpl_xs_loop *l, uint64_t reps);

/* Loop bodies. _tp: back-to-back; _lat: re-establish then the op; _lat0: re-establish alone. */
enum fpl_xs_op {
	XS_FXSAVE, XS_FXRSTOR, XS_XSAVE, XS_XSAVEOPT, XS_XSAVEC, XS_XRSTOR, XS_XRSTOR_C,
	XS_OP_NR
};

/* The loops of loops.c, by op; NULL where there is none. */
extern const fpl_xs_loop_fn fpl_xs_tp[XS_OP_NR], fpl_xs_lat[XS_OP_NR], fpl_xs_lat0[XS_OP_NR];
/* XSAVEOPT with nothing modified since XRSTOR from the same buffer. */
uint64_t fpl_xs_xsaveopt_unmod_lat(const struct fpl_xs_loop *l, uint64_t reps);
uint64_t fpl_xs_xsaveopt_unmod_lat0(const struct fpl_xs_loop *l, uint64_t reps);

/*
 * XSAVEOPT after writing one register of component id (x87, SSE here; AVX
 * in _avx.c; opmask, ZMM_Hi256, Hi16_ZMM in _avx512.c). Indexed by component;
 * NULL where the CPU file is not the right one.
 */
struct fpl_xs_modify {
	fpl_xs_loop_fn tp, lat, lat0;
	fpl_xs_loop_fn w;	/* the write alone, back to back; NULL: it is ~1 cycle */
};
extern const struct fpl_xs_modify fpl_xs_modify_base[2];	/* x87, SSE */
extern const struct fpl_xs_modify fpl_xs_modify_avx;
extern const struct fpl_xs_modify fpl_xs_modify_avx512[3];	/* opmask, ZMM_Hi256, Hi16_ZMM */
/* TILECFG (LDTILECFG), TILEDATA (TILELOADD tmm0): loop.state points at what the write reads. */
extern const struct fpl_xs_modify fpl_xs_modify_amx[2];

/* Instructions outside the XSAVE family, back-to-back; buf holds two MXCSR values. */
enum fpl_xs_misc {
	XS_LDMXCSR_SAME, XS_LDMXCSR_ALT, XS_STMXCSR, XS_STLDMXCSR, XS_FNINIT, XS_XGETBV0,
	XS_XGETBV1, XS_VZEROUPPER, XS_VZEROALL, XS_VZEROUPPER_DIRTY, XS_MISC_NR
};
uint64_t fpl_xs_misc_loop(enum fpl_xs_misc m, void *buf, uint64_t reps);
/* The AVX ones (loops_avx.c); lat0 is the dirtying alone. */
uint64_t fpl_xs_vzeroupper_tp(void *buf, uint64_t reps);
uint64_t fpl_xs_vzeroall_tp(void *buf, uint64_t reps);
uint64_t fpl_xs_vzeroupper_dirty(void *buf, uint64_t reps);
uint64_t fpl_xs_dirty_ymm(void *buf, uint64_t reps);

/*
 * Establish a state by XRSTOR of img with RFBM = permitted (FXRSTOR without
 * XSAVE) and return XINUSE read right after it (0 without XGETBV1).
 */
uint64_t fpl_xs_establish(const void *img, uint64_t permitted, bool xsave, bool xgetbv1);

/* One cell of the matrix: what its timed function needs. */
struct fpl_xs_cell {
	fpl_xs_loop_fn body, empty;		/* empty is NULL for throughput */
	struct fpl_xs_loop loop;
	const void *setup_img;		/* restored (RFBM = permitted) before each timed call */
	uint64_t permitted;
	bool xsave, xgetbv1;
	bool release;			/* TILERELEASE after the set-up XRSTOR ("released" state) */
	uint64_t expect;		/* XINUSE & permitted expected after set-up */
	uint64_t xinuse_seen;
	uint64_t checks, bad;		/* set-ups checked, set-ups that did not match */
	uint64_t bad_last;		/* XINUSE & permitted at the last set-up that did not match */
	uint64_t bad_extra, bad_missing;	/* OR over those: in use unclaimed, claimed in init */
	uint64_t bad_extra_all;		/* AND over those: in use unclaimed at every one */
};

uint64_t fpl_xs_cell_timed(void *arg, uint64_t reps);
/* Count one set-up check of c: XINUSE x read after it, against c->expect. */
void fpl_xs_cell_check(struct fpl_xs_cell *c, uint64_t x);
/* The warning for a cell whose set-up did not match (c->bad): values and component names. */
void fpl_xs_xinuse_warn(struct fpl_run *run, const struct fpl_xs_cell *c, const char *last);
uint64_t fpl_xs_cell_empty(void *arg, uint64_t reps);

/*
 * The timed loops of the matrix, one asm block each: pre runs once, body reps
 * times, all between the serialised TSC reads. The file that expands
 * XS_LOOP_DEF defines XS_CLOBBERS first: which vector and opmask registers
 * it may name depends on the ISA flags that file is built with.
 */
/* asm fragments: EDX:EAX = the instruction's RFBM, or the set-up XRSTOR's. */
#define ASM_LOAD_RFBM		"mov %k[lo], %%eax\n\tmov %k[hi], %%edx\n\t"
#define ASM_LOAD_SETUP_RFBM	"mov %k[slo], %%eax\n\tmov %k[shi], %%edx\n\t"

#define XS_LOOP_DEF(linkage, fname, pre, body)						\
	linkage uint64_t fname(const struct fpl_xs_loop *l, uint64_t reps)		\
	{										\
		uint64_t n = reps, t0, t1;						\
											\
		if (!n)									\
			return 0;							\
		t0 = fpl_tsc_begin();							\
		__asm__ volatile(pre "1:\n\t" body "dec %[n]\n\tjnz 1b"			\
				 : [n] "+r"(n)						\
				 : [b] "r"(l->buf), [s] "r"(l->state), [lo] "r"(l->lo),	\
				   [hi] "r"(l->hi), [slo] "r"(l->slo), [shi] "r"(l->shi)	\
				 : XS_CLOBBERS);						\
		t1 = fpl_tsc_end();							\
		return t1 - t0;								\
	}

/*
 * XSAVEOPT after a write that makes a component "modified": throughput,
 * latency (state re-established by XRSTOR each time) and the latency loop
 * without the XSAVEOPT, whose difference removes the set-up.
 */
#define XS_MODIFY(name, modify)								\
	XS_LOOP(name##_tp, ASM_LOAD_RFBM, modify "xsaveopt64 (%[b])\n\t")		\
	XS_LOOP(name##_lat, "", ASM_LOAD_SETUP_RFBM "xrstor64 (%[b])\n\t" modify		\
		ASM_LOAD_RFBM "xsaveopt64 (%[b])\n\t")					\
	XS_LOOP(name##_lat0, "", ASM_LOAD_SETUP_RFBM "xrstor64 (%[b])\n\t" modify ASM_LOAD_RFBM)

#endif
