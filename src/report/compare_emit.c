// SPDX-License-Identifier: GPL-3.0-or-later
/* compare's emitters: table (with ministat's plot), CSV, JSON, kernel-report lines, ministat. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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
		snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", d, fpl_shown(v, d));
	return buf;
}

static const char *values_name(const struct fpl_cmp *c)
{
	if (c->opts.within_run)
		return "every sample pooled (--within-run: ignores run-to-run variation)";
	return c->opts.trim > 0 ? "one value per run, its trimmed mean" :
				  "one value per run, its median";
}

static void verdict(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i,
		    char *buf, size_t len)
{
	const struct fpl_cmp_series *a = &m->s[0], *b = &m->s[i];
	const struct fpl_cmp_test *t = &m->t[i];
	char holm[64] = "";

	if (c->family > 1)
		snprintf(holm, sizeof(holm), ", Holm over %zu", c->family);
	if (!t->verdict)
		snprintf(buf, len, "case %zu: no verdict: %zu and %zu run%s, at least %d per case "
			 "are needed.", i + 1, a->nruns, b->nruns, b->nruns == 1 ? "" : "s",
			 FPL_MIN_RUNS);
	else if (isnan(t->t.p) && !(isfinite(a->sum.stddev) && isfinite(b->sum.stddev) &&
			       isfinite(t->t.diff)))
		snprintf(buf, len, "case %zu: no test: the statistics overflowed (a variance or "
			 "difference is not finite in double precision).", i + 1);
	else if (isnan(t->t.p))
		snprintf(buf, len, "case %zu: no test: neither case varies.", i + 1);
	else if (t->proven && !isfinite(t->pct))
		snprintf(buf, len, "case %zu: %+.*f +/- %.*f%s%s, n/a %% (baseline not above 0) (%s, %g%%%s)",
			 i + 1, abs_decimals(t->t.hi - t->t.diff), t->t.diff,
			 abs_decimals(t->t.hi - t->t.diff), t->t.hi - t->t.diff,
			 *m->unit ? " " : "", m->unit, fpl_cmp_test_name(c), c->opts.confidence,
			 holm);
	else if (t->proven)
		snprintf(buf, len, "case %zu: %+.*f%% +/- %.*f%% (%s, %g%%%s)", i + 1,
			 pct_decimals(t->pct_half), fpl_shown(t->pct, pct_decimals(t->pct_half)),
			 pct_decimals(t->pct_half), t->pct_half,
			 fpl_cmp_test_name(c), c->opts.confidence, holm);
	else if (t->below_resolution && t->verdict)
		snprintf(buf, len, "case %zu: No difference proven: %+g is within the measurement's "
			 "step (%g %s), which the runs' values cannot resolve.", i + 1, t->t.diff,
			 t->resolution, m->unit);
	else
		snprintf(buf, len, "case %zu: No difference proven at %g%% confidence%s.", i + 1,
			 c->opts.confidence, c->family > 1 ? " (Holm)" : "");
}

/* A percentage to 2 significant digits (at least 2 decimals), or "n/a". */
static const char *cv_str(char *buf, size_t len, double v)
{
	return pct_str(buf, len, pct_decimals(v), v, false);
}

static void table_summary(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	char tm[32];

	snprintf(tm, sizeof(tm), "trim%g%%", c->opts.trim);
	fprintf(out, "values: %s; between-run CV: of the run values; within-run CV: median over "
		"runs of 1.4826 MAD / median\n", values_name(c));
	fprintf(out, "%-5s %5s %8s %7s %14s %14s %14s %14s %14s %12s %8s %8s %8s  %s\n", "case",
		"runs", "samples", "N", "min", "max", "median", "mean",
		c->opts.trim > 0 ? tm : "(untrimmed)", "stddev", "% of 1", "betw.CV", "with.CV",
		"path");
	for (size_t i = 0; i < c->ncases; i++) {
		const struct fpl_cmp_series *s = &m->s[i];
		char pct[32], b[32], w[32];

		pct_str(pct, sizeof(pct), 2, fpl_cmp_pct_of_base(m, s->center), false);
		fprintf(out, "%-5zu %5zu %8zu %7zu %14.10g %14.10g %14.10g %14.10g %14.10g %12.6g %8s "
			"%8s %8s  %s\n", i + 1, s->nruns, s->n, s->nv, s->sum.min, s->sum.max,
			s->sum.median, s->sum.mean, s->sum.trimmed_mean, s->sum.stddev, pct,
			cv_str(b, sizeof(b), s->between_cv), cv_str(w, sizeof(w), s->within_cv),
			c->paths[i]);
	}
}

