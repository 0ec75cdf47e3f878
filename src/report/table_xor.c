// SPDX-License-Identifier: GPL-3.0-or-later
/* xor's tables for people: the kernel's calibration lines per section mask, the size sweep. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "fpulab/xor.h"
#include "xorlines.h"
#include "fpulab/report.h"
#include "pick.h"
#include "table_internal.h"
#include "views.h"

#define MAX_COLS 3

static bool is_mode(const struct fpl_run *run, const char *mode)
{
	return !strcmp(fpl_tbl_param_str(run, "mode"), mode);
}

/* The kernel's int for the line: pre-5.10 speeds are kept as printed (MB/s with 3 decimals). */
static int kernel_int(enum fpl_xor_era era, double mbps)
{
	return era == FPL_XOR_ERA_PRE_5_10 ? (int)lround(mbps * 1000) : (int)mbps;
}

/* One calibration's lines (repeat index rep) for the runs whose section is col. */
static void print_lines(const struct fpl_result *r, enum fpl_xor_era era, const char *col,
			size_t rep, FILE *f)
{
	const char *best = NULL;
	double best_v = -1;
	char line[160];

	if (fpl_xor_line_measuring(line, sizeof(line), era) >= 0)
		fprintf(f, "%s\n", line);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const struct fpl_metric *m = fpl_run_find_metric(run, "speed");

		if (!is_mode(run, "calibrate") || strcmp(fpl_tbl_param_str(run, "section"), col) ||
		    run->skipped || !m || m->n <= rep)
			continue;
		if (fpl_xor_line_template(line, sizeof(line), era,
					  fpl_tbl_param_str(run, "template"),
					  kernel_int(era, m->samples[rep])) >= 0)
			fprintf(f, "%s\n", line);
		if (m->samples[rep] > best_v) {
			best_v = m->samples[rep];
			best = fpl_tbl_param_str(run, "template");
		}
	}
	if (best && fpl_xor_line_using(line, sizeof(line), era, best, kernel_int(era, best_v)) >= 0)
		fprintf(f, "%s\n", line);
}

struct row {
	const char *tmpl, *isa;
	const struct fpl_metric *m[MAX_COLS];
	unsigned wins;
};

/* Columns in the order the runs have them: "no section" first. */
static size_t columns(const struct fpl_result *r, const char **cols)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		const char *s = fpl_tbl_param_str(r->runs[i], "section");
		bool seen = false;

		if (!is_mode(r->runs[i], "calibrate"))
			continue;
		for (size_t k = 0; k < n; k++)
			seen |= !strcmp(cols[k], s);
		if (!seen && n < MAX_COLS)
			cols[n++] = s;
	}
	return n;
}

static size_t rows(const struct fpl_result *r, const char **cols, size_t ncol, struct row *rw,
		   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *t = fpl_tbl_param_str(run, "template");
		size_t k;

		if (!is_mode(run, "calibrate"))
			continue;
		for (k = 0; k < n && strcmp(rw[k].tmpl, t); k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			memset(&rw[n], 0, sizeof(rw[n]));
			rw[n].tmpl = t;
			rw[n].isa = fpl_tbl_param_str(run, "isa");
			n++;
		}
		for (size_t c = 0; c < ncol; c++)
			if (!strcmp(fpl_tbl_param_str(run, "section"), cols[c]) && !run->skipped)
				rw[k].m[c] = fpl_run_find_metric(run, "speed");
	}
	return n;
}

/* How often each template was the kernel's pick (first strict maximum) without a section. */
static void count_wins(struct row *rw, size_t n)
{
	size_t reps = 0;

	for (size_t k = 0; k < n; k++)
		if (rw[k].m[0] && rw[k].m[0]->n > reps)
			reps = rw[k].m[0]->n;
	for (size_t i = 0; i < reps; i++) {
		int best = -1;

		for (size_t k = 0; k < n; k++)
			if (rw[k].m[0] && rw[k].m[0]->n > i &&
			    (best < 0 || rw[k].m[0]->samples[i] > rw[best].m[0]->samples[i]))
				best = (int)k;
		if (best >= 0)
			rw[best].wins++;
	}
}

