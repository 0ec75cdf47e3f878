// SPDX-License-Identifier: GPL-3.0-or-later
/* Box plots of a comparison's cases, one panel per metric, as a gnuplot script. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/plot.h"
#include "plot_internal.h"

/* The file name without its directories, for the x axis. */
static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static void panel(const struct fpl_cmp *c, size_t j, FILE *f)
{
	const struct fpl_cmp_metric *m = &c->m[j];
	char title[160];

	for (size_t i = 0; i < c->ncases; i++) {
		fprintf(f, "$cmp_%zu_%zu << EOD\n", j, i);
		for (size_t k = 0; k < m->s[i].n; k++)
			if (isfinite(m->s[i].raw[k]))
				fprintf(f, "%.10g\n", m->s[i].raw[k]);
		fputs("EOD\n", f);
	}
	snprintf(title, sizeof(title), "%.120s%s", m->label, strlen(m->label) > 120 ? "..." : "");
	fputs("set title ", f);
	fpl_plot_quote(f, title);
	fputs("\nset ylabel ", f);
	fpl_plot_quote(f, *m->unit ? m->unit : "value");
	fputs("\nset style fill solid 0.35 border -1\nset style boxplot outliers pointtype 7\n"
	      "set boxwidth 0.5\nset xrange [0.4:", f);
	fprintf(f, "%.1f]\nset xtics (", (double)c->ncases + 0.6);
	for (size_t i = 0; i < c->ncases; i++) {
		char lab[96];

		snprintf(lab, sizeof(lab), "case %zu: %.60s", i + 1, base(c->paths[i]));
		fputs(i ? ", " : "", f);
		fpl_plot_quote(f, lab);
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\nplot ", f);
	for (size_t i = 0; i < c->ncases; i++)
		fprintf(f, "%s$cmp_%zu_%zu using (%zu):1 with boxplot lt %zu notitle",
			i ? ", " : "", j, i, i + 1, i + 1);
	fputs("\nset xrange [*:*]\nset xtics autofreq\n", f);
}

int fpl_plot_compare_script(const struct fpl_cmp *c, size_t max_panels, enum fpl_plot_term term,
			    const char *out_path, FILE *f, struct fpl_diag *diag)
{
	size_t n = c->nm < max_panels ? c->nm : max_panels;

	if (!n)
		return fpl_diag_set(diag, -EINVAL, "nothing to plot: no metric is in every case");
	fpl_plot_head(f, term, out_path, (int)n);
	fputs("set key off\n", f);
	for (size_t j = 0; j < n; j++)
		panel(c, j, f);
	fpl_plot_tail(f, (int)n);
	return ferror(f) ? -EIO : 0;
}
