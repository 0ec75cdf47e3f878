// SPDX-License-Identifier: GPL-3.0-or-later
/* The ChaCha20 implementation table, feature predicates and the checked entry point. */
#include <errno.h>
#include <string.h>

#include "fpulab/chacha20.h"
#include "fpulab/xstate.h"
#include "kernels/chacha20_internal.h"
#include "kernels/feat.h"

static bool has_avx2(const struct fpl_cpu *cpu, const char **why)
{
	return fpl_kernel_need(cpu, FPL_FEAT_AVX2, why,
			       "needs AVX2 with YMM state enabled in XCR0") &&
	       fpl_kernel_need(cpu, FPL_FEAT_FMA, why, "needs FMA");
}

/* the avx512 file is built with -mavx2 -mfma as well */
static bool has_avx512(const struct fpl_cpu *cpu, const char **why)
{
	return fpl_kernel_has_avx512(cpu, why) && has_avx2(cpu, why);
}

static const struct fpl_chacha20_impl impls[] = {
	{ "scalar", "C", "one block, 16 general registers", 1, 0, fpl_kernel_always,
	  fpl_chacha20_xor_scalar },
	{ "sse", "SSE2", "a row per xmm, two blocks in flight", 2, FPL_XFEATURE_MASK_SSE,
	  fpl_kernel_has_sse2, fpl_chacha20_xor_sse },
	{ "avx2", "AVX2", "a row per 128-bit lane, 2 blocks per ymm, four in flight", 4,
	  FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM, has_avx2, fpl_chacha20_xor_avx2 },
	{ "avx512", "AVX-512F", "a row per 128-bit lane, 4 blocks per zmm, eight in flight", 8,
	  FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_ZMM_Hi256,
	  has_avx512, fpl_chacha20_xor_avx512 },
};

const struct fpl_chacha20_impl *fpl_chacha20_impls(size_t *n)
{
	if (n)
		*n = FPL_ARRAY_SIZE(impls);
	return impls;
}

const struct fpl_chacha20_impl *fpl_chacha20_find(const char *name)
{
	for (size_t i = 0; name && i < FPL_ARRAY_SIZE(impls); i++)
		if (!strcmp(impls[i].name, name))
			return &impls[i];
	return NULL;
}

int fpl_chacha20_xor(const struct fpl_chacha20_impl *impl, const struct fpl_cpu *cpu,
		     const uint8_t key[FPL_CHACHA20_KEY_SIZE], uint32_t counter,
		     const uint8_t nonce[FPL_CHACHA20_NONCE_SIZE], uint8_t *dst, const uint8_t *src,
		     size_t len)
{
	uint32_t state[16];

	if (!impl || !key || !nonce || (len && (!dst || !src)))
		return -EINVAL;
	if (cpu && !impl->supported(cpu, NULL))
		return -ENOTSUP;
	fpl_chacha20_init(state, key, counter, nonce);
	impl->xor_stream(state, dst, src, len);
	return 0;
}
