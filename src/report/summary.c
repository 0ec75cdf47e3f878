// SPDX-License-Identifier: GPL-3.0-or-later
/* The ten-second summary of a suite run: a few medians with spread and method, then warnings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/summary.h"
#include "pick.h"
#include "table_internal.h"

/* "142 [139, 150]": median [q1, q3], digits chosen by size. */
static const char *mq(char *buf, size_t size, const struct fpl_summary *s)
{
	int d = fabs(s->median) >= 100 ? 0 : fabs(s->median) >= 10 ? 1 : 2;

	snprintf(buf, size, "%.*f [%.*f, %.*f]", d, s->median, d, s->q1, d, s->q3);
	return buf;
}

static bool host_bool(const struct fpl_result *r, const char *a, const char *b)
{
	json_t *v = json_object_get(r->host, a);

	if (b)
		v = json_object_get(v, b);
	return json_is_true(v);
}

static void header(const struct fpl_result *r, FILE *f)
{
	const char *brand = fpl_pick_host_str(r, "name");
	const char *hv = fpl_pick_host_str(r, "hypervisor");
	const char *rel = fpl_pick_host_str(r, "kernel.release");
	const char *xcr0 = fpl_pick_host_str(r, "xcr0");
	json_t *clk = json_object_get(r->host, "clock");
	double ghz = json_number_value(json_object_get(clk, "core_hz_start")) / 1e9;

	if (!brand)
		brand = fpl_pick_host_str(r, "cpu.brand");
	fprintf(f, "Summary: %s%s%s%s, Linux %s, XCR0 %s", brand ? brand : "unknown CPU",
		hv ? " (VM: " : "", hv ? hv : "", hv ? ")" : "", rel ? rel : "?",
		xcr0 ? xcr0 : "?");
	if (ghz > 0)
		fprintf(f, ", core clock %.2f GHz", ghz);
	fputs(". Medians [quartiles] unless said.\n", f);
}

/* How often the FXSAVE64 reference of the run's cell read its floor (bench/interference.h). */
static void interference_line(const struct fpl_run *run, FILE *f)
{
	const json_t *o = run ? fpl_run_obs_get(run, "interference") : NULL;
	double q = json_number_value(json_object_get(o, "quiet_share"));
	double fl = json_number_value(json_object_get(o, "floor_tsc"));

	if (!o || !(q >= 0 && q <= 1) || !(fl > 0))
		return;
	if (!strcmp(json_string_value(json_object_get(o, "kept_by")) ?: "", "round")) {
		/* the xor sweep waits for quiet rounds: its share says how long, not how far off */
		double quiet = fpl_pick_extra(run, "tsc", "interference.samples_quiet");
		double taken = fpl_pick_extra(run, "tsc", "interference.samples_taken");
		const struct fpl_metric *m = fpl_run_find_metric(run, "tsc");

		/* too few quiet ones: none dropped (the samples are all that were taken) */
		if (m && quiet < taken && (double)m->n == taken)
			fprintf(f, "  (too few rounds between quiet readings of an FXSAVE64 "
				"reference, floor %.1f TSC ticks: %.0f of %.0f, so every round kept, "
				"the slow ones with them)\n", fl, quiet, taken);
		else
			fprintf(f, "  (rounds kept between quiet readings of an FXSAVE64 reference, "
				"floor %.1f TSC ticks: %.0f of %.0f)\n", fl, quiet, taken);
		return;
	}
	fprintf(f, "  (samples kept between quiet readings of an FXSAVE64 reference: quiet in "
		"%.0f%% of them, floor %.1f TSC ticks%s)\n", 100 * q, fl,
		q < FPL_QUIET_SHARE_SUSPECT ? "; under half: a suspect run" : "");
}

