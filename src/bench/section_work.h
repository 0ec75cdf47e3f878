/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The section benchmark's workloads, and the test of its figures for impossible costs. */
#ifndef FPULAB_SECTION_WORK_H
#define FPULAB_SECTION_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/cpu.h"
#include "fpulab/result.h"

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
 * A figure that cannot be true in a section run: a cost per section
 * (section_cycles) or of one section (one_section_cycles) whose whole 95%
 * interval lies below zero, beyond chance. A section table holds many such
 * intervals (112 in the default suite), and where the true cost is near
 * zero about 2.5% of them lie below zero by chance alone; so the one-sided
 * sign test of "the median cost is below zero" must stay under 2.5% after
 * Holm's adjustment over every cost interval of r's section runs (r NULL:
 * run alone). Writes into buf a sentence naming the metric, its interval,
 * the test and the likely cause, and returns buf; NULL when the run has no
 * such cost. Such a run's speedup must not be shown as one.
 */
const char *fpl_section_anomaly(const struct fpl_result *r, const struct fpl_run *run, char *buf,
				size_t size);

/*
 * Whether text, a warning of run, is the anomaly stored when run was
 * measured (observed.anomaly) that r's family no longer upholds: a --runs
 * child judged over its own cells, a file from before the family test.
 * Tables leave such a warning out; their own verdict stands.
 */
bool fpl_section_warning_stale(const struct fpl_result *r, const struct fpl_run *run,
			       const char *text);

/*
 * How many of run's section cost intervals (r's, run NULL) lie wholly below
 * zero; *family: how many cost intervals r's section runs hold.
 */
size_t fpl_section_below_zero(const struct fpl_result *r, const struct fpl_run *run,
			      size_t *family);

#endif
