// SPDX-License-Identifier: GPL-3.0-or-later
/* Model against kernel: each run's x86_fpu counts next to what the kernel source says they are. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelview.h"
#include "fpulab/kexpect.h"
#include "table_internal.h"

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

static void cell(char *buf, size_t len, double sum, unsigned n)
{
	if (n && isfinite(sum))
		snprintf(buf, len, "%.3f", sum / n);
	else
		snprintf(buf, len, "-");
}

/*
 * The expectation's xcomp_bv rule over a pass: 1 when a task showed values
 * with and without the bit, 0 when none did, -1 without a rule or values.
 */
static int xcomp_rule(const struct fpl_kexpect *e, const json_t *pass)
{
	const json_t *task, *x;
	size_t i, j;
	int verdict = -1;

	json_array_foreach(json_object_get(pass, "tasks"), i, task) {
		uint64_t v[FPL_KT_MAX_MASKS];
		size_t n = 0;
		int r;

		json_array_foreach(json_object_get(task, "xcomp_bv"), j, x)
			if (n < FPL_ARRAY_SIZE(v))
				v[n++] = strtoull(str(x, "value"), NULL, 16);
		r = fpl_kexpect_xcomp(e, v, n);
		if (r > verdict)
			verdict = r;
	}
	return verdict;
}

/*
 * The passes of one benchmark and operation under one expectation fold
 * into one group: the kernel's per-op counts averaged over the passes, the
 * traced thread's switches, how many passes differ from the expectation.
 */
struct group {
	const char *bench, *op, *name;
	const struct fpl_kexpect *e;
	double k[FPL_KT_NCLASSES], sw, ms, mr, ops;	/* sums over the passes */
	unsigned nk[FPL_KT_NCLASSES], nsw, nm;
	unsigned n, differ, incomplete, xc_bad;
	const char *why_model;
	char xc[256];
};

struct rows {
	struct group g[48];
	unsigned ng;
	const char *skip_bench[8], *skip_reason[8];
	unsigned nskip;
	int diffs;
	unsigned version;
	const char *release;
};

static struct group *group_of(struct rows *rs, const struct fpl_run *run, const json_t *p)
{
	const struct fpl_kexpect *e = fpl_kexpect_find(run, str(p, "op"));
	/* Passes with a model of fpulab's own (section's modes) keep their names apart. */
	const char *name = json_is_object(json_object_get(p, "model")) ? str(p, "name") : "";
	struct group *g;

	for (unsigned i = 0; i < rs->ng; i++) {
		g = &rs->g[i];
		if (!strcmp(g->bench, run->bench) && !strcmp(g->op, str(p, "op")) && g->e == e &&
		    !strcmp(g->name, name))
			return g;
	}
	if (rs->ng == FPL_ARRAY_SIZE(rs->g))
		return NULL;
	g = &rs->g[rs->ng++];
	memset(g, 0, sizeof(*g));
	g->bench = run->bench;
	g->op = str(p, "op");
	g->name = name;
	g->e = e;
	return g;
}

static void add_skip(struct rows *rs, const char *bench, const json_t *p)
{
	for (unsigned i = 0; i < rs->nskip; i++)
		if (!strcmp(rs->skip_bench[i], bench) && !strcmp(rs->skip_reason[i], str(p, "reason")))
			return;
	if (rs->nskip < FPL_ARRAY_SIZE(rs->skip_bench)) {
		rs->skip_bench[rs->nskip] = bench;
		rs->skip_reason[rs->nskip++] = str(p, "reason");
	}
}

static void add_pass(struct rows *rs, const struct fpl_run *run, const json_t *p)
{
	const json_t *m = json_object_get(p, "model");
	double per_op[FPL_KT_NCLASSES], sw = num(p, "switches_per_op");
	struct group *g;
	bool bad = false;

	if (strcmp(str(p, "status"), "traced")) {
		add_skip(rs, run->bench, p);
		return;
	}
	g = group_of(rs, run, p);
	if (!g)
		return;
	g->n++;
	g->ops += num(p, "ops");
	fpl_kt_class_per_op(p, per_op);
	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++)
		if (!isnan(per_op[i])) {
			g->k[i] += per_op[i];
			g->nk[i]++;
		}
	if (!isnan(sw)) {
		g->sw += sw;
		g->nsw++;
	}
	if (json_is_object(m)) {		/* fpulab's own model (section): shown, not judged */
		g->ms += num(m, "saves_per_op");
		g->mr += num(m, "restores_per_op");
		g->nm++;
		g->why_model = str(m, "why");
	}
	if (g->e && fpl_kexpect_applies(g->e, rs->version) != FPL_KX_UNKNOWN) {
		bad = fpl_kexpect_judge(g->e, per_op, sw) != 0;
		if (!xcomp_rule(g->e, p)) {
			g->xc_bad++;
			bad = true;
		}
	}
	if (bad) {
		g->differ++;
		rs->diffs++;
	}
	if (json_is_false(json_object_get(p, "complete")))
		g->incomplete++;
	/* A pass that saw masks the first did not (AMX first use) says so in the row. */
	if (!g->xc[0] || strstr(g->xc, "none seen"))
		xcomp_text(p, g->xc, sizeof(g->xc));
}