/* Fewer calibrations than an interval needs: the median of the per-calibration ratios all the same. */
static double median_ratio(const struct fpl_metric *sec, const struct fpl_metric *none, size_t n)
{
	double *x = malloc(n * sizeof(*x)), m = NAN;
	size_t k = 0;

	if (!x)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (none->samples[i] > 0 && isfinite(sec->samples[i]))
			x[k++] = sec->samples[i] / none->samples[i];
	if (k) {
		fpl_sort(x, k);
		m = fpl_quantile_sorted(x, k, 0.5);
	}
	free(x);
	return m;
}

static void print_speed(const struct fpl_metric *m, FILE *f)
{
	struct fpl_summary s;
	char buf[64];

	if (!m || fpl_metric_summary(m, 0, &s)) {
		fprintf(f, " %22s", "-");
		return;
	}
	if (s.n == 1)
		snprintf(buf, sizeof(buf), "%.0f", s.median);
	else
		snprintf(buf, sizeof(buf), "%.0f [%.0f, %.0f]", s.median, s.min, s.max);
	fprintf(f, " %22s", buf);
}

/* Per-round ratio section / none: median with its interval when there are enough rounds. */
static void print_ratio(const struct fpl_metric *sec, const struct fpl_metric *none, FILE *f)
{
	size_t n = sec && none ? (sec->n < none->n ? sec->n : none->n) : 0;
	struct fpl_ci ci;
	char buf[64];

	if (!n) {
		fprintf(f, " %22s", "-");
		return;
	}
	if (!fpl_speedup_ci(sec->samples, none->samples, n, &ci))
		snprintf(buf, sizeof(buf), "%.3f [%.3f, %.3f]", 1 + ci.estimate / 100,
			 1 + ci.lo / 100, 1 + ci.hi / 100);
	else
		snprintf(buf, sizeof(buf), "%.3f", median_ratio(sec, none, n));
	fprintf(f, " %22s", buf);
}

static void print_table(const struct fpl_result *r, const char **cols, size_t ncol, FILE *f)
{
	struct row rw[32];
	size_t n = rows(r, cols, ncol, rw, 32), reps = 0;

	count_wins(rw, n);
	for (size_t k = 0; k < n; k++)
		if (rw[k].m[0] && rw[k].m[0]->n > reps)
			reps = rw[k].m[0]->n;
	fprintf(f, "\n# %zu calibration(s), interleaved; MB/s as the kernel computes it: median "
		"[min, max]; ratios: median of per-calibration ratios to no section [95%% "
		"order-statistic interval, 6 or more calibrations]; wins: calibrations in which "
		"the template was the fastest with no section (the one the kernel would pick)\n",
		reps);
	fprintf(f, "%-16s %-9s", "template", "ISA");
	for (size_t c = 0; c < ncol; c++)
		fprintf(f, " %22s", cols[c]);
	for (size_t c = 1; c < ncol; c++) {
		char h[48];

		snprintf(h, sizeof(h), "%s/none", cols[c]);
		fprintf(f, " %22s", h);
	}
	fprintf(f, " %5s\n", "wins");
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%-16s %-9s", rw[k].tmpl, rw[k].isa);
		for (size_t c = 0; c < ncol; c++)
			print_speed(rw[k].m[c], f);
		for (size_t c = 1; c < ncol; c++)
			print_ratio(rw[k].m[c], rw[k].m[0], f);
		fprintf(f, " %5u\n", rw[k].wins);
	}
}

