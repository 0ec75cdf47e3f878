// SPDX-License-Identifier: GPL-3.0-or-later
/* Model against kernel: the x86_fpu trace counts of each run next to fpulab's prediction. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kernelview.h"

bool fpl_kview_agrees(double kernel, double model)
{
	return isfinite(kernel) && isfinite(model) &&
	       fabs(kernel - model) <= FPL_KVIEW_TOL * (model > 1 ? model : 1);
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* "0x800000000000 18e7 (x87|SSE|...)" for every distinct xcomp_bv in a pass. */
static void xcomp_text(const json_t *pass, char *buf, size_t len)
{
	const json_t *a = json_object_get(pass, "xcomp_bv"), *x;
	size_t i, used = 0;

	buf[0] = 0;
	json_array_foreach(a, i, x)
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s (%s)", i ? "; " : "",
						 str(x, "value"), str(x, "components"));
	if (!used)
		snprintf(buf, len, "none seen (no x86_fpu event of these tasks)");
}

static void cell(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "-");
}

struct rows {
	char seen[16][512];	/* rows printed, to fold repeats */
	unsigned nseen, repeats;
	int diffs;
	const char *why[8];	/* the models' reasons, once each */
	const char *why_bench[8];
	unsigned nwhy;
};

static void flush_repeats(struct rows *rs, FILE *f)
{
	if (rs->repeats)
		fprintf(f, "  (%u more pass%s the same as a row above)\n", rs->repeats,
			rs->repeats == 1 ? "" : "es");
	rs->repeats = 0;
}

static void note_why(struct rows *rs, const char *bench, const json_t *m)
{
	const char *why = str(m, "why");

	if (!*why)
		return;
	for (unsigned i = 0; i < rs->nwhy; i++)
		if (!strcmp(rs->why[i], why))
			return;
	if (rs->nwhy < FPL_ARRAY_SIZE(rs->why)) {
		rs->why_bench[rs->nwhy] = bench;
		rs->why[rs->nwhy++] = why;
	}
}

/* One pass: a row of the table (repeats folded); counts a difference from the model. */
static void pass_row(struct rows *rs, const char *bench, const json_t *p, FILE *f)
{
	const json_t *m = json_object_get(p, "model");
	double ks = num(p, "saves_per_op"), kr = num(p, "restores_per_op");
	double ms = num(m, "saves_per_op"), mr = num(m, "restores_per_op");
	char a[16], b[16], c[16], d[16], e[16], xc[256], what[64] = "", row[512];
	bool ds, dr;

	if (strcmp(str(p, "status"), "traced")) {
		snprintf(row, sizeof(row), "  %-8s %-10s %s: %s\n", bench, str(p, "name"),
			 str(p, "status"), str(p, "reason"));
	} else {
		cell(a, sizeof(a), ks);
		cell(b, sizeof(b), kr);
		cell(c, sizeof(c), num(p, "restores_without_load_per_op"));
		cell(d, sizeof(d), ms);
		cell(e, sizeof(e), mr);
		ds = m && !fpl_kview_agrees(ks, ms);
		dr = m && !fpl_kview_agrees(kr, mr);
		rs->diffs += ds || dr;
		note_why(rs, bench, m);
		if (!m)
			snprintf(what, sizeof(what), "no model prediction");
		else if (!ds && !dr)
			snprintf(what, sizeof(what), "agrees");
		else
			snprintf(what, sizeof(what), "DIFFERS:%s%s", ds ? " saves" : "",
				 dr ? " restores" : "");
		xcomp_text(p, xc, sizeof(xc));
		snprintf(row, sizeof(row), "  %-8s %-10s %-11s %7.0f %8s %8s %8s | %8s %8s  %s\n"
			 "%s%-21s xcomp_bv %s\n", bench, str(p, "name"), str(p, "op"),
			 num(p, "ops"), a, b, c, d, e, what, "", "", xc);
	}
	for (unsigned i = 0; i < rs->nseen; i++)
		if (!strcmp(row, rs->seen[i])) {
			rs->repeats++;
			return;
		}
	if (rs->nseen < FPL_ARRAY_SIZE(rs->seen))
		snprintf(rs->seen[rs->nseen++], sizeof(rs->seen[0]), "%s", row);
	fputs(row, f);
	if (json_is_false(json_object_get(p, "complete")))
		fprintf(f, "  %-8s %-10s (the trace lost events: entries %lld of %lld written)\n",
			"", "", (long long)json_integer_value(json_object_get(p, "entries_in_buffer")),
			(long long)json_integer_value(json_object_get(p, "entries_written")));
}