#define ROW "  %-7s %-10s %-6s"
#define ROW2 "  %-18s %-6s"	/* the second line: the operations where bench and op were */
#define HANG "           "		/* the group's further lines, under op */

/* The columns, and the names the notes use for them. */
static const char *const col_names[FPL_KT_NCLASSES] = {
	[FPL_KT_C_SAVE] = "saves", [FPL_KT_C_RESTORE] = "restores",
	[FPL_KT_C_ACTIVATE] = "no-load", [FPL_KT_C_DROP] = "drops", [FPL_KT_C_COPY] = "copies",
	[FPL_KT_C_OTHER] = "other",
};

/* The group's kernel line and expected line; the verdict at the end of the second. */
static void print_group(const struct rows *rs, const struct group *g, size_t note, FILE *f)
{
	const struct fpl_kexpect *e = g->e;
	enum fpl_kx_applies a = e ? fpl_kexpect_applies(e, rs->version) : FPL_KX_UNKNOWN;
	double avg[FPL_KT_NCLASSES], sw = g->nsw ? g->sw / g->nsw : NAN;
	char c[16], ops[40], what[128] = "";
	unsigned bad = 0;

	if (g->n > 1)
		snprintf(ops, sizeof(ops), "%u x %.0f ops", g->n, g->ops / g->n);
	else
		snprintf(ops, sizeof(ops), "%.0f ops", g->ops);
	fprintf(f, ROW, g->bench, g->op, "kernel");
	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++) {
		avg[i] = g->nk[i] ? g->k[i] / g->nk[i] : NAN;
		cell(c, sizeof(c), g->k[i], g->nk[i]);
		fprintf(f, " %8s", c);
	}
	cell(c, sizeof(c), g->sw, g->nsw);
	fprintf(f, " | %8s\n", c);
	fprintf(f, ROW2, ops, "expect");
	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++) {
		fpl_kexpect_range(e ? &e->c[i] : &(struct fpl_kx_count){ 0 }, c, sizeof(c));
		fprintf(f, " %8s", c);
	}
	if (e)
		bad = fpl_kexpect_judge(e, avg, sw);
	if (!e)
		snprintf(what, sizeof(what), "no expectation");
	else if (a == FPL_KX_UNKNOWN)
		snprintf(what, sizeof(what), "unknown [%zu]", note);
	else if (!bad && !g->xc_bad && !g->differ)
		snprintf(what, sizeof(what), "agrees [%zu]", note);
	else if (!bad && !g->xc_bad)
		snprintf(what, sizeof(what), "agrees on average [%zu]", note);
	else {
		size_t used = (size_t)snprintf(what, sizeof(what), "DIFFERS:");

		for (unsigned i = 0; i < FPL_KT_NCLASSES && used < sizeof(what); i++)
			if (bad >> i & 1)
				used += (size_t)snprintf(what + used, sizeof(what) - used, " %s",
							 col_names[i]);
		if (g->xc_bad && used < sizeof(what))
			used += (size_t)snprintf(what + used, sizeof(what) - used, " xcomp_bv");
		if (used < sizeof(what))
			snprintf(what + used, sizeof(what) - used, " [%zu]", note);
	}
	fprintf(f, " | %s\n", what);
	if (g->differ && g->differ < g->n)
		fprintf(f, HANG "%u of %u passes differ\n", g->differ, g->n);
	if (a == FPL_KX_UNKNOWN && e)
		fprintf(f, HANG "not compared: written for Linux %u.%u and later, this is %s\n",
			e->since / 1000, e->since % 1000, rs->release);
	else if (a == FPL_KX_NEWER)
		fprintf(f, HANG "this kernel is newer than the source read (%u.%u)\n",
			e->checked / 1000, e->checked % 1000);
	if (g->nm)
		fprintf(f, HANG "%s: fpulab's own model did %.3f saves, %.3f restores per %s, in "
			"user space\n", g->name, g->ms / g->nm, g->mr / g->nm, g->op);
	if (!strstr(g->xc, "none seen"))
		fprintf(f, HANG "xcomp_bv %s\n", g->xc);
	if (g->incomplete)
		fprintf(f, HANG "(%u pass%s lost events: the counts are low)\n", g->incomplete,
			g->incomplete == 1 ? "" : "es");
}