static void table_tests(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	if (c->pairing != FPL_CMP_UNPAIRED)
		fprintf(out, "difference from case 1 (%s of the per-run differences, case - case "
			"1 in the same run), %g%% confidence:\n", center_name(c),
			c->opts.confidence);
	else
		fprintf(out, "difference from case 1 (%s of case - %s of case 1), %g%% confidence:\n",
			center_name(c), center_name(c), c->opts.confidence);
	for (size_t i = 1; i < c->ncases; i++) {
		const struct fpl_cmp_test *t = &m->t[i];
		int d = pct_decimals(t->pct_half), a = abs_decimals((t->t.hi - t->t.lo) / 2);

		char p[3][48];

		if (m->s[0].nv < 2 || m->s[i].nv < 2) {
			fprintf(out, "  case %zu: no interval: fewer than 2 values in a case\n", i + 1);
			continue;
		}
		fprintf(out, "  case %zu: %.*f%s%s [%.*f, %.*f] = %s [%s, %s]\n",
			i + 1, a, fpl_shown(t->t.diff, a), *m->unit ? " " : "", m->unit, a,
			fpl_shown(t->t.lo, a), a, fpl_shown(t->t.hi, a),
			pct_str(p[0], sizeof(p[0]), d, t->pct, true),
			pct_str(p[1], sizeof(p[1]), d, t->pct - t->pct_half, true),
			pct_str(p[2], sizeof(p[2]), d, t->pct + t->pct_half, true));
		fprintf(out, "    %s%s t = %.4g, df = %.4g, p = %.4g", fpl_cmp_test_name(c),
			t->paired ? ":" : "'s", t->t.t, t->t.df, t->t.p);
		if (c->family > 1 && t->verdict)
			fprintf(out, ", Holm p = %.4g", t->p_holm);
		if (t->paired)
			fprintf(out, "; %zu pairs, differences' stddev %.2g%%\n    unpaired: %s's t "
				"[%.*f, %.*f]%s%s, +/- %.*f%%, p = %.4g", t->pairs, t->diff_sd_pct,
				fpl_cmp_unpaired_name(c), a, t->unpaired.lo, a, t->unpaired.hi,
				*m->unit ? " " : "", m->unit, d, t->unpaired_pct_half,
				t->unpaired.p);
		fprintf(out, "; Mann-Whitney U = %g, p = %.4g (normal approximation%s)\n", t->mw.u,
			t->mw.p, t->paired ? ", unpaired" : "");
		if (c->opts.bootstrap)
			fprintf(out, "    bootstrap ratio of %ss %.6g [%.6g, %.6g] (%zu resamples, "
				"seed %lu, percentile%s)\n", center_name(c), t->boot.ratio,
				t->boot.lo, t->boot.hi, t->boot.reps, t->boot.seed,
				t->paired ? ", cases resampled as unpaired" : "");
	}
}

