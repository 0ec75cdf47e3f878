// SPDX-License-Identifier: GPL-3.0-or-later
/* The FXSAVE/XSAVE-family instructions as functions, and the run-time choice of XRSTOR. */
#include <cpuid.h>

#include "fpulab/xstate.h"
#include "xstate_internal.h"

/*
 * The buffer goes in as a memory operand so the address is formed by the
 * compiler; "memory" covers the rest of the image, whose size gcc cannot know.
 */
#define XSAVE_INSN(insn, buf, rfbm)						\
	__asm__ volatile(insn " %0"						\
			 : "=m"(*(char *)(buf))					\
			 : "a"((uint32_t)(rfbm)), "d"((uint32_t)((rfbm) >> 32))	\
			 : "memory")

void fpl_fxsave64(void *buf)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*(char *)buf) : : "memory");
}

void fpl_fxrstor64(const void *buf)
{
	__asm__ volatile("fxrstor64 %0"
			 :
			 : "m"(*(const char *)buf)
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
			   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			   "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
			   "st(7)", "fpsr");
}

void fpl_xsave64(void *buf, uint64_t rfbm)
{
	XSAVE_INSN("xsave64", buf, rfbm);
}

void fpl_xsaveopt64(void *buf, uint64_t rfbm)
{
	XSAVE_INSN("xsaveopt64", buf, rfbm);
}

void fpl_xsavec64(void *buf, uint64_t rfbm)
{
	XSAVE_INSN("xsavec64", buf, rfbm);
}

void fpl_xrstor64_base(const void *buf, uint64_t rfbm)
{
	__asm__ volatile("xrstor64 %0"
			 :
			 : "m"(*(const char *)buf), "a"((uint32_t)rfbm),
			   "d"((uint32_t)(rfbm >> 32))
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
			   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			   "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
			   "st(7)", "fpsr");
}

typedef void (*xrstor_fn)(const void *, uint64_t);

/* AVX-512 state enabled by the OS: CPUID.7.0:EBX.AVX512F, OSXSAVE and XCR0[7:5]. */
static xrstor_fn pick_xrstor(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 16)) &&
	    __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) &&
	    (fpl_xgetbv(0) & 0xe0) == 0xe0)
		return fpl_xrstor64_avx512;
	return fpl_xrstor64_base;
}

void fpl_xrstor64(const void *buf, uint64_t rfbm)
{
	/* CPUID traps to the hypervisor in a VM: decide once. */
	static xrstor_fn fn;
	xrstor_fn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);

	if (!f) {
		f = pick_xrstor();
		__atomic_store_n(&fn, f, __ATOMIC_RELAXED);
	}
	f(buf, rfbm);
}

void fpl_xstate_save(enum fpl_save_insn insn, void *buf, uint64_t rfbm)
{
	switch (insn) {
	case FPL_INSN_FXSAVE:
		fpl_fxsave64(buf);
		break;
	case FPL_INSN_XSAVE:
		fpl_xsave64(buf, rfbm);
		break;
	case FPL_INSN_XSAVEOPT:
		fpl_xsaveopt64(buf, rfbm);
		break;
	case FPL_INSN_XSAVEC:
		fpl_xsavec64(buf, rfbm);
		break;
	default:
		/* XSAVES faults in ring 3: never executed. */
		break;
	}
}

void fpl_xstate_restore(enum fpl_save_insn insn, const void *buf, uint64_t rfbm)
{
	if (insn == FPL_INSN_FXSAVE)
		fpl_fxrstor64(buf);
	else if (insn != FPL_INSN_XSAVES)
		fpl_xrstor64(buf, rfbm);
}
