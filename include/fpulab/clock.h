/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Time without a PMU: serialised TSC reads, timer floor and step, TSC and core clock, pinning. */
#ifndef FPULAB_CLOCK_H
#define FPULAB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"

/*
 * Serialised reads for tight timing (METHOD.md): lfence;rdtsc before the
 * timed code (earlier instructions have finished, later ones have not
 * started), lfence;rdtsc;lfence after (the timed code has finished, what
 * follows waits for the read). The end read is not rdtscp;lfence because
 * CPUs and VMs exist (this project's KVM guest) that do not enumerate
 * RDTSCP; LFENCE is dispatch-serialising on Intel and on AMD under Linux,
 * which is all rdtscp would add. Use them in pairs around a batch, never
 * around one instruction: a pair costs about two timer steps.
 */
static inline uint64_t fpl_tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t fpl_tsc_end(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Where a figure came from, for the result and the method strings. */
enum fpl_tsc_source {
	FPL_TSC_CPUID_15,	/* CPUID 0x15: crystal and ratio */
	FPL_TSC_CPUID_16,	/* CPUID 0x16: base frequency in MHz */
	FPL_TSC_HYPERVISOR,	/* CPUID 0x40000010 EAX: TSC kHz (VMware/KVM timing leaf) */
	FPL_TSC_CALIBRATED,	/* against CLOCK_MONOTONIC_RAW */
};

enum fpl_core_source {
	FPL_CORE_ADD_CHAIN,	/* dependent 1-cycle adds timed with the TSC: estimated */
	FPL_CORE_RDPMC,		/* core cycles counted by rdpmc over the same chain */
};

/*
 * Created once per process and stored in every result (host.clock). All
 * ratios are per TSC tick; core cycles = TSC ticks * core_per_tsc.
 */
struct fpl_clock {
	int cpu;			/* pinned CPU, -1 if not pinned */
	bool tsc_invariant;		/* CPUID 0x80000007 EDX[8] */
	bool rdtscp;			/* CPUID enumerates RDTSCP (informational: not used) */

	/* TSC frequency */
	enum fpl_tsc_source tsc_source;
	double tsc_hz;			/* the one in use */
	double tsc_hz_cpuid;		/* 0 when CPUID gives none */
	double tsc_hz_measured;		/* against CLOCK_MONOTONIC_RAW */
	double tsc_hz_disagree_pct;	/* |cpuid - measured| / measured * 100, 0 if no cpuid */

	/*
	 * The timer itself, in TSC ticks: two different quantities, and their
	 * order differs by machine (fpl_timer_estimate).
	 * floor_tsc: the median of an empty lfence;rdtsc .. rdtscp;lfence pair,
	 *   the timer's own cost inside every timed window.
	 * step_tsc: the smallest nonzero difference of successive lfence;rdtsc
	 *   reads, the timer's resolution: the larger of the TSC's own increment
	 *   and one pass of the read loop. It is not the increment: on the Intel
	 *   guest the TSC advances by 2 and a read pass costs 28-34 ticks (so the
	 *   floor, 30-32, can lie below the step); on the Zen 3 guest reads fall
	 *   on a grid of about 24.5 ticks and the step is 49; on Zen 4 the floor
	 *   is 52 and the step 26.
	 */
	double floor_tsc;
	double step_tsc;
	double min_sample_tsc;		/* step / 0.001: smallest sample the harness takes */

	/* Core clock */
	enum fpl_core_source core_source;
	double core_per_tsc;		/* in use: the start figure */
	double core_per_tsc_start, core_per_tsc_end;	/* end is 0 until fpl_clock_finish */
	double core_hz_start, core_hz_end;
	double drift_pct;		/* (end - start) / start * 100 */
	bool finished;
	bool suspect;			/* drift over FPL_CLOCK_DRIFT_MAX_PCT */

	/* rdpmc: offered by perf_event_open on this machine or not, and why */
	bool pmu;
	char pmu_why[160];
	int perf_fd;			/* -1 without a PMU */
	void *perf_page;		/* mmapped perf_event_mmap_page */

	char warning[256];		/* set when something made the clock doubtful */
};

#define FPL_CLOCK_DRIFT_MAX_PCT		2.0
#define FPL_CLOCK_TSC_AGREE_PCT		0.5
#define FPL_CLOCK_STEP_FRACTION		0.001	/* timer step under 0.1% of a sample */

/*
 * The timer's floor and step from raw readings, a pure function (so that
 * recorded readings of other machines can be replayed): pair_d[] holds np
 * differences of empty begin/end pairs, reads[] nr successive lfence;rdtsc
 * values. floor_tsc is the median pair difference (0 when np is 0),
 * step_tsc the smallest nonzero difference of successive reads (1 when
 * none is nonzero), min_sample_tsc step_tsc / FPL_CLOCK_STEP_FRACTION.
 * pair_d is sorted in place.
 */
struct fpl_timer_estimate {
	double floor_tsc, step_tsc, min_sample_tsc;
};
void fpl_timer_estimate(double *pair_d, size_t np, const uint64_t *reads, size_t nr,
			struct fpl_timer_estimate *out);

/*
 * Pin to cpu (-1: the CPU this thread is on now), then measure: TSC rate,
 * timer floor and step, the core clock (start). Takes about 0.2 s.
 * 0, or -errno with diag (pinning refused, no TSC).
 */
int fpl_clock_create(struct fpl_clock **out, int cpu, struct fpl_diag *diag);
/* Measure the core clock again (end), compute the drift, set suspect. 0 or -errno. */
int fpl_clock_finish(struct fpl_clock *c);
void fpl_clock_free(struct fpl_clock *c);

/* The clock as the result's host.clock object (new reference, NULL on ENOMEM). */
json_t *fpl_clock_json(const struct fpl_clock *c);

static inline double fpl_clock_tsc_to_ns(const struct fpl_clock *c, double tsc)
{
	return tsc * 1e9 / c->tsc_hz;
}

static inline double fpl_clock_tsc_to_cycles(const struct fpl_clock *c, double tsc)
{
	return tsc * c->core_per_tsc;
}

/* "estimated (dependent add chain vs TSC)" or "counted (rdpmc)". */
const char *fpl_clock_core_method(const struct fpl_clock *c);

/*
 * Core cycles per TSC tick now, from a dependent chain of 1-cycle adds
 * (or rdpmc where offered). Takes about 20 ms.
 */
double fpl_clock_core_ratio(struct fpl_clock *c);

/*
 * One quick estimate of core cycles per TSC tick (add chain of n and 2n
 * repetitions of 100 adds, or rdpmc), for tracking the core clock during a
 * run; n from fpl_clock_ratio_reps() makes each chain at least one
 * minimum sample. NaN when the two timings were out of order (preempted).
 */
uint64_t fpl_clock_ratio_reps(const struct fpl_clock *c);
double fpl_clock_ratio_sample(const struct fpl_clock *c, uint64_t n);

/* Pin the calling thread to cpu. 0 or -errno (-EINVAL for a CPU not in the affinity mask). */
int fpl_pin_cpu(int cpu);
/* The CPU the calling thread runs on now, or -1. */
int fpl_current_cpu(void);

/*
 * Known-latency chains for calibration and self-checks, shaped as harness
 * bodies: each runs reps repetitions of 100 dependent operations between
 * the serialised reads and returns the TSC ticks. arg is ignored.
 * Dependent 64-bit ADD: 1 cycle each; 64-bit IMUL: 3 cycles each on current
 * Intel and AMD cores; the empty one is the loop alone.
 */
uint64_t fpl_chain_add100(void *arg, uint64_t reps);
uint64_t fpl_chain_imul100(void *arg, uint64_t reps);
uint64_t fpl_chain_empty(void *arg, uint64_t reps);

#endif