static void table_block(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out,
			int *err)
{
	struct fpl_plot_set ps[7] = { { 0 } };
	char v[256];

	fprintf(out, "\n== %s (%s; %s)\n", m->label, unit_of(m), m->method);
	for (size_t i = 0; i < c->ncases && c->ncases <= 7; i++) {
		ps[i].sorted = m->s[i].sorted;
		ps[i].n = m->s[i].nv;
		ps[i].mean = m->s[i].sum.mean;
		ps[i].stddev = m->s[i].sum.stddev;
		ps[i].median = m->s[i].sum.median;
	}
	if (c->ncases <= 7) {
		for (size_t i = 0; i < c->ncases; i++)
			fprintf(out, "%c case %zu\n", " x+*%#@O"[i + 1], i + 1);
		if (fpl_cmp_plot(out, ps, c->ncases, 74, 20))
			*err = -ENOMEM;
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

/* Median of the finite values among n (v is reordered); NaN when none. */
static double finite_median(double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	fpl_sort(v, k);
	return k ? fpl_quantile_sorted(v, k, 0.5) : NAN;
}

static double finite_max(const double *v, size_t n)
{
	double mx = NAN;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && !(v[i] <= mx))
			mx = v[i];
	return mx;
}

struct proven_ref {
	const struct fpl_cmp_metric *m;
	size_t i;
};

static int by_effect(const void *x, const void *y)
{
	const struct proven_ref *a = x, *b = y;
	double ea = fabs(a->m->t[a->i].pct), eb = fabs(b->m->t[b->i].pct);

	if (!isfinite(ea))
		ea = INFINITY;
	if (!isfinite(eb))
		eb = INFINITY;
	return ea < eb ? 1 : ea > eb ? -1 : 0;
}

#define LIST_MAX 15	/* differing metrics listed in the summary */
#define LINES_MAX 40	/* more metrics than this: one line per benchmark */

/* The runs per case over every metric, "3" or "2-3". */
static void runs_range(const struct fpl_cmp *c, size_t i, char *buf, size_t len)
{
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t j = 0; j < c->nm; j++) {
		size_t n = c->m[j].s[i].nruns;

		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (lo == hi)
		snprintf(buf, len, "%zu run%s", lo, lo == 1 ? "" : "s");
	else
		snprintf(buf, len, "%zu-%zu runs", lo, hi);
}

static void runs_needed_str(size_t n, char *buf, size_t len)
{
	if (n == SIZE_MAX)
		snprintf(buf, len, "more than 10^7");
	else
		snprintf(buf, len, "%zu", n);
}

/* The one line that says why there is no verdict, and what would give one. */
static int no_verdict_line(const struct fpl_cmp *c, FILE *out)
{
	size_t n = c->nm * (c->ncases - 1), k = 0;
	double *cv = malloc((n ? n : 1) * sizeof(*cv)), med;
	bool paired = c->pairing != FPL_CMP_UNPAIRED;
	char r5[32], r2[32];

	if (!cv)
		return -ENOMEM;
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 1; i < c->ncases; i++)
			if (!c->m[j].t[i].verdict)
				cv[k++] = paired ? c->m[j].t[i].diff_sd_pct : c->m[j].t[i].cv;
	med = finite_median(cv, k);
	free(cv);
	fprintf(out, "No verdict for %zu of %zu comparisons: fewer than %d %s. ", c->no_verdict,
		n, FPL_MIN_RUNS, paired ? "pairs of runs" : "runs per case");
	if (isfinite(med) && paired) {
		runs_needed_str(fpl_runs_needed_paired(med, 0.5, c->opts.confidence), r5, sizeof(r5));
		runs_needed_str(fpl_runs_needed_paired(med, 0.2, c->opts.confidence), r2, sizeof(r2));
		fprintf(out, "The per-run differences' spread seen (stddev median %.2g%%) needs "
			"about %s runs to resolve 0.5%% and %s to resolve 0.2%%.\n", med, r5, r2);
	} else if (isfinite(med)) {
		runs_needed_str(fpl_runs_needed(med, 0.5, c->opts.confidence), r5, sizeof(r5));
		runs_needed_str(fpl_runs_needed(med, 0.2, c->opts.confidence), r2, sizeof(r2));
		fprintf(out, "The between-run spread seen (CV median %.2g%%) needs about %s runs "
			"per case to resolve 0.5%% and %s to resolve 0.2%%.\n", med, r5, r2);
	} else {
		fprintf(out, "With one run per case the between-run spread cannot be seen: take "
			"at least %d runs per case (fpulab run --runs N) to learn how many are "
			"needed to resolve 0.5%% or 0.2%%.\n", FPL_MIN_RUNS);
	}
	return 0;
}

