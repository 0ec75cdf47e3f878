// SPDX-License-Identifier: GPL-3.0-or-later
/* The work the section experiment wraps: the kernels' xor templates and ChaCha20, one row per implementation. */
#include <pthread.h>
#include <string.h>

#include "fpulab/fpubench.h"

#define MAX_WORKS 32

static struct fpl_section_work works[MAX_WORKS];
static size_t nworks;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Stand-in until the kernels land: a plain 64-bit xor loop (gcc may vectorise it with SSE2). */
static void plain_xor(const struct fpl_section_work *w, uint8_t *dst, const uint8_t *src,
		      size_t len, uint64_t pos)
{
	uint64_t *d = (uint64_t *)(void *)dst;
	const uint64_t *s = (const uint64_t *)(const void *)src;

	for (size_t i = 0; i < len / 8; i++)
		d[i] ^= s[i];
}

static bool always(const struct fpl_section_work *w, const struct fpl_cpu *cpu, const char **why)
{
	return true;
}

static void build(void)
{
	works[nworks++] = (struct fpl_section_work){
		.workload = "xor", .impl = "plain", .isa = "C", .unit = 64,
		.supported = always, .fn = plain_xor,
	};
}

const struct fpl_section_work *fpl_section_works(size_t *n)
{
	pthread_once(&once, build);
	*n = nworks;
	return works;
}
