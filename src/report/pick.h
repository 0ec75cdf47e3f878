/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/report: find runs and figures in a result by benchmark, parameters and metric. */
#ifndef FPULAB_REPORT_PICK_H
#define FPULAB_REPORT_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "fpulab/result.h"
#include "fpulab/stats.h"

/* A parameter as text ("" when absent): strings as they are, numbers as %lld or %g. */
const char *fpl_pick_param(const struct fpl_run *run, const char *key, char *buf, size_t size);

/*
 * Does run belong to bench, with every "key=value" of spec (blank-separated,
 * NULL for none) equal to its parameter as text? "key=" matches an absent key.
 */
bool fpl_pick_match(const struct fpl_run *run, const char *bench, const char *spec);

/* The first run that matches and is not skipped; NULL if none. */
const struct fpl_run *fpl_pick_run(const struct fpl_result *r, const char *bench,
				   const char *spec);

/* Summary of a metric's finite samples, 10% trim; false when absent or empty. */
bool fpl_pick_stat(const struct fpl_run *run, const char *metric, struct fpl_summary *s);

/* A number from a metric's extra object by path "a.b" (NAN when absent). */
double fpl_pick_extra(const struct fpl_run *run, const char *metric, const char *path);
/* The same for a string; NULL when absent. */
const char *fpl_pick_extra_str(const struct fpl_run *run, const char *metric, const char *path);

/* A host field by path ("cpu.brand"); NULL when absent or not a string. */
const char *fpl_pick_host_str(const struct fpl_result *r, const char *path);

#endif
