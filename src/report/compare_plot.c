// SPDX-License-Identifier: GPL-3.0-or-later
/* ministat's text plot and whole output (--ministat), written to match Debian's ministat 20150715. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

#define PLOT_MAX_SETS 7

static const char plot_sym[] = " x+*%#@O";

/*
 * Column of v; C's truncation toward zero, as ministat converts. v lies in
 * [lo, hi] but v - x0 (x0 = lo - dx / 2) can still overflow to inf near
 * DBL_MAX: clamped before the conversion, which is undefined out of range.
 */
static int column(double v, double x0, double dx, int width)
{
	double c = (v - x0) / dx;

	if (!(c >= 0))
		return 0;
	return c >= width ? width - 1 : (int)c;
}

/* Points per column; ministat stacks a column's points in rows 1, 2, ... */
static int column_counts(const struct fpl_plot_set *s, double x0, double dx, int width,
			 size_t *count)
{
	size_t best = 0;

	memset(count, 0, width * sizeof(*count));
	for (size_t k = 0; k < s->n; k++) {
		int x = column(s->sorted[k], x0, dx, width);

		if (++count[x] > best)
			best = count[x];
	}
	return best > (size_t)INT32_MAX - 1 ? -1 : (int)best;
}

static void draw_bar(char *bar, const struct fpl_plot_set *s, double x0, double dx, int w)
{
	if (!isnan(s->stddev)) {
		int l = column(s->mean - s->stddev, x0, dx, w);
		int r = column(s->mean + s->stddev, x0, dx, w);

		bar[r] = '|';
		bar[l] = '|';
		for (int i = l + 1; i < r; i++)
			if (!bar[i])
				bar[i] = '_';
	}
	bar[column(s->median, x0, dx, w)] = 'M';
	bar[column(s->mean, x0, dx, w)] = 'A';
}

static void border(FILE *out, int width)
{
	fputc('+', out);
	for (int i = 0; i < width; i++)
		fputc('-', out);
	fputs("+\n", out);
}

/* Rows top down (row 0 is never drawn), then the bar line. */
static void dump(FILE *out, const char *data, int height, const char *bar, int width)
{
	border(out, width);
	for (int row = height - 1; row >= 1; row--) {
		fputc('|', out);
		for (int j = 0; j < width; j++) {
			unsigned char k = (unsigned char)data[row * width + j];

			if (k < sizeof(plot_sym) - 1)
				fputc(plot_sym[k], out);
			else
				fprintf(out, "[%02x]", k);
		}
		fputs("|\n", out);
	}
	fputc('|', out);
	for (int j = 0; j < width; j++)
		fputc(bar[j] ? bar[j] : ' ', out);
	fputs("|\n", out);
	border(out, width);
}

/*
 * Rows hold OR-ed set numbers, so coinciding points of sets 1 and 2 show as
 * set 3's symbol, as in ministat. Like ministat, the drawn height is the last
 * set's stack height, and rows a taller earlier set left above it are only
 * cleared when a later set grows the plot again.
 */
int fpl_cmp_plot(FILE *out, const struct fpl_plot_set *sets, size_t nsets, int width,
		 int max_rows)
{
	double lo = 999e99, hi = -999e99, span, dx, x0;
	int height = 0, cap = 0, err = 0;
	char *data = NULL, *bar;
	size_t *count = NULL;

	if (nsets > PLOT_MAX_SETS || width < 2)
		return -EINVAL;
	for (size_t i = 0; i < nsets; i++) {
		const struct fpl_plot_set *s = &sets[i];
		double v[4] = { s->sorted[0], s->sorted[s->n - 1], s->mean - s->stddev,
				s->mean + s->stddev };

		for (int k = 0; k < 4; k++) {
			lo = v[k] < lo ? v[k] : lo;
			hi = v[k] > hi ? v[k] : hi;
		}
	}
	span = hi - lo;
	if (span == 0 || !nsets) {
		fputs("[no plot, span is zero width]\n", out);
		return 0;
	}
	/* Values near DBL_MAX overflow the mean or stddev: columns would be (int) of inf. */
	if (!isfinite(span)) {
		fputs("[no plot, values too large to draw]\n", out);
		return 0;
	}
	dx = span / (width - 1.0);
	x0 = lo - .5 * dx;
	bar = calloc(width, 1);
	count = calloc(width, sizeof(*count));
	if (!bar || !count) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nsets; i++) {
		const struct fpl_plot_set *s = &sets[i];
		int best = column_counts(s, x0, dx, width, count), m;

		/* Scale tall stacks down to max_rows; 0 draws every point, as ministat does. */
		if (max_rows > 0 && best > max_rows)
			for (int x = 0; x < width; x++)
				count[x] = (count[x] * max_rows + best - 1) / best;
		m = (max_rows > 0 && best > max_rows ? max_rows : best) + 1;
		if (m > cap) {
			char *p = realloc(data, (size_t)m * width);

			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			data = p;
			cap = m;
		}
		if (m > height)
			memset(data + (size_t)height * width, 0, (size_t)(m - height) * width);
		height = m;
		for (int x = 0; x < width; x++)
			for (size_t row = 1; row <= count[x]; row++)
				data[row * width + x] |= (char)(i + 1);
		draw_bar(bar, s, x0, dx, width);
	}
	dump(out, data, height, bar, width);
