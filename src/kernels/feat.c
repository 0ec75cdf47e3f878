// SPDX-License-Identifier: GPL-3.0-or-later
/* Feature predicates shared by the kernel tables: one reason string per missing feature. */
#include "kernels/feat.h"

bool fpl_kernel_always(const struct fpl_cpu *cpu, const char **why)
{
	return true;
}

bool fpl_kernel_need(const struct fpl_cpu *cpu, enum fpl_feature f, const char **why,
		     const char *msg)
{
	if (cpu && fpl_cpu_has(cpu, f))
		return true;
	if (why)
		*why = msg;
	return false;
}

bool fpl_kernel_has_sse2(const struct fpl_cpu *cpu, const char **why)
{
	return fpl_kernel_need(cpu, FPL_FEAT_SSE2, why, "needs SSE2");
}

/* each file may use whatever its build flags allow (see the Makefile's ISA_*) */
bool fpl_kernel_has_avx512(const struct fpl_cpu *cpu, const char **why)
{
	return fpl_kernel_need(cpu, FPL_FEAT_AVX512F, why,
			       "needs AVX-512F with ZMM state enabled in XCR0") &&
	       fpl_kernel_need(cpu, FPL_FEAT_AVX512BW, why, "needs AVX-512BW") &&
	       fpl_kernel_need(cpu, FPL_FEAT_AVX512VL, why, "needs AVX-512VL") &&
	       fpl_kernel_need(cpu, FPL_FEAT_AVX512DQ, why, "needs AVX-512DQ");
}