/* The expectation as one note: what happens, its scope, each class's reason. */
static size_t note_of(struct fpl_tbl_notes *nt, const struct group *g)
{
	const struct fpl_kexpect *e = g->e;
	char scope[256], range[16], *text = NULL;
	size_t used = 0, cap = 4096, k;

	if (!e)
		return 0;
	text = malloc(cap);
	if (!text)
		return 0;
	fpl_kexpect_scope(e, scope, sizeof(scope));
	used += (size_t)snprintf(text + used, cap - used, "%s%s%s%s: %s. %s.",
				 e->bench ? e->bench : "harness", e->param ? " " : "",
				 e->param ? e->param : "", e->param ? "=" : "", e->what, scope);
	if (e->param && used < cap)
		used += (size_t)snprintf(text + used, cap - used, " (%s: %s)", e->param, e->values);
	for (unsigned i = 0; i < FPL_KT_NCLASSES && used < cap; i++) {
		if (!e->c[i].set)
			continue;
		fpl_kexpect_range(&e->c[i], range, sizeof(range));
		used += (size_t)snprintf(text + used, cap - used, " %s %s: %s.",
					 col_names[i], range, e->c[i].why);
	}
	if (e->xcomp_why && used < cap)
		snprintf(text + used, cap - used, " xcomp_bv: %s.", e->xcomp_why);
	k = fpl_tbl_note(nt, text);
	free(text);
	return k;
}

int fpl_table_kernel(const struct fpl_result *r, FILE *f)
{
	struct fpl_tbl_notes nt = { 0 };
	struct rows rs;
	char *head;

	memset(&rs, 0, sizeof(rs));
	rs.release = json_string_value(json_object_get(json_object_get(r->host, "kernel"),
						       "release"));
	rs.version = fpl_kexpect_version(rs.release);
	if (!rs.release)
		rs.release = "an unknown kernel";
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *k = fpl_run_obs_get(run, "kernel"), *v;
		const char *name;

		if (!json_is_object(k))
			continue;
		add_pass(&rs, run, k);
		json_object_foreach((json_t *)json_object_get(k, "variants"), name, v)
			add_pass(&rs, run, v);
	}
	if (!rs.ng && !rs.nskip)
		return 0;
	if (asprintf(&head, "Model against kernel: the x86_fpu events of fpulab's own tasks per "
		     "operation (averaged over the passes), next to what the kernel source says "
		     "they are (this kernel: %s):", rs.release) < 0)
		return -ENOMEM;
	fputc('\n', f);
	fpl_tbl_wrap(f, head, 0);
	free(head);
	if (rs.ng) {
		fprintf(f, ROW, "bench", "op", "");
		for (unsigned i = 0; i < FPL_KT_NCLASSES; i++)
			fprintf(f, " %8s", col_names[i]);
		fprintf(f, " | %8s\n", "switches");
	}
	for (unsigned i = 0; i < rs.ng; i++)
		print_group(&rs, &rs.g[i], note_of(&nt, &rs.g[i]), f);
	for (unsigned i = 0; i < rs.nskip; i++)
		fprintf(f, "  %-7s not traced: %s\n", rs.skip_bench[i], rs.skip_reason[i]);
	if (rs.ng)
		fpl_tbl_wrap(f, "saves: x86_fpu_regs_deactivated; restores: x86_fpu_regs_activated "
			     "with load 1 (TIF_NEED_FPU_LOAD was set: the fpstate was loaded); "
			     "no-load: regs_activated with load 0 (the registers were the task's "
			     "already); copies: copy_dst and copy_src; other: every other x86_fpu "
			     "event; switches: the traced thread's context switches (getrusage), "
			     "each of which may add a save and a restore (+sw). xcomp_bv: where the "
			     "tasks had events.", 4);
	fpl_tbl_notes_print(f, &nt, "");
	fpl_tbl_notes_free(&nt);
	if (rs.diffs)
		fprintf(f, "  %d pass%s where the kernel and the expectation differ: a finding "
			"about the model or this kernel, not a failure of the run.\n", rs.diffs,
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
