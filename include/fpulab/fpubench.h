/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the section and xor benchmarks share with their commands: workloads, size lists, paired statistics. */
#ifndef FPULAB_FPUBENCH_H
#define FPULAB_FPUBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/base.h"
#include "fpulab/bench.h"
#include "fpulab/cpu.h"

/*
 * One piece of SIMD work that runs inside a section: one row of the
 * lazy-restore experiment. fn does dst ^= f(src) over len bytes that start
 * at byte pos of the whole stream (ChaCha20 needs the block counter); len is
 * a multiple of unit, buffers are 64-byte aligned.
 */
struct fpl_section_work {
	const char *workload;	/* "xor", "chacha20" */
	const char *impl;	/* the implementation's name: "avx", "avx512" */
	const char *isa;	/* "C", "SSE2", "AVX", "AVX2", "AVX-512F" */
	size_t unit;		/* chunks are multiples of this many bytes */
	uint64_t xfeatures;	/* state the work writes */
	bool (*supported)(const struct fpl_section_work *w, const struct fpl_cpu *cpu,
			  const char **why);
	void (*fn)(const struct fpl_section_work *w, uint8_t *dst, const uint8_t *src, size_t len,
		   uint64_t pos);
	const void *impl_data;	/* the kernel's descriptor behind it */
};

/* Every workload built in, in a stable order; *n gets the count. */
const struct fpl_section_work *fpl_section_works(size_t *n);

/*
 * Parse "64,256,1k,64K" (fpl_parse_int items: 0x.., k/M/G) into at most max
 * sizes, each in [lo, hi] and a multiple of unit (unit 0 or 1: any).
 * 0, or -EINVAL with diag naming the item and the rule it broke.
 */
int fpl_parse_sizes(const char *s, size_t lo, size_t hi, size_t unit, size_t *out, size_t max,
		    size_t *n, struct fpl_diag *diag);

/*
 * Check every option of the section benchmark (env->opts) the way its run
 * will read them. 0, or -EINVAL with diag naming the option and value.
 */
int fpl_section_check(const struct fpl_bench_env *env, struct fpl_diag *diag);

/* The same for the xor benchmark (templates, sizes, arities, section masks). */
int fpl_xor_bench_check(const struct fpl_bench_env *env, struct fpl_diag *diag);

/* A figure with its 95% confidence interval. */
struct fpl_ci {
	size_t n;		/* pairs or samples used */
	double estimate, lo, hi;
};

/*
 * Robust on a shared, noisy machine: medians with distribution-free
 * intervals (order statistics x(j) and x(n+1-j), the largest j with
 * P(Binomial(n, 1/2) < j) <= 2.5%), which need n >= 6.
 *
 * fpl_speedup_ci: speedup of fast over slow in percent from paired samples
 * (slow[i] and fast[i] from the same round): 100 * (median(slow/fast) - 1).
 * Pairs with a value <= 0 or not finite are left out.
 * fpl_median_ci: the median of the finite samples.
 * 0, -EINVAL when fewer than 6 values remain, -ENOMEM.
 */
int fpl_speedup_ci(const double *slow, const double *fast, size_t n, struct fpl_ci *ci);
int fpl_median_ci(const double *x, size_t n, struct fpl_ci *ci);

/*
 * A figure that cannot be true in a section run: a cost per section
 * (section_cycles) or of one section (one_section_cycles) whose whole 95%
 * interval lies below zero. Writes into buf a sentence naming the metric, its
 * interval and the likely cause, and returns buf; NULL when the run has no
 * such cost (or no interval). Such a run's speedup must not be shown as one.
 */
const char *fpl_section_anomaly(const struct fpl_run *run, char *buf, size_t size);

#endif
