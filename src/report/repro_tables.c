// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab repro kfpu-mask and lazy-restore: the 2021 and 2018 tables from xor and section runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/section_work.h"
#include "repro.h"
#include "fpulab/stats.h"
#include "pick.h"

/* Rounded to a whole number without printing "-0". */
static double whole(double v)
{
	v = round(v);
	return v == 0 ? 0 : v;
}

static bool calib_run(const struct fpl_run *run)
{
	return !run->skipped && fpl_pick_match(run, "xor", "mode=calibrate");
}

bool fpl_repro_has_kfpu(const struct fpl_result *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (calib_run(r->runs[i]))
			return true;
	return false;
}

bool fpl_repro_has_lazy(const struct fpl_result *r)
{
	return fpl_pick_run(r, "section", "policy=eager") != NULL;
}

/* The calibration run of a template with a section ("no section", "MXCSR", "387|MXCSR"). */
static const struct fpl_run *calib(const struct fpl_result *r, const char *tmpl, const char *sec)
{
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char b1[64], b2[64];

		if (calib_run(run) &&
		    !strcmp(fpl_pick_param(run, "template", b1, sizeof(b1)), tmpl) &&
		    !strcmp(fpl_pick_param(run, "section", b2, sizeof(b2)), sec))
			return run;
	}
	return NULL;
}

/* Templates in the order of the result (the kernel's order). */
static size_t templates(const struct fpl_result *r, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns && n < max; i++) {
		const char *t = json_string_value(json_object_get(r->runs[i]->params, "template"));
		bool seen = false;

		if (!calib_run(r->runs[i]) || !t)
			continue;
		for (size_t k = 0; k < n; k++)
			seen |= !strcmp(out[k], t);
		if (!seen)
			out[n++] = t;
	}
	return n;
}

static const struct {
	const char *section, *title;
} blocks[] = {
	{ "387|MXCSR", "kernel_fpu_begin_mask(KFPU_387 | KFPU_MXCSR) around every call: FNINIT and "
		       "LDMXCSR each time (the report's 5.4-stable)" },
	{ "no section", "no section: neither FNINIT nor LDMXCSR (the report's revert)" },
	{ "MXCSR", "kernel_fpu_begin_mask(KFPU_MXCSR) around every call: LDMXCSR only (the "
		   "report's kernel_fpu_begin_mask, and x86-64's kernel_fpu_begin today)" },
};

/* One block in the pre-5.10 format the report quotes: "   avx       : 21072.000 MB/sec". */
static void kfpu_block(const struct fpl_result *r, const char **t, size_t nt, size_t b, FILE *f)
{
	const char *best = NULL;
	double bestv = -1;
	bool any = false;

	for (size_t i = 0; i < nt; i++) {
		struct fpl_summary s;

		if (!fpl_pick_stat(calib(r, t[i], blocks[b].section), "speed", &s))
			continue;
		if (!any)
			fprintf(f, "%s:\n", blocks[b].title);
		any = true;
		fprintf(f, "   %-10s: %5lld.%03d MB/sec\n", t[i], (long long)s.median,
			(int)((s.median - floor(s.median)) * 1000));
		if (s.median > bestv) {
			bestv = s.median;
			best = t[i];
		}
	}
	if (any)
		fprintf(f, "xor: using function: %s (%lld.%03d MB/sec)\n\n", best, (long long)bestv,
			(int)((bestv - floor(bestv)) * 1000));
}

/* A ratio with section over without, and its 95% interval. */
struct kratio {
	double ratio, lo, hi;
	size_t n;
};

/*
 * Section over none, round by round: every template and mask is calibrated
 * once per round in turn (xor --calibrate --repeat), so calibration i of
 * both ran in round i and shares its conditions. The 10%-trimmed mean of
 * the per-round ratios, with Yuen's trimmed t over them (fpl_paired_t).
 */
