// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab repro rfbm's tables: cases of repeated runs, trimmed, as percentages of case 1, tested. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpulab/compare.h"
#include "fpulab/repro.h"
#include "pick.h"

#define MAX_CASES 8
#define TRIM_PCT 10.0
#define CONF_PCT 95.0

int fpl_repro_add_case(struct fpl_result *r, const char *table, int case_no, const char *label,
		       const char *unit, const char *method, const double *v, size_t n)
{
	struct fpl_run *run = fpl_result_add_run(r, FPL_REPRO_BENCH);
	struct fpl_metric *m;

	if (!run || fpl_run_param_str(run, "experiment", "rfbm") ||
	    fpl_run_param_str(run, "table", table) || fpl_run_param_int(run, "case", case_no) ||
	    fpl_run_param_str(run, "label", label))
		return -ENOMEM;
	m = fpl_run_add_metric(run, "value", unit, method);
	if (!m || fpl_metric_add_many(m, v, n))
		return -ENOMEM;
	return 0;
}

static bool rfbm_run(const struct fpl_run *run)
{
	return !run->skipped && fpl_pick_match(run, FPL_REPRO_BENCH, "experiment=rfbm");
}

bool fpl_repro_has_rfbm(const struct fpl_result *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (rfbm_run(r->runs[i]))
			return true;
	return false;
}

/* The cases of one table, by case number. */
static size_t table_cases(const struct fpl_result *r, const char *table,
			  const struct fpl_run **out)
{
	size_t n = 0;

	for (int k = 1; k <= MAX_CASES; k++) {
		char spec[48];

		snprintf(spec, sizeof(spec), "experiment=rfbm case=%d", k);
		for (size_t i = 0; i < r->nruns; i++) {
			const struct fpl_run *run = r->runs[i];
			char b[64];

			if (rfbm_run(run) && fpl_pick_match(run, FPL_REPRO_BENCH, spec) &&
			    !strcmp(fpl_pick_param(run, "table", b, sizeof(b)), table)) {
				out[n++] = run;
				break;
			}
		}
	}
	return n;
}

/* Each case's values as a file of numbers, compared by the code of `fpulab compare`. */
static int compare_cases(const struct fpl_run **cases, size_t n, struct fpl_cmp **c,
			 struct fpl_diag *diag)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], *paths[MAX_CASES] = { NULL };
	struct fpl_cmp_opts o = { .trim = TRIM_PCT, .confidence = CONF_PCT, .seed = 1 };
	int err = 0;

	snprintf(dir, sizeof(dir), "%s/fpulab-repro.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return fpl_diag_set(diag, -errno, "%s: %s", dir, strerror(errno));
	for (size_t i = 0; i < n && !err; i++) {
		const struct fpl_metric *m = fpl_run_find_metric(cases[i], "value");
		FILE *f;

		if (asprintf(&paths[i], "%s/case%zu", dir, i + 1) < 0) {
			paths[i] = NULL;
			err = -ENOMEM;
			break;
		}
		f = fopen(paths[i], "w");
		if (!f) {
			err = fpl_diag_set(diag, -errno, "%s: %s", paths[i], strerror(errno));
			break;
		}
		for (size_t k = 0; m && k < m->n; k++)
			fprintf(f, "%.17g\n", m->samples[k]);
		if (fclose(f))
			err = fpl_diag_set(diag, -EIO, "%s: write error", paths[i]);
	}
	if (!err)
		err = fpl_cmp_run(paths, n, &o, c, diag);
	for (size_t i = 0; i < n; i++) {
		if (paths[i])
			unlink(paths[i]);
		free(paths[i]);
	}
	rmdir(dir);
	return err;
}

static int decimals(double v)
{
	return fabs(v) >= 1000 ? 2 : fabs(v) >= 10 ? 3 : 4;
}