int fpl_table_kernel(const struct fpl_result *r, FILE *f)
{
	struct rows rs;
	bool header = false;

	memset(&rs, 0, sizeof(rs));
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *k = fpl_run_obs_get(run, "kernel"), *v;
		const char *name;

		if (!json_is_object(k))
			continue;
		if (!header) {
			fputs("Model against kernel (tracefs x86_fpu events of fpulab's own tasks; "
			      "per operation):\n", f);
			fprintf(f, "  %-8s %-10s %-11s %7s %8s %8s %8s | %8s %8s\n", "bench", "pass",
				"op", "ops", "saves", "restores", "no-load", "model:sv", "model:rs");
			header = true;
		}
		pass_row(&rs, run->bench, k, f);
		json_object_foreach((json_t *)json_object_get(k, "variants"), name, v)
			pass_row(&rs, run->bench, v, f);
	}
	if (header) {
		flush_repeats(&rs, f);
		fputs("  saves: x86_fpu_regs_deactivated; restores: x86_fpu_regs_activated with load 1;"
		      " no-load: activated without a restore.\n", f);
		for (unsigned i = 0; i < rs.nwhy; i++)
			fprintf(f, "  model (%s): %s\n", rs.why_bench[i], rs.why[i]);
		if (rs.diffs)
			fprintf(f, "  %d pass%s where model and kernel differ: a finding about the "
				"model or this kernel, not a failure of the run.\n", rs.diffs,
				rs.diffs == 1 ? "" : "es");
	}
	return ferror(f) ? -EIO : rs.diffs;
}

static void xcomp_collect(const json_t *p, uint64_t *seen, unsigned *n)
{
	const json_t *a = json_object_get(p, "xcomp_bv"), *x;
	size_t i;

	json_array_foreach(a, i, x) {
		uint64_t v = strtoull(str(x, "value"), NULL, 16);
		unsigned k = 0;

		while (k < *n && seen[k] != v)
			k++;
		if (k == *n && *n < 8)
			seen[(*n)++] = v;
	}
}

int fpl_kview_xcomp_line(const struct fpl_result *r, unsigned bit, const char *name,
			 char *buf, size_t len)
{
	uint64_t seen[8];
	unsigned n = 0;
	size_t used;
	bool all = true, any = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const json_t *k = fpl_run_obs_get(r->runs[i], "kernel"), *v;
		const char *key;

		if (!json_is_object(k))
			continue;
		xcomp_collect(k, seen, &n);
		json_object_foreach((json_t *)json_object_get(k, "variants"), key, v)
			xcomp_collect(v, seen, &n);
	}
	if (!n)
		return 0;
	used = (size_t)snprintf(buf, len, "kernel xcomp_bv of the measured tasks:");
	for (unsigned i = 0; i < n; i++) {
		bool in = seen[i] >> bit & 1;

		all = all && in;
		any = any || in;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, " 0x%" PRIx64, seen[i]);
	}
	if (used < len)
		snprintf(buf + used, len - used, "; %s (bit %u) %s", name, bit,
			 all ? "is in it: the kernel's XSAVES for these tasks includes it" :
			 any ? "is in some of them" :
			 "is not in it: the kernel's XSAVES for these tasks leaves it out");
	return 1;
}