/* "+1.23% +/- 0.45%", or the absolute difference when the baseline is 0. */
static void effect_str(const struct fpl_cmp_metric *m, size_t i, char *buf, size_t len)
{
	const struct fpl_cmp_test *t = &m->t[i];

	if (isnan(t->t.lo) || isnan(t->t.hi))
		snprintf(buf, len, "no interval");
	else if (!isfinite(t->pct))
		snprintf(buf, len, "%+.*f +/- %.*f%s%s", abs_decimals(t->t.hi - t->t.diff),
			 t->t.diff, abs_decimals(t->t.hi - t->t.diff), t->t.hi - t->t.diff,
			 *m->unit ? " " : "", m->unit);
	else
		snprintf(buf, len, "%+.*f%% +/- %.*f%%", pct_decimals(t->pct_half),
			 fpl_shown(t->pct, pct_decimals(t->pct_half)), pct_decimals(t->pct_half),
			 t->pct_half);
}

static int table_head(const struct fpl_cmp *c, FILE *out)
{
	size_t n = c->nm * (c->ncases - 1), np = 0;
	struct proven_ref *pr = calloc(n ? n : 1, sizeof(*pr));
	double *half = malloc((n ? n : 1) * sizeof(*half));
	size_t nh = 0;
	char buf[64];

	if (!pr || !half) {
		free(pr);
		free(half);
		return -ENOMEM;
	}
	fprintf(out, "%zu cases, case 1 the baseline; %zu metric%s; %s; ", c->ncases, c->nm,
		c->nm == 1 ? "" : "s", values_name(c));
	if (c->pairing == FPL_CMP_UNPAIRED)
		fprintf(out, "%s's t on them", fpl_cmp_unpaired_name(c));
	else
		fprintf(out, "%s on the per-run differences (case N - case 1 in the same run)",
			fpl_cmp_test_name(c));
	if (c->opts.trim > 0)
		fprintf(out, " (%g%% cut from each end)", c->opts.trim);
	if (c->family > 1)
		fprintf(out, ", Holm over %zu comparisons", c->family);
	fprintf(out, ", %g%% confidence.\n", c->opts.confidence);
	for (size_t i = 0; i < c->ncases; i++) {
		runs_range(c, i, buf, sizeof(buf));
		fprintf(out, "%s case %zu: %s (%s)", i ? ";" : "", i + 1, c->paths[i], buf);
	}
	fputc('\n', out);
	fpl_cmp_pair_header(c, out);
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 1; i < c->ncases; i++) {
			const struct fpl_cmp_test *t = &c->m[j].t[i];

			if (t->proven)
				pr[np++] = (struct proven_ref){ &c->m[j], i };
			else if (t->verdict)
				half[nh++] = t->pct_half;
		}
	if (c->no_verdict && no_verdict_line(c, out)) {
		free(pr);
		free(half);
		return -ENOMEM;
	}
	qsort(pr, np, sizeof(*pr), by_effect);
	if (c->family)
		fprintf(out, "Different: %zu of %zu comparison%s%s%s\n", np, c->family,
			c->family == 1 ? "" : "s", c->opts.within_run ?
			" (within-run: these runs differ; run-to-run variation ignored)" : "",
			np ? ", by effect:" : ".");
	for (size_t k = 0; k < np && k < LIST_MAX; k++) {
		const struct proven_ref *r = &pr[k];
		char e[96];

		effect_str(r->m, r->i, e, sizeof(e));
		if (c->ncases > 2)
			fprintf(out, "  case %zu:", r->i + 1);
		fprintf(out, "  %s  %s (%s p %.2g, Holm p %.2g)\n", e, r->m->label,
			fpl_cmp_test_name(c), r->m->t[r->i].t.p, r->m->t[r->i].p_holm);
	}
	if (np > LIST_MAX)
		fprintf(out, "  ... and %zu more (--per-metric or --format json lists them)\n",
			np - LIST_MAX);
	if (nh) {
		double med = finite_median(half, nh), mx = finite_max(half, nh);

		if (np)
			fprintf(out, "No difference proven in the other %zu", nh);
		else
			fprintf(out, "No difference proven");
		fprintf(out, "; the smallest difference they could have shown (interval "
			"half-width): median %.2g%%, largest %.2g%%.\n", med, mx);
	}
	free(pr);
	free(half);
	return 0;
}

/* A case's figure for a one-line view: "0.31%/0.28%" over the cases. */
static void per_case(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, bool between,
		     FILE *out)
{
	for (size_t i = 0; i < c->ncases; i++) {
		char b[32];

		double v = between ? m->s[i].between_cv : m->s[i].within_cv;

		fprintf(out, "%s%s", i ? "/" : "", isfinite(v) ? cv_str(b, sizeof(b), v) : "-");
	}
}

