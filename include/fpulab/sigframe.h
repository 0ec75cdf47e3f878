/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Signal frames as the handler sees them, and the alternate stack's lower bound (AT_MINSIGSTKSZ). */
#ifndef FPULAB_SIGFRAME_H
#define FPULAB_SIGFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/xstate.h"

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

/*
 * sigaltstack(2) refuses every ss_size below the kernel's MINSIGSTKSZ
 * (FPL_KERNEL_MINSIGSTKSZ, fpulab/xstate.h) with ENOMEM, even where
 * AT_MINSIGSTKSZ is smaller (1776 on a Zen 3 guest with XCR0 0x7:
 * ../shared/hw/amd-zen3-kvm/sigaltstack-floor.txt).
 */
/* AT_MINSIGSTKSZ (getauxval(51)); sysconf or MINSIGSTKSZ where the kernel gives none. */
long fpl_signal_at_minsigstksz(void);
/*
 * The smallest alternate stack that works: the larger of AT_MINSIGSTKSZ (one
 * signal frame fits) and FPL_KERNEL_MINSIGSTKSZ (sigaltstack takes it).
 * fpl_signal_altstack_floor() is the rule alone, for a given AT_MINSIGSTKSZ.
 */
long fpl_signal_altstack_floor(long at_minsigstksz);
long fpl_signal_min_altstack(void);
/* 0 for 0 (no alternate stack) or size >= the floor; -EINVAL with diag otherwise. */
int fpl_signal_check_altstack(long long size, struct fpl_diag *diag);
int fpl_signal_check_altstack_at(long long size, long at_minsigstksz, struct fpl_diag *diag);

#endif
