/* SPDX-License-Identifier: GPL-3.0-or-later */
/* will-it-scale's output lines, line for line, so that LKP's parser reads fpulab's. */
#ifndef FPULAB_WISLINES_H
#define FPULAB_WISLINES_H

#include <stdbool.h>
#include <stdio.h>

#include "fpulab/wis.h"

/*
 * The state between ticks: "testcase:", "warmup", then per second
 * "min:N max:N total:N" (and each task's count when verbose), "measurement"
 * after the warm-up and "average:N" after samples measured seconds.
 */
struct fpl_wis_lines {
	FILE *f;
	enum fpl_wis_case tcase;
	unsigned samples;	/* measured seconds before "average:", 0 = until stopped */
	bool verbose;
	int iterations;
	unsigned long long *prev;
	unsigned long long total;
};

/* For tasks counters. 0 or -ENOMEM. */
int fpl_wis_lines_init(struct fpl_wis_lines *l, FILE *f, enum fpl_wis_case tcase,
		       unsigned tasks, unsigned samples, bool verbose);
/* A fpl_wis_tick_fn (arg is the struct fpl_wis_lines): 1 after "average:", else 0. */
int fpl_wis_lines_tick(void *arg, unsigned seq, const unsigned long long *counts, unsigned n);
void fpl_wis_lines_free(struct fpl_wis_lines *l);

#endif