static bool ratio(const struct fpl_run *none, const struct fpl_run *with, struct kratio *k)
{
	const struct fpl_metric *a = none ? fpl_run_find_metric(none, "speed") : NULL;
	const struct fpl_metric *b = with ? fpl_run_find_metric(with, "speed") : NULL;
	struct fpl_paired pr;

	if (!a || !b || fpl_paired_t(a->samples, b->samples, a->n < b->n ? a->n : b->n,
				     FPL_PAIR_PCT, 10, 95, 0, &pr))
		return false;
	k->ratio = 1 + pr.t.diff / 100;
	k->lo = 1 + pr.t.lo / 100;
	k->hi = 1 + pr.t.hi / 100;
	k->n = pr.n;
	return true;
}

static void kfpu_ratios(const struct fpl_result *r, const char **t, size_t nt, FILE *f)
{
	const struct fpl_metric *m0 = NULL;
	struct kratio avx387 = { 0 }, avxmx = { 0 };
	size_t pairs = 0;
	bool have_avx = false;

	fprintf(f, "%-16s %-26s %-26s\n", "template", "MXCSR / none [95%]",
		"387|MXCSR / none [95%]");
	for (size_t i = 0; i < nt; i++) {
		const struct fpl_run *none = calib(r, t[i], "no section");
		struct kratio mx, both;
		bool a = ratio(none, calib(r, t[i], "MXCSR"), &mx);
		bool b = ratio(none, calib(r, t[i], "387|MXCSR"), &both);
		char x[40] = "-", y[40] = "-";

		m0 = m0 ? m0 : none ? fpl_run_find_metric(none, "speed") : NULL;
		if (a) {
			snprintf(x, sizeof(x), "%.3f [%.3f, %.3f]", mx.ratio, mx.lo, mx.hi);
			pairs = mx.n;
		}
		if (b)
			snprintf(y, sizeof(y), "%.3f [%.3f, %.3f]", both.ratio, both.lo, both.hi);
		fprintf(f, "%-16s %-26s %-26s\n", t[i], x, y);
		if (!strcmp(t[i], "avx") && a && b) {
			have_avx = true;
			avxmx = mx;
			avx387 = both;
		}
	}
	fprintf(f, "(per-round ratios, paired: each round calibrates every template and mask in "
		"turn, so a round's calibrations share its conditions; 10%%-trimmed mean of %zu "
		"ratios with Yuen's trimmed t interval over them; %zu calibrations without a "
		"section)\n", pairs, m0 ? m0->n : (size_t)0);
	fprintf(f, "In 2021 (Xeon E3-1280 V2), avx fell to 0.624 of the revert with FNINIT+LDMXCSR "
		"and came back to 0.698 with LDMXCSR alone.");
	if (have_avx) {
		fprintf(f, " Here avx keeps %.3f with both and %.3f with LDMXCSR alone: ",
			avx387.ratio, avxmx.ratio);
		if (avx387.hi < 1)
			fprintf(f, "FNINIT+LDMXCSR costs avx %.0f%% here",
				100 * (1 - avx387.ratio));
		else
			fprintf(f, "FNINIT+LDMXCSR shows no cost here");
		if (avxmx.hi < 1)
			fprintf(f, ", and LDMXCSR alone still %.0f%%.", 100 * (1 - avxmx.ratio));
		else
			fprintf(f, ", and LDMXCSR alone none that the interval can show.");
	}
	fprintf(f, " A single calibration moves by several percent on this machine; only "
		"intervals that exclude 1 mean a cost.\n");
}

int fpl_repro_kfpu_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag)
{
	const char *t[16];
	const struct fpl_run *any;
	char era[32];
	size_t nt;

	if (!fpl_repro_has_kfpu(r))
		return fpl_diag_set(diag, -EINVAL, "no xor calibrations in the result");
	nt = templates(r, t, FPL_ARRAY_SIZE(t));
	if (!nt)
		return fpl_diag_set(diag, -EINVAL, "xor calibrations without a template param: "
				    "not a repro kfpu-mask document");
	any = calib(r, t[0], "no section");
	fprintf(f, "The kernel's xor calibration (do_xor_speed, %s method), each do_2 call "
		"wrapped in a modelled section; median of the calibrations:\n\n",
		any ? fpl_pick_param(any, "kernel_era", era, sizeof(era)) : "?");
	for (size_t b = 0; b < FPL_ARRAY_SIZE(blocks); b++)
		kfpu_block(r, t, nt, b, f);
	kfpu_ratios(r, t, nt, f);
	return ferror(f) ? -EIO : 0;
}

