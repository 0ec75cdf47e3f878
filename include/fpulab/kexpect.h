/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The x86_fpu events fpulab's operations should cause, read from the kernel source. */
#ifndef FPULAB_KEXPECT_H
#define FPULAB_KEXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/ktrace.h"
#include "fpulab/result.h"

/* Linux major.minor as one number: 6.18 is 6018. */
#define FPL_KVER(maj, min)	((maj) * 1000u + (min))

/* A kernel count agrees with the expectation within this share of an operation. */
#define FPL_KX_TOL		0.05

/* One class of events for one operation: between min and max per operation. */
struct fpl_kx_count {
	bool set;		/* false: no prediction for this class */
	double min, max;	/* max INFINITY: no upper bound */
	bool plus_switches;	/* plus up to one per switch of the traced thread (preemption) */
	const char *why;	/* the kernel functions that emit it, or why none does */
	/* NULL, or the run parameter (an integer) that is the count: min = max = its value */
	const char *per_param;
};

/*
 * The expectation for the traced passes of one operation of a benchmark.
 * since and checked bound the releases whose source it was written from:
 * it holds from since on (the code paths named in the whys are there);
 * sources newer than checked were not read. tested names the kernel and
 * machine where a trace agreed with it, NULL when none has (AMX).
 */
struct fpl_kexpect {
	const char *bench;		/* NULL: every benchmark of the harness */
	const char *op;			/* the pass's op: "signal", "round trip", ... */
	const char *param, *values;	/* a run parameter and its values ("same,"), or NULL */
	const char *what;		/* one sentence: what happens to the registers */
	unsigned since, checked;	/* FPL_KVER */
	const char *tested;
	struct fpl_kx_count c[FPL_KT_NCLASSES];
	int xcomp_bit;			/* >= 0: xcomp_bv with and without this bit, else -1 */
	const char *xcomp_why;
	/* KVM_RUN (bench kvm): the kvm events per operation; unset elsewhere. */
	struct fpl_kx_count kvm[FPL_KT_KVM_NEVENTS];
	/*
	 * Guest-only supervisor components: in every guest fpstate's xcomp_bv
	 * and in no host task's, from Linux guest_only_since on, where the CPU
	 * enumerates them (CPUID 0xD.1). 0: no such rule.
	 */
	uint64_t guest_only;
	unsigned guest_only_since;
	const char *guest_only_why;
	/* The XRSTORS RFBM of the fpstate swap, in words; NULL: no rule. */
	const char *restore_rfbm;
};

/* The whole table (tests and docs read it). */
const struct fpl_kexpect *fpl_kexpect_table(size_t *n);
/* The expectation for run's passes of operation op, or NULL when fpulab has none. */
const struct fpl_kexpect *fpl_kexpect_find(const struct fpl_run *run, const char *op);

/*
 * c as it applies to run: a count taken from a run parameter (per_param)
 * becomes min = max = that parameter's value (0 when absent).
 */
struct fpl_kx_count fpl_kexpect_count_for(const struct fpl_kx_count *c, const struct fpl_run *run);

/*
 * The guest-only rule of e on the kvm_fpu-paired masks of a pass: 1 when
 * every guest fpstate's xcomp_bv has e->guest_only's components the CPU
 * enumerates (cpu_supervisor: CPUID 0xD.1's supervisor components) and no
 * host task's has them; 0 when not; -1 when not judged (no rule, a kernel
 * before guest_only_since, none of the components on this CPU, no masks).
 */
int fpl_kexpect_guest_only(const struct fpl_kexpect *e, unsigned version, uint64_t cpu_supervisor,
			   const uint64_t *guest, size_t nguest, const uint64_t *host, size_t nhost);
/*
 * What the XRSTORS RFBM of the swap holds at least: fpu_kernel_cfg.max_features
 * covers every fpstate's features, so the RFBMs (xcomp_bv without bit 63)
 * seen, ORed.
 */
uint64_t fpl_kexpect_restore_floor(const uint64_t *xcomp_bv, size_t n);

/*
 * What fpulab's own model (src/model/fpu.c) does in one section call of
 * policy ("eager", "lazy") with sections sections in it (the benchmark's
 * inside mode; outside is sections = 1): its saves and restores of the
 * owner's registers, which no tracepoint sees (the row for bench section
 * above), and its begin/end pairs. Eager saves at every begin and restores
 * at every end; lazy saves at the first begin and restores once, on return
 * to user. 0, or -EINVAL for another policy or sections < 1.
 */
struct fpl_kx_section {
	double saves, restores, sections;
};
int fpl_kexpect_section_model(const char *policy, long long sections, struct fpl_kx_section *out);
#define FPL_KX_SECTION_MODEL_WHY "fpulab's model (src/model/fpu.c, expected counts in " \
	"src/model/kexpect.c): eager saves at each begin and restores at each end; lazy saves " \
	"at the first begin and restores once, on return to user"

/* A kernel release ("6.18.44-fc-v669") as FPL_KVER; 0 when it does not parse. */
unsigned fpl_kexpect_version(const char *release);

enum fpl_kx_applies {
	FPL_KX_APPLIES,		/* since <= version <= checked */
	FPL_KX_NEWER,		/* newer than the source read: compared, may be out of date */
	FPL_KX_UNKNOWN,		/* older than since, or no version: not compared */
};
enum fpl_kx_applies fpl_kexpect_applies(const struct fpl_kexpect *e, unsigned version);
/* "Linux 5.8 and later (source read up to 6.18; observed on ...)" for people. */
void fpl_kexpect_scope(const struct fpl_kexpect *e, char *buf, size_t len);

/*
 * Whether a kernel count per operation agrees with c: inside [min, max]
 * give or take FPL_KX_TOL of an operation (of max(min, 1) below, of
 * max(max, 1) above), and above max by at most switches_per_op more when
 * c->plus_switches (NaN switches count as none). False for a NaN count or
 * a class without a prediction.
 */
bool fpl_kexpect_agrees(const struct fpl_kx_count *c, double kernel, double switches_per_op);
/* c as people read it: "2", "0+sw", "0-2", ">=1", "-" without a prediction. */
void fpl_kexpect_range(const struct fpl_kx_count *c, char *buf, size_t len);
/*
 * The classes (bit 1 << FPL_KT_C_*) whose finite per-op count disagrees;
 * NaN counts and classes without a prediction are never a difference.
 */
unsigned fpl_kexpect_judge(const struct fpl_kexpect *e, const double per_op[FPL_KT_NCLASSES],
			   double switches_per_op);
/*
 * The xcomp_bv rule over the distinct values seen: 1 when both a value with
 * e->xcomp_bit and one without it are there, 0 when not, -1 when e has no
 * such rule or no value was seen.
 */
int fpl_kexpect_xcomp(const struct fpl_kexpect *e, const uint64_t *xcomp_bv, size_t n);

#endif
