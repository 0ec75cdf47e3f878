/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside fpulab kvm: its configuration, the timed arms (one per guest state), what they verify. */
#ifndef FPULAB_BENCH_KVM_KVMBENCH_H
#define FPULAB_BENCH_KVM_KVMBENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/bench.h"
#include "fpulab/harness.h"
#include "fpulab/kvmhost.h"
#include "fpulab/xstate.h"
#include "vm.h"

#define FPL_KVM_STATES	2

/* The options, parsed once by .check (states) and completed by the run (the rest). */
struct fpl_kvm_cfg {
	bool ab;
	unsigned nstates;
	char names[FPL_KVM_STATES][64];
	uint64_t mask[FPL_KVM_STATES];
	bool all[FPL_KVM_STATES];	/* "all": every component the host can give a guest */
	bool widest[FPL_KVM_STATES];	/* "widest": the widest vector state it can give one */
	bool writes;			/* --guest writes */
	int ring;			/* --ring: 0, 3, or -1 for auto */
	unsigned cpuids;
	double budget_s;
};

/*
 * One guest state, one variant of the harness: its image, and what the
 * checks after its batches saw. Every batch first puts the state in place
 * (KVM_SET_XSAVE; a "writes" guest's image into guest memory), the host
 * task's own registers in init, then times reps KVM_RUN round trips; after
 * the timed part it reads the guest's state back (KVM_GET_XSAVE).
 */
struct fpl_kvm_arm {
	struct fpl_kvm_vm *vm;
	const struct fpl_xstate *xs;
	uint64_t mask;			/* XSTATE_BV of the state */
	uint64_t rfbm;			/* the components a guest here holds (what is compared) */
	void *img;			/* standard format, vm->xsave_size bytes at least */
	void *back;			/* KVM_GET_XSAVE's buffer */
	const void *host_init;		/* an all-init image for the host task's registers */
	uint64_t host_rfbm;
	bool writes;
	/* what happened */
	int err;			/* first failure of a batch: -errno, -EIO for a wrong exit */
	unsigned long batches, interrupted;
	uint64_t bv_and, bv_or;		/* XSTATE_BV read back after the batches (& rfbm) */
	unsigned long checks, data_bad, get_failed;
};

/* Put the arm's state in place (not timed). 0 or -errno of KVM_SET_XSAVE. */
int fpl_kvm_arm_set(struct fpl_kvm_arm *a);
/* The harness's body: reps KVM_RUN round trips of the arm's state (fpl_timed_fn). */
uint64_t fpl_kvm_arm_timed(void *arg, uint64_t reps);
/*
 * Read the guest's state back and compare with the arm's image: XSTATE_BV
 * within rfbm (x87 and SSE may read in use when init, as XINUSE allows)
 * and the data of every component of mask. 0 same, 1 differs, -errno.
 */
int fpl_kvm_arm_compare(struct fpl_kvm_arm *a, uint64_t *bv);
/*
 * Components of want the two standard-format images differ in (data of
 * each component of want other than x87; SSE: the XMM registers and MXCSR).
 */
uint64_t fpl_kvm_state_differs(const struct fpl_xstate *xs, uint64_t want, const void *a,
			       const void *b);

/* The run's records: A/B difference, verification, observations (record.c). */
struct fpl_kvm_ctx {
	const struct fpl_bench_env *env;
	const struct fpl_kvm_cfg *cfg;
	const struct fpl_kvm_host *host;
	struct fpl_kvm_vm *vm;
	struct fpl_kvm_arm arm[FPL_KVM_STATES];
	struct fpl_variant v[FPL_KVM_STATES];
	struct fpl_run *run;
	unsigned ring;
	uint64_t rfbm;
	char method[FPL_KVM_STATES][768];	/* each state's figures: what was timed */
};

/* B - A per round in every unit, with its intervals (a run of --ab). 0 or -ENOMEM. */
int fpl_kvm_record_ab(struct fpl_kvm_ctx *k);
/* The states seen before and after, observed; warnings where they are not what was set. */
void fpl_kvm_record_states(struct fpl_kvm_ctx *k, const uint64_t *bv_set);
/* What the run found about the host and the guest. */
void fpl_kvm_record_observed(struct fpl_kvm_ctx *k);
/* --kernel-trace: one traced batch per state, kvm events on. 0 or -errno. */
int fpl_kvm_trace(struct fpl_kvm_ctx *k);

#endif