static void metric_line(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, FILE *out)
{
	fprintf(out, "  %s:", m->label);
	for (size_t i = 1; i < c->ncases; i++) {
		const struct fpl_cmp_test *t = &m->t[i];
		char e[96];

		effect_str(m, i, e, sizeof(e));
		if (m->s[0].nv < 2 || m->s[i].nv < 2)
			fprintf(out, "%s case %zu no verdict", i > 1 ? "," : "", i + 1);
		else
			fprintf(out, "%s case %zu %s %s", i > 1 ? "," : "", i + 1, e,
				!t->verdict ? "no verdict" : t->proven ? "DIFFERENT" :
				t->below_resolution ? "not proven (within one step)" : "not proven");
		if (t->paired && isfinite(t->unpaired_pct_half))
			fprintf(out, " (unpaired +/- %.*f%%)", pct_decimals(t->unpaired_pct_half),
				t->unpaired_pct_half);
	}
	fputs("; runs", out);
	for (size_t i = 0; i < c->ncases; i++)
		fprintf(out, "%s%zu", i ? "/" : " ", m->s[i].nruns);
	fputs(", between-run CV ", out);
	per_case(c, m, true, out);
	fputs(", within-run ", out);
	per_case(c, m, false, out);
	/* --bootstrap asked for it: here too, not only under --verbose */
	for (size_t i = 1; i < c->ncases && c->opts.bootstrap; i++)
		if (isfinite(m->t[i].boot.ratio))
			fprintf(out, "%s case %zu %.4g [%.4g, %.4g]", i > 1 ? "," :
				"; bootstrap ratio:", i + 1, m->t[i].boot.ratio, m->t[i].boot.lo,
				m->t[i].boot.hi);
	fputc('\n', out);
}

/* " what 0.31%", or " what -" when there is none. */
static void pct_g(FILE *out, const char *what, double v)
{
	if (isfinite(v))
		fprintf(out, "%s%.2g%%", what, v);
	else
		fprintf(out, "%s-", what);
}

/* One line per benchmark: metrics, how many differ, half-widths, spreads. */
static int bench_lines(const struct fpl_cmp *c, FILE *out)
{
	size_t n = c->nm * c->ncases;
	double *h = malloc((n ? n : 1) * sizeof(*h)), *b = malloc((n ? n : 1) * sizeof(*b));
	double *w = malloc((n ? n : 1) * sizeof(*w));
	bool *done = calloc(c->nm ? c->nm : 1, sizeof(*done));
	int err = 0;

	if (!h || !b || !w || !done) {
		err = -ENOMEM;
		goto out;
	}
	fprintf(out, "One line per benchmark (%zu metrics; --per-metric for one line each, "
		"--verbose for every statistic):\n", c->nm);
	for (size_t j = 0; j < c->nm; j++) {
		const char *bench = c->m[j].bench ? c->m[j].bench : c->m[j].label;
		size_t nm = 0, nd = 0, nh = 0, nb = 0, nw = 0, nv = 0;

		if (done[j])
			continue;
		for (size_t k = j; k < c->nm; k++) {
			const struct fpl_cmp_metric *m = &c->m[k];

			if (done[k] || strcmp(m->bench ? m->bench : m->label, bench))
				continue;
			done[k] = true;
			nm++;
			for (size_t i = 0; i < c->ncases; i++) {
				b[nb++] = m->s[i].between_cv;
				w[nw++] = m->s[i].within_cv;
				if (!i)
					continue;
				nd += m->t[i].proven;
				nv += !m->t[i].verdict;
				h[nh++] = m->t[i].pct_half;
			}
		}
		fprintf(out, "  %-10s %5zu metrics, %zu different", bench, nm, nd);
		if (nv)
			fprintf(out, " (%zu without a verdict)", nv);
		pct_g(out, "; half-width median ", finite_median(h, nh));
		pct_g(out, ", largest ", finite_max(h, nh));
		pct_g(out, "; between-run CV median ", finite_median(b, nb));
		pct_g(out, ", within-run ", finite_median(w, nw));
		fputc('\n', out);
	}
out:
	free(h);
	free(b);
	free(w);
	free(done);
	return err;
}

