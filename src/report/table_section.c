// SPDX-License-Identifier: GPL-3.0-or-later
/* section's table for people, like the 2018 report (percent speedup of outside over inside). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/section_work.h"
#include "fpulab/report.h"
#include "pick.h"
#include "table_internal.h"
#include "views.h"

/* est [lo, hi] with prec decimals and a sign where plus, never "-0"; "-" without an interval. */
static void print_ci(FILE *f, const struct fpl_metric *m, int prec, bool plus, int width)
{
	double est, lo, hi;
	char buf[96], a[32], b[32], c[32];

	if (!fpl_tbl_metric_ci(m, &est, &lo, &hi)) {
		fprintf(f, " %*s", width, "-");
		return;
	}
	fpl_section_num(a, sizeof(a), est, prec);
	fpl_section_num(b, sizeof(b), lo, prec);
	fpl_section_num(c, sizeof(c), hi, prec);
	snprintf(buf, sizeof(buf), plus ? "%s%s [%s%s, %s%s]" : "%.0s%s [%.0s%s, %.0s%s]",
		 a[0] != '-' ? "+" : "", a, b[0] != '-' ? "+" : "", b, c[0] != '-' ? "+" : "", c);
	fprintf(f, " %*s", width, buf);
}

static const struct fpl_metric *in_unit(const struct fpl_run *run, const char *what,
					enum fpl_units u)
{
	char name[48];

	snprintf(name, sizeof(name), "%s_%s", what, fpl_tbl_unit_name(u));
	return fpl_run_find_metric(run, name);
}

/* The note of unit u's part of the first measured run's method ("[u1]"), or "". */
static void unit_ref(const struct fpl_result *r, enum fpl_units u, struct fpl_tbl_notes *units,
		     char *buf, size_t size)
{
	buf[0] = 0;
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_metric *m = r->runs[i]->skipped ? NULL :
					     in_unit(r->runs[i], "inside", u);
		struct fpl_method_parts p;
		size_t k;

		if (!m)
			continue;
		fpl_metric_method_parts(m, &p);
		k = p.unit_len ? fpl_tbl_note(units, p.unit) : 0;
		if (k)
			snprintf(buf, size, " [u%zu]", k);
		return;
	}
}

/* The rows in one unit: calls in us when ns (as the 2018 report), else in the unit itself. */
static void block(const struct fpl_result *r, enum fpl_units u, struct fpl_tbl_notes *units,
		  FILE *f)
{
	const char *un = fpl_tbl_unit_name(u);
	bool ns = u == FPL_UNITS_NS;
	char ref[32], per[32], one[32], call[32];

	unit_ref(r, u, units, ref, sizeof(ref));
	fprintf(f, "FPU sections: times in %s%s, medians per modelled system call\n",
		fpl_tbl_unit_words(u), ref);
	snprintf(per, sizeof(per), "%s/section [CI]", un);
	snprintf(one, sizeof(one), "%s [CI]", un);
	snprintf(call, sizeof(call), "%s/call", ns ? "us" : un);
	fprintf(f, "%-8s %-14s %-8s %6s %-5s %-9s %-8s %-6s %11s %11s %24s %22s %24s %s\n",
		"workload", "impl", "ISA", "chunk", "policy", "mask", "insn", "owner", "inside",
		"outside", "speedup % [95% CI]", per, "one section", "saves/restores per call");
	fprintf(f, "%-8s %-14s %-8s %6s %-5s %-9s %-8s %-6s %11s %11s %24s %22s %24s %s\n",
		"", "", "", "bytes", "", "", "", "", call, call, "outside over inside",
		"inside-outside", one, "inside, outside");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char why[1200];

		fprintf(f, "%-8s %-14s %-8s %6lld %-5s %-9s %-8s %-6s",
			fpl_tbl_param_str(run, "workload"), fpl_tbl_param_str(run, "impl"),
			fpl_tbl_param_str(run, "isa"), fpl_run_param_get_int(run, "chunk", 0),
			fpl_tbl_param_str(run, "policy"), fpl_tbl_param_str(run, "mask"),
			fpl_tbl_param_str(run, "insn"), fpl_tbl_param_str(run, "owner"));
		if (run->skipped) {
			fprintf(f, " skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		fprintf(f, ns ? " %11.3f %11.3f" : " %11.0f %11.0f",
			fpl_metric_median(in_unit(run, "inside", u)) / (ns ? 1000 : 1),
			fpl_metric_median(in_unit(run, "outside", u)) / (ns ? 1000 : 1));
		if (fpl_section_anomaly(r, run, why, sizeof(why)))
			fprintf(f, " %24s", "anomaly (see below)");
		else
			print_ci(f, fpl_run_find_metric(run, "speedup_pct"), 1, true, 24);
		/* A cost below zero beyond chance is an anomaly, never a figure (issue 32). */
		if (fpl_section_cost_anomalous(r, run, false))
			fprintf(f, " %22s", "anomaly (see below)");
		else
			print_ci(f, in_unit(run, "section", u), ns ? 1 : 0, false, 22);
		/* Its interval too: a call's noise can put its median far below zero. */
		if (fpl_section_cost_anomalous(r, run, true))
			fprintf(f, " %24s", "anomaly (see below)");
		else
			print_ci(f, in_unit(run, "one_section", u), ns ? 1 : 0, false, 24);
		fprintf(f, " %lld/%lld, %lld/%lld\n", fpl_run_obs_get_int(run, "inside_saves", 0),
			fpl_run_obs_get_int(run, "inside_restores", 0),
			fpl_run_obs_get_int(run, "outside_saves", 0),
			fpl_run_obs_get_int(run, "outside_restores", 0));
	}
}

