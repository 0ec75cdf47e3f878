// SPDX-License-Identifier: GPL-3.0-or-later
/* Register state control: load a recognisable pattern into chosen components, or return them to init. */
#include <errno.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/xstate.h"

/* Offsets in the legacy (FXSAVE) area. */
#define LEG_FCW		0
#define LEG_FSW		2
#define LEG_MXCSR	24
#define LEG_ST0		32
#define LEG_XMM0	160
#define MXCSR_DEFAULT	0x1f80u

/*
 * The image is built here rather than on the stack: under ASan the epilogue
 * of a function with a large frame unpoisons its shadow, possibly with
 * vector stores, after the XRSTOR. Large enough for every layout shipped so
 * far (Sapphire Rapids: 11008 bytes).
 */
#define IMAGE_MAX	16384
static _Thread_local unsigned char image_buf[IMAGE_MAX] __attribute__((aligned(64)));

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill(unsigned char *p, size_t n, uint64_t *s)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = splitmix64(s);

		memcpy(p + i, &v, n - i < 8 ? n - i : 8);
	}
}

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/*
 * x87: the stack stays empty (abridged FTW 0) so compiled code that uses x87
 * (long double) keeps working; the pattern is in TOP, the condition codes and
 * the eight data registers. Control word, exception flags and the last
 * instruction/operand pointers stay at their defaults: AMD saves the pointers
 * only when an exception is pending, and unmasking an exception would fault.
 */
static void pattern_fp(unsigned char *img, uint64_t *s)
{
	uint64_t r = splitmix64(s);

	put16(img + LEG_FCW, 0x037f);
	put16(img + LEG_FSW, (uint16_t)(((1 + r % 7) << 11) | ((r >> 8) & 0x4700)));
	memset(img + 4, 0, LEG_MXCSR - 4);
	for (unsigned i = 0; i < 8; i++) {
		fill(img + LEG_ST0 + 16 * i, 10, s);
		memset(img + LEG_ST0 + 16 * i + 10, 0, 6);
	}
}

/* MXCSR keeps every exception masked and the default rounding; only the sticky flags vary. */
static void pattern_sse(unsigned char *img, uint64_t *s)
{
	put32(img + LEG_MXCSR, MXCSR_DEFAULT | (uint32_t)(splitmix64(s) & 0x3f));
	fill(img + LEG_XMM0, 256, s);
}

/*
 * Tile data: each configured tile's rows x bytes_per_row bytes vary, the
 * rest is zero (what XSAVE writes back for bytes outside the configuration).
 */
static void pattern_tiledata(const struct fpl_xstate *xs, unsigned char *p, uint32_t size,
			     uint64_t *s)
{
	const struct fpl_amx_palette *a = &xs->amx;

	memset(p, 0, size);
	if (!a->valid)
		return;
	for (unsigned t = 0; t < a->max_names; t++)
		for (unsigned r = 0; r < a->max_rows; r++) {
			size_t off = (size_t)t * a->bytes_per_tile + (size_t)r * a->bytes_per_row;

			if (off + a->bytes_per_row <= size)
				fill(p + off, a->bytes_per_row, s);
		}
}

static void pattern_comp(const struct fpl_xstate *xs, unsigned id, unsigned char *img,
			 uint64_t *s)
{
	unsigned char *p = img + xs->comp[id].offset;
	uint32_t size = xs->comp[id].size;

	switch (id) {
	case FPL_XFEATURE_BNDCSR:
		/* BNDCFGU with Enable clear (no bound checks), canonical base; BNDSTATUS. */
		memset(p, 0, size);
		put64(p, splitmix64(s) & 0x00007ffffffff000ull);
		put64(p + 8, (splitmix64(s) & 0x00007ffffffffffcull) | 1);
		break;
	case FPL_XFEATURE_PKRU:
		/* Key 0 (all ordinary memory) stays readable and writable. */
		memset(p, 0, size);
		put32(p, ((uint32_t)splitmix64(s) & ~3u) | 4u);
		break;
	case FPL_XFEATURE_XTILE_CFG:
		/* Only a valid palette-1 configuration: XRSTOR loads anything else as init. */
		fpl_tilecfg_make(&xs->amx, p);
		break;
	case FPL_XFEATURE_XTILE_DATA:
		pattern_tiledata(xs, p, size, s);
		break;
	default:
		fill(p, size, s);
		break;
	}
}

