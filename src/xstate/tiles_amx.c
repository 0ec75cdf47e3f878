// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX instructions the library and the benchmarks share: TILERELEASE. Run only after the AMX checks. */
#include "fpulab/amx.h"

/*
 * No -m flag (the Makefile gives none to _amx files): the assembler knows
 * the mnemonic and the compiler never allocates tile registers itself, so
 * nothing here is clobbered behind its back. VEX.128.NP.0F38.W0 49 C0.
 */
void fpl_tilerelease(void)
{
	__asm__ volatile("tilerelease" ::: "memory");
}