#define NOTES_SHOWN 3

static int emit_table(const struct fpl_cmp *c, FILE *out)
{
	size_t shown = c->opts.verbose ? c->nnotes : NOTES_SHOWN;
	int err = table_head(c, out);

	if (err)
		return err;
	if (fpl_cmp_anchor_lines(c, out))
		return -EIO;
	if (c->opts.verbose) {
		for (size_t j = 0; j < c->nm && !err; j++)
			table_block(c, &c->m[j], out, &err);
	} else if (c->nm <= LINES_MAX || c->opts.per_metric) {
		fputs("Per metric (case N: difference to case 1 +/- interval half-width, percent "
		      "of case 1", out);
		if (c->opts.bootstrap)
			fprintf(out, "; bootstrap ratio: case N's %s over case 1's, %g%% percentile "
				"interval, %zu resamples of the runs", center_name(c),
				c->opts.confidence, c->opts.bootstrap);
		fputs("):\n", out);
		for (size_t j = 0; j < c->nm; j++)
			metric_line(c, &c->m[j], out);
	} else {
		err = bench_lines(c, out);
	}
	for (size_t i = 0; i < c->nnotes && i < shown; i++)
		fprintf(out, "note: %s\n", c->notes[i]);
	if (c->nnotes > shown)
		fprintf(out, "note: ... and %zu more notes (--verbose lists them)\n",
			c->nnotes - shown);
	return err;
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

/* ",pairs,unpaired test and interval" of a paired comparison (empty fields otherwise), '\n'. */
static void csv_pair(const struct fpl_cmp *c, const struct fpl_cmp_test *t, FILE *out)
{
	bool p = t && t->paired;

	if (p)
		fprintf(out, ",%zu,", t->pairs);
	else
		fputs(",,", out);
	csv_str(out, p ? fpl_cmp_unpaired_name(c) : "");
	csv_num(out, p ? t->unpaired.lo : NAN, 0);
	csv_num(out, p ? t->unpaired.hi : NAN, 0);
	csv_num(out, p ? t->unpaired_pct_half : NAN, 0);
	csv_num(out, p ? t->unpaired.p : NAN, 1);
}

static int emit_csv(const struct fpl_cmp *c, FILE *out)
{
	fputs("metric,unit,method,case,path,test,n,min,max,median,mean,trimmed_mean,trim,stddev,"
	      "center,pct_of_base,diff,diff_lo,diff_hi,diff_pct,diff_pct_half,t,df,p,p_holm,"
	      "mw_u,mw_p,boot_ratio,boot_lo,boot_hi,verdict,different,runs,samples,between_run_cv_pct,"
	      "within_run_cv_pct,runs_needed_0.5pct,runs_needed_0.2pct,pairs,unpaired_test,"
	      "unpaired_diff_lo,unpaired_diff_hi,unpaired_diff_pct_half,unpaired_p\n", out);
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
			fprintf(out, "%zu,", s->nv);
			csv_num(out, s->sum.min, 0);
			csv_num(out, s->sum.max, 0);
			csv_num(out, s->sum.median, 0);
			csv_num(out, s->sum.mean, 0);
			csv_num(out, s->sum.trimmed_mean, 0);
			csv_num(out, c->opts.trim, 0);
			csv_num(out, s->sum.stddev, 0);
			csv_num(out, s->center, 0);
			csv_num(out, m->s[0].center > 0 ? 100 * s->center / m->s[0].center : NAN, 0);
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
			csv_str(out, v);
			fputs(!cmp ? "," : t->proven ? "true," : "false,", out);
			fprintf(out, "%zu,%zu,", s->nruns, s->n);
			csv_num(out, s->between_cv, 0);
			csv_num(out, s->within_cv, 0);
			if (cmp && t->runs_needed[0] && t->runs_needed[0] != SIZE_MAX)
				fprintf(out, "%zu", t->runs_needed[0]);
			fputc(',', out);
			if (cmp && t->runs_needed[1] && t->runs_needed[1] != SIZE_MAX)
				fprintf(out, "%zu", t->runs_needed[1]);
			csv_pair(c, cmp ? t : NULL, out);
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
		fprintf(out, " of the %s, %s per case:", c->opts.within_run ? "samples" :
			"run values", c->opts.within_run ? "samples" : "runs");
		for (size_t i = 0; i < c->ncases; i++)
			fprintf(out, " %zu", m->s[i].nv);
		fputc('\n', out);
		for (size_t i = 0; i < c->ncases; i++) {
			char pct[32];

			if (!i)
				fprintf(out, "case 1: %.2f Set as 1\n", m->s[0].center);
			else
				fprintf(out, "case %zu: %.2f, %s\n", i + 1, m->s[i].center,
					pct_str(pct, sizeof(pct), 2,
						fpl_cmp_pct_of_base(m, m->s[i].center), false));
		}
	}
	return 0;
}

