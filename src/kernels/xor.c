// SPDX-License-Identifier: GPL-3.0-or-later
/* The xor implementation table, feature predicates and the checked entry point. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fpulab/xor.h"
#include "fpulab/xstate.h"
#include "kernels/feat.h"
#include "kernels/xor_internal.h"

static bool has_avx(const struct fpl_cpu *cpu, const char **why)
{
	return fpl_kernel_need(cpu, FPL_FEAT_AVX, why, "needs AVX with YMM state enabled in XCR0");
}

#define ROW(n, i, w, sh, xf, sup, p) { .name = n, .isa = i, .width = w, .shape = sh,	\
	.xfeatures = xf, .supported = sup, .do_2 = p##_2, .do_3 = p##_3, .do_4 = p##_4,	\
	.do_5 = p##_5 }

static const struct fpl_xor_impl impls[] = {
	ROW("8regs", "C", 8, "8 words per iteration, each read-xor-write in turn",
	    0, fpl_kernel_always, fpl_xor_8regs),
	ROW("32regs", "C", 8, "8 words per iteration loaded, xored and stored in bursts",
	    0, fpl_kernel_always, fpl_xor_32regs),
	ROW("generic_sse", "SSE2", 16,
	    "256 B per iteration, 4 xmm, prefetchnta +256 B per group",
	    FPL_XFEATURE_MASK_SSE, fpl_kernel_has_sse2, fpl_xor_sse),
	ROW("prefetch64-sse", "SSE2", 16,
	    "256 B per iteration, 4 xmm, prefetchnta +256 B every 64 B",
	    FPL_XFEATURE_MASK_SSE, fpl_kernel_has_sse2, fpl_xor_sse_pf64),
	/* a VEX write zeroes the upper halves too, so YMM state is written */
	ROW("avx", "AVX", 32,
	    "512 B per iteration, 16 ymm blocks, vxorps from memory, no prefetch",
	    FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM, has_avx, fpl_xor_avx),
	ROW("avx512", "AVX-512F", 64,
	    "512 B per iteration, 8 zmm blocks, vpternlogq 0x96",
	    FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_ZMM_Hi256,
	    fpl_kernel_has_avx512, fpl_xor_avx512),
};

const struct fpl_xor_impl *fpl_xor_impls(size_t *n)
{
	if (n)
		*n = FPL_ARRAY_SIZE(impls);
	return impls;
}

const struct fpl_xor_impl *fpl_xor_find(const char *name)
{
	for (size_t i = 0; name && i < FPL_ARRAY_SIZE(impls); i++)
		if (!strcmp(impls[i].name, name))
			return &impls[i];
	return NULL;
}

const struct fpl_xor_impl *fpl_xor_kernel_forced(const struct fpl_cpu *cpu)
{
	if (cpu && fpl_cpu_has(cpu, FPL_FEAT_AVX) && fpl_cpu_has(cpu, FPL_FEAT_OSXSAVE))
		return fpl_xor_find("avx");
	return NULL;
}

int fpl_xor_bound(const struct fpl_cpu *cpu, const struct fpl_xor_impl *impl, unsigned arity,
		  size_t size, struct fpl_xor_bound *b)
{
	struct fpl_cpu_lsu lsu;

	if (!cpu || !impl || !b || arity < 2 || arity > FPL_XOR_MAX_SRCS + 1 ||
	    fpl_cpu_lsu(cpu, impl->width, &lsu))
		return -EINVAL;
	*b = (struct fpl_xor_bound){
		.loads = lsu.loads, .stores = lsu.stores, .width = impl->width, .arity = arity,
		.footprint = (size_t)arity * size, .l1d_bytes = fpl_cpu_l1d_bytes(cpu),
		.core = lsu.core, .source = lsu.source, .known = lsu.known,
	};
	b->bytes_per_cycle = fmin(lsu.loads * impl->width / arity, lsu.stores * impl->width);
	b->fits_l1d = !b->l1d_bytes ? -1 : b->footprint <= b->l1d_bytes;
	return 0;
}

int fpl_xor_check_size(size_t bytes)
{
	return bytes && bytes % FPL_XOR_LINE == 0 ? 0 : -EINVAL;
}

static bool aligned(const void *p)
{
	return p && (uintptr_t)p % FPL_XOR_ALIGN == 0;
}

int fpl_xor_run(const struct fpl_xor_impl *impl, const struct fpl_cpu *cpu, unsigned nsrc,
		size_t bytes, uint64_t *dest, const uint64_t *const *srcs)
{
	if (!impl || nsrc < 1 || nsrc > FPL_XOR_MAX_SRCS || fpl_xor_check_size(bytes) ||
	    !aligned(dest) || !srcs)
		return -EINVAL;
	for (unsigned i = 0; i < nsrc; i++)
		if (!aligned(srcs[i]))
			return -EINVAL;
	if (cpu && !impl->supported(cpu, NULL))
		return -ENOTSUP;
	switch (nsrc) {
	case 1:
		impl->do_2(bytes, dest, srcs[0]);
		break;
	case 2:
		impl->do_3(bytes, dest, srcs[0], srcs[1]);
		break;
	case 3:
		impl->do_4(bytes, dest, srcs[0], srcs[1], srcs[2]);
		break;
	default:
		impl->do_5(bytes, dest, srcs[0], srcs[1], srcs[2], srcs[3]);
		break;
	}
	return 0;
}