static void xsave_lines(const struct fpl_result *r, FILE *f)
{
	static const char *const insns[] = { "xsave", "xsaveopt", "xsavec", "xrstor" };
	const char *xcr0 = fpl_pick_host_str(r, "xcr0");
	const char *perm = fpl_pick_host_str(r, "masks.permitted");
	const struct fpl_run *any = fpl_pick_run(r, "xsave", "mask_name=all");
	const char *rfbm = any ? json_string_value(json_object_get(any->params, "mask")) : NULL;
	bool head = false;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(insns); i++) {
		struct fpl_summary live, init;
		char spec[128], a[64], b[64];
		bool hl, hi;

		snprintf(spec, sizeof(spec), "insn=%s mask_name=all state=live method=throughput",
			 insns[i]);
		hl = fpl_pick_stat(fpl_pick_run(r, "xsave", spec), "cycles", &live);
		if (!hl) {
			/* XSAVEOPT's live case: a component modified since the XRSTOR. */
			snprintf(spec, sizeof(spec), "insn=%s mask_name=all state=modified "
				 "method=throughput", insns[i]);
			hl = fpl_pick_stat(fpl_pick_run(r, "xsave", spec), "cycles", &live);
		}
		snprintf(spec, sizeof(spec), "insn=%s mask_name=all state=init method=throughput",
			 insns[i]);
		hi = fpl_pick_stat(fpl_pick_run(r, "xsave", spec), "cycles", &init);
		if (!hl && !hi)
			continue;
		/* "all" is the permitted mask: XCR0 only when nothing is held back (AMX). */
		if (!head && rfbm && xcr0 && strcmp(rfbm, xcr0))
			fprintf(f,
				"\nXSAVE family, full state (RFBM = the permitted mask %s, XCR0 %s%s), "
				"core cycles per instruction, back to back:\n", rfbm, xcr0,
				perm && !strcmp(perm, rfbm) ? ": AMX tile data not permitted" : "");
		else if (!head)
			fprintf(f,
				"\nXSAVE family, full state (RFBM = XCR0%s%s), core cycles per "
				"instruction, back to back:\n",
				rfbm ? " = " : xcr0 ? " = " : "", rfbm ? rfbm : xcr0 ? xcr0 : "");
		head = true;
		fprintf(f, "  %-9s registers live %-22s in init state %s\n", insns[i],
			hl ? mq(a, sizeof(a), &live) : "-", hi ? mq(b, sizeof(b), &init) : "-");
	}
	if (head)
		interference_line(any, f);
}

static void ctxsw_ab(const struct fpl_run *run, FILE *f)
{
	char b1[32], b2[32], x[64], y[64];
	const char *sa = fpl_pick_param(run, "state_a", b1, sizeof(b1));
	const char *sb = fpl_pick_param(run, "state_b", b2, sizeof(b2));
	struct fpl_summary a, b;
	const char *verdict = fpl_pick_extra_str(run, "difference", "yuen.verdict");
	double pct = fpl_pick_extra(run, "difference", "yuen.pct");

	if (!fpl_pick_stat(run, "switch_a", &a) || !fpl_pick_stat(run, "switch_b", &b))
		return;
	fprintf(f, "  %s %s ns, %s live %s ns", sa, mq(x, sizeof(x), &a), sb, mq(y, sizeof(y), &b));
	/* The verdict carries the difference when one is proven, else the interval. */
	if (verdict && isfinite(pct))
		fprintf(f, ";\n    %s minus %s: %s (Yuen's t, 20%% trimmed)", sb, sa, verdict);
	fputc('\n', f);
}

static void ctxsw_lines(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char b1[32], b2[32], b3[32], x[64];
		struct fpl_summary s;

		if (run->skipped || strcmp(run->bench, "ctxsw"))
			continue;
		/* An interrupted run may hold no switch yet: no heading for nothing. */
		if (!fpl_pick_stat(run, "switch", &s) &&
		    !(fpl_pick_stat(run, "switch_a", &s) && fpl_pick_stat(run, "switch_b", &s)))
			continue;
		if (!head)
			fprintf(
			    f,
			    "\nContext switch (pipe ping-pong, %s, placement %s), ns per switch "
			    "(half a round trip):\n",
			    fpl_pick_param(run, "mode", b1, sizeof(b1)),
			    fpl_pick_param(run, "placement", b2, sizeof(b2)));
		head = true;
		if (fpl_run_find_metric(run, "switch_b")) {
			ctxsw_ab(run, f);
		} else if (fpl_pick_stat(run, "switch", &s)) {
			fprintf(f, "  state %-8s %s ns\n",
				fpl_pick_param(run, "state", b3, sizeof(b3)), mq(x, sizeof(x), &s));
		}
	}
}

