// SPDX-License-Identifier: GPL-3.0-or-later
/* The ctxsw benchmark's views: its A/B verdicts under each run, its block of the suite summary. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "table_internal.h"
#include "views.h"

/*
 * "    label: verdict (key)" with the verdict never broken: a wide interval
 * (-12.079% .. +15.684% on a loaded machine) wrapped inside its CI would
 * read as two figures. The verdict or the key that would pass the
 * 100-column terminal goes to the next line, at 8.
 */
static void ab_verdict_line(FILE *f, const char *label, const char *verdict, const char *key)
{
	const char *part[2] = { verdict, key };
	size_t col = 4 + strlen(label) + 1;

	fprintf(f, "    %s:", label);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(part); i++) {
		size_t n = strlen(part[i]) + (i ? 2 : 0);

		if (col + 1 + n > FPL_TBL_WIDTH + 4) {
			fprintf(f, "\n%8s", "");
			col = 8;
		} else {
			fputc(' ', f);
			col++;
		}
		fprintf(f, i ? "(%s)" : "%s", part[i]);
		col += n;
	}
	fputc('\n', f);
}

/* The in-run anchor (issue 35): the ratio per state, what it leaves out, what it cannot cancel. */
static void anchor_lines(const struct fpl_run *run, FILE *f)
{
	static const char *const names[][2] = {
		{ "round_trip_per_anchor", "" }, { "round_trip_per_anchor_a", " A" },
		{ "round_trip_per_anchor_b", " B" },
	};
	const json_t *o = fpl_run_obs_get(run, "anchor");
	const struct fpl_metric *a = fpl_run_find_metric(run, "anchor_ns");
	bool any = false;

	if (!o || !a)
		return;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(names); i++) {
		const struct fpl_metric *m = fpl_run_find_metric(run, names[i][0]);

		if (!m || !m->n)
			continue;
		fprintf(f, "%s%s %.4f", any ? "," : "    anchored: round trip / anchor", names[i][1],
			fpl_metric_median(m));
		any = true;
	}
	if (!any)
		return;
	fprintf(f, " (medians of the rounds kept; %lld of %lld left out: their tasks waited for "
		"the CPU)\n    anchor: %.0f ns per self-pipe write+read in the same rounds; it "
		"cancels host slowdowns common to\n    system calls and pipes; a kernel change to "
		"them moves both: the raw figures show it, the ratio hides it\n",
		(long long)json_integer_value(json_object_get(o, "flagged_rounds")),
		(long long)json_integer_value(json_object_get(o, "rounds")), fpl_metric_median(a));
}

/*
 * An A/B run's verdicts (observed b_minus_a_*), whole, each on its own
 * lines: the batch medians' first, the figure docs/ctxsw-signal.md says to quote.
 */
void fpl_run_lines_ctxsw(const struct fpl_run *run, FILE *f)
{
	static const char *const keys[][2] = {
		{ "b_minus_a_median", "B - A, batch medians (the figure to quote)" },
		{ "b_minus_a_welch", "B - A, batches of rounds that did not wait (Welch)" },
		{ "b_minus_a_yuen", "B - A, 20% trimmed (Yuen)" },
	};

	bool any = false;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(keys); i++) {
		const char *v = fpl_run_obs_get_str(run, keys[i][0]);

		if (v)
			ab_verdict_line(f, keys[i][1], v, keys[i][0]);
		any |= v != NULL;
	}
	/*
	 * Batches of one process share its page placement and its host
	 * neighbours; another run may not (kvm on the Zen 4 guest: runs'
	 * intervals of +/- 0.2-0.5% that barely overlap, -55 to +89 ticks).
	 */
	if (any)
		fprintf(f, "    (these intervals cover this run's batches only; what changes between "
			   "runs\n    is in --runs N's \"B - A over the runs\")\n");
	if (any)
		fpl_tbl_aa_line(run, 4, f);
	anchor_lines(run, f);
}

static void ctxsw_ab(const struct fpl_run *run, FILE *f)
{
	char b1[32], b2[32], x[64], y[64];
	const char *sa = fpl_pick_param(run, "state_a", b1, sizeof(b1));
	const char *sb = fpl_pick_param(run, "state_b", b2, sizeof(b2));
	struct fpl_summary a, b;
	const char *verdict = fpl_pick_extra_str(run, "difference", "yuen.verdict");
	double pct = fpl_pick_extra(run, "difference", "yuen.pct");

	if (!fpl_pick_stat(run, "switch_a", &a) || !fpl_pick_stat(run, "switch_b", &b))
		return;
	fprintf(f, "  %s %s ns, %s live %s ns", sa, fpl_tbl_mq(x, sizeof(x), &a), sb, fpl_tbl_mq(y, sizeof(y), &b));
	/* The verdict carries the difference when one is proven, else the interval. */
	if (verdict && isfinite(pct))
		fprintf(f, ";\n    %s minus %s: %s (Yuen's t, 20%% trimmed, this run only)", sb, sa,
			verdict);
	fputc('\n', f);
	fpl_tbl_aa_line(run, 4, f);
}

