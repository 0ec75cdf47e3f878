// SPDX-License-Identifier: GPL-3.0-or-later
/* Overwrite ZMM0-31 and k0-k7 in one asm block each. */
#include "clobber.h"

#define ZMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
	"xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", \
	"xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"
#define K_CLOBBERS "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"

#define LD(n) "vmovdqu64 " #n "*64(%0), %%zmm" #n "\n\t"

void fpl_clobber_avx512(const uint8_t *v, const uint64_t *k, bool bw)
{
	__asm__ volatile(LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
			 LD(8) LD(9) LD(10) LD(11) LD(12) LD(13) LD(14) LD(15)
			 LD(16) LD(17) LD(18) LD(19) LD(20) LD(21) LD(22) LD(23)
			 LD(24) LD(25) LD(26) LD(27) LD(28) LD(29) LD(30) LD(31)
			 : : "r"(v), "m"(*(const uint8_t (*)[2048])v) : ZMM_CLOBBERS);
	/* k0 cannot be a predicate but kmov writes it like the others. */
	if (bw)
		__asm__ volatile("kmovq 0(%0), %%k0\n\t"  "kmovq 8(%0), %%k1\n\t"
				 "kmovq 16(%0), %%k2\n\t" "kmovq 24(%0), %%k3\n\t"
				 "kmovq 32(%0), %%k4\n\t" "kmovq 40(%0), %%k5\n\t"
				 "kmovq 48(%0), %%k6\n\t" "kmovq 56(%0), %%k7\n\t"
				 : : "r"(k), "m"(*(const uint64_t (*)[8])k) : K_CLOBBERS);
	else
		__asm__ volatile("kmovw 0(%0), %%k0\n\t"  "kmovw 8(%0), %%k1\n\t"
				 "kmovw 16(%0), %%k2\n\t" "kmovw 24(%0), %%k3\n\t"
				 "kmovw 32(%0), %%k4\n\t" "kmovw 40(%0), %%k5\n\t"
				 "kmovw 48(%0), %%k6\n\t" "kmovw 56(%0), %%k7\n\t"
				 : : "r"(k), "m"(*(const uint64_t (*)[8])k) : K_CLOBBERS);
}
