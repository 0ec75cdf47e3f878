// SPDX-License-Identifier: GPL-3.0-or-later
/* The work the section experiment wraps: the kernels' xor templates and ChaCha20, one row per implementation. */
#include <pthread.h>
#include <string.h>

#include "fpulab/chacha20.h"
#include "section_work.h"
#include "fpulab/xor.h"

#define MAX_WORKS 32

static struct fpl_section_work works[MAX_WORKS];
static size_t nworks;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint32_t chacha_state[16];

/* dest ^= src with the template's do_2, as RAID does it. */
static void xor_fn(const struct fpl_section_work *w, uint8_t *dst, const uint8_t *src,
		   size_t len, uint64_t pos)
{
	const struct fpl_xor_impl *x = w->impl_data;

	x->do_2(len, (uint64_t *)(void *)dst, (const uint64_t *)(const void *)src);
}

static bool xor_supported(const struct fpl_section_work *w, const struct fpl_cpu *cpu,
			  const char **why)
{
	return ((const struct fpl_xor_impl *)w->impl_data)->supported(cpu, why);
}

/* dst = src ^ keystream, the block counter following the position in the stream. */
static void chacha_fn(const struct fpl_section_work *w, uint8_t *dst, const uint8_t *src,
		      size_t len, uint64_t pos)
{
	const struct fpl_chacha20_impl *x = w->impl_data;
	uint32_t st[16];

	memcpy(st, chacha_state, sizeof(st));
	st[12] = (uint32_t)(pos / FPL_CHACHA20_BLOCK_SIZE);
	x->xor_stream(st, dst, src, len);
}

static bool chacha_supported(const struct fpl_section_work *w, const struct fpl_cpu *cpu,
			     const char **why)
{
	return ((const struct fpl_chacha20_impl *)w->impl_data)->supported(cpu, why);
}

static void build(void)
{
	static const uint8_t key[FPL_CHACHA20_KEY_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t nonce[FPL_CHACHA20_NONCE_SIZE] = { 9, 10, 11 };
	size_t nx, nc;
	const struct fpl_xor_impl *x = fpl_xor_impls(&nx);
	const struct fpl_chacha20_impl *c = fpl_chacha20_impls(&nc);

	fpl_chacha20_init(chacha_state, key, 0, nonce);
	for (size_t i = 0; i < nx && nworks < MAX_WORKS; i++)
		works[nworks++] = (struct fpl_section_work){
			.workload = "xor", .impl = x[i].name, .isa = x[i].isa,
			.unit = FPL_XOR_LINE, .xfeatures = x[i].xfeatures,
			.supported = xor_supported, .fn = xor_fn, .impl_data = &x[i],
		};
	for (size_t i = 0; i < nc && nworks < MAX_WORKS; i++)
		works[nworks++] = (struct fpl_section_work){
			.workload = "chacha20", .impl = c[i].name, .isa = c[i].isa,
			.unit = FPL_CHACHA20_BLOCK_SIZE, .xfeatures = c[i].xfeatures,
			.supported = chacha_supported, .fn = chacha_fn, .impl_data = &c[i],
		};
}

const struct fpl_section_work *fpl_section_works(size_t *n)
{
	pthread_once(&once, build);
	*n = nworks;
	return works;
}
