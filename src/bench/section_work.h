/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The section benchmark's workloads, and the test of its figures for impossible costs. */
#ifndef FPULAB_SECTION_WORK_H
#define FPULAB_SECTION_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/cpu.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"

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

/* The upper halves whose dirty state Intel penalises: YMM_Hi128, ZMM_Hi256, Hi16_ZMM. */
#define FPL_SECTION_UPPER (FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_ZMM_Hi256 | \
			   FPL_XFEATURE_MASK_Hi16_ZMM)

/* The parts of a section, in the order of observed.explain's parts (part_<name>_cycles). */
#define FPL_SECTION_NPARTS 4
extern const char *const fpl_section_parts[FPL_SECTION_NPARTS];

/*
 * How many of each part one more section adds (cost "section": inside has
 * one more section than outside, per extra section) or one section around
 * all the work adds (cost "one_section": outside against bare), from the
 * model's expected counts (fpl_kexpect_section_model()) for run's policy,
 * sections_inside and mask. 0, or -EINVAL when run lacks them.
 */
int fpl_section_part_counts(const struct fpl_run *run, bool one, double count[FPL_SECTION_NPARTS]);

/*
 * observed.explain of a section run (issue 34): the measured cost per extra
 * section (section_cycles) against its parts, each part's count per section
 * times its median cost measured alone in the same rounds
 * (part_<name>_cycles); predicted = their sum; the residual = the per-round
 * section cost minus the per-round sum of count x part, its median with a
 * distribution-free 95% interval; unexplained when that interval excludes
 * zero and |residual| exceeds FPL_SECTION_UNEXPLAINED of |measured|. *out
 * gets a new object, or NULL when the run has no such figure (one chunk, no
 * part arms: an older document, under 6 rounds). 0 or -ENOMEM.
 */
#define FPL_SECTION_UNEXPLAINED 0.20
int fpl_section_explain(const struct fpl_run *run, json_t **out);

/*
 * Whether the run's cost (section_cycles, one false; one_section_cycles, one
 * true) lies below zero beyond chance, as fpl_section_anomaly() judges.
 */
bool fpl_section_cost_anomalous(const struct fpl_result *r, const struct fpl_run *run, bool one);

/*
 * v with prec decimals into buf, never "-0": a negative figure that rounds
 * to zero prints as 0. Returns buf.
 */
const char *fpl_section_num(char *buf, size_t size, double v, int prec);

#endif
