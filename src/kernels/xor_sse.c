// SPDX-License-Identifier: GPL-3.0-or-later
/* xor templates with SSE: the kernel's generic_sse and prefetch64-sse shapes, one asm per loop. */
#include "kernels/xor_internal.h"

/*
 * Both shapes do 256 bytes per iteration in four groups of four XMM
 * registers and prefetch 256 bytes ahead with prefetchnta (the kernel wants
 * these to write around L2). generic_sse prefetches every source for a
 * group first, then loads, xors and stores it; prefetch64-sse puts one
 * prefetch in front of each 64-byte run of loads or xors.
 * One asm statement per loop: no vector value lives between statements.
 */
#define S_(x)		#x
#define S(x)		S_(x)
#define LD(x, r)	"movaps 16*(" S(x) ")(%[d]), %%xmm" #r "\n\t"
#define ST(x, r)	"movaps %%xmm" #r ", 16*(" S(x) ")(%[d])\n\t"
#define XO(p, x, r)	"xorps 16*(" S(x) ")(%[" #p "]), %%xmm" #r "\n\t"
#define PF(p, x)	"prefetchnta 256+16*(" S(x) ")(%[" #p "])\n\t"
#define NOPF(p, x)

#define LD4(x)		LD(x, 0) LD((x) + 1, 1) LD((x) + 2, 2) LD((x) + 3, 3)
#define ST4(x)		ST(x, 0) ST((x) + 1, 1) ST((x) + 2, 2) ST((x) + 3, 3)
#define XO4(p, x)	XO(p, x, 0) XO(p, (x) + 1, 1) XO(p, (x) + 2, 2) XO(p, (x) + 3, 3)
#define PF2(p, x)	PF(p, x) PF(p, (x) + 2)

/* Per arity: what each source contributes to a group. */
#define PFS_2(x)	PF2(s1, x)
#define PFS_3(x)	PFS_2(x) PF2(s2, x)
#define PFS_4(x)	PFS_3(x) PF2(s3, x)
#define PFS_5(x)	PFS_4(x) PF2(s4, x)
#define XOS_2(x)	XO4(s1, x)
#define XOS_3(x)	XOS_2(x) XO4(s2, x)
#define XOS_4(x)	XOS_3(x) XO4(s3, x)
#define XOS_5(x)	XOS_4(x) XO4(s4, x)
#define ADD_2		"add $256, %[s1]\n\t"
#define ADD_3		ADD_2 "add $256, %[s2]\n\t"
#define ADD_4		ADD_3 "add $256, %[s3]\n\t"
#define ADD_5		ADD_4 "add $256, %[s4]\n\t"

#define GROUP(n, x)	PFS_##n(x) LD4(x) PF2(d, (x) + 4) XOS_##n(x) ST4(x)

/* prefetch64: each run of four 16-byte accesses led by a prefetch of its stream */
#define P64_XOS_2(x)	PF(s1, x) XO4(s1, x)
#define P64_XOS_3(x)	P64_XOS_2(x) PF(s2, x) XO4(s2, x)
#define P64_XOS_4(x)	P64_XOS_3(x) PF(s3, x) XO4(s3, x)
#define P64_XOS_5(x)	P64_XOS_4(x) PF(s4, x) XO4(s4, x)
#define GROUP64(n, x)	PF(d, x) LD4(x) P64_XOS_##n(x) ST4(x)

#define LOOP(n, G, pre)								\
	asm volatile(pre							\
		     ".p2align 5\n"						\
		     "1:\n\t"							\
		     G(n, 0) G(n, 4) G(n, 8) G(n, 12)				\
		     "add $256, %[d]\n\t"					\
		     ADD_##n							\
		     "dec %[cnt]\n\t"						\
		     "jnz 1b\n\t"						\
		     : [cnt] "+r" (lines), [d] "+r" (d), [s1] "+r" (s1), [s2] "+r" (s2),	\
		       [s3] "+r" (s3), [s4] "+r" (s4)				\
		     :								\
		     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3")

#define FNS(name, G, pre)							\
void name##_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1)	\
{										\
	size_t lines = bytes >> 8;						\
	const uint64_t *s2 = 0, *s3 = 0, *s4 = 0;				\
										\
	if (lines)								\
		LOOP(2, G, pre);						\
}										\
void name##_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
	      const uint64_t *restrict s2)					\
{										\
	size_t lines = bytes >> 8;						\
	const uint64_t *s3 = 0, *s4 = 0;					\
										\
	if (lines)								\
		LOOP(3, G, pre);						\
}										\
void name##_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
	      const uint64_t *restrict s2, const uint64_t *restrict s3)		\
{										\
	size_t lines = bytes >> 8;						\
	const uint64_t *s4 = 0;							\
										\
	if (lines)								\
		LOOP(4, G, pre);						\
}										\
void name##_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,	\
	      const uint64_t *restrict s2, const uint64_t *restrict s3,		\
	      const uint64_t *restrict s4)					\
{										\
	size_t lines = bytes >> 8;						\
										\
	if (lines)								\
		LOOP(5, G, pre);						\
}

/* generic_sse also prefetches the first destination group before the loop. */
FNS(fpl_xor_sse, GROUP, PF2(d, 0))
FNS(fpl_xor_sse_pf64, GROUP64, "")
