// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's output: testcase, warmup, min/max/total each second, measurement, average. */
#include <errno.h>
#include <stdlib.h>

#include "wislines.h"

int fpl_wis_lines_init(struct fpl_wis_lines *l, FILE *f, enum fpl_wis_case tcase,
		       unsigned tasks, unsigned samples, bool verbose)
{
	*l = (struct fpl_wis_lines){ .f = f, .tcase = tcase, .samples = samples,
				     .verbose = verbose };
	l->prev = calloc(tasks ? tasks : 1, sizeof(*l->prev));
	return l->prev ? 0 : -ENOMEM;
}

void fpl_wis_lines_free(struct fpl_wis_lines *l)
{
	free(l->prev);
	l->prev = NULL;
}

/* Mirrors will-it-scale's main loop line for line, so that LKP's parser reads it. */
int fpl_wis_lines_tick(void *arg, unsigned seq, const unsigned long long *counts, unsigned n)
{
	struct fpl_wis_lines *o = arg;
	unsigned long long sum = 0, min = -1ULL, max = 0;

	if (seq == 0) {
		fprintf(o->f, "testcase:%s\n", fpl_wis_description(o->tcase));
		fprintf(o->f, "warmup\n");
		fflush(o->f);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned long long diff = counts[i] - o->prev[i];

		if (o->verbose)
			fprintf(o->f, "%4u -> %llu\n", i, diff);
		if (diff < min)
			min = diff;
		if (diff > max)
			max = diff;
		sum += diff;
		o->prev[i] = counts[i];
	}
	fprintf(o->f, "min:%llu max:%llu total:%llu\n", min, max, sum);
	if (o->iterations == FPL_WIS_WARMUP)
		fprintf(o->f, "measurement\n");
	if (o->iterations++ > FPL_WIS_WARMUP)
		o->total += sum;
	if (o->samples && o->iterations > (int)o->samples + FPL_WIS_WARMUP) {
		fprintf(o->f, "average:%llu\n", o->total / o->samples);
		fflush(o->f);
		return 1;
	}
	fflush(o->f);
	return 0;
}
