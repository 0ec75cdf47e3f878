// SPDX-License-Identifier: GPL-3.0-or-later
/* The ten-second summary of a suite run: a few medians with spread and method, then warnings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/section_work.h"
#include "fpulab/xstate.h"
#include "summary.h"
#include "pick.h"
#include "table_internal.h"
#include "views.h"

static bool host_bool(const struct fpl_result *r, const char *a, const char *b)
{
	json_t *v = json_object_get(r->host, a);

	if (b)
		v = json_object_get(v, b);
	return json_is_true(v);
}

/*
 * Without AVX-512 the live-state rows (ctxsw, signal, kvm) measure the
 * widest state the CPU has: said once, under the header, not per row.
 */
static void widest_line(const struct fpl_result *r, const char *xcr0, FILE *f)
{
	static const char *const benches[] = { "ctxsw", "signal", "kvm" };
	static const char *const keys[] = { "state", "state_b" };
	char which[64] = "";
	uint64_t have = xcr0 ? strtoull(xcr0, NULL, 0) : 0, m;
	const char *widest = fpl_xstate_widest(have, &m);
	size_t len = 0;

	if (!xcr0 || !strcmp(widest, "avx512"))
		return;
	for (size_t b = 0; b < FPL_ARRAY_SIZE(benches); b++) {
		bool uses = false;

		for (size_t i = 0; i < r->nruns && !uses; i++)
			for (size_t k = 0; k < FPL_ARRAY_SIZE(keys) && !uses; k++)
				uses = !r->runs[i]->skipped && !strcmp(r->runs[i]->bench, benches[b]) &&
				       !strcmp(fpl_tbl_param_str(r->runs[i], keys[k]), widest);
		if (uses && len < sizeof(which))
			len += (size_t)snprintf(which + len, sizeof(which) - len, "%s%s",
						len ? ", " : "", benches[b]);
	}
	if (len)
		fprintf(f, "No AVX-512 here (XCR0 %s): %s measure %s, the widest state this CPU "
			"has.\n", xcr0, which, widest);
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
	widest_line(r, xcr0, f);
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

/*
 * Each distinct (bench, text) once, with how many runs said it; at most 6
 * lines where a results document holds the rest (all), every one otherwise.
 */
static size_t grouped(const struct fpl_result *r, FILE *f, bool skips, bool all)
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
			if (!skips && fpl_section_warning_stale(r, run, t))
				continue;
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
			if (lines == 6 && !all) {
				more++;
				continue;
			}
			fprintf(f, "  %s%s: %s", skips ? "skipped, " : "", run->bench, t);
			fprintf(f, count > 1 ? " (%zu runs)\n" : "\n", count);
			lines++;
		}
	}
	if (more)
		fprintf(f, "  ... and %zu more %s (in the results document: each run's %s)\n", more,
			skips ? "skips" : "warnings", skips ? "skip_reason" : "warnings");
	return lines;
}

static void warnings(const struct fpl_result *r, FILE *f, bool all)
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
	nw += grouped(r, f, false, all);
	nw += grouped(r, f, true, all);
	nw += noisy(r, f);
	if (!nw)
		fputs("  none\n", f);
}

int fpl_summary_write_all(const struct fpl_result *r, FILE *f, bool all)
{
	header(r, f);
	fpl_views_summary(r, f);
	warnings(r, f, all);
	return ferror(f) ? -EIO : 0;
}

int fpl_summary_write(const struct fpl_result *r, FILE *f)
{
	return fpl_summary_write_all(r, f, false);
}

/*
 * What one host.ran step's runs hold: measured (not skipped, with metrics)
 * and skipped. Its runs are first_run and runs where the document has
 * them; in an older one, every run of its benchmark when the Ran: line
 * names that benchmark once. False when neither says.
 */
static bool step_runs(const struct fpl_result *r, json_t *ran, json_t *e, size_t *measured,
		      size_t *skipped)
{
	const char *what = json_string_value(json_object_get(e, "what"));
	json_t *first = json_object_get(e, "first_run"), *n = json_object_get(e, "runs"), *o;
	size_t from = 0, to = r->nruns, len = what ? strcspn(what, " ") : 0, same = 0, i;

	*measured = *skipped = 0;
	if (json_is_integer(first) && json_is_integer(n) && json_integer_value(first) >= 0 &&
	    json_integer_value(n) >= 0) {
		from = (size_t)json_integer_value(first);
		to = from + (size_t)json_integer_value(n);
	} else {
		json_array_foreach(ran, i, o) {
			const char *w = json_string_value(json_object_get(o, "what"));

			same += w && what && strcspn(w, " ") == len && !strncmp(w, what, len);
		}
		if (!what || same != 1)
			return false;
	}
	for (i = from; i < to && i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		if (!json_is_integer(first) && (strlen(run->bench) != len ||
						strncmp(run->bench, what, len)))
			continue;
		if (run->skipped)
			++*skipped;
		else if (run->nmetrics)
			++*measured;
	}
	return true;
}

/* The AMX permission asked during the run: by whom, the answer, permitted before and after. */
static void amx_line(const struct fpl_result *r, FILE *f)
{
	json_t *a = json_object_get(r->host, "amx_permission");
	const char *by = json_string_value(json_object_get(a, "by"));
	const char *res = json_string_value(json_object_get(a, "result"));
	const char *b = json_string_value(json_object_get(a, "permitted_before"));
	const char *af = json_string_value(json_object_get(a, "permitted_after"));

	if (!json_is_true(json_object_get(a, "requested")) || !by)
		return;
	fprintf(f, "AMX tile data permission (ARCH_REQ_XCOMP_PERM) asked in this process by %s: "
		"%s; permitted %s -> %s.\n", by, res ? res : "?", b ? b : "?", af ? af : "?");
}

int fpl_summary_ran(const struct fpl_result *r, FILE *f)
{
	json_t *ran = json_object_get(r->host, "ran"), *e;
	double total = 0;
	size_t i, k = 0;

	if (!json_is_array(ran) || !json_array_size(ran))
		return 0;
	fputs("\nRan:", f);
	json_array_foreach(ran, i, e) {
		const char *st = json_string_value(json_object_get(e, "status"));
		double s = json_number_value(json_object_get(e, "took_s"));
		size_t measured, skipped;

		if (!st || !strcmp(st, "not run") || !json_is_number(json_object_get(e, "took_s")))
			continue;
		/* A step whose runs hold metrics ran, whatever its exit status said. */
		if (!strcmp(st, "skipped") && step_runs(r, ran, e, &measured, &skipped) && measured)
			st = "ok";
		fprintf(f, "%s %s ", k++ ? "," : "",
			json_string_value(json_object_get(e, "what")) ?: "?");
		fprintf(f, s < 0.05 ? "%.0f ms%s" : "%.1f s%s", s < 0.05 ? s * 1e3 : s,
			!strcmp(st, "ok") ? "" : !strcmp(st, "skipped") ? " (skipped)" :
			" (failed or interrupted)");
		total += s;
	}
	k = 0;
	json_array_foreach(ran, i, e) {
		const char *st = json_string_value(json_object_get(e, "status"));

		if (st && strcmp(st, "not run") && json_is_number(json_object_get(e, "took_s")))
			continue;
		fprintf(f, "%s %s", k++ ? "," : "; not run:",
			json_string_value(json_object_get(e, "what")) ?: "?");
	}
	fprintf(f, "; %.1f s in all.\n", total);
	amx_line(r, f);
	return ferror(f) ? -EIO : 0;
}
