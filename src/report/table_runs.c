// SPDX-License-Identifier: GPL-3.0-or-later
/* The table of a --runs series: a line per run, each metric's run medians, warnings once each. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/section_work.h"
#include "fpulab/bench.h"
#include "fpulab/stats.h"
#include "table_internal.h"


/* A params key whose value is not the same in every run of this benchmark. */
static bool varies(const struct fpl_result *r, const char *bench, const char *key)
{
	const json_t *first = NULL;
	bool any = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const json_t *v;

		if (strcmp(r->runs[i]->bench, bench))
			continue;
		v = json_object_get(r->runs[i]->params, key);
		if (any && !(v && first ? json_equal(v, first) : v == first))
			return true;
		first = v;
		any = true;
	}
	return false;
}

/* value is the default of the benchmark's option key. */
static bool is_default(const char *bench, const char *key, const char *value)
{
	const struct fpl_bench *b = fpl_bench_find(bench);
	const struct fpl_opt *o = b ? fpl_bench_find_opt(b, key) : NULL;

	return o && o->def && !strcmp(o->def, value);
}

/* The configuration in a few words: the params that tell this benchmark's runs apart, as k=v. */
void fpl_tbl_config_str(const struct fpl_result *r, const struct fpl_run *run, char *buf, size_t n)
{
	const char *key;
	json_t *v;
	size_t len = 0;
	bool all = true;

	json_object_foreach(run->params, key, v)
		all &= !varies(r, run->bench, key);
	buf[0] = 0;
	json_object_foreach(run->params, key, v) {
		char *s;

		if (!all && !varies(r, run->bench, key))
			continue;
		s = json_is_string(v) ? strdup(json_string_value(v)) :
		    json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6));
		if (all && s && is_default(run->bench, key, s)) {
			free(s);
			continue;	/* the same in every run and the default: says nothing */
		}
		if (s && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "",
						key, s);
		free(s);
	}
}

/* A metric that is the point of its benchmark's runs: a difference between variants (A/B). */
static bool headline(const struct fpl_metric *m)
{
	return fpl_metric_kind(m) == FPL_KIND_DIFFERENCE;
}

#define SPREAD_ROWS 48
#define SPREAD_ROWS_BENCH 8

/* One line per run: its process, CPU, clock, load, time and preemptions. */
static void print_run_lines(const struct fpl_result *r, long done, long requested, FILE *f)
{
	long last = 0;

	fprintf(f, "%ld of %ld runs, each a fresh process, benchmarks in the same order in each:\n",
		done, requested);
	fprintf(f, "%4s %8s %4s %9s %9s %-16s %7s %10s\n", "run", "pid", "CPU", "core GHz",
		"drift %", "load 1/5/15 min", "wall s", "preempted");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *l = fpl_run_obs_get(run, "run_loadavg_start");
		long idx = fpl_run_obs_get_int(run, "run_index", 0);

		if (idx == last)
			continue;
		last = idx;
		fprintf(f, "%4ld %8lld %4lld %9.3f %+9.2f %5.2f/%4.2f/%4.2f %7.1f %10lld\n", idx,
			fpl_run_obs_get_int(run, "run_pid", 0), fpl_run_obs_get_int(run, "run_cpu", -1),
			json_number_value(fpl_run_obs_get(run, "run_core_hz")) / 1e9,
			fpl_shown(json_number_value(fpl_run_obs_get(run, "run_core_drift_pct")), 2),
			json_number_value(json_array_get(l, 0)), json_number_value(json_array_get(l, 1)),
			json_number_value(json_array_get(l, 2)),
			json_number_value(fpl_run_obs_get(run, "run_wall_s")),
			fpl_run_obs_get_int(run, "run_preempted", 0));
	}
}

/*
 * The medians of metric name in the runs [from, nruns) of r whose
 * configuration key is key: the same metric of the same configuration in
 * every run. Their count, at most FPL_RUNS_MAX into v.
 */
