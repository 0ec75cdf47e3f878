/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helper: does a SIMD routine return with YMM and ZMM_Hi256 in init, as the kernel's do? */
#ifndef FPL_TESTS_UPPER_H
#define FPL_TESTS_UPPER_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

#define UPPER_MASK (FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_ZMM_Hi256)

/*
 * Skip the test with a message when XINUSE cannot tell here: it needs
 * XGETBV(1), and XINUSE must follow YMM (made live by XRSTOR, then seen in
 * use), or a clean exit would prove nothing. Fills *xs.
 */
static inline void upper_usable_or_skip(const struct fpl_cpu *cpu, struct fpl_xstate *xs)
{
	const char *why = NULL;
	uint64_t in = 0;

	if (!fpl_cpu_has(cpu, FPL_FEAT_XGETBV1) || !fpl_cpu_has(cpu, FPL_FEAT_OSXSAVE))
		why = "no XGETBV(1) here";
	else if (!fpl_cpu_has(cpu, FPL_FEAT_AVX) || fpl_xstate_init(xs, cpu) ||
		 !(xs->xcr0 & FPL_XFEATURE_MASK_YMM))
		why = "no AVX with YMM state in XCR0 here";
	else if (fpl_regs_set(xs, FPL_XFEATURE_MASK_FPSSE | FPL_XFEATURE_MASK_YMM, 7) ||
		 !fpl_xinuse(cpu, &in) || !(in & FPL_XFEATURE_MASK_YMM))
		why = "XINUSE does not show YMM in use after loading it";
	if (why) {
		print_message("skipped: %s\n", why);
		skip();
	}
}

/*
 * The upper state is made dirty (all of YMM and, where present, ZMM_Hi256),
 * call() runs the routine, and XINUSE is read straight after it: no libc
 * call in between. Returns the XINUSE bits of UPPER_MASK still set after
 * each of up to three such calls: a routine that leaves its upper state
 * dirty does so every time, while a preemption's restore may make XINUSE
 * read 1 for an init component now and then on these guests (SDM vol. 1
 * 13.6; fpl_live_extra_ok), which one call alone would take for the bug.
 */
static inline uint64_t upper_after(const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
				   void (*call)(void *), void *arg)
{
	uint64_t left = UPPER_MASK;

	for (int i = 0; i < 3 && left; i++) {
		uint64_t in = ~0ull;

		fpl_regs_set(xs, xs->xcr0 & (FPL_XFEATURE_MASK_FPSSE | UPPER_MASK), 11);
		call(arg);
		if (!fpl_xinuse(cpu, &in))
			fail_msg("XGETBV(1) went away");
		left &= in;
	}
	return left;
}

#endif