out:
	free(count);
	free(data);
	free(bar);
	return err;
}

/* The values ministat would see (the tested ones): all of them, or the middle after trimming. */
static void ministat_view(const struct fpl_cmp *c, const struct fpl_cmp_series *s,
			  struct fpl_ministat *ms, struct fpl_plot_set *ps)
{
	size_t g = fpl_trim_count(s->nv, c->opts.trim);
	const double *mid = s->sorted + g;

	fpl_ministat_set(g ? mid : s->values, mid, s->nv - 2 * g, ms);
	ps->sorted = mid;
	ps->n = ms->n;
	ps->mean = fpl_ministat_avg(ms);
	ps->stddev = fpl_ministat_stddev(ms);
	ps->median = ms->median;
}

static int ministat_metric(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	struct fpl_ministat ms[PLOT_MAX_SETS] = { { 0 } };
	struct fpl_plot_set ps[PLOT_MAX_SETS] = { { 0 } };
	int err;

	for (size_t i = 0; i < c->ncases; i++) {
		ministat_view(c, &m->s[i], &ms[i], &ps[i]);
		fprintf(out, "%c %s\n", plot_sym[i + 1], c->paths[i]);
	}
	err = fpl_cmp_plot(out, ps, c->ncases, 74, 0);
	if (err)
		return err;
	fputs("    N           Min           Max        Median           Avg        Stddev\n", out);
	for (size_t i = 0; i < c->ncases; i++) {
		struct fpl_ministat_rel r;

		fprintf(out, "%c %3d %13.8g %13.8g %13.8g %13.8g %13.8g\n", plot_sym[i + 1],
			(int)ms[i].n, ms[i].min, ms[i].max, ms[i].median, ps[i].mean,
			ps[i].stddev);
		if (!i)
			continue;
		if (ms[i].n + ms[0].n < 3) {
			fputs("No test: one value in each case\n", out);
			continue;
		}
		fpl_ministat_relative(&ms[i], &ms[0], c->opts.confidence, &r);
		if (r.different) {
			fprintf(out, "Difference at %.1f%% confidence\n", c->opts.confidence);
			fprintf(out, "\t%g +/- %g\n", r.d, r.e);
			fprintf(out, "\t%g%% +/- %g%%\n", r.pct, r.pct_e);
			fprintf(out, "\t(Student's t, pooled s = %g)\n", r.spool);
		} else {
			fprintf(out, "No difference proven at %.1f%% confidence\n",
				c->opts.confidence);
		}
	}
	return 0;
}

int fpl_cmp_emit_ministat(const struct fpl_cmp *c, FILE *out)
{
	if (c->ncases > PLOT_MAX_SETS || isnan(fpl_ministat_t(c->opts.confidence, 2)))
		return -EINVAL;
	for (size_t j = 0; j < c->nm; j++) {
		int err;

		/* ministat reads one number a line; say which metric a block is for other input. */
		if (c->kind != FPL_CMP_NUMBERS)
			fprintf(out, "# %s (%s; %s)\n", c->m[j].label,
				*c->m[j].unit ? c->m[j].unit : "unit not given", c->m[j].method);
		err = ministat_metric(c, &c->m[j], out);
		if (err)
			return err;
	}
	return 0;
}
