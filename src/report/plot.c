// SPDX-License-Identifier: GPL-3.0-or-later
/* Charts of one results document as a gnuplot script with its data inline. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "fpulab/stats.h"
#include "pick.h"
#include "plot_internal.h"
#include "views.h"
#include "table_internal.h"

#define MAX_COLS 12
#define MAX_ROWS 24

void fpl_plot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

int fpl_plot_term_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
		return FPL_PLOT_SVG;
	if (n > 4 && !strcasecmp(path + n - 4, ".png"))
		return FPL_PLOT_PNG;
	return -1;
}

void fpl_plot_head(FILE *f, enum fpl_plot_term term, const char *out, int panels)
{
	int h = 420 * (panels > 0 ? panels : 1);

	if (term == FPL_PLOT_SVG)
		fprintf(f, "set terminal svg size 960,%d dynamic noenhanced font 'sans,11' "
			"background '#ffffff'\n", h);
	else
		fprintf(f, "set terminal pngcairo size 960,%d noenhanced font 'sans,10'\n", h);
	fputs("set output ", f);
	fpl_plot_quote(f, out);
	fprintf(f, "\nset encoding utf8\nset grid ytics lc rgb '#dddddd'\nset key outside right top"
		"\nset border 3\nset tics nomirror\n");
	if (panels > 1)
		fprintf(f, "set multiplot layout %d,1\n", panels);
}

void fpl_plot_tail(FILE *f, int panels)
{
	if (panels > 1)
		fputs("unset multiplot\n", f);
	fputs("set output\n", f);
}

unsigned fpl_plot_by_name(const char *name)
{
	if (!strcmp(name, "xsave"))
		return FPL_PLOT_XSAVE;
	if (!strcmp(name, "xor"))
		return FPL_PLOT_XOR;
	if (!strcmp(name, "ctxsw"))
		return FPL_PLOT_CTXSW;
	if (!strcmp(name, "all"))
		return FPL_PLOT_ALL;
	return 0;
}

static const char *str(const struct fpl_run *run, const char *key)
{
	return json_string_value(json_object_get(run->params, key));
}


static bool xsave_cell(const struct fpl_run *run, const char *method)
{
	const char *m = str(run, "method"), *mask = str(run, "mask_name"), *st = str(run, "state");

	return !run->skipped && !strcmp(run->bench, "xsave") && m && !strcmp(m, method) && mask &&
	       strcmp(mask, "any") && st && (!strcmp(st, "init") || !strcmp(st, "live") ||
					     !strcmp(st, "modified")) &&
	       fpl_run_find_metric(run, "cycles");
}

/* XSAVEOPT's live cells are "modified" (a component changed since the XRSTOR). */
static bool state_is(const struct fpl_run *run, const char *state)
{
	const char *st = str(run, "state");

	return !strcmp(st, state) || (!strcmp(state, "live") && !strcmp(st, "modified"));
}

static const char *xsave_method(const struct fpl_result *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (xsave_cell(r->runs[i], "throughput"))
			return "throughput";
	for (size_t i = 0; i < r->nruns; i++)
		if (xsave_cell(r->runs[i], "latency"))
			return "latency";
	return NULL;
}

static bool has_sweep(const struct fpl_result *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_pick_match(r->runs[i], "xor", "mode=sweep") &&
		    fpl_run_find_metric(r->runs[i], "speed"))
			return true;
	return false;
}

/* The run's switch series: "switch" with its state, or the A/B pair. */
static bool ctxsw_run(const struct fpl_run *run)
{
	return !run->skipped && !strcmp(run->bench, "ctxsw") &&
	       (fpl_run_find_metric(run, "switch") || fpl_run_find_metric(run, "switch_a"));
}

unsigned fpl_plot_available(const struct fpl_result *r)
{
	unsigned m = 0, offered = 0;

	/* What the benchmarks' views offer (src/report/views.c), where the runs have the data. */
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_view *v = fpl_view_find(r->runs[i]->bench);

		offered |= v ? v->plots : 0;
	}
	if (xsave_method(r))
		m |= FPL_PLOT_XSAVE;
	if (has_sweep(r))
		m |= FPL_PLOT_XOR;
	for (size_t i = 0; i < r->nruns; i++)
		if (ctxsw_run(r->runs[i]))
			m |= FPL_PLOT_CTXSW;
	return m & offered;
}

