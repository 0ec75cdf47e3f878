// SPDX-License-Identifier: GPL-3.0-or-later
/* The xsave benchmark's table for people: the cost matrix, other instructions, the RFBM test. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "table_internal.h"
#include "views.h"

#define MAXCOL 12	/* XSAVEOPT with AMX in RFBM: five states, two methods */
#define CELL 40

static const char *pstr(const struct fpl_run *run, const char *key)
{
	const char *v = json_string_value(json_object_get(run->params, key));

	return v ? v : "";
}

static bool is_matrix(const struct fpl_run *run)
{
	return !run->skipped && json_object_get(run->params, "mask") &&
	       !json_object_get(run->params, "experiment");
}

static bool is_rfbm(const struct fpl_run *run)
{
	return !run->skipped && !strcmp(pstr(run, "experiment"), "rfbm");
}

static bool is_misc(const struct fpl_run *run)
{
	return !run->skipped && json_object_get(run->params, "pattern");
}

struct xs_table {
	const struct fpl_result *r;
	const struct fpl_table_opts *o;
	const char *unit;		/* "cycles", "tsc" or "ns": the metric shown */
	struct fpl_tbl_notes methods, how, units;
	size_t nwarn_cells;
	bool any_below;		/* a cell printed "below resolution" */
};

/*
 * The method of a cell as note numbers: what was timed with the row's
 * instruction and component written INSN and COMP (the metric's
 * what_generic), so that the rows of one column share it; how (reps,
 * overhead) and the unit part as notes of their own.
 */
static size_t method_note(struct xs_table *t, const struct fpl_run *run, const struct fpl_metric *m)
{
	char what[1024];
	struct fpl_method_parts p;

	(void)run;
	fpl_metric_method_parts(m, &p);
	/* the cell's own words written INSN and COMP by the benchmark (what_generic) */
	if (m->what_generic)
		snprintf(what, sizeof(what), "%s", m->what_generic);
	else
		snprintf(what, sizeof(what), "%.*s", (int)p.what_len, p.what);
	if (p.timing_len) {
		char *how = strndup(p.timing, p.timing_len);

		if (how) {
			size_t h = fpl_tbl_note(&t->how, how);

			snprintf(what + strlen(what), sizeof(what) - strlen(what), " (timing: t%zu)",
				 h);
			free(how);
		}
	}
	if (p.unit_len)
		fpl_tbl_note(&t->units, p.unit);
	return fpl_tbl_note(&t->methods, what);
}

static const struct fpl_metric *metric(const struct fpl_run *run, const char *prefix,
				       const char *unit)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, unit);
	return fpl_run_find_metric(run, name);
}

/* "median (IQR)" of a cell, "!" when the run warned; false without samples. */
static bool cell_text(struct xs_table *t, const struct fpl_run *run, const struct fpl_metric *m,
		      char *buf, size_t size)
{
	struct fpl_summary s;

	if (!m || !fpl_tbl_summary(m, &s)) {
		snprintf(buf, size, "?");
		return false;
	}
	/* Decimals the unit needs (ns are ~0.3 cycles); an IQR of 10 or more needs none. */
	int d = !strcmp(m->unit, "ns") ? 2 : 1, dq = s.q3 - s.q1 >= 10 ? 0 : d;
	double below;

	if (fpl_tbl_below_resolution(t->r, m, d, &below)) {
		snprintf(buf, size, "below resolution: < %.*f%s", d, below,
			 json_array_size(run->warnings) ? "!" : "");
		t->any_below = true;
		if (json_array_size(run->warnings))
			t->nwarn_cells++;
		return true;
	}
	snprintf(buf, size, "%.*f (%.*f)%s", d, fpl_shown(s.median, d), dq, s.q3 - s.q1,
		 json_array_size(run->warnings) ? "!" : "");
	if (json_array_size(run->warnings))
		t->nwarn_cells++;
	return true;
}

static const char *const state_order[] = { "init", "live", "unmodified", "modified", "released",
					   "tilecfg" };