size_t fpl_tbl_run_medians(const struct fpl_result *r, size_t from, const char *name,
			  const char *key, double *v)
{
	size_t n = 0;

	for (size_t j = from; j < r->nruns && n < FPL_RUNS_MAX; j++) {
		const struct fpl_metric *mm = fpl_run_find_metric(r->runs[j], name);
		char *k2 = mm ? fpl_run_config_key(r->runs[j], mm->name, NULL, NULL) : NULL;
		/* the one summary of a metric: its finite samples (a NaN is one not taken) */
		double med = k2 && !strcmp(k2, key) ? fpl_metric_median(mm) : NAN;

		if (isfinite(med))
			v[n++] = med;
		free(k2);
	}
	return n;
}

/* The metric column's width: the longest name (cut names were ambiguous: _cycles, _tsc). */
static int metric_width(const struct fpl_result *r)
{
	size_t w = 20;

	for (size_t i = 0; i < r->nruns; i++)
		for (size_t m = 0; m < r->runs[i]->nmetrics; m++)
			if (strlen(r->runs[i]->metrics[m]->name) > w)
				w = strlen(r->runs[i]->metrics[m]->name);
	return w > 64 ? 64 : (int)w;
}

/* One metric's row: its n run medians v, their median, CV, min and max. */
static void spread_row(const struct fpl_result *r, const struct fpl_run *run,
		       const struct fpl_metric *m, const double *v, size_t n, FILE *f)
{
	int mw = metric_width(r);
	struct fpl_summary s;
	char cfg[256], cv[16];

	fpl_summarize(v, n, 0, &s);
	fpl_tbl_config_str(r, run, cfg, sizeof(cfg));
	/* a difference's spread in percent of its own mean near 0 says nothing (compare: n/a) */
	if (n > 1 && s.mean && fpl_metric_kind(m) != FPL_KIND_DIFFERENCE)
		snprintf(cv, sizeof(cv), "%.2f", 100 * s.stddev / fabs(s.mean));
	else
		snprintf(cv, sizeof(cv), "-");
	fprintf(f, "%-8s %-52.52s %-*.*s %4zu %12.4g %7s %12.4g %12.4g %s\n", run->bench, cfg,
		mw, mw, m->name, n, s.median, cv, s.min, s.max, m->unit);
}

/* For people: one line per run, then each metric's run medians (their spread is what compare tests). */
int fpl_table_runs(const struct fpl_result *r, long done, long requested,
		   int (*series)(const struct fpl_result *r, FILE *f), FILE *f)
{
	size_t rows = 0, groups = 0, bench_rows = 0;
	const char *bench_now = "";
	size_t nseen = 0, cap = 1;
	char **seen;

	for (size_t i = 0; i < r->nruns; i++)
		cap += r->runs[i]->nmetrics;
	seen = calloc(cap, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	print_run_lines(r, done, requested, f);
	fprintf(f, "\nEach metric over the runs (one value per run: its median; CV: the spread "
		   "between runs):\n%-8s %-52s %-*s %4s %12s %7s %12s %12s %s\n", "bench",
		"configuration", metric_width(r), "metric", "runs", "median", "CV %", "min", "max",
		"unit");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		/* An A/B's difference first: it is the figure the runs are for. */
		for (size_t k2 = 0; k2 < 2 * run->nmetrics; k2++) {
			size_t m = k2 % run->nmetrics;	/* two passes: headline metrics first */
			char *key;
			double v[FPL_RUNS_MAX];
			size_t n;
			bool dup = false;

			if (headline(run->metrics[m]) != (k2 < run->nmetrics))
				continue;
			key = fpl_run_config_key(run, run->metrics[m]->name, NULL, NULL);
			for (size_t k = 0; key && k < nseen && !dup; k++)
				dup = !strcmp(seen[k], key);
			if (!key || dup || nseen == cap) {
				free(key);
				continue;
			}
			seen[nseen++] = key;
			groups++;
			if (strcmp(run->bench, bench_now)) {
				bench_now = run->bench;
				bench_rows = 0;
			}
			if (rows >= SPREAD_ROWS || bench_rows >= SPREAD_ROWS_BENCH)
				continue;
			n = fpl_tbl_run_medians(r, i, run->metrics[m]->name, key, v);
			if (!n)
				continue;
			spread_row(r, run, run->metrics[m], v, n, f);
			rows++;
			bench_rows++;
		}
	}
	if (groups > rows)
		fprintf(f, "(%zu of %zu metrics shown, the first of each benchmark; all are in the "
			   "file (-o) or --json)\n", rows, groups);
	if ((series && series(r, f)) ||
	    fpl_table_repeatability(r, FPL_REPEAT_TOL_PCT, f) == -ENOMEM) {
		for (size_t k = 0; k < nseen; k++)
			free(seen[k]);
		free(seen);
		return -ENOMEM;
	}
	fprintf(f, "\n'fpulab compare A.json B.json' tests two such files run by run.\n");
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	return ferror(f) ? -EIO : 0;
}