/* Every instruction of the matrix, so that one has one colour in both panels. */
static size_t xsave_insns(const struct fpl_result *r, const char *method, const char **all)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (xsave_cell(r->runs[i], method))
			fpl_tbl_slot(all, &n, MAX_COLS, str(r->runs[i], "insn"));
	return n;
}

/* One state's panel of the matrix: clustered bars (median, IQR) per mask, a bar per insn. */
static void xsave_panel(const struct fpl_result *r, const char *method, const char *state,
			FILE *f)
{
	const char *masks[MAX_ROWS], *insns[MAX_COLS], *all[MAX_COLS];
	size_t nm = 0, ni = 0, na = xsave_insns(r, method, all);

	for (size_t i = 0; i < r->nruns; i++)
		if (xsave_cell(r->runs[i], method) && state_is(r->runs[i], state)) {
			fpl_tbl_slot(masks, &nm, MAX_ROWS, str(r->runs[i], "mask_name"));
			fpl_tbl_slot(insns, &ni, MAX_COLS, str(r->runs[i], "insn"));
		}
	fprintf(f, "$xsave_%s << EOD\n", state);
	for (size_t m = 0; m < nm; m++) {
		fprintf(f, "\"%s\"", masks[m]);
		for (size_t k = 0; k < ni; k++) {
			char spec[160];
			struct fpl_summary s;

			const struct fpl_run *run;

			snprintf(spec, sizeof(spec), "insn=%s mask_name=%s state=%s method=%s",
				 insns[k], masks[m], state, method);
			run = fpl_pick_run(r, "xsave", spec);
			if (!run && !strcmp(state, "live")) {
				snprintf(spec, sizeof(spec), "insn=%s mask_name=%s state=modified "
					 "method=%s", insns[k], masks[m], method);
				run = fpl_pick_run(r, "xsave", spec);
			}
			if (fpl_pick_stat(run, "cycles", &s))
				fprintf(f, " %.4g %.4g %.4g", s.median, s.q1, s.q3);
			else
				fputs(" NaN NaN NaN", f);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	fprintf(f, "set title 'XSAVE family, RFBM components %s: core cycles per instruction, "
		"%s (median, quartile bars)'\n", !strcmp(state, "init") ? "in their init state" :
		"live (XSAVEOPT: one modified)", method);
	fputs("set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
	      "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
	      "set xlabel 'RFBM (components requested)'\nset ylabel 'core cycles'\n"
	      "set xtics rotate by 30 right\nplot ", f);
	for (size_t k = 0; k < ni; k++) {
		size_t lt = 0;

		while (lt < na && strcmp(all[lt], insns[k]))
			lt++;
		fprintf(f, "%s$xsave_%s using %zu:%zu:%zu%s lt %zu title '%s'", k ? ", " : "",
			state, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k, k ? "" : ":xtic(1)", lt + 1,
			insns[k]);
	}
	fputs("\nunset style\nset style data lines\nset xtics norotate\n"
	      "set yrange [*:*]\n", f);
}

static bool sweep_cell(const struct fpl_run *run, long long arity)
{
	return !run->skipped && fpl_pick_match(run, "xor", "mode=sweep") &&
	       json_integer_value(json_object_get(run->params, "arity")) == arity &&
	       fpl_run_find_metric(run, "speed");
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Ticks in [a, b] of mantissas m[0..n) times powers of ten; how many, written when f. */
static int ticks_of(FILE *f, double a, double b, const double *m, size_t n)
{
	int nt = 0;

	for (double d = pow(10, floor(log10(a))); d <= b; d *= 10)
		for (size_t k = 0; k < n; k++) {
			double t = d * m[k];

			if (t < a || t > b)
				continue;
			if (f)
				fprintf(f, "%s'%.0f' %.0f", nt ? ", " : "", t, t);
			nt++;
		}
	return nt;
}

/*
 * The ticks of a log axis over [a, b]: the coarsest of 1-2-5, 1-2-3-5-7 and
 * 1-1.5-2-3-4-5-7 steps per decade that gives at least 4 (a range under
 * two decades, 2100..12600 say, has only 2 of 1-2-5); even steps when none
 * does (850..1093).
 */
static void log_ticks(FILE *f, double a, double b)
{
	static const double s1[] = { 1, 2, 5 }, s2[] = { 1, 2, 3, 5, 7 },
			    s3[] = { 1, 1.5, 2, 3, 4, 5, 7 };
	static const struct { const double *m; size_t n; } seq[] = { { s1, 3 }, { s2, 5 }, { s3, 7 } };

	fprintf(f, "set xrange [%.6g:%.6g]\nset xtics (", a, b);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(seq); i++)
		if (ticks_of(NULL, a, b, seq[i].m, seq[i].n) >= 4) {
			ticks_of(f, a, b, seq[i].m, seq[i].n);
			fputs(")\n", f);
			return;
		}
	{
		double raw = (b - a) / 5, mag = pow(10, floor(log10(raw)));
		double step = raw / mag < 2 ? mag : raw / mag < 5 ? 2 * mag : 5 * mag;
		bool first = true;

		for (double t = ceil(a / step) * step; t <= b; t += step) {
			fprintf(f, "%s'%.0f' %.0f", first ? "" : ", ", t, t);
			first = false;
		}
	}
	fputs(")\n", f);
}

/* MB/s by size for each template, do_2 when swept (else the smallest arity). */
static void xor_panel(const struct fpl_result *r, FILE *f)
{
	const char *tmpl[MAX_COLS];
	size_t nt = 0, sizes[MAX_ROWS], ns = 0;
	long long arity = 99;

	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_pick_match(r->runs[i], "xor", "mode=sweep"))
			arity = fmin(arity, json_integer_value(json_object_get(r->runs[i]->params,
									       "arity")));
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		size_t sz = (size_t)json_integer_value(json_object_get(run->params, "size")), k;

		if (!sweep_cell(run, arity))
			continue;
		fpl_tbl_slot(tmpl, &nt, MAX_COLS, str(run, "template"));
		for (k = 0; k < ns && sizes[k] != sz; k++)
			;
		if (k == ns && ns < MAX_ROWS)
			sizes[ns++] = sz;
	}
	qsort(sizes, ns, sizeof(sizes[0]), size_cmp);
	for (size_t t = 0; t < nt; t++) {
		fprintf(f, "$xor_%zu << EOD\n", t);
		for (size_t k = 0; k < ns; k++) {
			char spec[160];
			struct fpl_summary s;

			snprintf(spec, sizeof(spec), "mode=sweep template=%s size=%zu arity=%lld",
				 tmpl[t], sizes[k], arity);
			if (fpl_pick_stat(fpl_pick_run(r, "xor", spec), "speed", &s))
				fprintf(f, "%zu %.6g %.6g %.6g\n", sizes[k], s.median, s.q1, s.q3);
		}
		fputs("EOD\n", f);
	}
	fprintf(f, "set title 'xor do_%lld: MB/s by buffer size (median, bars: quartiles; "
		"decimal MB of destination)'\n", arity);
	fputs("set logscale x 2\nset xlabel 'bytes per call'\nset ylabel 'MB/s'\nset yrange [0:*]\n",
	      f);
	/* Room beyond the first and last sizes, or gnuplot drops their labels at the border. */
	if (ns) {
		size_t lo = sizes[0], hi = sizes[0];

		for (size_t k = 1; k < ns; k++) {
			lo = sizes[k] < lo ? sizes[k] : lo;
			hi = sizes[k] > hi ? sizes[k] : hi;
		}
		fprintf(f, "set xrange [%zu:%zu]\n", lo / 2 ? lo / 2 : 1, hi * 2);
	}
	fputs("set xtics (", f);
	for (size_t k = 0; k < ns; k++)
		fprintf(f, "%s'%zu%s' %zu", k ? ", " : "", sizes[k] >= 1u << 20 ? sizes[k] >> 20 :
			sizes[k] >> 10, sizes[k] >= 1u << 20 ? "M" : "K", sizes[k]);
	fputs(")\nplot ", f);
	for (size_t t = 0; t < nt; t++) {
		fprintf(f, "%s$xor_%zu using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.7 title ",
			t ? ", " : "", t);
		fpl_plot_quote(f, tmpl[t]);
	}
	fputs("\nunset logscale x\nset xtics autofreq\nset xrange [*:*]\nset yrange [*:*]\n", f);
}

