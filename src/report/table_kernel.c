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

/*
 * Passes of one kind (benchmark, pass name, operation, model) fold into one
 * row: the kernel's figures per operation averaged over the passes, the
 * number of passes and how many of them differ from the model.
 */
struct group {
	const char *bench, *name, *op;
	const json_t *model;
	double ms, mr;
	double ks, kr, kn, ops;		/* sums over the passes */
	unsigned n, differ, incomplete;
	char xc[256];
};

struct rows {
	struct group g[48];
	unsigned ng;
	const char *skip_bench[8], *skip_reason[8];
	unsigned nskip;
	int diffs;
};

static bool same_model(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static struct group *group_of(struct rows *rs, const char *bench, const json_t *p)
{
	const json_t *m = json_object_get(p, "model");
	double ms = num(m, "saves_per_op"), mr = num(m, "restores_per_op");
	struct group *g;

	for (unsigned i = 0; i < rs->ng; i++) {
		g = &rs->g[i];
		if (!strcmp(g->bench, bench) && !strcmp(g->name, str(p, "name")) &&
		    !strcmp(g->op, str(p, "op")) && same_model(g->ms, ms) && same_model(g->mr, mr))
			return g;
	}
	if (rs->ng == FPL_ARRAY_SIZE(rs->g))
		return NULL;
	g = &rs->g[rs->ng++];
	memset(g, 0, sizeof(*g));
	g->bench = bench;
	g->name = str(p, "name");
	g->op = str(p, "op");
	g->model = m;
	g->ms = ms;
	g->mr = mr;
	xcomp_text(p, g->xc, sizeof(g->xc));
	return g;
}

static void add_pass(struct rows *rs, const char *bench, const json_t *p)
{
	double ks = num(p, "saves_per_op"), kr = num(p, "restores_per_op");
	struct group *g;

	if (strcmp(str(p, "status"), "traced")) {
		for (unsigned i = 0; i < rs->nskip; i++)
			if (!strcmp(rs->skip_bench[i], bench) &&
			    !strcmp(rs->skip_reason[i], str(p, "reason")))
				return;
		if (rs->nskip < FPL_ARRAY_SIZE(rs->skip_bench)) {
			rs->skip_bench[rs->nskip] = bench;
			rs->skip_reason[rs->nskip++] = str(p, "reason");
		}
		return;
	}
	g = group_of(rs, bench, p);
	if (!g)
		return;
	g->n++;
	g->ks += ks;
	g->kr += kr;
	g->kn += num(p, "restores_without_load_per_op");
	g->ops += num(p, "ops");
	if (g->model && (!fpl_kview_agrees(ks, g->ms) || !fpl_kview_agrees(kr, g->mr))) {
		g->differ++;
		rs->diffs++;
	}
	if (json_is_false(json_object_get(p, "complete")))
		g->incomplete++;
	/* A pass that saw masks the first did not (AMX first use) says so in the row. */
	if (strstr(g->xc, "none seen"))
		xcomp_text(p, g->xc, sizeof(g->xc));
}

static void print_group(const struct group *g, FILE *f)
{
	char a[16], b[16], c[16], d[16], e[16], what[64], ops[24];
	double ks = g->ks / g->n, kr = g->kr / g->n;

	cell(a, sizeof(a), ks);
	cell(b, sizeof(b), kr);
	cell(c, sizeof(c), g->kn / g->n);
	cell(d, sizeof(d), g->ms);
	cell(e, sizeof(e), g->mr);
	if (!g->model)
		snprintf(what, sizeof(what), "no model prediction");
	else if (!g->differ)
		snprintf(what, sizeof(what), "agrees");
	else if (fpl_kview_agrees(ks, g->ms) && fpl_kview_agrees(kr, g->mr))
		snprintf(what, sizeof(what), "agrees on average, DIFFERS in some");
	else
		snprintf(what, sizeof(what), "DIFFERS:%s%s", fpl_kview_agrees(ks, g->ms) ? "" :
			 " saves", fpl_kview_agrees(kr, g->mr) ? "" : " restores");
	if (g->n > 1)
		snprintf(ops, sizeof(ops), "%ux%.0f", g->n, g->ops / g->n);
	else
		snprintf(ops, sizeof(ops), "%.0f", g->ops);
	fprintf(f, "  %-8s %-14s %-10s %9s %8s %8s %8s | %8s %8s  %s", g->bench, g->name, g->op,
		ops, a, b, c, d, e, what);
	if (g->differ && g->differ < g->n)
		fprintf(f, " (%u of %u passes)", g->differ, g->n);
	fputc('\n', f);
	if (!strstr(g->xc, "none seen"))
		fprintf(f, "  %-8s %-14s xcomp_bv %s\n", "", "", g->xc);
	if (g->incomplete)
		fprintf(f, "  %-8s %-14s (%u pass%s lost events: the counts are low)\n", "", "",
			g->incomplete, g->incomplete == 1 ? "" : "es");
}

int fpl_table_kernel(const struct fpl_result *r, FILE *f)
{
	struct rows rs;
	const char *why[8], *why_bench[8];
	unsigned nwhy = 0;

	memset(&rs, 0, sizeof(rs));
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *k = fpl_run_obs_get(run, "kernel"), *v;
		const char *name;

		if (!json_is_object(k))
			continue;
		add_pass(&rs, run->bench, k);
		json_object_foreach((json_t *)json_object_get(k, "variants"), name, v)
			add_pass(&rs, run->bench, v);
	}
	if (!rs.ng && !rs.nskip)
		return 0;
	fputs("\nModel against kernel (tracefs x86_fpu events of fpulab's own tasks; per "
	      "operation, averaged over the passes):\n", f);
	if (rs.ng)
		fprintf(f, "  %-8s %-14s %-10s %9s %8s %8s %8s | %8s %8s\n", "bench", "pass", "op",
			"ops", "saves", "restores", "no-load", "model:sv", "model:rs");
	for (unsigned i = 0; i < rs.ng; i++) {
		const char *w = str(rs.g[i].model, "why");
		bool dup = !*w;

		print_group(&rs.g[i], f);
		for (unsigned j = 0; j < nwhy && !dup; j++)
			dup = !strcmp(why[j], w);
		if (!dup && nwhy < FPL_ARRAY_SIZE(why)) {
			why_bench[nwhy] = rs.g[i].bench;
			why[nwhy++] = w;
		}
	}
	for (unsigned i = 0; i < rs.nskip; i++)
		fprintf(f, "  %-8s not traced: %s\n", rs.skip_bench[i], rs.skip_reason[i]);
	if (rs.ng)
		fputs("  saves: x86_fpu_regs_deactivated; restores: x86_fpu_regs_activated with "
		      "load 1; no-load: activated without a restore; xcomp_bv: where the\n"
		      "  tasks had x86_fpu events (none: the kernel did not touch their registers).\n", f);
	for (unsigned i = 0; i < nwhy; i++)
		fprintf(f, "  model (%s): %s\n", why_bench[i], why[i]);
	if (rs.diffs)
		fprintf(f, "  %d pass%s where model and kernel differ: a finding about the model or "
			"this kernel, not a failure of the run.\n", rs.diffs,
			rs.diffs == 1 ? "" : "es");
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
