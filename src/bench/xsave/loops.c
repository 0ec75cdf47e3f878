// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: timed loops for the XSAVE family and its neighbours, each one asm block. */
#include "fpulab/amx.h"
#include "internal.h"

/*
 * Every restore may change any vector, opmask or x87 register. In a baseline
 * file gcc refuses xmm16-31 and k0-k7 as clobbers, and cannot use them
 * either; callers are safe because these functions are never inlined and
 * the ABI makes every vector and opmask register caller-saved.
 */
#define XS_CLOBBERS "memory", "cc", "rax", "rdx", \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
	"xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
	"st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "fpsr"

#define REEST	ASM_LOAD_SETUP_RFBM "xrstor64 (%[s])\n\t" ASM_LOAD_RFBM

#define XS_LOOP(fname, pre, body) XS_LOOP_DEF(__attribute__((noinline)), fname, pre, body)

XS_LOOP(fpl_xs_fxsave_tp, "", "fxsave64 (%[b])\n\t")
XS_LOOP(fpl_xs_fxsave_lat, "", REEST "fxsave64 (%[b])\n\t")
XS_LOOP(fpl_xs_fxrstor_tp, "", "fxrstor64 (%[b])\n\t")
XS_LOOP(fpl_xs_fxrstor_lat, "", REEST "fxrstor64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsave_tp, ASM_LOAD_RFBM, "xsave64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsave_lat, "", REEST "xsave64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsaveopt_tp, ASM_LOAD_RFBM, "xsaveopt64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsaveopt_lat, "", REEST "xsaveopt64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsavec_tp, ASM_LOAD_RFBM, "xsavec64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsavec_lat, "", REEST "xsavec64 (%[b])\n\t")
XS_LOOP(fpl_xs_xrstor_tp, ASM_LOAD_RFBM, "xrstor64 (%[b])\n\t")
XS_LOOP(fpl_xs_xrstor_lat, "", REEST "xrstor64 (%[b])\n\t")
/* The re-establishing XRSTOR alone, with the same register moves. */
XS_LOOP(fpl_xs_reest_only, "", REEST)
/* Restore from the save target itself: what XSAVEOPT's modified optimisation tracks. */
XS_LOOP(fpl_xs_xsaveopt_unmod_lat, "",
	ASM_LOAD_SETUP_RFBM "xrstor64 (%[b])\n\t" ASM_LOAD_RFBM "xsaveopt64 (%[b])\n\t")
XS_LOOP(fpl_xs_xsaveopt_unmod_lat0, "", ASM_LOAD_SETUP_RFBM "xrstor64 (%[b])\n\t" ASM_LOAD_RFBM)

const fpl_xs_loop_fn fpl_xs_tp[XS_OP_NR] = {
	[XS_FXSAVE] = fpl_xs_fxsave_tp, [XS_FXRSTOR] = fpl_xs_fxrstor_tp, [XS_XSAVE] = fpl_xs_xsave_tp,
	[XS_XSAVEOPT] = fpl_xs_xsaveopt_tp, [XS_XSAVEC] = fpl_xs_xsavec_tp, [XS_XRSTOR] = fpl_xs_xrstor_tp,
	[XS_XRSTOR_C] = fpl_xs_xrstor_tp,
};
const fpl_xs_loop_fn fpl_xs_lat[XS_OP_NR] = {
	[XS_FXSAVE] = fpl_xs_fxsave_lat, [XS_FXRSTOR] = fpl_xs_fxrstor_lat, [XS_XSAVE] = fpl_xs_xsave_lat,
	[XS_XSAVEOPT] = fpl_xs_xsaveopt_lat, [XS_XSAVEC] = fpl_xs_xsavec_lat, [XS_XRSTOR] = fpl_xs_xrstor_lat,
	[XS_XRSTOR_C] = fpl_xs_xrstor_lat,
};
const fpl_xs_loop_fn fpl_xs_lat0[XS_OP_NR] = {
	[XS_FXSAVE] = fpl_xs_reest_only, [XS_FXRSTOR] = fpl_xs_reest_only, [XS_XSAVE] = fpl_xs_reest_only,
	[XS_XSAVEOPT] = fpl_xs_reest_only, [XS_XSAVEC] = fpl_xs_reest_only, [XS_XRSTOR] = fpl_xs_reest_only,
	[XS_XRSTOR_C] = fpl_xs_reest_only,
};

/*
 * XSAVEOPT after a write to one register of a component, with the last
 * XRSTOR from the save target (set up before timing, and in the latency
 * body), so the write is what makes the component "modified".
 */

/* TOP moves and comes back: the x87 status word is written, the stack is unchanged. */
XS_MODIFY(fpl_xs_mod_x87, "fincstp\n\tfdecstp\n\t")
/* xmm0 |= xmm1: a write that is not a zero idiom (those return SSE to init on Zen 4). */
XS_MODIFY(fpl_xs_mod_sse, "por %%xmm1, %%xmm0\n\t")

