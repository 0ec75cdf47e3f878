// SPDX-License-Identifier: GPL-3.0-or-later
/* compare's emitters: table (with ministat's plot), CSV, JSON, kernel-report lines, ministat. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare_internal.h"

static const char *unit_of(const struct fpl_cmp_metric *m)
{
	return *m->unit ? m->unit : "unit not given";
}

static const char *center_name(const struct fpl_cmp *c)
{
	return c->opts.trim > 0 ? "trimmed mean" : "mean";
}

/* Decimals that show a percentage's half-width to two significant digits. */
static int pct_decimals(double half)
{
	/* inf when the baseline's center is 0: (int) of inf is undefined */
	int d = half > 0 && isfinite(half) ? 1 - (int)floor(log10(half)) : 2;

	return d < 2 ? 2 : d > 8 ? 8 : d;
}

/*
 * Decimals for a difference and its interval: the half-width to two
 * significant digits, the same for all three numbers, so they line up.
 */
static int abs_decimals(double half)
{
	int d = half > 0 && isfinite(half) ? 1 - (int)floor(log10(half)) : 2;

	return d < 0 ? 0 : d > 10 ? 10 : d;
}

/* A percentage with d decimals and "%", or "n/a" when there is none (a zero baseline). */
static const char *pct_str(char *buf, size_t len, int d, double v, bool sign)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", d, v);
	return buf;
}

static void verdict(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i,
		    char *buf, size_t len)
{
	const struct fpl_cmp_series *a = &m->s[0], *b = &m->s[i];
	const struct fpl_cmp_test *t = &m->t[i];
	char holm[64] = "";

	if (c->family > 1)
		snprintf(holm, sizeof(holm), ", Holm over %zu", c->family);
	if (isnan(t->t.p) && !(isfinite(a->sum.stddev) && isfinite(b->sum.stddev) &&
			       isfinite(t->t.diff)))
		snprintf(buf, len, "case %zu: no test: the statistics overflowed (a variance or "
			 "difference is not finite in double precision).", i + 1);
	else if (isnan(t->t.p))
		snprintf(buf, len, "case %zu: no test: neither case varies.", i + 1);
	else if (t->proven && !isfinite(t->pct))
		snprintf(buf, len, "case %zu: %+.*f +/- %.*f%s%s, n/a %% (baseline 0) (%s, %g%%%s)",
			 i + 1, abs_decimals(t->t.hi - t->t.diff), t->t.diff,
			 abs_decimals(t->t.hi - t->t.diff), t->t.hi - t->t.diff,
			 *m->unit ? " " : "", m->unit, fpl_cmp_test_name(c), c->opts.confidence,
			 holm);
	else if (t->proven)
		snprintf(buf, len, "case %zu: %+.*f%% +/- %.*f%% (%s, %g%%%s)", i + 1,
			 pct_decimals(t->pct_half), t->pct, pct_decimals(t->pct_half), t->pct_half,
			 fpl_cmp_test_name(c), c->opts.confidence, holm);
	else
		snprintf(buf, len, "case %zu: No difference proven at %g%% confidence%s.", i + 1,
			 c->opts.confidence, c->family > 1 ? " (Holm)" : "");
}

static void table_summary(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	char tm[32];

	snprintf(tm, sizeof(tm), "trim%g%%", c->opts.trim);
	fprintf(out, "%-5s %7s %14s %14s %14s %14s %14s %12s %8s  %s\n", "case", "N", "min", "max",
		"median", "mean", c->opts.trim > 0 ? tm : "(untrimmed)", "stddev", "% of 1",
		"path");
	for (size_t i = 0; i < c->ncases; i++) {
		const struct fpl_cmp_series *s = &m->s[i];

		char pct[32];

		pct_str(pct, sizeof(pct), 2, m->s[0].center ? 100 * s->center / m->s[0].center : NAN,
			false);
		fprintf(out, "%-5zu %7zu %14.10g %14.10g %14.10g %14.10g %14.10g %12.6g %8s  %s\n",
			i + 1, s->n, s->sum.min, s->sum.max, s->sum.median, s->sum.mean,
			s->sum.trimmed_mean, s->sum.stddev, pct, c->paths[i]);
	}
}

