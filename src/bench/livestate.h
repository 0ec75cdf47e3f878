/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Live register states for the kernel-facing benchmarks: one XRSTOR puts a task's state in place. */
#ifndef FPULAB_BENCH_LIVESTATE_H
#define FPULAB_BENCH_LIVESTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/xstate.h"

#define FPL_LIVE_MAX	2

/*
 * A task's whole user state, exactly: for state i, XRSTOR with RFBM = rfbm
 * (every user component of XCR0 that a task may load freely: not PKRU, AMX
 * or APX) from an image whose XSTATE_BV is mask[i]. Components in mask[i]
 * get fpl_xstate_pattern()'s values, every other one goes to init, and
 * every state costs one XRSTOR of the same RFBM, so that an A/B comparison
 * differs only in what is live (MXCSR keeps every exception masked).
 */
struct fpl_live {
	struct fpl_xstate xs;
	uint64_t rfbm;
	uint64_t mask[FPL_LIVE_MAX];
	void *img[FPL_LIVE_MAX];
	unsigned n;
	bool xinuse;		/* XGETBV(1) available: the state can be verified */
	/*
	 * A state has AMX tile components: permission was asked (before any
	 * sigaltstack), rfbm has TILECFG|TILEDATA, and this task did its first
	 * tile use in fpl_live_init(). Every other task that loads these
	 * states (a forked child, a new thread: XFD is armed again there)
	 * calls fpl_live_first_use() before anything is timed.
	 */
	bool amx;
	uint64_t perm_before, perm_after;	/* ARCH_GET_XCOMP_PERM around the request */
};

/*
 * Parse "none" (no state set: nstates 0), "init" (all init, still one
 * XRSTOR) or a component mask (fpl_xstate_parse_mask). AMX (tilecfg,
 * tiledata, amx) is offered where the CPU and OS have it: naming it implies asking
 * for permission in fpl_live_init(). -EINVAL with diag, -ENOTSUP with diag
 * for a component this CPU or OS cannot make live here ("no AMX on this CPU").
 */
int fpl_live_parse(const struct fpl_xstate *xs, const char *s, bool *none, uint64_t *mask,
		   struct fpl_diag *diag);
/* The components a state may name here: XCR0 minus PKRU and APX, AMX only where usable. */
uint64_t fpl_live_offered(const struct fpl_xstate *xs);
/*
 * This task's first tile-data use (fpl_amx_first_use(): the XFD trap, tiles
 * released after) when l has tile state; 0 otherwise. -errno with diag.
 */
int fpl_live_first_use(const struct fpl_live *l, struct fpl_diag *diag);

/* Prepare n images (n <= FPL_LIVE_MAX). -ENOTSUP without XSAVE; -ENOMEM. */
int fpl_live_init(struct fpl_live *l, const struct fpl_cpu *cpu, const uint64_t *masks,
		  unsigned n, struct fpl_diag *diag);
void fpl_live_free(struct fpl_live *l);

/* No libc, no vector code: safe right before a raw system call. */
static inline void fpl_live_set(const struct fpl_live *l, unsigned i)
{
	fpl_xrstor64(l->img[i], l->rfbm);
}

/*
 * Components outside the claimed state that showed up in use (and_seen:
 * in every check, or_seen: in any). XINUSE, and so the XSTATE_BV that
 * XSAVE writes, may read 1 for a component in its init configuration
 * (SDM vol. 1, 13.6): an Intel guest reports SSE after every context
 * switch, a Zen 4 guest YMM in some signal frames after AVX-512 was set
 * up. Only a component other than x87 and SSE in use at every check means
 * the set-up left the wrong state; the rest is an observation, not a failure.
 */
bool fpl_live_extra_ok(uint64_t and_seen, uint64_t others);
/* observed[key] = "0x4 (AVX) some of the time" when any of others was seen. */
struct fpl_run;
void fpl_live_obs_extra(struct fpl_run *run, const char *key, uint64_t and_seen,
			uint64_t or_seen, uint64_t others);

/*
 * A state that did not match, in words: "; set up but found in init: AVX
 * (0x4); in use though not set up: AVX-512 opmask (0x20)" (either part only
 * when its mask is not 0; "" when both are 0). Returns buf.
 */
const char *fpl_live_diff_words(uint64_t missing, uint64_t extra, char *buf, size_t n);

/* "0xe7" or "init"; buf of 24 bytes at least. */
const char *fpl_live_mask_str(uint64_t mask, char *buf, unsigned len);

#endif