static void signal_lines(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		struct fpl_summary ns, tsc;
		char b1[32], x[64], y[64];

		if (run->skipped || strcmp(run->bench, "signal") ||
		    !fpl_pick_stat(run, "round_trip_ns", &ns))
			continue;
		if (!head)
			fprintf(f, "\nSignal round trip (tgkill to self, empty handler, through "
				"sigreturn):\n");
		head = true;
		fprintf(f, "  state %-8s %s ns", fpl_pick_param(run, "state", b1, sizeof(b1)),
			mq(x, sizeof(x), &ns));
		if (fpl_pick_stat(run, "round_trip", &tsc))
			fprintf(f, " = %s TSC ticks", mq(y, sizeof(y), &tsc));
		fputc('\n', f);
	}
}

/* The fastest template by median: the 4 KiB do_2 sweep, else the calibration without a section. */
static void xor_lines(const struct fpl_result *r, FILE *f)
{
	const struct fpl_run *best = NULL, *ref = NULL;
	struct fpl_summary bs = { 0 }, rs = { 0 }, s;
	bool sweep = fpl_pick_run(r, "xor", "mode=sweep size=4096 arity=2") != NULL;
	char b1[32], b2[32], x[64], y[64];

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *t;

		if (run->skipped ||
		    !fpl_pick_match(run, "xor",
				    sweep ? "mode=sweep size=4096 arity=2" : "mode=calibrate") ||
		    (!sweep &&
		     strcmp(fpl_pick_param(run, "section", b1, sizeof(b1)), "no section")) ||
		    !fpl_pick_stat(run, "speed", &s))
			continue;
		t = fpl_pick_param(run, "template", b2, sizeof(b2));
		if (!strcmp(t, "memcpy")) {
			ref = run;
			rs = s;
		} else if (!best || s.median > bs.median) {
			best = run;
			bs = s;
		}
	}
	if (!best)
		return;
	fprintf(f, "\nBest xor routine, %s, MB/s (decimal, of destination):\n  %s %s",
		sweep ? "do_2 over 4 KiB as the kernel calibrates" :
			"the kernel's calibration without a section",
		fpl_pick_param(best, "template", b1, sizeof(b1)), mq(x, sizeof(x), &bs));
	if (ref)
		fprintf(f, "; memcpy of the same size %s", mq(y, sizeof(y), &rs));
	fprintf(f, "\n");
	interference_line(best, f);
	(void)b2;
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

static void section_lines(const struct fpl_result *r, FILE *f)
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
		if (isfinite(est))
			fprintf(f, "  %-5s restore %.0f [95%% CI %.0f, %.0f]%s\n", pols[i], est, lo,
				hi, hi < 0 ? ": an anomaly, a cost below zero cannot be true "
				"(see the run's warning)" : "");
		else if (fpl_pick_stat(run, "section_cycles", &s))
			fprintf(f, "  %-5s restore %s\n", pols[i], mq(b[0], 32, &s));
	}
}

static bool timelike(const char *unit)
{
	return !strcmp(unit, "cycles") || !strcmp(unit, "tsc") || !strcmp(unit, "ns") ||
	       !strcmp(unit, "MB/s") || !strcmp(unit, "ops/s");
}