/*
 * Intervals below zero that the family's test leaves to chance: said, with
 * how many chance alone gives, so that the row's figure is not read as a
 * speedup either.
 */
static void chance_below(const struct fpl_result *r, FILE *f)
{
	size_t family = 0, below = 0;
	char why[1200];

	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && !fpl_section_anomaly(r, r->runs[i], why, sizeof(why)))
			below += fpl_section_below_zero(r, r->runs[i], &family);
	if (!below)
		return;
	fprintf(f, "\n%zu of the %zu section cost intervals lie%s below zero, not beyond chance: "
		"where costs are near zero, up to 2.5%% of 95%% intervals (%.1f of %zu) lie below "
		"by chance, and the sign test, Holm-adjusted over all %zu, does not put %s beyond "
		"chance. "
		"%s below what this run resolves, not %s.\n", below, family,
		below == 1 ? "s" : "", 0.025 * (double)family, family, family,
		below == 1 ? "it" : "them",
		below == 1 ? "That cost is" : "Those costs are",
		below == 1 ? "a speedup" : "speedups");
}

/* "value [lo, hi]" of an observed.explain interval, never "-0"; "-" without one. */
static const char *explain_ci(const json_t *o, char *buf, size_t size)
{
	json_t *v = json_object_get(o, "value"), *l = json_object_get(o, "ci_lo");
	json_t *h = json_object_get(o, "ci_hi");
	char a[32], b[32], c[32];

	if (!json_is_number(v) || !json_is_number(l) || !json_is_number(h))
		return "-";
	snprintf(buf, size, "%s [%s, %s]", fpl_section_num(a, sizeof(a), json_number_value(v), 0),
		 fpl_section_num(b, sizeof(b), json_number_value(l), 0),
		 fpl_section_num(c, sizeof(c), json_number_value(h), 0));
	return buf;
}

/*
 * Issue 34: per extra section, the model's saves, set-ups, begin/end pairs
 * and restores times their cost measured alone, against the measured cost
 * (observed.explain; runs from before the part arms have none).
 */
