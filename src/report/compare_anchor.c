// SPDX-License-Identifier: GPL-3.0-or-later
/* compare's anchored lines (issue 35): ctxsw's ratio to its in-run anchor beside the raw figure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_internal.h"

#define ANCHORED "round_trip_per_anchor"

/* The raw metric of an anchored one: round_trip_per_anchor_a -> round_trip_a, same run config. */
static const struct fpl_cmp_metric *raw_of(const struct fpl_cmp *c, const struct fpl_cmp_metric *a)
{
	char want[64];

	snprintf(want, sizeof(want), "round_trip%s", a->name + strlen(ANCHORED));
	for (size_t j = 0; j < c->nm; j++) {
		const struct fpl_cmp_metric *m = &c->m[j];

		if (m->name && m->bench && !strcmp(m->name, want) && !strcmp(m->bench, a->bench) &&
		    (m->params == a->params || (m->params && a->params &&
						!strcmp(m->params, a->params))))
			return m;
	}
	return NULL;
}

static void effect(const struct fpl_cmp_test *t, char *buf, size_t len)
{
	if (!isfinite(t->pct) || !isfinite(t->pct_half))
		snprintf(buf, len, "no interval");
	else
		snprintf(buf, len, "%+.2f%% +/- %.2f%%", fpl_shown(t->pct, 2), t->pct_half);
}

static void needed(double cv, double conf, char *buf, size_t len)
{
	size_t n = fpl_runs_needed(cv, 0.2, conf);

	if (!n)
		snprintf(buf, len, "?");
	else if (n == SIZE_MAX)
		snprintf(buf, len, "more than 10^7");
	else
		snprintf(buf, len, "%zu", n);
}

static void one(const struct fpl_cmp *c, const struct fpl_cmp_metric *a,
		const struct fpl_cmp_metric *r, size_t i, FILE *out)
{
	char ea[64], er[64], na[32], nr[32];

	effect(&a->t[i], ea, sizeof(ea));
	effect(&r->t[i], er, sizeof(er));
	needed(a->t[i].cv, c->opts.confidence, na, sizeof(na));
	needed(r->t[i].cv, c->opts.confidence, nr, sizeof(nr));
	fprintf(out, "  %s: case %zu %s anchored, %s raw (%s); between-run CV %.2f%% anchored, "
		"%.2f%% raw; resolution reached +/- %.2f%%; runs per case for +/- 0.2%%: %s "
		"anchored, %s raw\n", a->label, i + 1, ea, er, r->name, a->t[i].cv, r->t[i].cv,
		a->t[i].pct_half, na, nr);
}

int fpl_cmp_anchor_lines(const struct fpl_cmp *c, FILE *out)
{
	bool head = false;

	for (size_t j = 0; j < c->nm; j++) {
		const struct fpl_cmp_metric *a = &c->m[j], *r;

		if (!a->name || strncmp(a->name, ANCHORED, strlen(ANCHORED)) || !(r = raw_of(c, a)))
			continue;
		if (!head)
			fputs("Anchored (ctxsw's round trip over its in-run anchor, a self-pipe timed in "
			      "the same rounds: host drift common to both cancels; a kernel change to "
			      "system calls or pipes moves both, so it shows in the raw figure only):\n",
			      out);
		head = true;
		for (size_t i = 1; i < c->ncases; i++)
			one(c, a, r, i, out);
	}
	return ferror(out) ? -1 : 0;
}
