/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Signal frames as the handler sees them, and the alternate stack's lower bound (AT_MINSIGSTKSZ). */
#ifndef FPULAB_SIGFRAME_H
#define FPULAB_SIGFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"

/*
 * One signal frame: the kernel's rt_sigframe (return address, ucontext,
 * siginfo) and the XSAVE image it points to through uc_mcontext.fpregs.
 * The image's software bytes (struct _fpx_sw_bytes, offset 464 of the
 * FXSAVE area) say how large the image is and which features it holds.
 */
struct fpl_sigframe_info {
	bool seen;
	bool xsave;		/* magic1 == FP_XSTATE_MAGIC1: an XSAVE image follows */
	uint32_t magic1;
	bool magic2_ok;		/* FP_XSTATE_MAGIC2 at xstate_size */
	uint32_t extended_size;	/* image plus magic2 */
	uint64_t xfeatures;	/* features the image may hold (XCR0 the kernel used) */
	uint32_t xstate_size;	/* the XSAVE image alone */
	uint64_t frame_bytes;	/* stack used: red zone (own stack only), image, ucontext, siginfo */
	uint64_t fpstate_offset;	/* image start above the frame start */
};

/* AT_MINSIGSTKSZ (getauxval(51)); sysconf or MINSIGSTKSZ where the kernel gives none. */
long fpl_signal_min_altstack(void);
/* 0 for 0 (no alternate stack) or size >= fpl_signal_min_altstack(); -EINVAL with diag otherwise. */
int fpl_signal_check_altstack(long long size, struct fpl_diag *diag);

#endif