void fpl_xstate_pattern(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed, void *image)
{
	unsigned char *img = image;
	uint64_t s;

	mask &= xs->xsave ? xs->user : FPL_XFEATURE_MASK_FPSSE;
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
		if (!(mask >> id & 1) || !xs->comp[id].enumerated || xs->comp[id].supervisor)
			continue;
		/* Each component's bytes depend on seed and id only, not on the rest of mask. */
		s = seed ^ (0x5851f42d4c957f2dull * (id + 1));
		if (id == FPL_XFEATURE_FP)
			pattern_fp(img, &s);
		else if (id == FPL_XFEATURE_SSE)
			pattern_sse(img, &s);
		else
			pattern_comp(xs, id, img, &s);
	}
	/* XRSTOR loads MXCSR whenever RFBM has SSE or AVX: never leave it 0 (all unmasked). */
	if (!(mask & FPL_XFEATURE_MASK_SSE) && !get32(img + LEG_MXCSR))
		put32(img + LEG_MXCSR, MXCSR_DEFAULT);
	/*
	 * FXRSTOR loads the x87 words whatever XSTATE_BV says: FCW 0 would
	 * unmask every x87 exception for the code after it (a SIGFPE in libgsl's
	 * x87 code once an FXRSTOR-of-init cell ran last). Its init value instead.
	 */
	if (!(mask & FPL_XFEATURE_MASK_FP) && !(img[LEG_FCW] | img[LEG_FCW + 1]))
		put16(img + LEG_FCW, 0x037f);
	if (xs->xsave) {
		put64(img + FPL_XSAVE_HDR_OFFSET, mask & xs->xcr0);
		put64(img + FPL_XSAVE_HDR_OFFSET + 8, 0);
	}
}