const struct fpl_xs_modify fpl_xs_modify_base[2] = {
	{ fpl_xs_mod_x87_tp, fpl_xs_mod_x87_lat, fpl_xs_mod_x87_lat0, NULL },
	{ fpl_xs_mod_sse_tp, fpl_xs_mod_sse_lat, fpl_xs_mod_sse_lat0, NULL },
};

__attribute__((noinline)) uint64_t fpl_xs_establish(const void *img, uint64_t permitted, bool xsave, bool xgetbv1)
{
	uint32_t lo, hi;

	if (xsave)
		__asm__ volatile("xrstor64 (%[s])"
				 :
				 : [s] "r"(img), "a"((uint32_t)permitted), "d"((uint32_t)(permitted >> 32))
				 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
				   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
				   "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
				   "st(5)", "st(6)", "st(7)", "fpsr");
	else
		__asm__ volatile("fxrstor64 (%[s])"
				 :
				 : [s] "r"(img)
				 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
				   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
				   "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
				   "st(5)", "st(6)", "st(7)", "fpsr");
	if (!xgetbv1)
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return ((uint64_t)hi << 32) | lo;
}

#define MISC_LOOP(body, clob...)							\
	do {										\
		t0 = fpl_tsc_begin();							\
		__asm__ volatile("1:\n\t" body "dec %[n]\n\tjnz 1b"			\
				 : [n] "+r"(n) : [b] "r"(buf) : "memory", "cc", ##clob);	\
		t1 = fpl_tsc_end();							\
	} while (0)

uint64_t fpl_xs_misc_loop(enum fpl_xs_misc m, void *buf, uint64_t reps)
{
	uint64_t n = reps, t0 = 0, t1 = 0;

	if (!n)
		return 0;
	switch (m) {
	case XS_LDMXCSR_SAME:
		MISC_LOOP("ldmxcsr (%[b])\n\t");
		break;
	case XS_LDMXCSR_ALT:
		/* Ends on the first value, the default. */
		MISC_LOOP("ldmxcsr 4(%[b])\n\tldmxcsr (%[b])\n\t");
		break;
	case XS_STMXCSR:
		MISC_LOOP("stmxcsr 8(%[b])\n\t");
		break;
	case XS_STLDMXCSR:
		/* The load reads what the store just wrote (store forwarding). */
		MISC_LOOP("stmxcsr 8(%[b])\n\tldmxcsr 8(%[b])\n\t");
		break;
	case XS_FNINIT:
		MISC_LOOP("fninit\n\t", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)",
			  "st(6)", "st(7)", "fpsr");
		break;
	case XS_XGETBV0:
		MISC_LOOP("xor %%ecx, %%ecx\n\txgetbv\n\t", "rax", "rcx", "rdx");
		break;
	case XS_XGETBV1:
		MISC_LOOP("mov $1, %%ecx\n\txgetbv\n\t", "rax", "rcx", "rdx");
		break;
	case XS_VZEROUPPER:
		return fpl_xs_vzeroupper_tp(buf, reps);
	case XS_VZEROALL:
		return fpl_xs_vzeroall_tp(buf, reps);
	case XS_VZEROUPPER_DIRTY:
		return fpl_xs_vzeroupper_dirty(buf, reps);
	default:
		return 0;
	}
	return t1 - t0;
}

void fpl_xs_cell_check(struct fpl_xs_cell *c, uint64_t x)
{
	uint64_t extra = x & c->permitted & ~c->expect;

	c->xinuse_seen = x;
	c->checks++;
	if ((x & c->permitted) == c->expect)
		return;
	c->bad_extra_all = c->bad ? c->bad_extra_all & extra : extra;
	c->bad++;
	c->bad_last = x & c->permitted;
	c->bad_extra |= extra;
	c->bad_missing |= c->expect & ~x;
}

uint64_t fpl_xs_cell_timed(void *arg, uint64_t reps)
{
	struct fpl_xs_cell *c = arg;
	uint64_t x = fpl_xs_establish(c->setup_img, c->permitted, c->xsave,
				      c->xgetbv1 && !c->release);

	if (c->release) {
		/* Tiles live from the image, then released as a program does. */
		fpl_tilerelease();
		if (c->xgetbv1)
			x = fpl_xgetbv(1);
	}
	if (c->xgetbv1)
		fpl_xs_cell_check(c, x);
	return c->body(&c->loop, reps);
}

uint64_t fpl_xs_cell_empty(void *arg, uint64_t reps)
{
	struct fpl_xs_cell *c = arg;

	fpl_xs_establish(c->setup_img, c->permitted, c->xsave, false);
	if (c->release)
		fpl_tilerelease();
	return c->empty(&c->loop, reps);
}
