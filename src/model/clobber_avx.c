// SPDX-License-Identifier: GPL-3.0-or-later
/* Overwrite YMM0-15 (whole registers) in one asm block. */
#include "clobber.h"

void fpl_clobber_avx(const uint8_t *v)
{
	__asm__ volatile("vmovdqu 0x000(%0), %%ymm0\n\t"  "vmovdqu 0x020(%0), %%ymm1\n\t"
			 "vmovdqu 0x040(%0), %%ymm2\n\t"  "vmovdqu 0x060(%0), %%ymm3\n\t"
			 "vmovdqu 0x080(%0), %%ymm4\n\t"  "vmovdqu 0x0a0(%0), %%ymm5\n\t"
			 "vmovdqu 0x0c0(%0), %%ymm6\n\t"  "vmovdqu 0x0e0(%0), %%ymm7\n\t"
			 "vmovdqu 0x100(%0), %%ymm8\n\t"  "vmovdqu 0x120(%0), %%ymm9\n\t"
			 "vmovdqu 0x140(%0), %%ymm10\n\t" "vmovdqu 0x160(%0), %%ymm11\n\t"
			 "vmovdqu 0x180(%0), %%ymm12\n\t" "vmovdqu 0x1a0(%0), %%ymm13\n\t"
			 "vmovdqu 0x1c0(%0), %%ymm14\n\t" "vmovdqu 0x1e0(%0), %%ymm15\n\t"
			 : : "r"(v), "m"(*(const uint8_t (*)[512])v)
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
