// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab repro rfbm's tables: cases of repeated runs, trimmed, as percentages of case 1, tested. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelview.h"
#include "repro.h"
#include "fpulab/xstate.h"
#include "pick.h"

#define MAX_CASES 8
#define TRIM_PCT 10.0
#define CONF_PCT 95.0

/* The cases of table the CPU could not measure: one line each, with why. */
static void left_out(const struct fpl_result *r, const char *table, FILE *f)
{
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char b[96], t[200];

		if (!run->skipped || !fpl_pick_match(run, FPL_REPRO_BENCH, "experiment=rfbm") ||
		    strcmp(fpl_pick_param(run, "table", t, sizeof(t)), table))
			continue;
		fprintf(f, "(the report's case %lld, %s: left out: %s)\n",
			fpl_run_param_get_int(run, "report_case", 0),
			fpl_pick_param(run, "label", b, sizeof(b)),
			run->skip_reason ? run->skip_reason : "not measured here");
	}
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

static int decimals(double v)
{
	return fabs(v) >= 1000 ? 2 : fabs(v) >= 10 ? 3 : 4;
}

/* One case against case 1: the interval of the difference in percent, and its verdict. */
struct case_test {
	double center;		/* the case's trimmed mean */
	double of_base;		/* "~": 100 + pct, the centre of the +/- interval, always inside it */
	double base;		/* paired: case 1's trimmed mean in this case's own runs */
	double pct, half;	/* difference to case 1 and its 95% half-width, percent */
	double p, p_holm;
	double sd;		/* paired: the spread of the per-run differences, percent */
	size_t nruns;
	bool verdict, proven;
};

/* A table's tests: paired where every case after the first has its baseline of the same runs. */
struct table_tests {
	bool paired;
	size_t n, family;
	struct case_test t[MAX_CASES];
};

static bool all_paired(const struct fpl_run **cases, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!fpl_run_find_metric(cases[i], "baseline"))
			return false;
	return true;
}

static double center_of(const struct fpl_metric *m)
{
	struct fpl_summary s;

	return m && !fpl_metric_summary(m, TRIM_PCT, &s) ? s.trimmed_mean : NAN;
}

/* Case i's value against its own baseline, run by run, in percent of the baseline. */
static void paired_case(const struct fpl_run *run, struct case_test *t)
{
	const struct fpl_metric *v = fpl_run_find_metric(run, "value");
	const struct fpl_metric *b = fpl_run_find_metric(run, "baseline");
	struct fpl_paired pr;

	t->center = center_of(v);
	t->p = NAN;
	if (!v || !b || fpl_paired_t(b->samples, v->samples, v->n < b->n ? v->n : b->n,
				     FPL_PAIR_PCT, TRIM_PCT, CONF_PCT, 0, &pr))
		return;
	t->nruns = pr.n;
	/*
	 * Not the ratio of the two trimmed means: where runs of different
	 * levels differ by different shares, that ratio can lie outside the
	 * interval of the per-run differences (Zen 3: ~101.29% beside
	 * +0.17% +/- 0.28%). "~" is the same statistic as the interval.
	 */
	t->of_base = 100 + pr.t.diff;
	t->base = pr.t.center_a;
	t->verdict = pr.n >= FPL_MIN_RUNS;
	t->pct = pr.t.diff;
	t->half = pr.t.tcrit * pr.t.se;
	t->p = pr.t.p;
	t->sd = pr.t.se * sqrt((double)pr.n);
}

/* Holm over the cases that have a verdict: p_holm, proven and the family's size. */
static int holm_over(struct table_tests *tt)
{
	double p[MAX_CASES], adj[MAX_CASES];
	size_t k = 0;

	for (size_t i = 1; i < tt->n; i++)
		if (tt->t[i].verdict)
			p[k++] = tt->t[i].p;
	if (fpl_holm(p, k, adj))
		return -ENOMEM;
	tt->family = k;
	k = 0;
	for (size_t i = 1; i < tt->n; i++)
		if (tt->t[i].verdict) {
			tt->t[i].p_holm = adj[k++];
			tt->t[i].proven = tt->t[i].p_holm < 1 - CONF_PCT / 100;
		}
	return 0;
}

