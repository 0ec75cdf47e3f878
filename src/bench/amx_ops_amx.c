// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX tile instructions for the benchmarks, one asm statement each; run only after the AMX checks. */
#include "fpulab/clock.h"
#include "amx_ops.h"

/*
 * No -m flag is needed: the assembler knows the mnemonics and the compiler
 * never allocates tile registers itself, so nothing here can be clobbered
 * behind its back.
 */
void fpl_amxb_ldtilecfg(const void *cfg)
{
	__asm__ volatile("ldtilecfg (%0)" : : "r"(cfg) : "memory");
}

void fpl_amxb_tileload0(const void *buf, long stride)
{
	__asm__ volatile("tileloadd (%0,%1,1), %%tmm0" : : "r"(buf), "r"(stride) : "memory");
}

uint64_t fpl_amxb_ldtilecfg_timed(const void *cfg)
{
	uint64_t t0 = fpl_tsc_begin();

	__asm__ volatile("ldtilecfg (%0)" : : "r"(cfg) : "memory");
	return fpl_tsc_end() - t0;
}

uint64_t fpl_amxb_tileload0_timed(const void *buf, long stride)
{
	uint64_t t0 = fpl_tsc_begin();

	__asm__ volatile("tileloadd (%0,%1,1), %%tmm0" : : "r"(buf), "r"(stride) : "memory");
	return fpl_tsc_end() - t0;
}

/* Inline between the fences, as the others: a call to fpl_tilerelease() would be timed too. */
uint64_t fpl_amxb_tilerelease_timed(void)
{
	uint64_t t0 = fpl_tsc_begin();

	__asm__ volatile("tilerelease" : : : "memory");
	return fpl_tsc_end() - t0;
}
