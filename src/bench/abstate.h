/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one --state / --ab parser of the host-task benchmarks (ctxsw, signal). */
#ifndef FPULAB_BENCH_ABSTATE_H
#define FPULAB_BENCH_ABSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/xstate.h"

/*
 * What --state STATE or --ab A,B asked for: one state, or two measured in
 * interleaved batches. name[] as measured ("widest" resolved to what it is
 * here: "avx"), mask[] the components made live, none for --state none (no
 * state set at all; never in an A/B). aa: both sides the same (an A/A
 * control).
 */
struct fpl_ab_states {
	bool ab, none, aa;
	unsigned n;
	char name[2][64];
	uint64_t mask[2];
};

/*
 * Parse --state (ab NULL) or --ab: -EINVAL with diag for what no CPU accepts
 * (a bad name, one that is too long, "none" in an A/B, not two states),
 * checked for both sides before -ENOTSUP with diag for a state this CPU
 * lacks; diag names the option. 0 otherwise.
 */
int fpl_ab_states_parse(const struct fpl_xstate *xs, const char *state, const char *ab,
			struct fpl_ab_states *out, struct fpl_diag *diag);

#endif
