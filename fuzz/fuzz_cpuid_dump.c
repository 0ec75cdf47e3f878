// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the CPUID dump reader (fpulab's own format and AIDA64's) and what uses a snapshot. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fpulab/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fpl_cpu cpu;
	struct fpl_diag diag = { "" };
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!fpl_cpu_load_stream(&cpu, f, "fuzz", &diag)) {
		/* A loaded snapshot must be usable: every predicate and the component sets. */
		for (int i = 0; i < FPL_FEAT_NR; i++)
			(void)fpl_cpu_has(&cpu, i);
		(void)fpl_cpu_xfeatures_user(&cpu);
		(void)fpl_cpu_xfeatures_supervisor(&cpu);
		if (!cpu.nleaves)
			abort();
	} else if (!diag.msg[0]) {
		abort();	/* a rejected dump must say why */
	}
	fclose(f);
	return 0;
}