/*
 * Column heads: XSAVEOPT's six columns must fit 100 columns (without AMX;
 * rel: tiles released by TILERELEASE, the rest live; tcfg: TILECFG live,
 * tile data init, the rest live).
 */
static const char *const state_head[] = { "init", "live", "unmod", "modif", "rel", "tcfg" };

static int state_rank(const char *state)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(state_order); i++)
		if (!strcmp(state, state_order[i]))
			return (int)i;
	return -1;
}

/* The states an instruction's rows have, as a bit set of state_order. */
static unsigned insn_states(const struct fpl_result *r, const char *insn)
{
	unsigned set = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (is_matrix(r->runs[i]) && !strcmp(pstr(r->runs[i], "insn"), insn) &&
		    state_rank(pstr(r->runs[i], "state")) >= 0)
			set |= 1u << state_rank(pstr(r->runs[i], "state"));
	return set;
}

static const struct fpl_run *find_cell(const struct fpl_result *r, const char *insn,
				       const char *mask, const char *state, const char *method)
{
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		if (is_matrix(run) && !strcmp(pstr(run, "insn"), insn) &&
		    !strcmp(pstr(run, "mask"), mask) && !strcmp(pstr(run, "state"), state) &&
		    !strcmp(pstr(run, "method"), method))
			return run;
	}
	return NULL;
}

static bool seen_before(const struct fpl_result *r, size_t upto, const char *key,
			const char *val, const char *key2, const char *val2)
{
	for (size_t i = 0; i < upto; i++)
		if (is_matrix(r->runs[i]) && !strcmp(pstr(r->runs[i], key), val) &&
		    (!key2 || !strcmp(pstr(r->runs[i], key2), val2)))
			return true;
	return false;
}

static const char *const methods[] = { "throughput", "latency" };

struct col {
	const char *state, *head, *method;
	size_t note;		/* the note all its cells share, 0 if they differ */
	size_t width;
};

static void col_head(const struct col *c, char *buf, size_t size)
{
	if (c->note)
		snprintf(buf, size, "%s [%zu]", c->head, c->note);
	else
		snprintf(buf, size, "%s", c->head);
}

/* Whether a row of the block (instructions with states set) has a cell of method and state. */
static bool has_cell(const struct fpl_result *r, unsigned set, const char *method,
		     const char *state)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (is_matrix(r->runs[i]) && insn_states(r, pstr(r->runs[i], "insn")) == set &&
		    !strcmp(pstr(r->runs[i], "method"), method) &&
		    !strcmp(pstr(r->runs[i], "state"), state))
			return true;
	return false;
}

/* Widen a method's last column until its name fits over its columns ("- latency -"). */
static void fit_method(struct col *cols, size_t ncol, size_t gap)
{
	for (size_t c = 0, k; c < ncol; c = k) {
		size_t span = 0, need = strlen(cols[c].method) + 4;

		for (k = c; k < ncol && cols[k].method == cols[c].method; k++)
			span += cols[k].width + (k > c ? gap : 0);
		if (span < need)
			cols[k - 1].width += need - span;
	}
}

