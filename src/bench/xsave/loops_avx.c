// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the AVX loops (VZEROUPPER, VZEROALL, XSAVEOPT after a YMM write). Run only with AVX. */
#include "internal.h"

#define YMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
	"xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

#define AVX_LOOP(fname, body)								\
	uint64_t fname(void *buf, uint64_t reps)					\
	{										\
		uint64_t n = reps, t0, t1;						\
											\
		if (!n)									\
			return 0;							\
		t0 = fpl_tsc_begin();							\
		__asm__ volatile("1:\n\t" body "dec %[n]\n\tjnz 1b"			\
				 : [n] "+r"(n) : [b] "r"(buf) : "memory", "cc", YMM_CLOBBERS); \
		t1 = fpl_tsc_end();							\
		return t1 - t0;								\
	}

AVX_LOOP(fpl_xs_vzeroupper_tp, "vzeroupper\n\t")
AVX_LOOP(fpl_xs_vzeroall_tp, "vzeroall\n\t")
/* All-ones compare: not a zero idiom, so the upper half is really dirty before each VZEROUPPER. */
AVX_LOOP(fpl_xs_vzeroupper_dirty, "vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\tvzeroupper\n\t")
AVX_LOOP(fpl_xs_dirty_ymm, "vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t")

#define XS_CLOBBERS "memory", "cc", "rax", "rdx", YMM_CLOBBERS, \
	"st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "fpsr"

#define XS_LOOP(fname, pre, body) XS_LOOP_DEF(static, fname, pre, body)

#define MOD_YMM "vpor %%ymm1, %%ymm0, %%ymm0\n\t"
XS_MODIFY(mod_ymm, MOD_YMM)

const struct fpl_xs_modify fpl_xs_modify_avx = { mod_ymm_tp, mod_ymm_lat, mod_ymm_lat0, NULL };