static void table_tests(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	fprintf(out, "difference from case 1 (%s of case - %s of case 1), %g%% confidence:\n",
		center_name(c), center_name(c), c->opts.confidence);
	for (size_t i = 1; i < c->ncases; i++) {
		const struct fpl_cmp_test *t = &m->t[i];
		int d = pct_decimals(t->pct_half), a = abs_decimals((t->t.hi - t->t.lo) / 2);

		char p[3][48];

		fprintf(out, "  case %zu: %.*f%s%s [%.*f, %.*f] = %s [%s, %s]\n",
			i + 1, a, t->t.diff, *m->unit ? " " : "", m->unit, a, t->t.lo, a, t->t.hi,
			pct_str(p[0], sizeof(p[0]), d, t->pct, true),
			pct_str(p[1], sizeof(p[1]), d, t->pct - t->pct_half, true),
			pct_str(p[2], sizeof(p[2]), d, t->pct + t->pct_half, true));
		fprintf(out, "    %s's t = %.4g, df = %.4g, p = %.4g", fpl_cmp_test_name(c), t->t.t,
			t->t.df, t->t.p);
		if (c->family > 1)
			fprintf(out, ", Holm p = %.4g", t->p_holm);
		fprintf(out, "; Mann-Whitney U = %g, p = %.4g (normal approximation)\n", t->mw.u,
			t->mw.p);
		if (c->opts.bootstrap)
			fprintf(out, "    bootstrap ratio of %ss %.6g [%.6g, %.6g]"
				" (%zu resamples, seed %lu, percentile)\n", center_name(c), t->boot.ratio, t->boot.lo, t->boot.hi, t->boot.reps,
				t->boot.seed);
	}
}

static int emit_table(const struct fpl_cmp *c, FILE *out)
{
	fprintf(out, "%zu cases, case 1 is the baseline. Test: %s", c->ncases,
		c->opts.trim > 0 ? "Yuen's trimmed t" : "Welch's t");
	if (c->opts.trim > 0)
		fprintf(out, ", %g%% cut from each end", c->opts.trim);
	if (c->family > 1)
		fprintf(out, "; Holm's correction over %zu comparisons", c->family);
	fputs(".\n", out);
	for (size_t j = 0; j < c->nm; j++) {
		const struct fpl_cmp_metric *m = &c->m[j];
		struct fpl_plot_set ps[7] = { { 0 } };
		char v[256];

		fprintf(out, "\n== %s (%s; %s)\n", m->label, unit_of(m), m->method);
		for (size_t i = 0; i < c->ncases && c->ncases <= 7; i++) {
			ps[i].sorted = m->s[i].sorted;
			ps[i].n = m->s[i].n;
			ps[i].mean = m->s[i].sum.mean;
			ps[i].stddev = m->s[i].sum.stddev;
			ps[i].median = m->s[i].sum.median;
		}
		if (c->ncases <= 7) {
			for (size_t i = 0; i < c->ncases; i++)
				fprintf(out, "%c case %zu\n", " x+*%#@O"[i + 1], i + 1);
			if (fpl_cmp_plot(out, ps, c->ncases, 74, 20))
				return -ENOMEM;
		} else {
			fputs("[no plot: ministat's plot has symbols for 7 cases]\n", out);
		}
		table_summary(c, m, out);
		table_tests(c, m, out);
		for (size_t i = 1; i < c->ncases; i++) {
			verdict(c, m, i, v, sizeof(v));
			fprintf(out, "%s %s\n", i == 1 ? "verdict:" : "        ", v);
		}
	}
	for (size_t i = 0; i < c->nnotes; i++)
		fprintf(out, "note: %s\n", c->notes[i]);
	return 0;
}

static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputs("\",", out);
}

static void csv_num(FILE *out, double v, bool last)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	fputc(last ? '\n' : ',', out);
}