/* The block's columns with the note they share (0: cells say their own) and widths. */
static size_t block_cols(struct xs_table *t, unsigned set, struct col *cols)
{
	const struct fpl_result *r = t->r;
	size_t ncol = 0, warned = t->nwarn_cells;
	char buf[CELL], head[CELL];

	/* Only the methods and states measured: --method, --state leave some out. */
	for (size_t mi = 0; mi < FPL_ARRAY_SIZE(methods); mi++)
		for (size_t si = 0; si < FPL_ARRAY_SIZE(state_order); si++)
			if (set & (1u << si) && ncol < MAXCOL &&
			    has_cell(r, set, methods[mi], state_order[si]))
				cols[ncol++] = (struct col){ state_order[si], state_head[si],
							     methods[mi], 0, 0 };
	for (size_t c = 0; c < ncol; c++) {
		bool first = true;

		cols[c].width = strlen(cols[c].head);
		for (size_t i = 0; i < r->nruns; i++) {
			const struct fpl_run *run = r->runs[i];
			const struct fpl_metric *m;
			size_t n;

			if (!is_matrix(run) || insn_states(r, pstr(run, "insn")) != set ||
			    strcmp(pstr(run, "state"), cols[c].state) ||
			    strcmp(pstr(run, "method"), cols[c].method))
				continue;
			m = metric(run, "", t->unit);
			n = m ? method_note(t, run, m) : 0;
			cols[c].note = first ? n : cols[c].note == n ? n : 0;
			first = false;
			cell_text(t, run, m, buf, sizeof(buf));
			if (strlen(buf) > cols[c].width)
				cols[c].width = strlen(buf);
		}
		col_head(&cols[c], head, sizeof(head));
		if (strlen(head) > cols[c].width)
			cols[c].width = strlen(head);
	}
	t->nwarn_cells = warned;	/* counted when the rows are printed */
	fit_method(cols, ncol, ncol > 4 ? 1 : 2);
	return ncol;
}

/* The method centred over its columns in a rule ("---- latency ----"), then the states. */
static void block_header(const struct col *cols, size_t ncol, size_t gap, size_t labw, FILE *f)
{
	char head[CELL];

	fprintf(f, "%-*s", (int)labw, "");
	for (size_t c = 0; c < ncol; c++) {
		size_t span = 0, k = c;

		if (c && cols[c].method == cols[c - 1].method)
			continue;
		for (; k < ncol && cols[k].method == cols[c].method; k++)
			span += cols[k].width + gap;
		span -= gap;
		fprintf(f, "%*s", (int)gap, "");
		for (size_t p = 0, l = strlen(cols[c].method) + 2, a = (span - l) / 2; p < span;) {
			if (p == a && span > l) {
				fprintf(f, " %s ", cols[c].method);
				p += l;
			} else {
				fputc('-', f);
				p++;
			}
		}
	}
	fprintf(f, "\n%-8s %-14s", "insn", "RFBM");
	for (size_t c = 0; c < ncol; c++) {
		col_head(&cols[c], head, sizeof(head));
		fprintf(f, "%*s%*s", (int)gap, "", (int)cols[c].width, head);
	}
}

/* One block: the instructions whose states are `set`, a row per instruction and mask. */
static void matrix_block(struct xs_table *t, unsigned set, FILE *f)
{
	const struct fpl_result *r = t->r;
	struct col cols[MAXCOL];
	size_t ncol = block_cols(t, set, cols), gap = ncol > 4 ? 1 : 2;
	char buf[CELL];

	block_header(cols, ncol, gap, 23, f);
	fputc('\n', f);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *row = r->runs[i];
		const char *insn = pstr(row, "insn"), *mask = pstr(row, "mask");
		char lab[64];

		if (!is_matrix(row) || insn_states(r, insn) != set ||
		    seen_before(r, i, "insn", insn, "mask", mask))
			continue;
		snprintf(lab, sizeof(lab), "%-4s %s", mask, pstr(row, "mask_name"));
		fprintf(f, "%-8s %-14s", seen_before(r, i, "insn", insn, NULL, NULL) ? "" : insn,
			lab);
		for (size_t c = 0; c < ncol; c++) {
			const struct fpl_run *run = find_cell(r, insn, mask, cols[c].state,
							      cols[c].method);
			const struct fpl_metric *m = run ? metric(run, "", t->unit) : NULL;

			if (!run) {
				fprintf(f, "%*s%*s", (int)gap, "", (int)cols[c].width, "-");
				continue;
			}
			cell_text(t, run, m, buf, sizeof(buf));
			if (!cols[c].note && m) {
				size_t n = method_note(t, run, m);

				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " [%zu]", n);
			}
			fprintf(f, "%*s%*s", (int)gap, "", (int)cols[c].width, buf);
		}
		fputc('\n', f);
	}
	if (set & (3u << 2))
		fpl_tbl_wrap(f, "unmod: the state unmodified since the XRSTOR from the same "
			     "buffer (the modified optimization applies); modif: one register of a "
			     "component in the mask written since (modified_component in the JSON)", 0);
	if (set & (3u << 4))
		fpl_tbl_wrap(f, "rel: the mask live, then TILERELEASE (AMX tiles init, the rest "
			     "live); tcfg: TILECFG live, tile data init, the rest live", 0);
}