static int paired_tests(const struct fpl_run **cases, size_t n, struct table_tests *tt)
{
	const struct fpl_metric *m0 = fpl_run_find_metric(cases[0], "value");

	tt->t[0].center = center_of(m0);
	tt->t[0].nruns = m0 ? m0->n : 0;
	for (size_t i = 1; i < n; i++)
		paired_case(cases[i], &tt->t[i]);
	return holm_over(tt);
}

/* Yuen's two-sample t of case i against case 1, in percent of case 1's trimmed mean. */
static int yuen_case(const struct fpl_metric *m0, const struct fpl_metric *mi,
		     struct case_test *t)
{
	double *a = malloc((m0->n + mi->n) * sizeof(*a)), *b = a + m0->n;
	struct fpl_ttest y;
	int err;

	if (!a)
		return -ENOMEM;
	memcpy(a, m0->samples, m0->n * sizeof(*a));
	memcpy(b, mi->samples, mi->n * sizeof(*b));
	fpl_sort(a, m0->n);
	fpl_sort(b, mi->n);
	err = fpl_yuen_sorted(a, m0->n, b, mi->n, TRIM_PCT, CONF_PCT, &y);
	free(a);
	t->p = NAN;
	if (err)
		return 0;
	t->center = y.center_b;
	t->of_base = 100 * y.center_b / y.center_a;
	t->pct = 100 * y.diff / y.center_a;
	t->half = 100 * y.tcrit * y.se / y.center_a;
	t->p = y.p;
	t->nruns = mi->n;
	t->verdict = m0->n >= FPL_MIN_RUNS && mi->n >= FPL_MIN_RUNS;
	return 0;
}

/*
 * Files written before pairing: the cases as independent samples (Yuen's
 * t on the trimmed means, what fpulab compare --trim 10 tests).
 */
static int unpaired_tests(const struct fpl_run **cases, size_t n, struct table_tests *tt)
{
	const struct fpl_metric *m0 = fpl_run_find_metric(cases[0], "value");
	int err = 0;

	tt->t[0].center = center_of(m0);
	tt->t[0].nruns = m0 ? m0->n : 0;
	for (size_t i = 1; i < n && !err && m0; i++) {
		const struct fpl_metric *mi = fpl_run_find_metric(cases[i], "value");

		tt->t[i].sd = NAN;
		if (mi)
			err = yuen_case(m0, mi, &tt->t[i]);
	}
	return err ? err : holm_over(tt);
}

/* How many runs a 0.2% effect needs at the spread measured, in words. */
static void runs_for_02(const struct table_tests *tt, FILE *f)
{
	double sd = 0;

	for (size_t i = 1; i < tt->n; i++)
		if (isfinite(tt->t[i].sd) && tt->t[i].sd > sd)
			sd = tt->t[i].sd;
	if (!tt->paired || !(sd > 0))
		return;
	fprintf(f, " At the spread of the per-run differences measured here (%.2f%%: the trimmed "
		"mean's standard error times the square root of the runs), a 95%% interval of +/- "
		"0.2%% needs about %zu runs.", sd,
		fpl_runs_needed_paired(sd, 0.2, CONF_PCT));
}

/* What the figures say, in words, with the confidence they deserve. */
static void meaning(const struct table_tests *tt, FILE *f)
{
	double widest = 0;
	size_t proven = 0, any = 0, runs = tt->t[0].nruns;

	for (size_t i = 1; i < tt->n; i++) {
		proven += tt->t[i].proven;
		any += isfinite(tt->t[i].half);
		if (isfinite(tt->t[i].half) && tt->t[i].half > widest)
			widest = tt->t[i].half;
		/* paired: the pairs each case had, not case 1's own count */
		if (tt->paired && (i == 1 || tt->t[i].nruns > runs))
			runs = tt->t[i].nruns;
	}
	fprintf(f, "Meaning: ");
	for (size_t i = 1; i < tt->n; i++) {
		const struct case_test *t = &tt->t[i];

		if (t->proven)
			fprintf(f,
				"case %zu is %s than case 1 by %.2f%% (95%% interval %+.2f%% .. "
				"%+.2f%%, Holm p = %.2g): a real difference on this machine. ",
				i + 1, t->pct > 0 ? "higher" : "lower", fabs(t->pct),
				fpl_shown(t->pct - t->half, 2), fpl_shown(t->pct + t->half, 2),
				t->p_holm);
	}
	if (proven < tt->n - 1)
		fprintf(f, "%s, no difference from case 1 is proven at 95%% confidence. ",
			proven ? "For the other cases" : "For every case");
	if (any < tt->n - 1)
		fprintf(f, "%zu of %zu comparisons have no interval (fewer than %d runs, or a "
			"spread of zero). ", tt->n - 1 - any, tt->n - 1, FPL_MIN_RUNS);
	if (any)
		fprintf(f, "With %zu runs %s the intervals are +/- %.2f%% wide at most, so an effect "
			"the size of the 2024 report's 0.2%% %s.", runs,
			tt->paired ? "(each a pair)" : "per case", widest,
			widest < 0.2 ? "would show here" :
				       "could not be told from noise here: take more runs (--runs) "
				       "or longer ones (--budget)");
	runs_for_02(tt, f);
	fputc('\n', f);
}