/* NaN (no test possible) as null. */
static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *num_array(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

/* A run count, or null when unknown (no spread seen) or beyond 10^7. */
static json_t *runs_json(size_t n)
{
	return n && n != SIZE_MAX ? json_integer((json_int_t)n) : json_null();
}

static json_t *json_series(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i)
{
	const struct fpl_cmp_series *s = &m->s[i];

	return json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o}",
			 "case", (json_int_t)i + 1, "path", c->paths[i],
			 "files", (json_int_t)c->nfiles[i], "runs", (json_int_t)s->nruns,
			 "samples", (json_int_t)s->n, "n", (json_int_t)s->nv,
			 "run_values", num_array(s->run_values, s->nruns),
			 "between_run_cv_pct", num(s->between_cv),
			 "within_run_cv_pct", num(s->within_cv),
			 "min", num(s->sum.min), "max", num(s->sum.max),
			 "median", num(s->sum.median), "mean", num(s->sum.mean),
			 "trimmed_mean", num(s->sum.trimmed_mean), "stddev", num(s->sum.stddev),
			 "center", num(s->center), "pct_of_base", num(fpl_cmp_pct_of_base(m, s->center)));
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
	if (o) {
		json_object_set_new(o, "different", json_boolean(t->proven));
		json_object_set_new(o, "has_verdict", json_boolean(t->verdict));
		json_object_set_new(o, "resolution", num(t->resolution));
		json_object_set_new(o, "below_resolution", json_boolean(t->below_resolution));
		json_object_set_new(o, "between_run_cv_pct", num(t->cv));
		json_object_set_new(o, "runs_needed", json_pack("{s:o, s:o}", "0.5%",
				    runs_json(t->runs_needed[0]), "0.2%",
				    runs_json(t->runs_needed[1])));
		if (fpl_cmp_pair_json(c, t, o)) {
			json_decref(o);
			return NULL;
		}
	}
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
		bool diff = false;

		for (size_t i = 0; cases && tests && i < c->ncases; i++) {
			json_array_append_new(cases, json_series(c, m, i));
			if (i)
				json_array_append_new(tests, json_test(c, m, i));
			diff |= i && m->t[i].proven;
		}
		jm = json_pack("{s:s, s:s?, s:s?, s:o?, s:s, s:s, s:b, s:o, s:o}", "metric", m->label,
			       "bench", m->bench, "name", m->name,
			       "params", m->params ? json_loads(m->params, 0, NULL) : NULL,
			       "unit", m->unit, "method", m->method, "different", diff,
			       "cases", cases, "comparisons", tests);
		json_array_append_new(metrics, jm);
	}
	for (size_t i = 0; notes && i < c->nnotes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	root = json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:o, s:o}",
			 "kind", fpl_cmp_kind_names[c->kind], "baseline", c->paths[0],
			 "confidence", c->opts.confidence, "trim", c->opts.trim,
			 "test", fpl_cmp_test_name(c), "center", center_name(c),
			 "values", values_name(c), "within_run", c->opts.within_run,
			 "min_runs", (json_int_t)FPL_MIN_RUNS,
			 "holm_family", (json_int_t)c->family,
			 "no_verdict", (json_int_t)c->no_verdict,
			 "different", (json_int_t)c->different, "metrics", metrics, "notes", notes);
	if (root && !fpl_cmp_pairing_json(c, root) &&
	    !json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17))) {
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