static void print_calibrate(const struct fpl_result *r, FILE *f)
{
	const char *cols[MAX_COLS], *policy = "", *insn = "";
	size_t ncol = columns(r, cols), reps = 0;
	enum fpl_xor_era era = FPL_XOR_ERA_CURRENT;
	char line[160];

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_metric *m = fpl_run_find_metric(r->runs[i], "speed");

		era = (enum fpl_xor_era)fpl_xor_era_by_name(
			fpl_tbl_param_str(r->runs[i], "kernel_era"));
		if (*fpl_tbl_param_str(r->runs[i], "policy")) {
			policy = fpl_tbl_param_str(r->runs[i], "policy");
			insn = fpl_tbl_param_str(r->runs[i], "insn");
		}
		if (m && m->n > reps)
			reps = m->n;
	}
	if ((int)era < 0)
		era = FPL_XOR_ERA_CURRENT;
	for (size_t c = 0; c < ncol; c++) {
		if (c)
			fprintf(f, "\n# every do_2 inside kernel_fpu_begin_mask(%s) .. kernel_fpu_end "
				"(modelled: %s restore, %s):\n", cols[c], policy, insn);
		print_lines(r, era, cols[c], 0, f);
	}
	for (size_t i = 0; i < r->nruns && era == FPL_XOR_ERA_CURRENT; i++) {
		const char *forced = fpl_tbl_param_str(r->runs[i], "kernel_forced");

		if (*forced && fpl_xor_line_forced(line, sizeof(line), era, forced) >= 0) {
			fprintf(f, "# a 6.x kernel on this CPU skips the calibration and prints: %s\n",
				line);
			break;
		}
	}
	if (reps > 1 || ncol > 1)
		print_table(r, cols, ncol, f);
}

static double median_of(const struct fpl_run *run, const char *metric)
{
	return fpl_metric_median(fpl_run_find_metric(run, metric));
}

/* A figure, or "-" in its width where there is none (no metric, no memcpy row). */
static void cell(FILE *f, int width, const char *fmt, double v)
{
	fputc(' ', f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fprintf(f, "%*s", width, "-");
}

/*
 * The "% bound" cell: the median, unless the data did not fit in L1D
 * (">L1D": the bound does not apply there), marked "!" when it cannot be
 * true (the run's bound_anomaly) and "?" when the L1D size is unknown; any
 * row's (memcpy's too) marked "~" where too few rounds lay between quiet
 * readings of the interference reference, so that every sample was kept.
 */
enum bound_mark {
	MARK_BEYOND = 1, MARK_ANOMALY = 2, MARK_UNKNOWN = 4,
	MARK_SHORT = 8,		/* "~": every sample kept, too few quiet rounds */
	MARK_DROPPED = 16,	/* some row kept only quiet rounds (the reference was read) */
	MARK_EVERY = 32,	/* some row kept every sample without a reference (4 MiB on, old files) */
	MARK_LAID = 64,		/* some row says where its buffers lay (observed.buffers_apart_bytes) */
};

/* How a row's samples were kept (the tsc metric's extra.interference): one of the last three marks. */
static unsigned kept_mark(const struct fpl_run *run)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, "tsc");
	const json_t *inf = m && m->extra ? json_object_get(m->extra, "interference") : NULL;

	if (!inf)
		return MARK_EVERY;
	if (!json_is_true(json_object_get(inf, "applied")) &&
	    json_integer_value(json_object_get(inf, "samples_quiet")) <
		    json_integer_value(json_object_get(inf, "samples_taken")))
		return MARK_SHORT | MARK_DROPPED;
	return MARK_DROPPED;
}

/* The reference floor a row was judged by; INFINITY without one. */
static double obs_floor(const struct fpl_run *run)
{
	const json_t *fl = json_object_get(fpl_run_obs_get(run, "interference"), "floor_tsc");

	return json_is_number(fl) ? json_number_value(fl) : INFINITY;
}