void fpl_summary_ctxsw(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char b1[32], b2[32], b3[32], x[64];
		struct fpl_summary s;

		if (run->skipped || strcmp(run->bench, "ctxsw"))
			continue;
		/* An interrupted run may hold no switch yet: no heading for nothing. */
		if (!fpl_pick_stat(run, "switch", &s) &&
		    !(fpl_pick_stat(run, "switch_a", &s) && fpl_pick_stat(run, "switch_b", &s)))
			continue;
		if (!head)
			fprintf(
			    f,
			    "\nContext switch (pipe ping-pong, %s, placement %s), ns per switch "
			    "(half a round trip):\n",
			    fpl_pick_param(run, "mode", b1, sizeof(b1)),
			    fpl_pick_param(run, "placement", b2, sizeof(b2)));
		head = true;
		if (fpl_run_find_metric(run, "switch_b")) {
			ctxsw_ab(run, f);
		} else if (fpl_pick_stat(run, "switch", &s)) {
			fprintf(f, "  state %-8s %s ns\n",
				fpl_pick_param(run, "state", b3, sizeof(b3)), fpl_tbl_mq(x, sizeof(x), &s));
		}
	}
}

/* The mean over the runs of A's round trip in the unit of m (its run medians); 0 when none. */
static double a_mean(const struct fpl_result *r, const struct fpl_run *run,
		     const struct fpl_metric *m)
{
	const struct fpl_metric *a = fpl_run_find_metric(run, "round_trip_a");
	double v[FPL_RUNS_MAX], sum = 0;
	char *key;
	size_t n = 0;

	if (!a || strcmp(a->unit, m->unit) ||
	    !(key = fpl_run_config_key(run, a->name, NULL, NULL)))
		return 0;
	for (size_t i = 0; i < r->nruns && !n; i++)
		if (r->runs[i] == run)
			n = fpl_tbl_run_medians(r, i, a->name, key, v);
	free(key);
	for (size_t k = 0; k < n; k++)
		sum += v[k];
	return n ? sum / (double)n : 0;
}

/* One A/B difference over the runs: its t interval and what it shows. */
static void ab_line(const struct fpl_result *r, const struct fpl_run *run,
		    const struct fpl_metric *m, const double *v, size_t n, FILE *f)
{
	struct fpl_ci ci;
	char cfg[256];
	double a;

	fpl_tbl_config_str(r, run, cfg, sizeof(cfg));
	fprintf(f, "  %s %s: %s, %zu run%s\n    ", run->bench, cfg, m->name, n, n == 1 ? "" : "s");
	if (n < FPL_MIN_RUNS || fpl_mean_t_ci(v, n, 95, &ci)) {
		fprintf(f, "no interval from fewer than %d runs\n", FPL_MIN_RUNS);
		return;
	}
	fprintf(f, "%+.4g %s [%+.4g, %+.4g]", fpl_shown(ci.estimate, 15), m->unit,
		fpl_shown(ci.lo, 15), fpl_shown(ci.hi, 15));
	a = a_mean(r, run, m);
	if (a > 0)
		fprintf(f, " = %+.3f%% [%+.3f, %+.3f] of A's round trip",
			fpl_shown(100 * ci.estimate / a, 3), fpl_shown(100 * ci.lo / a, 3),
			fpl_shown(100 * ci.hi / a, 3));
	fprintf(f, ": %s\n", ci.lo > 0 ? "B costs more, proven" :
		ci.hi < 0 ? "B costs less, proven" : "not proven (the interval holds 0)");
}

/*
 * The A/B differences (ctxsw --ab) across the runs: each run is one
 * replicate, its median one value, and the interval is Student's t over
 * them, so that drift between runs is in it and the interval says what
 * another series of runs would find.
 */
int fpl_series_ctxsw(const struct fpl_result *r, FILE *f)
{
	size_t nkeys = 0;
	char **keys = calloc(r->nruns + 1, sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < r->nruns; i++)
		for (size_t m = 0; m < r->runs[i]->nmetrics; m++) {
			const struct fpl_metric *mm = r->runs[i]->metrics[m];
			char *key;
			double v[FPL_RUNS_MAX];
			bool dup = false;

			if (strcmp(mm->name, "difference") ||
			    !(key = fpl_run_config_key(r->runs[i], mm->name, NULL, NULL)))
				continue;
			for (size_t k = 0; k < nkeys && !dup; k++)
				dup = !strcmp(keys[k], key);
			if (dup || nkeys == r->nruns) {
				free(key);
				continue;
			}
			if (!nkeys)
				fprintf(f, "\nB - A over the runs (the mean of the run medians; 95%% interval, "
					   "Student's t over the runs, each run one replicate):\n");
			keys[nkeys++] = key;
			ab_line(r, r->runs[i], mm, v, fpl_tbl_run_medians(r, i, mm->name, key, v), f);
		}
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(keys);
	return 0;
}