static void explain_block(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *ex = run->skipped ? NULL : fpl_run_obs_get(run, "explain");
		json_t *parts = json_object_get(ex, "parts"), *p;
		char meas[96], res[96], cell[FPL_SECTION_NPARTS][48], pred[32];
		size_t k;

		if (!json_is_object(ex) || json_array_size(parts) != FPL_SECTION_NPARTS)
			continue;
		if (!head) {
			fputc('\n', f);
			fpl_tbl_wrap(f, "Section cost by its parts, core cycles per extra section: "
				     "count per section x the part's median cost, each part timed "
				     "alone as its own arm in the same rounds (part_<name>_cycles); "
				     "the counts are the model's expected saves and restores "
				     "(src/model/kexpect.c), one set-up per begin (none for mask "
				     "none), one begin/end pair per section. Residual: per-round "
				     "measured minus per-round predicted, median [95% CI]; "
				     "\"unexplained\" where that interval excludes zero and the "
				     "residual exceeds 20% of the measured cost.", 0);
			fprintf(f, "%-8s %-14s %6s %-5s %-9s %-6s %22s %12s %12s %12s %12s %9s %22s\n",
				"workload", "impl", "chunk", "policy", "mask", "owner",
				"measured [95% CI]", "save", "set-up", "end", "restore",
				"predicted", "residual [95% CI]");
			head = true;
		}
		json_array_foreach(parts, k, p) {
			char b[32];

			snprintf(cell[k], sizeof(cell[k]), "%g x %s",
				 json_number_value(json_object_get(p, "count_per_op")),
				 fpl_section_num(b, sizeof(b),
						 json_number_value(json_object_get(p, "each")), 1));
		}
		if (fpl_section_cost_anomalous(r, run, false))
			snprintf(meas, sizeof(meas), "anomaly (see below)");
		else
			explain_ci(json_object_get(ex, "measured_cycles"), meas, sizeof(meas));
		explain_ci(json_object_get(ex, "residual"), res, sizeof(res));
		fpl_section_num(pred, sizeof(pred),
				json_number_value(json_object_get(ex, "predicted")), 0);
		fprintf(f, "%-8s %-14s %6lld %-5s %-9s %-6s %22s %12s %12s %12s %12s %9s %22s%s\n",
			fpl_tbl_param_str(run, "workload"), fpl_tbl_param_str(run, "impl"),
			fpl_run_param_get_int(run, "chunk", 0), fpl_tbl_param_str(run, "policy"),
			fpl_tbl_param_str(run, "mask"), fpl_tbl_param_str(run, "owner"), meas,
			cell[0], cell[1], cell[2], cell[3], pred, res,
			json_is_true(json_object_get(ex, "unexplained")) ? " unexplained" : "");
	}
}