static unsigned print_bound(const struct fpl_run *run, FILE *f)
{
	const json_t *fits = fpl_run_obs_get(run, "fits_l1d");
	unsigned kept = kept_mark(run),
		 marks = kept | (fpl_run_obs_get(run, "buffers_apart_bytes") ? MARK_LAID : 0);
	const char *tilde = kept & MARK_SHORT ? "~" : "";
	char cell[32];

	if (!fpl_run_find_metric(run, "bound_pct")) {
		snprintf(cell, sizeof(cell), "-%s", tilde);
		fprintf(f, " %8s %8s\n", "-", cell);
		return marks;
	}
	fprintf(f, " %8.1f", json_number_value(fpl_run_obs_get(run, "bound_bytes_per_cycle")));
	if (json_is_false(fits)) {
		snprintf(cell, sizeof(cell), ">L1D%s", tilde);
		marks |= MARK_BEYOND;
	} else if (!isfinite(median_of(run, "bound_pct"))) {
		snprintf(cell, sizeof(cell), "-%s", tilde);
	} else {
		snprintf(cell, sizeof(cell), "%.0f%s%s%s", median_of(run, "bound_pct"),
			 fpl_run_obs_get_str(run, "bound_anomaly") ? "!" : "",
			 json_is_true(fits) ? "" : "?", tilde);
		marks |= (fpl_run_obs_get_str(run, "bound_anomaly") ? MARK_ANOMALY : 0) |
			 (json_is_true(fits) ? 0 : MARK_UNKNOWN);
	}
	fprintf(f, " %8s\n", cell);
	return marks;
}

/* The footnotes of the sweep table: what the columns are, how samples were kept, the marks. */
static void sweep_notes(unsigned marks, const struct fpl_metric *bound, long long l1d,
			double floor, FILE *f)
{
	char fl[96] = "";

	fprintf(f, "\nMB/s: decimal MB of destination per second (the kernel's convention), median "
		   "of the samples kept, each one call timed by N vs 2N difference; B/cycle: bytes "
		   "of destination per estimated core cycle; x memcpy: against glibc memcpy of the "
		   "same size measured in the same interleaved rounds%s; bound: bytes of "
		   "destination per cycle that the CPU's loads and stores allow with the data in "
		   "L1D, and %% bound the median of B/cycle over it per sample (- for memcpy). "
		   "--json keeps every sample kept.\n",
		marks & MARK_DROPPED ? ", the same rounds kept" : "");
	if (isfinite(floor))
		snprintf(fl, sizeof(fl), ", %.1f TSC ticks: a sweep spent wholly in a slow "
			 "episode has a higher one", floor);
	if (marks & MARK_DROPPED)
		fprintf(f, "Samples kept: %s only the rounds between quiet readings of an FXSAVE64 "
			   "reference (within 4%% of its floor%s), the host's slow episodes dropped "
			   "(--json: observed.interference, extra.interference)%s.\n",
			marks & MARK_EVERY ? "below 4 MiB," : "in every row,", fl,
			marks & MARK_EVERY ? "; from 4 MiB on every sample" : "");
	else
		fprintf(f, "Samples kept: every one (no interference reference was read).\n");
	if (marks & MARK_LAID)
		fprintf(f, "Buffers: a row's destination and sources back to back in one "
			   "page-aligned region, its size rounded up to a page apart, as the "
			   "kernel's do_xor_speed() places them (observed.buffers_apart_bytes).\n");
	if (marks & MARK_SHORT)
		fprintf(f, "~: too few rounds between quiet readings of the reference (a slow episode "
			   "through the row's measurement and its wait): every sample kept, the slow "
			   "ones with them, so the figure is low (see the warning).\n");
	if (marks & MARK_BEYOND)
		fprintf(f, ">L1D: do_N touches N x size bytes, more than the L1D (%lld KiB here): the "
			   "data comes from L2 or beyond, where the L1 bound does not apply, so no "
			   "percentage is shown (--json keeps it, with fits_l1d false).\n",
			l1d >> 10);
	if (marks & MARK_ANOMALY)
		fprintf(f, "!: above %.0f%% of the bound, which cannot be true: an anomaly, see the "
			   "warning naming the row.\n", FPL_XOR_BOUND_ANOMALY_PCT);
	if (marks & MARK_UNKNOWN)
		fprintf(f, "?: this CPU does not tell its L1D size (CPUID), so whether the data fit "
			   "in L1D is not known.\n");
	if (bound && bound->extra)
		fprintf(f, "Bound model: %s: %s.\n",
			json_string_value(json_object_get(bound->extra, "core")),
			json_string_value(json_object_get(bound->extra, "source")));
}

