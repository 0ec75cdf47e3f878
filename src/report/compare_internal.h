/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/report: one case's values as read, before metrics are matched across cases. */
#ifndef FPULAB_COMPARE_INTERNAL_H
#define FPULAB_COMPARE_INTERNAL_H

#include <stdint.h>

#include <jansson.h>

#include "fpulab/compare.h"

/* The observed keys of fpl_cmp_raw.state, in order. */
#define FPL_CMP_STATE_NR 4
extern const char *const fpl_cmp_state_keys[FPL_CMP_STATE_NR];

struct fpl_cmp_raw {
	char *key;		/* bench, params and name joined; "value" or "average" */
	char *label, *bench, *name, *params, *unit, *method;
	enum fpl_metric_kind kind;	/* the metric's (results JSON); sample otherwise */
	char *where;		/* the first file that had it, for messages */
	double *v;		/* every sample, one run after another */
	size_t n, cap;
	size_t *runlen;		/* samples per run */
	size_t nruns, runcap;
	/*
	 * Results JSON (tracked): per run its identity in words (NULL when the
	 * file has none) and its position in the case, as fpl_cmp_series has.
	 */
	bool tracked;
	char **runid;
	uint64_t *runpos;
	size_t dropped;		/* null (NaN) samples of results JSON, left out */
	/*
	 * The observations that say what state the measurement handled
	 * (fpl_cmp_state_keys: section's save_rfbm, the signal frame sizes) of
	 * its runs: the first seen, "mixed" when runs differ; NULL: none has it.
	 */
	char *state[FPL_CMP_STATE_NR];
};


/* Host facts a note names when cases differ in them (compare_input.c host_fact). */
enum {
	FPL_CMP_HOST_KERNEL,	/* kernel.release: what a kernel A/B means to differ in */
	FPL_CMP_HOST_CPU,	/* name, family, model, stepping */
	FPL_CMP_HOST_MICROCODE,
	FPL_CMP_HOST_VM,	/* the hypervisor, or none */
	FPL_CMP_HOST_XCR0,
	FPL_CMP_HOST_BUILD,	/* fpulab's version, git revision and compiler flags */
	FPL_CMP_HOST_NR
};
extern const char *const fpl_cmp_host_words[FPL_CMP_HOST_NR];

struct fpl_cmp_case {
	const char *path;
	enum fpl_cmp_kind kind;
	bool kind_set;
	bool many;		/* several files (a directory or a list): a numbers file is a run */
	unsigned column;	/* fpl_cmp_opts.column */
	const char *ignore_params;	/* fpl_cmp_opts.ignore_params */
	uint64_t ignore_found;	/* bit i: its i-th key was in some run's params */
	size_t nfiles;
	struct fpl_cmp_raw *r;
	size_t nr;
	/* runs' observed.interference.quiet_share (xsave): how many, lowest, highest */
	size_t nquiet;
	double quiet_lo, quiet_hi;
	/* metrics matched with case 1's whose state (fpl_cmp_raw.state) differs; the first's words */
	size_t state_differ;
	char *state_first;
	/* its results files' host facts: the first said, "mixed" when files differ; NULL: none */
	char *host[FPL_CMP_HOST_NR];
	size_t runs_seen;	/* fpl_runs read over its files: a run's position */
	/* case N's runs are case 1's in every metric (fpl_cmp_runs_match): pairing possible */
	bool same_runs;
};

/* A note on the comparison (compare.c). 0, -ENOMEM. */
int fpl_cmp_note(struct fpl_cmp *c, const char *fmt, ...) FPL_PRINTF(2, 3);

/*
 * Pairs (compare_pair.c). The --variants words into c->variant[]: -EINVAL
 * with diag when spec is not two different words around one comma.
 */
int fpl_cmp_variant_words(struct fpl_cmp *c, const char *spec, struct fpl_diag *diag);
/* --variants: the pairs of metrics of cases[0] into cases[0] and cases[1], the rest left out. */
int fpl_cmp_split_variants(struct fpl_cmp *c, struct fpl_cmp_case *cases, struct fpl_diag *diag);
/*
 * Do base's runs (case 1) and r's (case i) of one metric have the same
 * identities? Not: cases[i].same_runs false, and with --paired -EINVAL and
 * diag naming both files and the first run that differs. 0, -ENOMEM.
 */
int fpl_cmp_runs_match(const struct fpl_cmp *c, struct fpl_cmp_case *cases, size_t i,
		       const struct fpl_cmp_raw *base, const struct fpl_cmp_raw *r,
		       const char *label, struct fpl_diag *diag);
/* A note for each case whose runs are case 1's when --paired was not given. */
int fpl_cmp_note_same_runs(struct fpl_cmp *c, const struct fpl_cmp_case *cases);
/* The paired test of m's case i against case 1 into t (t->t the unpaired one on entry). */
int fpl_cmp_pair_test(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i,
		      struct fpl_cmp_test *t);
/* The header's words on the test and the pairing (table). */
void fpl_cmp_pair_header(const struct fpl_cmp *c, FILE *out);
/* A paired comparison's fields for JSON: pairs, the unpaired test. */
int fpl_cmp_pair_json(const struct fpl_cmp *c, const struct fpl_cmp_test *t, json_t *o);
/* The root's pairing fields. */
int fpl_cmp_pairing_json(const struct fpl_cmp *c, json_t *root);

/* Read one case (a file, or a directory of files). 0, -EINVAL with diag, -ENOMEM. */
int fpl_cmp_read_case(struct fpl_cmp_case *cs, const char *path, size_t idx,
		      const struct fpl_cmp_opts *opts,
		      struct fpl_diag *diag);
void fpl_cmp_case_free(struct fpl_cmp_case *cs);
void fpl_cmp_raw_free(struct fpl_cmp_raw *r);

/*
 * ctxsw's anchored metrics (round_trip_per_anchor*) beside their raw
 * round_trip*: each case's difference both ways, the between-run CVs, the
 * resolution reached and the runs per case 0.2% would need. Nothing when c
 * has none. 0, or -1 when writing failed.
 */
int fpl_cmp_anchor_lines(const struct fpl_cmp *c, FILE *out);

/* --ministat: -EINVAL for more than 7 cases or a level ministat lacks. */
int fpl_cmp_emit_ministat(const struct fpl_cmp *c, FILE *out);

extern const char *const fpl_cmp_kind_names[];

#endif