static void anomalies(const struct fpl_result *r, FILE *f)
{
	size_t n = 0;
	char why[1200];

	for (size_t i = 0; i < r->nruns; i++)
		n += !r->runs[i]->skipped && fpl_section_anomaly(r, r->runs[i], why, sizeof(why));
	chance_below(r, f);
	if (!n)
		return;
	fprintf(f, "\nAnomalies: no speedup is shown for %zu row%s, whose section cost lies below "
		"zero, which cannot be true:\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_section_anomaly(r, r->runs[i], why, sizeof(why)))
			fprintf(f, "  %s/%s %lld bytes %s: %s.\n",
				fpl_tbl_param_str(r->runs[i], "workload"),
				fpl_tbl_param_str(r->runs[i], "impl"),
				fpl_run_param_get_int(r->runs[i], "chunk", 0),
				fpl_tbl_param_str(r->runs[i], "policy"), why);
}

int fpl_table_section(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	struct fpl_tbl_notes units = { NULL, 0 };
	bool first = true;

	for (enum fpl_units u = FPL_UNITS_CYCLES; u < FPL_UNITS_ALL; u++) {
		if (!fpl_tbl_unit_shown(o, u))
			continue;
		if (!first)
			fputc('\n', f);
		block(r, u, &units, f);
		first = false;
	}
	fputc('\n', f);
	fpl_tbl_wrap(f, "Times: median per modelled system call (N vs 2N difference, interleaved "
		     "rounds of inside/outside/bare and the four part arms, in a shuffled order "
		     "each round: what ran just before an arm moves its time). Speedup: median of per-round inside/outside - 1 "
		     "(core cycles) with a distribution-free 95% interval (order statistics) (the "
		     "2018 report's \"percent speedup\"). Per section: median per round of (inside "
		     "- outside) / (sections - 1); one section = outside - bare (one begin/end "
		     "around all work plus the return to user). --json keeps every sample.", 0);
	explain_block(r, f);
	anomalies(r, f);
	if (units.n) {
		fputc('\n', f);
		fpl_tbl_units_legend(f, o, &units);
	}
	fpl_tbl_warnings(r, (const struct fpl_run *const *)r->runs, r->nruns, o, f);
	fpl_tbl_notes_free(&units);
	return ferror(f) ? -EIO : 0;
}

static const struct fpl_run *section_run(const struct fpl_result *r, const char *policy)
{
	static const char *const isas[] = { "AVX-512F", "AVX-512", "AVX2", "AVX", "SSE2", "C" };
	const struct fpl_run *run;
	char spec[160];

	for (size_t i = 0; i < FPL_ARRAY_SIZE(isas); i++) {
		snprintf(spec, sizeof(spec), "workload=xor chunk=4096 mask=MXCSR insn=xsavec "
			 "owner=init policy=%s isa=%s", policy, isas[i]);
		run = fpl_pick_run(r, "section", spec);
		if (run && fpl_run_find_metric(run, "section_cycles"))
			return run;
	}
	snprintf(spec, sizeof(spec), "policy=%s", policy);
	for (size_t i = 0; i < r->nruns; i++) {
		run = r->runs[i];
		if (!run->skipped && fpl_pick_match(run, "section", spec) &&
		    fpl_run_find_metric(run, "section_cycles"))
			return run;
	}
	return NULL;
}

void fpl_summary_section(const struct fpl_result *r, FILE *f)
{
	static const char *const pols[] = { "eager", "lazy" };
	bool head = false;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(pols); i++) {
		const struct fpl_run *run = section_run(r, pols[i]);
		double est = fpl_pick_extra(run, "section_cycles", "estimate");
		double lo = fpl_pick_extra(run, "section_cycles", "ci95_lo");
		double hi = fpl_pick_extra(run, "section_cycles", "ci95_hi");
		char b[5][32];
		struct fpl_summary s;

		if (!run || (!isfinite(est) && !fpl_pick_stat(run, "section_cycles", &s)))
			continue;
		if (!head)
			fprintf(
			    f,
			    "\nFPU section (kernel_fpu_begin_mask(%s) .. kernel_fpu_end, %s "
			    "saves; %s %s over %s-byte chunks), core cycles per extra section:\n",
			    fpl_pick_param(run, "mask", b[0], 32),
			    fpl_pick_param(run, "insn", b[1], 32),
			    fpl_pick_param(run, "workload", b[2], 32),
			    fpl_pick_param(run, "impl", b[3], 32),
			    fpl_pick_param(run, "chunk", b[4], 32));
		head = true;
		if (isfinite(est) && fpl_section_cost_anomalous(r, run, false))
			/* never a plain cost: an anomaly, its cause in the run's warning */
			fprintf(f, "  %-5s restore: an anomaly, not a cost: its interval [%s, %s] "
				"lies below zero beyond chance, which cannot be true (the part that "
				"explains it: the run's warning)\n", pols[i],
				fpl_section_num(b[0], 32, lo, 0), fpl_section_num(b[1], 32, hi, 0));
		else if (isfinite(est))
			fprintf(f, "  %-5s restore %s [95%% CI %s, %s]%s\n", pols[i],
				fpl_section_num(b[0], 32, est, 0), fpl_section_num(b[1], 32, lo, 0),
				fpl_section_num(b[2], 32, hi, 0), !(hi < 0) ? "" :
				": below zero, within chance among the section table's intervals: "
				"below what this run resolves");
		else if (fpl_pick_stat(run, "section_cycles", &s))
			fprintf(f, "  %-5s restore %s\n", pols[i], fpl_tbl_mq(b[0], 32, &s));
	}
}