static void print_sweep(const struct fpl_result *r, FILE *f)
{
	const struct fpl_metric *bound = NULL;
	long long l1d = 0;
	unsigned marks = 0;
	double ref = NAN, floor = INFINITY;

	fprintf(f, "%10s %5s %-16s %-9s %12s %10s %10s %8s %8s\n", "size", "do_N", "template",
		"ISA", "MB/s", "B/cycle", "x memcpy", "bound", "% bound");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *t = fpl_tbl_param_str(run, "template");
		bool mc = !strcmp(t, "memcpy");

		/* memcpy closes each (size, arity) group; find it first for the ratio. */
		if (i == 0 || fpl_run_param_get_int(run, "size", 0) !=
				      fpl_run_param_get_int(r->runs[i - 1], "size", 0) ||
		    fpl_run_param_get_int(run, "arity", 0) !=
			    fpl_run_param_get_int(r->runs[i - 1], "arity", 0)) {
			ref = NAN;
			for (size_t j = i; j < r->nruns; j++) {
				if (!strcmp(fpl_tbl_param_str(r->runs[j], "template"), "memcpy")) {
					ref = median_of(r->runs[j], "speed");
					break;
				}
			}
		}
		fprintf(f, "%10lld %5s %-16s %-9s", fpl_run_param_get_int(run, "size", 0),
			mc ? "-" : (char[]){ 'd', 'o', '_', (char)('0' +
				fpl_run_param_get_int(run, "arity", 0)), 0 }, t,
			fpl_tbl_param_str(run, "isa"));
		if (run->skipped) {
			fprintf(f, " skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		cell(f, 12, "%12.0f", median_of(run, "speed"));
		cell(f, 10, "%10.2f", median_of(run, "bytes_per_cycle"));
		cell(f, 10, "%10.2f", median_of(run, "speed") / ref);
		marks |= print_bound(run, f);
		floor = fmin(floor, obs_floor(run));
		if (!bound)
			bound = fpl_run_find_metric(run, "bound_pct");
		if (!l1d)
			l1d = fpl_run_obs_get_int(run, "l1d_bytes", 0);
	}
	sweep_notes(marks, bound, l1d, floor, f);
}

int fpl_table_xor(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	bool cal = false;

	(void)o;
	for (size_t i = 0; i < r->nruns; i++)
		cal |= is_mode(r->runs[i], "calibrate");
	if (cal)
		print_calibrate(r, f);
	else
		print_sweep(r, f);
	return ferror(f) ? -EIO : 0;
}

/* The fastest template by median: the 4 KiB do_2 sweep, else the calibration without a section. */
void fpl_summary_xor(const struct fpl_result *r, FILE *f)
{
	const struct fpl_run *best = NULL, *ref = NULL;
	struct fpl_summary bs = { 0 }, rs = { 0 }, s;
	bool sweep = fpl_pick_run(r, "xor", "mode=sweep size=4096 arity=2") != NULL;
	char b1[32], b2[32], x[64], y[64];

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *t;

		if (run->skipped ||
		    !fpl_pick_match(run, "xor",
				    sweep ? "mode=sweep size=4096 arity=2" : "mode=calibrate") ||
		    (!sweep &&
		     strcmp(fpl_pick_param(run, "section", b1, sizeof(b1)), "no section")) ||
		    !fpl_pick_stat(run, "speed", &s))
			continue;
		t = fpl_pick_param(run, "template", b2, sizeof(b2));
		if (!strcmp(t, "memcpy")) {
			ref = run;
			rs = s;
		} else if (!best || s.median > bs.median) {
			best = run;
			bs = s;
		}
	}
	if (!best)
		return;
	fprintf(f, "\nBest xor routine, %s, MB/s (decimal, of destination):\n  %s %s",
		sweep ? "do_2 over 4 KiB as the kernel calibrates" :
			"the kernel's calibration without a section",
		fpl_pick_param(best, "template", b1, sizeof(b1)), fpl_tbl_mq(x, sizeof(x), &bs));
	if (ref)
		fprintf(f, "; memcpy of the same size %s", fpl_tbl_mq(y, sizeof(y), &rs));
	fprintf(f, "\n");
	fpl_tbl_interference_line(best, f);
	(void)b2;
}
