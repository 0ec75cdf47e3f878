// SPDX-License-Identifier: GPL-3.0-or-later
/* Overwrite XMM0-15 in one asm block (SSE2 only). */
#include "clobber.h"

void fpl_clobber_sse(const uint8_t *v)
{
	__asm__ volatile("movdqu 0x00(%0), %%xmm0\n\t"  "movdqu 0x10(%0), %%xmm1\n\t"
			 "movdqu 0x20(%0), %%xmm2\n\t"  "movdqu 0x30(%0), %%xmm3\n\t"
			 "movdqu 0x40(%0), %%xmm4\n\t"  "movdqu 0x50(%0), %%xmm5\n\t"
			 "movdqu 0x60(%0), %%xmm6\n\t"  "movdqu 0x70(%0), %%xmm7\n\t"
			 "movdqu 0x80(%0), %%xmm8\n\t"  "movdqu 0x90(%0), %%xmm9\n\t"
			 "movdqu 0xa0(%0), %%xmm10\n\t" "movdqu 0xb0(%0), %%xmm11\n\t"
			 "movdqu 0xc0(%0), %%xmm12\n\t" "movdqu 0xd0(%0), %%xmm13\n\t"
			 "movdqu 0xe0(%0), %%xmm14\n\t" "movdqu 0xf0(%0), %%xmm15\n\t"
			 : : "r"(v), "m"(*(const uint8_t (*)[256])v)
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