/* Warnings once each, with how many runs had them. */
/* The text after "run K: ", and K (0 when there is no such prefix). */
static const char *warn_body(const char *t, long *k)
{
	const char *colon = strstr(t, ": ");

	*k = 0;
	if (strncmp(t, "run ", 4) || !colon)
		return t;
	*k = strtol(t + 4, NULL, 10);
	return colon + 2;
}

/* Equal but for the figures in them ("load average 5.48" and "5.68"). */
static bool same_but_numbers(const char *a, const char *b)
{
	while (*a && *b) {
		bool da = (*a >= '0' && *a <= '9') || *a == '.', db = (*b >= '0' && *b <= '9') || *b == '.';

		if (da && db) {
			while ((*a >= '0' && *a <= '9') || *a == '.')
				a++;
			while ((*b >= '0' && *b <= '9') || *b == '.')
				b++;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return !*a && !*b;
}

/* Append run k to a list of runs as ranges: "1-4,7". */
static void add_run(char *buf, size_t n, long *last, long *start, long k, bool flush)
{
	size_t len = strlen(buf);

	if (!flush && *last && k == *last + 1) {
		*last = k;
		return;
	}
	if (*last && len < n)
		len += (size_t)snprintf(buf + len, n - len, *start == *last ? "%s%ld" : "%s%ld-%ld",
					len ? "," : "", *start, *last);
	*start = *last = k;
}

void fpl_table_runs_warnings(const struct fpl_result *r, const char *cmd, long done, FILE *f)
{
	size_t i, shown = 0, more = 0;
	json_t *w;

	/* Result-wide warnings of the runs ("run K: text"): once per text, with its runs. */
	json_array_foreach(r->warnings, i, w) {
		long k0, k2, last = 0, start = 0, nk = 0;
		const char *body = warn_body(json_string_value(w), &k0);
		char runs[160] = "";
		bool before = false, differ = false;
		size_t k;
		json_t *w2;

		json_array_foreach(r->warnings, k, w2) {
			const char *b2 = warn_body(json_string_value(w2), &k2);

			if (!same_but_numbers(b2, body) || !k0 != !k2)
				continue;
			if (k < i) {
				before = true;
				break;
			}
			if (k2 && k2 != last) {
				add_run(runs, sizeof(runs), &last, &start, k2, false);
				nk++;
			}
			differ |= strcmp(b2, body) != 0;
		}
		if (before)
			continue;
		add_run(runs, sizeof(runs), &last, &start, 0, true);
		if (shown++ >= 8) {
			more++;
			continue;
		}
		/* merged texts that differ in their figures: say whose these are */
		fprintf(f, "fpulab %s: warning: %s%s%s%s", cmd,
			k0 ? (nk > 1 ? "runs " : "run ") : "", runs, k0 ? ": " : "", body);
		if (differ)
			fprintf(f, " (the figures are run %ld's; the JSON has each run's)", k0);
		fputc('\n', f);
	}
	if (more)
		fprintf(f, "fpulab %s: and %zu more warnings (in the results)\n", cmd, more);
	for (size_t a = 0; a < r->nruns; a++) {
		json_array_foreach(r->runs[a]->warnings, i, w) {
			const char *t = json_string_value(w);
			size_t times = 0, k;
			bool before = fpl_section_warning_stale(r, r->runs[a], t);
			json_t *w2;

			for (size_t b = 0; b < r->nruns && !before; b++)
				json_array_foreach(r->runs[b]->warnings, k, w2)
					if (!strcmp(t, json_string_value(w2)) &&
					    !strcmp(r->runs[a]->bench, r->runs[b]->bench)) {
						before |= b < a || (b == a && k < i);
						times++;
					}
			if (!before)
				fprintf(f, "fpulab %s: warning (%s, %zu of %ld runs): %s\n", cmd,
					r->runs[a]->bench, times, done, t);
		}
	}
}