static void matrix(struct xs_table *t, FILE *f)
{
	const struct fpl_result *r = t->r;
	unsigned done[16];
	size_t ndone = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		unsigned set;
		bool seen = false;

		if (!is_matrix(r->runs[i]))
			continue;
		set = insn_states(r, pstr(r->runs[i], "insn"));
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k] == set;
		if (seen || ndone == FPL_ARRAY_SIZE(done))
			continue;
		done[ndone++] = set;
		fputc('\n', f);
		matrix_block(t, set, f);
	}
}

static void misc(struct xs_table *t, FILE *f)
{
	const struct fpl_result *r = t->r;
	bool head = false;
	char buf[CELL];

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const struct fpl_metric *m = is_misc(run) ? metric(run, "", t->unit) : NULL;
		char lab[96];

		if (!is_misc(run))
			continue;
		if (!head) {
			fprintf(f, "\n%-44s %-10s  %16s\n", "other instructions", "method",
				"median (IQR)");
			head = true;
		}
		snprintf(lab, sizeof(lab), "%s%s%s", pstr(run, "insn"),
			 *pstr(run, "pattern") ? ", " : "", pstr(run, "pattern"));
		cell_text(t, run, m, buf, sizeof(buf));
		fprintf(f, "%-44s %-10s  %16s", lab, pstr(run, "method"), buf);
		if (m)
			fprintf(f, " [%zu]", method_note(t, run, m));
		fputc('\n', f);
	}
}

/* The RFBM experiment: with vs without the component in RFBM, always in core cycles. */
static void rfbm(struct xs_table *t, FILE *f)
{
	const struct fpl_result *r = t->r;
	size_t note_with = 0, note_without = 0, note_diff = 0;
	bool head = false;
	const char *test = NULL;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const struct fpl_metric *w, *wo, *d;
		char cw[CELL], cwo[CELL], cd[96], verdict[16] = "?";
		json_t *ci, *est;
		double lo, hi, e;

		if (!is_rfbm(run))
			continue;
		w = metric(run, "with_", "cycles");
		wo = metric(run, "without_", "cycles");
		d = fpl_run_find_metric(run, "diff_cycles");
		if (!head) {
			fprintf(f, "\nRFBM experiment: the component in its init state, the others in "
				   "RFBM with (%s) live; core cycles\n%-17s %-9s %13s %13s  %-26s %s\n",
				pstr(run, "rfbm_with"),
				"component", "insn", "RFBM with", "without", "difference [95% CI]",
				"with is");
			head = true;
		}
		if (w)
			note_with = method_note(t, run, w);
		if (wo)
			note_without = method_note(t, run, wo);
		cell_text(t, run, w, cw, sizeof(cw));
		cell_text(t, run, wo, cwo, sizeof(cwo));
		ci = d && d->extra ? json_object_get(d->extra, "ci95") : NULL;
		est = d && d->extra ? json_object_get(d->extra, "trimmed_mean_diff") : NULL;
		if (d) {
			note_diff = fpl_tbl_note(&t->methods, d->method ? d->method : "");
			test = d->extra ? json_string_value(json_object_get(d->extra, "test")) : NULL;
		}
		if (json_array_size(ci) == 2 && est) {
			e = json_number_value(est);
			lo = json_number_value(json_array_get(ci, 0));
			hi = json_number_value(json_array_get(ci, 1));
			snprintf(cd, sizeof(cd), "%+.2f [%+.2f, %+.2f]", fpl_shown(e, 2),
				 fpl_shown(lo, 2), fpl_shown(hi, 2));
			snprintf(verdict, sizeof(verdict), "%s", lo > 0 ? "slower" : hi < 0 ?
				 "faster" : "no diff");
		} else {
			snprintf(cd, sizeof(cd), "-");
		}
		fprintf(f, "%-17s %-9s %13s %13s  %-26s %s\n", pstr(run, "component"),
			pstr(run, "insn"), cw, cwo, cd, verdict);
	}
	if (head) {
		char *line;

		if (asprintf(&line, "with [%zu], without [%zu]: median (IQR); difference [%zu]: "
			     "with minus without, 20%% trimmed means; test: %s, 95%%: slower or "
			     "faster (with than without) when the interval excludes 0", note_with, note_without,
			     note_diff, test ? test : "?") >= 0) {
			fpl_tbl_wrap(f, line, 0);
			free(line);
		}
	}
}

