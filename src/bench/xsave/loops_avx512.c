// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: XSAVEOPT after a write to an AVX-512 component. Run only with AVX-512 state enabled. */
#include "internal.h"

/* Built with AVX-512: gcc may keep values in k registers, so the restores name them all. */
#define XS_CLOBBERS "memory", "cc", "rax", "rdx", \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
	"xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", \
	"xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", \
	"xmm28", "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", \
	"st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "fpsr"

#define XS_LOOP(fname, pre, body) XS_LOOP_DEF(static, fname, pre, body)


/* Writes that are not zero idioms: a zero idiom would return the component to init. */
XS_MODIFY(mod_opmask, "korw %%k1, %%k2, %%k2\n\t")
XS_MODIFY(mod_zmm_hi256, "vpord %%zmm1, %%zmm0, %%zmm0\n\t")
XS_MODIFY(mod_hi16_zmm, "vpord %%zmm17, %%zmm16, %%zmm16\n\t")

const struct fpl_xs_modify fpl_xs_modify_avx512[3] = {
	{ mod_opmask_tp, mod_opmask_lat, mod_opmask_lat0, NULL },
	{ mod_zmm_hi256_tp, mod_zmm_hi256_lat, mod_zmm_hi256_lat0, NULL },
	{ mod_hi16_zmm_tp, mod_hi16_zmm_lat, mod_hi16_zmm_lat0, NULL },
};