/* One "Percent speedup" line, or the anomaly that stands in its place. */
static bool speedup_line(const struct fpl_result *r, const struct fpl_run *run, double fallback,
			 const char *label, FILE *f)
{
	char why[1200];
	double e = fpl_pick_extra(run, "speedup_pct", "estimate");

	if (fpl_section_anomaly(r, run, why, sizeof(why))) {
		fprintf(f, "Percent speedup: none shown: anomaly   (%s)\n  %s.\n", label, why);
		return true;
	}
	fprintf(f, "Percent speedup: %.0f [95%% CI %.0f, %.0f]   (%s)\n",
		whole(isfinite(e) ? e : fallback),
		whole(fpl_pick_extra(run, "speedup_pct", "ci95_lo")),
		whole(fpl_pick_extra(run, "speedup_pct", "ci95_hi")), label);
	return false;
}

/* The 2018 report's lines for one eager run, then lazy restore; true: an anomaly shown. */
static bool lazy_one(const struct fpl_result *r, const struct fpl_run *eager, FILE *f)
{
	static const char *const keys[] = { "isa", "workload", "impl", "chunk", "sections_inside",
					    "insn", "owner" };
	char b[7][48], spec[400];
	const char *p[7];
	const struct fpl_run *lazy;
	struct fpl_summary in, out;
	bool bad;

	if (!fpl_pick_stat(eager, "inside_cycles", &in) ||
	    !fpl_pick_stat(eager, "outside_cycles", &out))
		return false;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(keys); i++)
		p[i] = fpl_pick_param(eager, keys[i], b[i], sizeof(b[i]));
	fprintf(f, "%s - %s %s, %s-byte chunks (%s sections per call), %s saves, owner %s:\n",
		p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
	fprintf(f, "Inside: %.0f\nOutside: %.0f\n", in.median, out.median);
	bad = speedup_line(r, eager, 100 * (in.median / out.median - 1),
			   "eager restore, as in 2018", f);
	snprintf(spec, sizeof(spec), "policy=lazy workload=%.48s impl=%.48s chunk=%.48s "
		 "insn=%.48s owner=%.48s", p[1], p[2], p[3], p[5], p[6]);
	lazy = fpl_pick_run(r, "section", spec);
	if (lazy && isfinite(fpl_pick_extra(lazy, "speedup_pct", "estimate")))
		bad |= speedup_line(r, lazy, NAN, "lazy restore, Linux 5.2 and later", f);
	fputc('\n', f);
	return bad;
}

int fpl_repro_lazy_write(const struct fpl_result *r, FILE *f, struct fpl_diag *diag)
{
	const struct fpl_run *first = fpl_pick_run(r, "section", "policy=eager");
	size_t anomalies = 0;

	if (!first)
		return fpl_diag_set(diag, -EINVAL,
				    "no section runs with eager restore in the result");
	fprintf(
	    f, "kernel_fpu_begin/end around each chunk (Inside) versus once around the whole "
	       "call (Outside);\ncore cycles per modelled system call, medians; speedup: median of "
	       "per-round 100 * (inside / outside - 1) with a distribution-free interval.\n\n");
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_pick_match(r->runs[i], "section", "policy=eager"))
			anomalies += lazy_one(r, r->runs[i], f);
	fprintf(f, "In 2018 the speedup was +24%% with AVX2 (Xeon E3-1505M v5) and +121%% with "
		"AVX-512 (Xeon Gold 5120), on kernels that restored the registers at every "
		"kernel_fpu_end. The eager lines above are that experiment; the lazy lines are "
		"today's kernels, where the restore waits for the return to user and the loop's "
		"sections cost only their save-once and LDMXCSR. Where the interval excludes 0 and no "
		"section cost lies below zero, the speedup is real on this machine; the 2018 "
		"figures came from one run each.");
	if (anomalies)
		fprintf(f, " %zu case%s above show%s no speedup: a section cost whose interval "
			"lies below zero cannot be true, so those figures are a fault of the "
			"measurement (the likely cause is named under each), not a finding.",
			anomalies, anomalies == 1 ? "" : "s", anomalies == 1 ? "s" : "");
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