static int emit_csv(const struct fpl_cmp *c, FILE *out)
{
	fputs("metric,unit,method,case,path,test,n,min,max,median,mean,trimmed_mean,trim,stddev,"
	      "center,pct_of_base,diff,diff_lo,diff_hi,diff_pct,diff_pct_half,t,df,p,p_holm,"
	      "mw_u,mw_p,boot_ratio,boot_lo,boot_hi,verdict\n", out);
	for (size_t j = 0; j < c->nm; j++) {
		const struct fpl_cmp_metric *m = &c->m[j];

		for (size_t i = 0; i < c->ncases; i++) {
			const struct fpl_cmp_series *s = &m->s[i];
			const struct fpl_cmp_test *t = &m->t[i];
			bool cmp = i > 0, boot = cmp && c->opts.bootstrap;
			char v[256] = "";

			csv_str(out, m->label);
			csv_str(out, m->unit);
			csv_str(out, m->method);
			fprintf(out, "%zu,", i + 1);
			csv_str(out, c->paths[i]);
			csv_str(out, cmp ? fpl_cmp_test_name(c) : "");
			fprintf(out, "%zu,", s->n);
			csv_num(out, s->sum.min, 0);
			csv_num(out, s->sum.max, 0);
			csv_num(out, s->sum.median, 0);
			csv_num(out, s->sum.mean, 0);
			csv_num(out, s->sum.trimmed_mean, 0);
			csv_num(out, c->opts.trim, 0);
			csv_num(out, s->sum.stddev, 0);
			csv_num(out, s->center, 0);
			csv_num(out, m->s[0].center ? 100 * s->center / m->s[0].center : NAN, 0);
			csv_num(out, cmp ? t->t.diff : NAN, 0);
			csv_num(out, cmp ? t->t.lo : NAN, 0);
			csv_num(out, cmp ? t->t.hi : NAN, 0);
			csv_num(out, cmp ? t->pct : NAN, 0);
			csv_num(out, cmp ? t->pct_half : NAN, 0);
			csv_num(out, cmp ? t->t.t : NAN, 0);
			csv_num(out, cmp ? t->t.df : NAN, 0);
			csv_num(out, cmp ? t->t.p : NAN, 0);
			csv_num(out, cmp ? t->p_holm : NAN, 0);
			csv_num(out, cmp ? t->mw.u : NAN, 0);
			csv_num(out, cmp ? t->mw.p : NAN, 0);
			csv_num(out, boot ? t->boot.ratio : NAN, 0);
			csv_num(out, boot ? t->boot.lo : NAN, 0);
			csv_num(out, boot ? t->boot.hi : NAN, 0);
			if (cmp)
				verdict(c, m, i, v, sizeof(v));
			fputc('"', out);
			fputs(v, out);
			fputs("\"\n", out);
		}
	}
	return 0;
}

static int emit_kernel(const struct fpl_cmp *c, FILE *out)
{
	for (size_t j = 0; j < c->nm; j++) {
		const struct fpl_cmp_metric *m = &c->m[j];

		fprintf(out, "# %s (%s): %s", m->label, unit_of(m), center_name(c));
		if (c->opts.trim > 0)
			fprintf(out, " after cutting %g%% from each end", c->opts.trim);
		fputs(", runs per case:", out);
		for (size_t i = 0; i < c->ncases; i++)
			fprintf(out, " %zu", m->s[i].n);
		fputc('\n', out);
		for (size_t i = 0; i < c->ncases; i++) {
			char pct[32];

			if (!i)
				fprintf(out, "case 1: %.2f Set as 1\n", m->s[0].center);
			else
				fprintf(out, "case %zu: %.2f, %s\n", i + 1, m->s[i].center,
					pct_str(pct, sizeof(pct), 2, m->s[0].center ?
						100 * m->s[i].center / m->s[0].center : NAN,
						false));
		}
	}
	return 0;
}