static void ecdf_block(FILE *f, int idx, const struct fpl_metric *m, double *lo, double *p99)
{
	double *v = malloc((m->n ? m->n : 1) * sizeof(*v));
	size_t n = 0;

	fprintf(f, "$ctx_%d << EOD\n", idx);
	for (size_t i = 0; v && i < m->n; i++)
		if (isfinite(m->samples[i]))
			v[n++] = m->samples[i];
	if (v && n) {
		fpl_sort(v, n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%.6g %.6g\n", v[i], ((double)i + 0.5) / (double)n);
		*p99 = fmax(*p99, fpl_quantile_sorted(v, n, 0.99));
		*lo = *lo > 0 ? fmin(*lo, v[0]) : v[0];
	}
	fputs("EOD\n", f);
	free(v);
}

static void ctxsw_panel(const struct fpl_result *r, FILE *f)
{
	char titles[8][96];
	double p99 = 0, lo = 0;
	int n = 0;

	for (size_t i = 0; i < r->nruns && n < 7; i++) {
		const struct fpl_run *run = r->runs[i];
		char b1[32], b2[32];

		if (!ctxsw_run(run))
			continue;
		if (fpl_run_find_metric(run, "switch_a")) {
			snprintf(titles[n], sizeof(titles[n]), "%s (A/B)",
				 fpl_pick_param(run, "state_a", b1, sizeof(b1)));
			ecdf_block(f, n++, fpl_run_find_metric(run, "switch_a"), &lo, &p99);
			snprintf(titles[n], sizeof(titles[n]), "%s (A/B)",
				 fpl_pick_param(run, "state_b", b2, sizeof(b2)));
			ecdf_block(f, n++, fpl_run_find_metric(run, "switch_b"), &lo, &p99);
		} else {
			snprintf(titles[n], sizeof(titles[n]), "%s, %s",
				 fpl_pick_param(run, "state", b1, sizeof(b1)),
				 fpl_pick_param(run, "mode", b2, sizeof(b2)));
			ecdf_block(f, n++, fpl_run_find_metric(run, "switch"), &lo, &p99);
		}
	}
	fputs("set title 'Context switch (pipe ping-pong): distribution of ns per switch, one "
	      "sample a batch, up to the 99th percentile'\nset xlabel 'ns per switch (log scale)'\n"
	      "set ylabel 'fraction of samples at or below'\nset yrange [0:1]\nset logscale x\n"
	      "set mxtics 10\nset grid xtics mxtics lc rgb '#eeeeee'\n",
	      f);
	if (p99 > 0 && lo > 0)
		log_ticks(f, lo * 0.95, p99 * 1.05);
	fputs("plot ", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s$ctx_%d using 1:2 with steps lw 2 title ", i ? ", " : "", i);
		fpl_plot_quote(f, titles[i]);
	}
	fputs("\nunset logscale x\nset grid noxtics nomxtics\nset xtics autofreq\n"
	      "set xrange [*:*]\nset yrange [*:*]\n", f);
}

int fpl_plot_script(const struct fpl_result *r, unsigned mask, enum fpl_plot_term term,
		    const char *out_path, FILE *f, struct fpl_diag *diag)
{
	unsigned have = fpl_plot_available(r) & mask;
	const char *method = xsave_method(r);
	int panels = 0;

	if (!have)
		return fpl_diag_set(diag, -EINVAL, "nothing to plot: no %s runs with samples",
				    mask == FPL_PLOT_XSAVE ? "xsave matrix" : mask == FPL_PLOT_XOR ?
				    "xor sweep" : mask == FPL_PLOT_CTXSW ? "ctxsw" :
				    "xsave matrix, xor sweep or ctxsw");
	panels += have & FPL_PLOT_XSAVE ? 2 : 0;
	panels += have & FPL_PLOT_XOR ? 1 : 0;
	panels += have & FPL_PLOT_CTXSW ? 1 : 0;
	fpl_plot_head(f, term, out_path, panels);
	if (have & FPL_PLOT_XSAVE) {
		xsave_panel(r, method, "init", f);
		xsave_panel(r, method, "live", f);
	}
	if (have & FPL_PLOT_XOR)
		xor_panel(r, f);
	if (have & FPL_PLOT_CTXSW)
		ctxsw_panel(r, f);
	fpl_plot_tail(f, panels);
	return ferror(f) ? -EIO : 0;
}
