// SPDX-License-Identifier: GPL-3.0-or-later
/* Box plots of a comparison's cases, one panel per metric, as a gnuplot script. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "plot_internal.h"

/*
 * A case as people named it: its --label, else its file or directory name
 * without the directories above it; the files of a comma list each so.
 */
static void case_label(const struct fpl_cmp *c, const char *const *labels, size_t i,
		       char *buf, size_t size)
{
	const char *p = c->paths[i];
	size_t n = 0;

	if (labels && labels[i] && *labels[i]) {
		snprintf(buf, size, "%s", labels[i]);
		return;
	}
	buf[0] = 0;
	while (*p && n + 1 < size) {
		size_t len = strcspn(p, ","), end = len;
		const char *b;

		while (end > 1 && p[end - 1] == '/')	/* "dir/" names dir */
			end--;
		for (b = p + end; b > p && b[-1] != '/'; b--)
			;
		n += (size_t)snprintf(buf + n, size - n, "%s%.*s", n ? "," : "",
				      (int)(p + end - b), b);
		p += len + (p[len] == ',');
	}
}

/*
 * A panel's title: what is measured, in words ("cycles (xsave; insn xsavec,
 * mask 0x7)"; will-it-scale's average; nothing for plain numbers), and the
 * cases by their labels, "old vs new".
 */
static void panel_title(const struct fpl_cmp *c, const struct fpl_cmp_metric *m,
			const char *const *labels, char *buf, size_t size)
{
	json_t *params = m->params ? json_loads(m->params, 0, NULL) : NULL;
	const char *k, *sep = "; ";
	size_t n = 0;
	json_t *v;

	buf[0] = 0;
	if (m->bench && m->name) {
		n += (size_t)snprintf(buf, size, "%s (%s", m->name, m->bench);
		json_object_foreach(params, k, v) {
			char val[64];

			if (json_is_string(v))
				snprintf(val, sizeof(val), "%s", json_string_value(v));
			else if (json_is_boolean(v))
				snprintf(val, sizeof(val), "%s", json_is_true(v) ? "yes" : "no");
			else
				snprintf(val, sizeof(val), "%g", json_number_value(v));
			if (n < size)
				n += (size_t)snprintf(buf + n, size - n, "%s%s %s", sep, k, val);
			sep = ", ";
		}
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, "): ");
	} else if (c->kind == FPL_CMP_WIS) {
		n += (size_t)snprintf(buf, size, "will-it-scale %s: ", m->label);
	}
	json_decref(params);
	for (size_t i = 0; i < c->ncases && n < size; i++) {
		char lab[96];

		case_label(c, labels, i, lab, sizeof(lab));
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " vs " : "", lab);
	}
	if (n >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Up to FPL_PLOT_BOX_RAW samples go to gnuplot as they are. More (10^7 from
 * a long run) are binned first: the order statistics at FPL_PLOT_BOX_QUANT
 * even steps (min, quartiles, median and max among them), and the points
 * beyond the 1.5 IQR fences, where the box plot draws each one, as one point
 * per bin of 1/FPL_PLOT_BOX_QUANT of the range. The box, the whiskers and
 * where outliers lie stay what gnuplot would draw; the script stays small.
 */
static int box_data(const struct fpl_cmp_series *s, FILE *f)
{
	double *v = malloc((s->n ? s->n : 1) * sizeof(*v)), q1, q3, lo, hi, step;
	size_t n = 0, last = (size_t)-1;

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < s->n; k++)
		if (isfinite(s->raw[k]))
			v[n++] = s->raw[k];
	if (n <= FPL_PLOT_BOX_RAW) {
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%.10g\n", v[k]);
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t q = 0; q <= FPL_PLOT_BOX_QUANT; q++)
		fprintf(f, "%.10g\n", v[(size_t)((double)(n - 1) * q / FPL_PLOT_BOX_QUANT)]);
	q1 = v[(n - 1) / 4];
	q3 = v[(n - 1) * 3 / 4];
	lo = q1 - 1.5 * (q3 - q1);
	hi = q3 + 1.5 * (q3 - q1);
	step = (v[n - 1] - v[0]) / FPL_PLOT_BOX_QUANT;
	for (size_t k = 0; k < n && step > 0; k++) {
		size_t bin;

		if (v[k] >= lo && v[k] <= hi)
			continue;
		bin = (size_t)((v[k] - v[0]) / step);
		if (bin != last)
			fprintf(f, "%.10g\n", v[k]);
		last = bin;
	}
	free(v);
	return 0;
}

static int panel(const struct fpl_cmp *c, const char *const *labels, size_t j, FILE *f)
{
	const struct fpl_cmp_metric *m = &c->m[j];
	char title[160];

	for (size_t i = 0; i < c->ncases; i++) {
		fprintf(f, "$cmp_%zu_%zu << EOD\n", j, i);
		if (box_data(&m->s[i], f))
			return -ENOMEM;
		fputs("EOD\n", f);
	}
	panel_title(c, m, labels, title, sizeof(title));
	fputs("set title ", f);
	fpl_plot_quote(f, title);
	fputs("\nset ylabel ", f);
	fpl_plot_quote(f, *m->unit ? m->unit : "value");
	/* 1.12M, not 1.12e+06 */
	fputs("\nset format y '%.3s%c'", f);
	fputs("\nset style fill solid 0.35 border -1\nset style boxplot outliers pointtype 7\n"
	      "set boxwidth 0.5\nset xrange [0.4:", f);
	fprintf(f, "%.1f]\nset xtics (", (double)c->ncases + 0.6);
	for (size_t i = 0; i < c->ncases; i++) {
		char lab[64];

		case_label(c, labels, i, lab, sizeof(lab));
		fputs(i ? ", " : "", f);
		fpl_plot_quote(f, lab);
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\nplot ", f);
	for (size_t i = 0; i < c->ncases; i++) {
		char lab[64];

		case_label(c, labels, i, lab, sizeof(lab));
		fprintf(f, "%s$cmp_%zu_%zu using (%zu):1 with boxplot lt %zu title ",
			i ? ", " : "", j, i, i + 1, i + 1);
		fpl_plot_quote(f, lab);
	}
	fputs("\nset xrange [*:*]\nset xtics autofreq\nset format y '%g'\n", f);
	return 0;
}

int fpl_plot_compare_script(const struct fpl_cmp *c, const char *const *labels,
			    size_t max_panels, enum fpl_plot_term term, const char *out_path,
			    FILE *f, struct fpl_diag *diag)
{
	size_t n = c->nm < max_panels ? c->nm : max_panels;

	if (!n)
		return fpl_diag_set(diag, -EINVAL, "nothing to plot: no metric is in every case");
	fpl_plot_head(f, term, out_path, (int)n);
	fputs("set key off\n", f);
	for (size_t j = 0; j < n; j++)
		if (panel(c, labels, j, f))
			return fpl_diag_set(diag, -ENOMEM, "out of memory");
	fpl_plot_tail(f, (int)n);
	return ferror(f) ? -EIO : 0;
}