static uint32_t read_mxcsr(void)
{
	uint32_t v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

/*
 * What fpl_regs_set may load: permitted components only. XRSTOR of tile
 * data that XFD still arms traps (#NM): with permission the kernel enlarges
 * the task's fpstate (a first use, costly, so never here by accident inside
 * a timed region: callers use fpl_amx_first_use() first); without it the
 * process gets SIGILL, hence -EPERM before any instruction. TILEDATA alone
 * is fine (the hardware accepts it with TILECFG in init); TILECFG needs a
 * palette to be valid. Returning to init needs no permission: XRSTOR with
 * XSTATE_BV clear for an armed component does not fault (METHOD.md).
 */
static int check_mask(const struct fpl_xstate *xs, uint64_t mask, bool loading)
{
	/* A dump describes another CPU: its masks say nothing about this one's registers. */
	if (!xs->live)
		return -EINVAL;
	if (mask & ~fpl_xstate_xcr0(xs))
		return -ENOTSUP;
	if (!loading)
		return 0;
	if ((mask & FPL_XFEATURE_MASK_XTILE) && !xs->amx.valid)
		return -ENOTSUP;
	if ((mask & fpl_xstate_xfd_mask(xs) & FPL_XFEATURE_MASK_XTILE_DATA) &&
	    !fpl_amx_permitted(xs))
		return -EPERM;
	if (mask & fpl_xstate_xfd_mask(xs) & ~FPL_XFEATURE_MASK_XTILE_DATA)
		return -ENOTSUP;	/* an XFD component fpulab does not know how to ask for */
	return 0;
}

/* The AMX components of mask show in XINUSE after a load (an invalid TILECFG would not). */
static int verify_tiles(const struct fpl_xstate *xs, uint64_t mask)
{
	uint64_t want = mask & FPL_XFEATURE_MASK_XTILE;

	if (!want || !xs->xgetbv1)
		return 0;
	return (fpl_xgetbv(1) & want) == want ? 0 : -EIO;
}

/* FXSAVE-format helper: put x87 and/or SSE (as asked) into their init values. */
static void legacy_init(unsigned char *img, uint64_t mask)
{
	if (mask & FPL_XFEATURE_MASK_FP) {
		memset(img, 0, LEG_MXCSR);
		memset(img + LEG_ST0, 0, 128);
		put16(img + LEG_FCW, 0x037f);
	}
	if (mask & FPL_XFEATURE_MASK_SSE) {
		put32(img + LEG_MXCSR, MXCSR_DEFAULT);
		memset(img + LEG_XMM0, 0, 256);
	}
}

/*
 * The image that loads mask's pattern: without XSAVE the FXSAVE image of
 * now (FXRSTOR loads x87 and SSE together: the one not asked for is kept,
 * or put to init when init has it), with XSAVE the standard form with
 * XSTATE_BV = mask and the rest zero.
 */
static int pattern_image(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed,
			 uint64_t init, unsigned char *img)
{
	if (!xs->xsave) {
		fpl_fxsave64(img);
		legacy_init(img, init);
	} else {
		if (xs->size_std_max > IMAGE_MAX)
			return -ENOSPC;
		memset(img, 0, xs->size_std_max);
	}
	fpl_xstate_pattern(xs, mask, seed, img);
	return 0;
}

int fpl_regs_set(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed)
{
	unsigned char *img = image_buf;
	int err = check_mask(xs, mask, true);

	if (err || !mask)
		return err;
	err = pattern_image(xs, mask, seed, 0, img);
	if (err)
		return err;
	if (!xs->xsave) {
		fpl_fxrstor64(img);
		return 0;
	}
	if ((mask & FPL_XFEATURE_MASK_YMM) && !(mask & FPL_XFEATURE_MASK_SSE))
		put32(img + LEG_MXCSR, read_mxcsr());
	fpl_xrstor64(img, mask);
	return verify_tiles(xs, mask);
}

int fpl_regs_init(const struct fpl_xstate *xs, uint64_t mask)
{
	unsigned char *img = image_buf;
	int err = check_mask(xs, mask, false);

	/* Not permitted: never used, so init already; keep it out of RFBM. */
	if (!err && (mask & fpl_xstate_xfd_mask(xs)) && !fpl_amx_permitted(xs))
		mask &= ~fpl_xstate_xfd_mask(xs);
	if (err || !mask)
		return err;
	if (!xs->xsave) {
		fpl_fxsave64(img);
		legacy_init(img, mask);
		fpl_fxrstor64(img);
		return 0;
	}
	/* XSTATE_BV = 0: every component in RFBM goes to init; only MXCSR is read. */
	memset(img, 0, FPL_XSAVE_LEGACY_SIZE + FPL_XSAVE_HDR_SIZE);
	put32(img + LEG_MXCSR, (mask & FPL_XFEATURE_MASK_SSE) ? MXCSR_DEFAULT : read_mxcsr());
	fpl_xrstor64(img, mask);
	return 0;
}

int fpl_regs_set_exact(const struct fpl_xstate *xs, uint64_t mask, uint64_t seed)
{
	unsigned char *img = image_buf;
	/*
	 * Every permitted component: the ones outside mask go to init. TILEDATA
	 * without permission is init already (XFD armed since exec).
	 */
	uint64_t xfd = fpl_xstate_xfd_mask(xs);
	uint64_t rfbm = (fpl_xstate_xcr0(xs) & ~xfd) | mask;
	int err = check_mask(xs, mask, true);

	if (err)
		return err;
	/* Permission once seen is cached: no system call on every set-up. */
	if (xfd && fpl_amx_permitted(xs))
		rfbm |= xfd;
	/* Components outside mask have XSTATE_BV clear: init; MXCSR is then the default. */
	err = pattern_image(xs, mask, seed, FPL_XFEATURE_MASK_FPSSE & ~mask, img);
	if (err)
		return err;
	if (!xs->xsave) {
		fpl_fxrstor64(img);
		return 0;
	}
	fpl_xrstor64(img, rfbm);
	return verify_tiles(xs, mask);
}