/* Runs none of the three parts show (skipped ones, later additions): the generic table. */
static int others(struct xs_table *t, FILE *f)
{
	const struct fpl_result *r = t->r;
	struct fpl_result sub = { .host = r->host, .warnings = NULL };
	int err;

	sub.runs = calloc(r->nruns + 1, sizeof(*sub.runs));
	if (!sub.runs)
		return -ENOMEM;
	for (size_t i = 0; i < r->nruns; i++)
		if (!is_matrix(r->runs[i]) && !is_rfbm(r->runs[i]) && !is_misc(r->runs[i]))
			sub.runs[sub.nruns++] = r->runs[i];
	if (!sub.nruns) {
		free(sub.runs);
		return 0;
	}
	fputc('\n', f);
	err = fpl_emit_table(&sub, &(struct fpl_table_opts){ .units = t->o->units,
							     .warnings = false,
							     .run_lines = t->o->run_lines }, f);
	free(sub.runs);
	return err;
}

int fpl_table_xsave(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	struct xs_table t = { .r = r, .o = o };
	size_t nwarn = 0;
	int err;

	for (enum fpl_units u = FPL_UNITS_CYCLES; u < FPL_UNITS_ALL; u++) {
		if (!fpl_tbl_unit_shown(o, u))
			continue;
		t.unit = fpl_tbl_unit_name(u);
		fprintf(f, "%sXSAVE family: %s per instruction, median (IQR) of each cell's samples\n",
			u && o->units == FPL_UNITS_ALL ? "\n" : "", fpl_tbl_unit_words(u));
		matrix(&t, f);
		nwarn += t.nwarn_cells;
		t.nwarn_cells = 0;
		misc(&t, f);
		nwarn += t.nwarn_cells;
	}
	t.nwarn_cells = 0;
	rfbm(&t, f);
	nwarn += t.nwarn_cells;
	err = others(&t, f);
	fputc('\n', f);
	fpl_tbl_wrap(f, "Methods (INSN: the row's instruction, COMP: its component; the JSON has "
		     "each cell's own text, N and samples):", 0);
	fpl_tbl_notes_print(f, &t.methods, "");
	fputs("Timing:\n", f);
	fpl_tbl_notes_print(f, &t.how, "t");
	fpl_tbl_units_legend(f, o, &t.units);
	if (t.any_below)
		fpl_tbl_wrap(f, "below resolution: < N: the cell's median cannot be told from zero "
			     "(zero lies between its quartiles, or it is under one TSC step per rep); "
			     "N is the larger quartile in size, or that step", 0);
	if (nwarn)
		fprintf(f, "!: the cell's run has a warning (%zu cells)\n", nwarn);
	fpl_tbl_warnings(r, (const struct fpl_run *const *)r->runs, r->nruns, o, f);
	fpl_tbl_notes_free(&t.methods);
	fpl_tbl_notes_free(&t.how);
	fpl_tbl_notes_free(&t.units);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* Its block of the suite summary: the full state's four instructions, live and init. */
void fpl_summary_xsave(const struct fpl_result *r, FILE *f)
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
			hl ? fpl_tbl_mq(a, sizeof(a), &live) : "-", hi ? fpl_tbl_mq(b, sizeof(b), &init) : "-");
	}
	if (head)
		fpl_tbl_interference_line(any, f);
}