/* NaN (no test possible) as null. */
static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *json_series(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i)
{
	const struct fpl_cmp_series *s = &m->s[i];

	return json_pack("{s:I, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "case", (json_int_t)i + 1, "path", c->paths[i],
			 "files", (json_int_t)c->nfiles[i], "n", (json_int_t)s->n,
			 "min", num(s->sum.min), "max", num(s->sum.max),
			 "median", num(s->sum.median), "mean", num(s->sum.mean),
			 "trimmed_mean", num(s->sum.trimmed_mean), "stddev", num(s->sum.stddev),
			 "center", num(s->center), "pct_of_base", num(100 * s->center / m->s[0].center));
}

static json_t *json_test(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i)
{
	const struct fpl_cmp_test *t = &m->t[i];
	char v[256];
	json_t *o;

	verdict(c, m, i, v, sizeof(v));
	o = json_pack("{s:I, s:s, s:o, s:[o,o], s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s,"
		      " s:{s:o, s:o, s:o, s:s}}",
		      "case", (json_int_t)i + 1, "test", fpl_cmp_test_name(c),
		      "diff", num(t->t.diff), "ci", num(t->t.lo), num(t->t.hi),
		      "diff_pct", num(t->pct), "ci_half_pct", num(t->pct_half),
		      "t", num(t->t.t), "df", num(t->t.df), "p", num(t->t.p),
		      "p_holm", num(t->p_holm), "proven", t->proven, "verdict", v,
		      "mann_whitney", "u", num(t->mw.u), "z", num(t->mw.z), "p", num(t->mw.p),
		      "method", "normal approximation, tie and continuity corrected");
	if (o && c->opts.bootstrap)
		json_object_set_new(o, "bootstrap",
				    json_pack("{s:o, s:[o,o], s:I, s:I, s:s}", "ratio",
					      num(t->boot.ratio), "ci", num(t->boot.lo),
					      num(t->boot.hi), "resamples", (json_int_t)t->boot.reps,
					      "seed", (json_int_t)t->boot.seed, "method",
					      "percentile"));
	return o;
}

static int emit_json(const struct fpl_cmp *c, FILE *out)
{
	json_t *root, *metrics = json_array(), *notes = json_array();
	int err = -ENOMEM;

	for (size_t j = 0; metrics && j < c->nm; j++) {
		const struct fpl_cmp_metric *m = &c->m[j];
		json_t *cases = json_array(), *tests = json_array(), *jm;

		for (size_t i = 0; cases && tests && i < c->ncases; i++) {
			json_array_append_new(cases, json_series(c, m, i));
			if (i)
				json_array_append_new(tests, json_test(c, m, i));
		}
		jm = json_pack("{s:s, s:s?, s:s?, s:o?, s:s, s:s, s:o, s:o}", "metric", m->label,
			       "bench", m->bench, "name", m->name,
			       "params", m->params ? json_loads(m->params, 0, NULL) : NULL,
			       "unit", m->unit, "method", m->method, "cases", cases,
			       "comparisons", tests);
		json_array_append_new(metrics, jm);
	}
	for (size_t i = 0; notes && i < c->nnotes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	root = json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:I, s:o, s:o}",
			 "kind", fpl_cmp_kind_names[c->kind], "baseline", c->paths[0],
			 "confidence", c->opts.confidence, "trim", c->opts.trim,
			 "test", fpl_cmp_test_name(c), "center", center_name(c),
			 "holm_family", (json_int_t)c->family, "metrics", metrics, "notes", notes);
	if (root && !json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12))) {
		fputc('\n', out);
		err = 0;
	}
	json_decref(root);
	return err;
}

int fpl_cmp_emit(const struct fpl_cmp *c, enum fpl_cmp_format format, FILE *out)
{
	switch (format) {
	case FPL_CMP_TABLE:
		return emit_table(c, out);
	case FPL_CMP_CSV:
		return emit_csv(c, out);
	case FPL_CMP_KERNEL:
		return emit_kernel(c, out);
	case FPL_CMP_MINISTAT:
		return fpl_cmp_emit_ministat(c, out);
	case FPL_CMP_JSON:
		return emit_json(c, out);
	}
	return -EINVAL;
}
