// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A live signal frame's software bytes, for signal handlers: a leaf that
 * calls nothing, so that xstate's mask probe and the signal benchmark can
 * use it without a cycle through the image decoder.
 */
#include <stdint.h>

#include "fpulab/image.h"

/* Little-endian, a byte at a time: no memcpy (sanitizers intercept it with deep stacks). */
static uint64_t live_rd(const volatile uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

void fpl_image_sw_live(const void *fpstate, struct fpl_image_sw *sw)
{
	const volatile uint8_t *fp = fpstate, *b = fp + FPL_SW_BYTES_OFFSET;

	sw->magic1 = (uint32_t)live_rd(b, 4);
	sw->extended_size = (uint32_t)live_rd(b + 4, 4);
	sw->xfeatures = live_rd(b + 8, 8);
	sw->xstate_size = (uint32_t)live_rd(b + 16, 4);
	sw->magic2_found = sw->magic1 == FPL_FP_XSTATE_MAGIC1 &&
			   sw->xstate_size >= FPL_XSAVE_LEGACY_SIZE + FPL_XSAVE_HDR_SIZE &&
			   (uint32_t)live_rd(fp + sw->xstate_size, 4) == FPL_FP_XSTATE_MAGIC2;
	sw->valid = false;
}