/* Metrics whose IQR is a large part of their median; the three worst are named. */
static size_t noisy(const struct fpl_result *r, FILE *f)
{
	struct { const struct fpl_run *run; const char *m; double rel; } worst[3] = { { 0 } };
	size_t n = 0, total = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		bool cycles = false;

		for (size_t k = 0; k < r->runs[i]->nmetrics; k++)
			cycles |= !strcmp(r->runs[i]->metrics[k]->unit, "cycles");
		for (size_t k = 0; k < r->runs[i]->nmetrics; k++) {
			const struct fpl_metric *m = r->runs[i]->metrics[k];
			struct fpl_summary s;
			double rel;

			/* TSC ticks and ns repeat what the cycles say, when a run has cycles. */
			if (!strcmp(m->unit, "tsc") || (!strcmp(m->unit, "ns") && cycles))
				continue;
			/*
			 * A difference between variants is about zero by design, a cost
			 * net of a baseline has the spread of two timings (result.h): no
			 * sign of a noisy run. Nor are quartiles either side of zero
			 * (vzeroupper's latency): a spread that is no share of the figure.
			 */
			if (!timelike(m->unit) || fpl_metric_kind(m) != FPL_KIND_SAMPLE ||
			    !fpl_pick_stat(r->runs[i], m->name, &s) || s.n < 5 || !s.median ||
			    (s.q1 <= 0 && s.q3 >= 0))
				continue;
			total++;
			rel = (s.q3 - s.q1) / fabs(s.median);
			if (rel <= FPL_SUMMARY_NOISY_IQR)
				continue;
			n++;
			for (size_t w = 0; w < 3; w++) {
				if (worst[w].run && worst[w].rel >= rel)
					continue;
				memmove(&worst[w + 1], &worst[w], (2 - w) * sizeof(worst[0]));
				worst[w].run = r->runs[i];
				worst[w].m = m->name;
				worst[w].rel = rel;
				break;
			}
		}
	}
	if (!n)
		return 0;
	fprintf(f, "  noisy samples: %zu of %zu metrics have an IQR over %.0f%% of their median "
		"(worst:", n, total, FPL_SUMMARY_NOISY_IQR * 100);
	for (size_t w = 0; w < 3 && worst[w].run; w++) {
		char params[256];

		/* the run's params name the cell: every xsave cell's metric is "cycles" */
		fpl_tbl_params_text(worst[w].run->params, params, sizeof(params), ' ');
		fprintf(f, "%s %s %s%s%s %.0f%%", w ? "," : "", worst[w].run->bench, params,
			*params ? ": " : "", worst[w].m, worst[w].rel * 100);
	}
	fputs("); repeat, or give them a larger --budget\n", f);
	return 1;
}

/* Each distinct (bench, text) once, with how many runs said it; at most 6 lines. */
static size_t grouped(const struct fpl_result *r, FILE *f, bool skips)
{
	size_t lines = 0, more = 0;

	for (size_t k = 0; k < r->nruns; k++) {
		const struct fpl_run *run = r->runs[k];
		size_t nw = skips ? run->skipped : json_array_size(run->warnings);

		for (size_t j = 0; j < nw; j++) {
			const char *t = skips ? run->skip_reason : json_string_value(
				json_array_get(run->warnings, j));
			size_t count = 0;
			bool seen = false;

			t = t ? t : "no reason given";
			for (size_t q = 0; q < r->nruns && !seen; q++) {
				const struct fpl_run *o = r->runs[q];
				size_t no = skips ? o->skipped : json_array_size(o->warnings);

				for (size_t u = 0; u < no; u++) {
					const char *ot = skips ? o->skip_reason : json_string_value(
						json_array_get(o->warnings, u));

					if (strcmp(o->bench, run->bench) ||
					    strcmp(ot ? ot : "no reason given", t))
						continue;
					if (q < k || (q == k && u < j))
						seen = true;
					count++;
				}
			}
			if (seen)
				continue;
			if (lines == 6) {
				more++;
				continue;
			}
			fprintf(f, "  %s%s: %s", skips ? "skipped, " : "", run->bench, t);
			fprintf(f, count > 1 ? " (%zu runs)\n" : "\n", count);
			lines++;
		}
	}
	if (more)
		fprintf(f, "  ... and %zu more (see the results file)\n", more);
	return lines;
}

static void warnings(const struct fpl_result *r, FILE *f)
{
	const char *hv = fpl_pick_host_str(r, "hypervisor");
	size_t i, nw = 0;
	json_t *w;

	fputs("\nWarnings:\n", f);
	json_array_foreach(r->warnings, i, w) {
		fprintf(f, "  %s\n", json_string_value(w));
		nw++;
	}
	if (hv || host_bool(r, "vm", NULL) || host_bool(r, "cpu", "hypervisor")) {
		fprintf(f, "  a virtual machine%s%s: the host's scheduling and clocks add noise; "
			"compare only with runs on the same kind of guest\n", hv ? " under " : "",
			hv ? hv : "");
		nw++;
	}
	nw += grouped(r, f, false);
	nw += grouped(r, f, true);
	nw += noisy(r, f);
	if (!nw)
		fputs("  none\n", f);
}

int fpl_summary_write(const struct fpl_result *r, FILE *f)
{
	header(r, f);
	xsave_lines(r, f);
	ctxsw_lines(r, f);
	signal_lines(r, f);
	xor_lines(r, f);
	section_lines(r, f);
	warnings(r, f);
	return ferror(f) ? -EIO : 0;
}
