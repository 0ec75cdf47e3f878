// SPDX-License-Identifier: GPL-3.0-or-later
/* How well each metric repeats over the runs of a --runs N result, by unit. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/report.h"
#include "fpulab/stats.h"
#include "table_internal.h"

/* One metric of one run record: its configuration key, unit and median. */
struct entry {
	char *key;
	const struct fpl_run *run;
	const char *metric, *unit;
	double median;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

static void free_entries(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].key);
	free(e);
}


/* Every metric with finite samples of every run record, differences left out; NULL on ENOMEM. */
static struct entry *collect(const struct fpl_result *r, size_t *count)
{
	size_t cap = 0, n = 0;
	struct entry *e;

	for (size_t i = 0; i < r->nruns; i++)
		cap += r->runs[i]->nmetrics;
	e = calloc(cap ? cap : 1, sizeof(*e));
	for (size_t i = 0; e && i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		for (size_t m = 0; m < run->nmetrics; m++) {
			const struct fpl_metric *mm = run->metrics[m];
			struct fpl_summary s;

			if (fpl_metric_is_difference(mm) || fpl_metric_summary(mm, 0, &s))
				continue;
			e[n].key = fpl_run_config_key(run, mm->name, NULL, NULL);
			if (!e[n].key) {
				free_entries(e, n);
				return NULL;
			}
			e[n].run = run;
			e[n].metric = mm->name;
			e[n].unit = mm->unit ? mm->unit : "";
			e[n++].median = s.median;
		}
	}
	*count = n;
	return e;
}

#define MAX_UNITS 16

static int by_metrics(const void *a, const void *b)
{
	const struct fpl_unit_repeat *x = a, *y = b;

	return x->rep.metrics != y->rep.metrics ? (x->rep.metrics < y->rep.metrics ? 1 : -1) :
						  strcmp(x->unit, y->unit);
}

/* "bench k=v k=v: metric" */
static void worst_name(const struct entry *e, char *buf, size_t size)
{
	char params[160];

	fpl_tbl_params_text(e->run->params, params, sizeof(params), ' ');
	snprintf(buf, size, "%s %s: %s", e->run->bench, params, e->metric);
}

/* devs[k][0..nd[k]): the distances of unit k's metrics, one per configuration key. */
static int tally(const struct entry *e, size_t n, double tol_pct, struct fpl_unit_repeat *out,
		 double *vals, double *devs, size_t *unit_of, size_t *key_of)
{
	const char *units[MAX_UNITS];
	size_t nu = 0, ndev = 0, filled = 0;
	int err;

	for (size_t i = 0, j; i < n; i = j) {
		long k;

		for (j = i; j < n && !strcmp(e[j].key, e[i].key); j++)
			vals[j - i] = e[j].median;
		if (j - i < 2)
			continue;	/* in one run only: no spread, and no unit slot */
		k = fpl_tbl_slot(units, &nu, MAX_UNITS, e[i].unit);
		if (k < 0)
			continue;	/* past MAX_UNITS units: the table says so */
		devs[ndev] = fpl_max_dev_pct(vals, j - i);
		key_of[ndev] = i;
		unit_of[ndev++] = (size_t)k;
	}
	for (size_t k = 0; k < nu; k++) {
		double *d = vals, worst = -1;
		size_t m = 0, wi = 0;

		for (size_t i = 0; i < ndev; i++)
			if (unit_of[i] == k) {
				d[m++] = devs[i];
				if (isfinite(devs[i]) && devs[i] > worst) {
					worst = devs[i];
					wi = key_of[i];
				}
			}
		err = fpl_repeatability(d, m, tol_pct, &out[filled].rep);
		if (err == -ENOMEM)
			return err;
		if (err)
			continue;	/* no finite distance for this unit */
		snprintf(out[filled].unit, sizeof(out[filled].unit), "%s", units[k]);
		worst_name(&e[wi], out[filled].worst, sizeof(out[filled].worst));
		filled++;
	}
	qsort(out, filled, sizeof(*out), by_metrics);
	return (int)filled;
}

int fpl_result_repeatability(const struct fpl_result *r, double tol_pct,
			     struct fpl_unit_repeat *out, size_t max)
{
	struct fpl_unit_repeat all[MAX_UNITS];
	size_t n = 0;
	struct entry *e = collect(r, &n);
	double *vals = e ? malloc((n ? n : 1) * sizeof(*vals)) : NULL;
	double *devs = vals ? malloc((n ? n : 1) * sizeof(*devs)) : NULL;
	size_t *unit_of = devs ? malloc((n ? n : 1) * sizeof(*unit_of)) : NULL;
	size_t *key_of = unit_of ? malloc((n ? n : 1) * sizeof(*key_of)) : NULL;
	int got = -ENOMEM;

	if (key_of) {
		qsort(e, n, sizeof(*e), by_key);
		got = tally(e, n, tol_pct, all, vals, devs, unit_of, key_of);
		got = got < (int)max ? got : (int)max;
		if (got > 0)
			memcpy(out, all, (size_t)got * sizeof(*out));
	}
	free(key_of);
	free(unit_of);
	free(devs);
	free(vals);
	if (e)
		free_entries(e, n);
	return got;
}

int fpl_table_repeatability(const struct fpl_result *r, double tol_pct, FILE *f)
{
	struct fpl_unit_repeat u[MAX_UNITS];
	int n = fpl_result_repeatability(r, tol_pct, u, MAX_UNITS);
	char note[512];

	if (n <= 0)
		return n;
	fprintf(f, "\nRepeatability: for each metric, the largest distance of one run's value from "
		   "the median of its runs\n(percent of that median); by unit, over the metrics:\n"
		   "%-10s %8s %10s %9s %8s %8s\n", "unit", "metrics", "within", "median %",
		"p90 %", "worst %");
	for (int k = 0; k < n; k++) {
		char within[32];

		snprintf(within, sizeof(within), "%zu (%.0f%%)", u[k].rep.within,
			 100.0 * (double)u[k].rep.within / (double)u[k].rep.metrics);
		fprintf(f, "%-10s %8zu %10s %9.2f %8.2f %8.2f\n", u[k].unit, u[k].rep.metrics,
			within, u[k].rep.median_pct, u[k].rep.p90_pct, u[k].rep.max_pct);
	}
	for (int k = 0; k < n; k++)
		fprintf(f, "worst in %s: %s\n", u[k].unit, u[k].worst);
	snprintf(note, sizeof(note), "(within: at most %g%% from the median in every run. "
		 "Differences between variants (xsave's diff_cycles, ctxsw's difference, "
		 "section's speedup_pct) are left out: near zero a percentage says nothing of "
		 "them. TSC ticks and ns also carry the core clock's changes between runs, core "
		 "cycles do not: compare runs in cycles.)", tol_pct);
	fpl_tbl_wrap(f, note, 0);
	return ferror(f) ? -EIO : 0;
}