static void legend(const struct table_tests *tt, const struct fpl_run **cases, FILE *f)
{
	const struct fpl_metric *b = tt->paired ? fpl_run_find_metric(cases[1], "baseline") : NULL;

	if (!tt->paired) {
		fprintf(f, "(+/-: 95%% interval of the difference to case 1, Yuen's t on the "
			"trimmed means, unadjusted; \"proven\": Holm's p over %zu comparison%s; the "
			"runs are taken as "
			"independent samples: this file has no baseline of the same runs.)\n",
			tt->family, tt->family == 1 ? "" : "s");
		return;
	}
	fprintf(f, "(+/-: 95%% interval of the difference to case 1, paired: each run's value "
		"in percent of case 1's figure in the same run (%s), so the run's own level "
		"cancels; Yuen's trimmed t (10%%) over the %zu per-run differences, unadjusted; "
		"\"proven\": Holm's p over %zu comparison%s. ~: 100%% plus that trimmed mean of the "
		"per-run differences, the centre of the interval (not the ratio of the two "
		"trimmed means, which need not lie inside it).)\n", b && b->method ? b->method : "baseline",
		tt->t[1].nruns, tt->family, tt->family == 1 ? "" : "s");
}

static void one_table(const struct fpl_result *r, const char *table,
		      const struct fpl_run **cases, const struct table_tests *tt, FILE *f)
{
	const struct fpl_metric *v = fpl_run_find_metric(cases[0], "value");
	int d = decimals(tt->t[0].center);

	fprintf(f, "%s\n  %s\n  %zu runs per case; of each case's runs the top and bottom 10%% "
		"are dropped and the rest averaged (%s); case 1 = 100%%.\n\n", table,
		v && v->method ? v->method : "", tt->t[0].nruns, v && v->unit ? v->unit : "no unit");
	for (size_t i = 0; i < tt->n; i++) {
		const struct case_test *t = &tt->t[i];
		char b[96];
		const char *label = fpl_pick_param(cases[i], "label", b, sizeof(b));

		if (!i) {
			fprintf(f, "case 1: %-34s %14.*f  Set as 1\n", label, d, t->center);
			continue;
		}
		fprintf(f, "case %zu: %-34s %14.*f  ~%.2f%%   ", i + 1, label, d, t->center,
			t->of_base);
		if (t->verdict)
			fprintf(f, "%+.2f%% +/- %.2f%% %s", fpl_shown(t->pct, 2), t->half,
				t->proven ? "(proven)" : "(not proven)");
		else
			fprintf(f, "(no verdict: fewer than %d runs)", FPL_MIN_RUNS);
		/* its own runs' baseline, where that is not case 1's line (ctxsw: its A/B runs) */
		if (tt->paired && t->base > 0 &&
		    fabs(t->base - tt->t[0].center) > 1e-9 * fabs(tt->t[0].center))
			fprintf(f, "; case 1 in its runs %.*f", d, t->base);
		fputc('\n', f);
	}
	left_out(r, table, f);
	legend(tt, cases, f);
	meaning(tt, f);
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
		struct table_tests tt;
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
		/* a case without figures would print as 0 (a hand-made or damaged file) */
		for (size_t k = 0; k < n && !err; k++) {
			const struct fpl_metric *v = fpl_run_find_metric(cases[k], "value");

			if (!v || !v->n)
				err = fpl_diag_set(diag, -EINVAL, "RFBM table '%s', case %zu: no "
						   "values", table, k + 1);
		}
		if (err)
			break;
		tt = (struct table_tests){ .paired = all_paired(cases, n), .n = n };
		err = tt.paired ? paired_tests(cases, n, &tt) : unpaired_tests(cases, n, &tt);
		if (!err) {
			one_table(r, fpl_pick_param(cases[0], "table", b, sizeof(b)), cases, &tt, f);
			fputc('\n', f);
		}
	}
	return err ? err : ferror(f) ? -EIO : 0;
}

