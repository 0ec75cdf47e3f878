// SPDX-License-Identifier: GPL-3.0-or-later
/* XRSTOR for CPUs with AVX-512 state: the only way to tell gcc that xmm16-31 and k0-7 change. */
#include "xstate_internal.h"

/*
 * gcc rejects "xmm16" or "k0" as clobbers unless AVX-512 is enabled for the
 * file, and with AVX-512 enabled it may keep ordinary values in k registers
 * (METHOD.md), so the restore must name them all. Called only after the
 * dispatcher saw AVX-512 state enabled in XCR0.
 */
void fpl_xrstor64_avx512(const void *buf, uint64_t rfbm)
{
	__asm__ volatile("xrstor64 %0"
			 :
			 : "m"(*(const char *)buf), "a"((uint32_t)rfbm),
			   "d"((uint32_t)(rfbm >> 32))
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
			   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			   "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21",
			   "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",
			   "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", "k3", "k4", "k5", "k6",
			   "k7", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
			   "st(7)", "fpsr");
}