/* What the figures say, in words, with the confidence they deserve. */
static void meaning(const struct fpl_cmp *c, FILE *f)
{
	const struct fpl_cmp_metric *m = &c->m[0];
	double widest = 0;
	size_t proven = 0;

	for (size_t i = 1; i < c->ncases; i++) {
		proven += m->t[i].proven;
		if (isfinite(m->t[i].pct_half) && m->t[i].pct_half > widest)
			widest = m->t[i].pct_half;
	}
	fprintf(f, "Meaning: ");
	for (size_t i = 1; i < c->ncases; i++) {
		const struct fpl_cmp_test *t = &m->t[i];

		if (t->proven)
			fprintf(f,
				"case %zu is %s than case 1 by %.2f%% (95%% interval %+.2f%% .. "
				"%+.2f%%, Holm p = %.2g): a real difference on this machine. ",
				i + 1, t->pct > 0 ? "higher" : "lower", fabs(t->pct),
				t->pct - t->pct_half, t->pct + t->pct_half, t->p_holm);
	}
	if (proven < c->ncases - 1)
		fprintf(f, "%s, no difference from case 1 is proven at 95%% confidence. ",
			proven ? "For the other cases" : "For every case");
	fprintf(f, "With %zu runs per case the intervals are +/- %.2f%% wide at most, so an "
		"effect the size of the 2024 report's 0.2%% %s.\n", m->s[0].nruns, widest,
		widest < 0.2 ? "would show here" :
			       "could not be told from noise here: take more runs (--runs) or "
			       "longer ones (--budget)");
}

static void one_table(const char *table, const struct fpl_run **cases, const struct fpl_cmp *c,
		      FILE *f)
{
	const struct fpl_cmp_metric *m = &c->m[0];
	const struct fpl_metric *v = fpl_run_find_metric(cases[0], "value");
	int d = decimals(m->s[0].center);

	fprintf(f, "%s\n  %s\n  %zu runs per case; of each case's runs the top and bottom 10%% "
		"are dropped and the rest averaged (%s); case 1 = 100%%.\n\n", table,
		v && v->method ? v->method : "", m->s[0].nruns, v && v->unit ? v->unit : "no unit");
	for (size_t i = 0; i < c->ncases; i++) {
		char b[96];
		const char *label = fpl_pick_param(cases[i], "label", b, sizeof(b));

		if (!i) {
			fprintf(f, "case 1: %-34s %14.*f  Set as 1\n", label, d, m->s[0].center);
			continue;
		}
		fprintf(f, "case %zu: %-34s %14.*f  ~%.2f%%   %+.2f%% +/- %.2f%% %s\n", i + 1,
			label, d, m->s[i].center, 100 * m->s[i].center / m->s[0].center,
			m->t[i].pct, m->t[i].pct_half,
			m->t[i].proven ? "(proven)" : "(not proven)");
	}
	fprintf(f, "(+/-: 95%% interval of the difference to case 1, %s's t on the trimmed "
		"means, Holm over %zu comparison%s.)\n", fpl_cmp_test_name(c), c->family,
		c->family == 1 ? "" : "s");
	meaning(c, f);
}

int fpl_repro_rfbm_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag)
{
	const char *done[MAX_CASES * 2];
	size_t ndone = 0;
	int err = 0;

	if (!fpl_repro_has_rfbm(r))
		return fpl_diag_set(diag, -EINVAL, "no RFBM cases in the result");
	for (size_t i = 0; i < r->nruns && !err; i++) {
		const struct fpl_run *cases[MAX_CASES];
		struct fpl_cmp *c = NULL;
		const char *table;
		char b[160];
		bool seen = false;
		size_t n;

		if (!rfbm_run(r->runs[i]))
			continue;
		table = json_string_value(json_object_get(r->runs[i]->params, "table"));
		for (size_t k = 0; k < ndone && table; k++)
			seen |= !strcmp(done[k], table);
		if (!table || seen || ndone == FPL_ARRAY_SIZE(done))
			continue;
		done[ndone++] = table;
		n = table_cases(r, table, cases);
		if (n < 2) {
			fprintf(f, "%s: fewer than two cases, nothing to compare\n\n", table);
			continue;
		}
		err = compare_cases(cases, n, &c, diag);
		if (!err) {
			one_table(fpl_pick_param(cases[0], "table", b, sizeof(b)), cases, c, f);
			fputc('\n', f);
		}
		fpl_cmp_free(c);
	}
	return err ? err : ferror(f) ? -EIO : 0;
}