/* "0x80000000000018e7 (x87|...|CET_S)" for each mask of a kvm pass's key, "; " apart. */
static size_t kvm_masks(const struct fpl_result *r, const char *key, char *buf, size_t len,
			bool *all_cet, bool *any_cet)
{
	size_t used = 0, n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->nruns; i++) {
		const json_t *k = fpl_run_obs_get(r->runs[i], "kernel"), *x;
		size_t j;

		json_array_foreach(json_object_get(k, key), j, x) {
			const char *v = json_string_value(json_object_get(x, "value"));
			bool cet = v && strtoull(v, NULL, 16) >> FPL_XFEATURE_CET_KERNEL & 1;

			*all_cet = *all_cet && cet;
			*any_cet = *any_cet || cet;
			if (v && !strstr(buf, v) && used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%s", n++ ? " " : "",
							 v);
		}
	}
	return n;
}

/* The upstream sequel: CET_S in the guest fpstates' RFBM, not in the vCPU thread's own. */
static void kvm_lines(const struct fpl_result *traced, FILE *f)
{
	char g[200], h[200];
	bool g_all = true, g_any = false, h_all = true, h_any = false;

	if (!kvm_masks(traced, "kvm_guest_xcomp_bv", g, sizeof(g), &g_all, &g_any) ||
	    !kvm_masks(traced, "kvm_host_xcomp_bv", h, sizeof(h), &h_all, &h_any))
		return;
	fprintf(f, "kernel xcomp_bv of KVM guest fpstates (fpulab kvm, swapped in on every "
		"KVM_RUN): %s; CET_S (bit 12) %s\n", g, g_all ? "is in it: their XSAVES RFBM "
		"carries it" : g_any ? "is in some of them" : "is not in it");
	fprintf(f, "kernel xcomp_bv of the vCPU thread's own (host) fpstate: %s; CET_S %s\n", h,
		h_any ? "is in it" : "is not: host tasks never save it (guest-only since Linux "
		"6.17)");
}

/* What the kernel's XSAVES covered for the measured tasks (--kernel-trace). */
void fpl_repro_kernel_lines(const struct fpl_result *traced, bool cet_s, bool amx, FILE *f)
{
	struct fpl_result host = { .host = traced->host, .warnings = traced->warnings };
	const struct fpl_result *all = traced;
	char line[512];
	bool any = false;

	/* The host tasks' line leaves the kvm runs out: their guest fpstates are the sequel's. */
	host.runs = calloc(traced->nruns + 1, sizeof(*host.runs));
	for (size_t i = 0; host.runs && i < traced->nruns; i++)
		if (strcmp(traced->runs[i]->bench, "kvm"))
			host.runs[host.nruns++] = traced->runs[i];
	if (host.runs)
		traced = &host;
	if (cet_s && fpl_kview_xcomp_line(traced, FPL_XFEATURE_CET_KERNEL, "CET_S", line,
					       sizeof(line)) > 0) {
		fprintf(f, "%s\n", line);
		any = true;
	}
	if (amx && fpl_kview_xcomp_line(traced, FPL_XFEATURE_XTILE_DATA, "AMX_TILEDATA",
					     line, sizeof(line)) > 0) {
		fprintf(f, "%s\n", line);
		any = true;
	}
	if (!any && fpl_kview_xcomp_line(traced, FPL_XFEATURE_CET_KERNEL, "CET_S", line,
					 sizeof(line)) > 0)
		fprintf(f, "%s (CET_S is not enumerated on this CPU)\n", line);
	else if (!any)
		fprintf(f, "kernel xcomp_bv: not traced (%s)\n",
			traced->nruns ? "the traced runs saw no x86_fpu event" :
			"--kernel-trace found no tracefs or no x86_fpu events: see the run's "
			"observed.kernel");
	kvm_lines(all, f);
	free(host.runs);
}
