// SPDX-License-Identifier: GPL-3.0-or-later
/* Dependent chains of known latency, timed as harness bodies: the clock's ruler and its check. */
#include <stdint.h>

#include "fpulab/clock.h"

/*
 * Each loop is one asm block so the compiler cannot split, hoist or
 * vectorise the chain. The loop counter runs beside the chain: decrement and
 * branch are independent of it and hide under its latency.
 */
uint64_t fpl_chain_add100(void *arg, uint64_t reps)
{
	uint64_t t0, t1, x = 1, n = reps;

	if (!n)
		return 0;
	t0 = fpl_tsc_begin();
	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "add %[one], %[x]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(n)
			 : [one] "r"((uint64_t)1)
			 : "cc");
	t1 = fpl_tsc_end();
	return t1 - t0;
}

uint64_t fpl_chain_imul100(void *arg, uint64_t reps)
{
	uint64_t t0, t1, x = 3, n = reps;

	if (!n)
		return 0;
	t0 = fpl_tsc_begin();
	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "imul %[m], %[x]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(n)
			 : [m] "r"((uint64_t)0x9e3779b97f4a7c15ull)
			 : "cc");
	t1 = fpl_tsc_end();
	return t1 - t0;
}

uint64_t fpl_chain_empty(void *arg, uint64_t reps)
{
	uint64_t t0, t1, n = reps;

	if (!n)
		return 0;
	t0 = fpl_tsc_begin();
	__asm__ volatile("1:\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n)
			 :
			 : "cc");
	t1 = fpl_tsc_end();
	return t1 - t0;
}
