/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The save-path interference reference of the harness (harness.c).
 *
 * On the shared hosts fpulab runs on, microcoded save instructions have a
 * second, slower level that comes and goes with work fpulab cannot see (on
 * an AMD Zen 4 KVM guest FXSAVE64 read 59 TSC ticks or 70-80, XSAVE 135 or
 * 169, in episodes of tens of ms to seconds; an IMUL chain moved 0.6%, so the
 * IMUL sentinel cannot see it). Runs of the xsave matrix then differed by
 * 5-10% per cell. Between the samples of every round the harness times
 * FXSAVE64 into a private buffer (no register changes, every x86-64 CPU);
 * after the rounds, the reference's floor is the lowest median of three
 * consecutive readings, a reading within FPL_INTERF_TOL_PCT of it is quiet,
 * and a sample is kept when the readings on both sides of it are quiet.
 */
#ifndef FPL_BENCH_INTERFERENCE_H
#define FPL_BENCH_INTERFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/harness.h"

#define FPL_INTERF_TOL_PCT	4.0
#define FPL_INTERF_EVERY	8	/* a reading every this many samples in a round */

struct fpl_interf {
	fpl_timed_fn ref;		/* the reference body: cfg->ref or FXSAVE64 */
	uint64_t reps;
	bool rounds;			/* cfg->drop_rounds: whole rounds kept or dropped */
	struct fpl_ref_floor *carried;	/* cfg->ref_floor: NULL, or the floor of earlier calls */
	double carried_tsc;		/* its figure when this call began; 0: none */
	double own_floor;		/* this call's own floor, after fpl_interf_apply */
	double *read;			/* TSC ticks per reference op */
	size_t nread, cap;
	size_t *round0;			/* per round: the index of its first reading */
	size_t nround, rcap;
	double best;			/* lowest reading so far (the running floor) */
	size_t quiet_rounds;		/* rounds whose every reading was near best */
	bool failed;			/* out of memory: every sample kept */
	struct fpl_result *warn_to;	/* cfg->warn_to */
};

/* The reference body: reps x FXSAVE64 to a private 64-byte-aligned buffer. */
uint64_t fpl_interf_fxsave(void *arg, uint64_t reps);

/*
 * cfg's ref, drop_rounds and ref_floor: with a carried floor, the readings
 * take its reps (comparable with it) and the running floor starts from it.
 */
void fpl_interf_init(struct fpl_interf *f, const struct fpl_clock *c,
		     const struct fpl_harness_cfg *cfg);
void fpl_interf_free(struct fpl_interf *f);
/* A new round starts (before its first reading). */
void fpl_interf_round(struct fpl_interf *f);
/* One reading. */
void fpl_interf_read(struct fpl_interf *f);
/* The round's last reading (after its last sample); counts the round in quiet_rounds if quiet. */
void fpl_interf_end_round(struct fpl_interf *f);
/*
 * After the rounds: keep in every variant's three metrics only the samples
 * between quiet readings, when at least min_keep of a variant's samples are
 * quiet; record what was done in the metrics' extra and the run's observed
 * (interference). nv variants sampled in rotated rounds (sample s of
 * variant i taken in round s at position (i - s) mod nv). With rounds, a
 * round is kept only when every variant's sample of it is, in every
 * variant or in none. The floor is the lower of this call's and the
 * carried one, which it then lowers.
 */
int fpl_interf_apply(struct fpl_interf *f, struct fpl_variant *v, size_t nv, size_t min_keep);

#endif
