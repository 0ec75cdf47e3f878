// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers of the tables for people: numbered notes printed once, wrapping, summaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/section_work.h"
#include "pick.h"
#include "table_internal.h"

int fpl_tbl_slot(const char **list, size_t *n, size_t max, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(list[i], s))
			return (int)i;
	if (*n == max)
		return -1;
	list[*n] = s;
	return (int)(*n)++;
}

size_t fpl_tbl_note(struct fpl_tbl_notes *nt, const char *text)
{
	char **p, *dup;

	for (size_t i = 0; i < nt->n; i++)
		if (!strcmp(nt->text[i], text))
			return i + 1;
	dup = strdup(text);
	p = dup ? realloc(nt->text, (nt->n + 1) * sizeof(*p)) : NULL;
	if (!p) {
		free(dup);
		return 0;
	}
	nt->text = p;
	nt->text[nt->n++] = dup;
	return nt->n;
}

void fpl_tbl_notes_print(FILE *f, const struct fpl_tbl_notes *nt, const char *label)
{
	for (size_t i = 0; i < nt->n; i++) {
		char head[32], *line;

		snprintf(head, sizeof(head), "[%s%zu] ", label, i + 1);
		if (asprintf(&line, "%s%s", head, nt->text[i]) < 0)
			continue;
		fpl_tbl_wrap(f, line, strlen(head));
		free(line);
	}
}

void fpl_tbl_notes_free(struct fpl_tbl_notes *nt)
{
	for (size_t i = 0; i < nt->n; i++)
		free(nt->text[i]);
	free(nt->text);
	nt->text = NULL;
	nt->n = 0;
}

/* text from column col (something is printed before it), wrapped, continuation lines at hang. */
static void wrap_from(FILE *f, const char *text, size_t hang, size_t col)
{
	size_t first = 1;

	while (*text) {
		const char *sp = strchr(text, ' ');
		size_t word = sp ? (size_t)(sp - text) : strlen(text);

		if (!first && col + 1 + word > FPL_TBL_WIDTH && col > hang) {
			fprintf(f, "\n%*s", (int)hang, "");
			col = hang;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, word, f);
		col += word;
		first = 0;
		text += word;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

void fpl_tbl_wrap(FILE *f, const char *text, size_t hang)
{
	wrap_from(f, text, hang, 0);
}

void fpl_tbl_wrap_labelled(FILE *f, const char *label, size_t width, const char *text)
{
	fprintf(f, "%-*s", (int)width, label);
	wrap_from(f, text, width, width > strlen(label) ? width : strlen(label));
}

static const char *const unit_names[] = {
	[FPL_UNITS_CYCLES] = "cycles", [FPL_UNITS_TSC] = "tsc", [FPL_UNITS_NS] = "ns",
	[FPL_UNITS_ALL] = "all",
};
static const char *const unit_words[] = {
	[FPL_UNITS_CYCLES] = "core cycles", [FPL_UNITS_TSC] = "TSC ticks", [FPL_UNITS_NS] = "ns",
	[FPL_UNITS_ALL] = "all three",
};

const char *fpl_tbl_unit_name(enum fpl_units u)
{
	return (size_t)u < FPL_ARRAY_SIZE(unit_names) ? unit_names[u] : "?";
}

const char *fpl_tbl_unit_words(enum fpl_units u)
{
	return (size_t)u < FPL_ARRAY_SIZE(unit_words) ? unit_words[u] : "?";
}

bool fpl_tbl_unit_shown(const struct fpl_table_opts *o, enum fpl_units u)
{
	return u < FPL_UNITS_ALL && (o->units == FPL_UNITS_ALL || o->units == u);
}

void fpl_tbl_units_legend(FILE *f, const struct fpl_table_opts *o,
			  const struct fpl_tbl_notes *units)
{
	char others[32] = "";
	char *line;

	if (o->units == FPL_UNITS_ALL) {
		fputs("Units:\n", f);
	} else {
		for (enum fpl_units u = FPL_UNITS_CYCLES; u < FPL_UNITS_ALL; u++)
			if (u != o->units)
				snprintf(others + strlen(others), sizeof(others) - strlen(others),
					 "%s|", unit_names[u]);
		if (asprintf(&line, "Units (--units %sall for the others; the JSON and CSV have "
			     "every unit):", others) >= 0) {
			fpl_tbl_wrap(f, line, 0);
			free(line);
		}
	}
	fpl_tbl_notes_print(f, units, "u");
}

bool fpl_tbl_summary(const struct fpl_metric *m, struct fpl_summary *s)
{
	return !fpl_metric_summary(m, 10, s);
}

void fpl_tbl_warnings(const struct fpl_result *r, const struct fpl_run *const *runs,
		      size_t nruns, const struct fpl_table_opts *o, FILE *f)
{
	size_t i, count = json_array_size(r->warnings);
	json_t *w;

	for (size_t k = 0; k < nruns; k++)
		json_array_foreach(runs[k]->warnings, i, w)
			count += !fpl_section_warning_stale(r, runs[k], json_string_value(w));
	if (!count)
		return;
	if (!o->warnings) {
		fprintf(f, "%zu warning%s: on stderr and in the JSON\n", count,
			count == 1 ? "" : "s");
		return;
	}
	for (size_t k = 0; k < nruns; k++)
		json_array_foreach(runs[k]->warnings, i, w) {
			char *line;

			if (fpl_section_warning_stale(r, runs[k], json_string_value(w)))
				continue;
			if (asprintf(&line, "warning (%s): %s", runs[k]->bench,
				     json_string_value(w)) >= 0) {
				fpl_tbl_wrap(f, line, 4);
				free(line);
			}
		}
	json_array_foreach(r->warnings, i, w) {
		char *line;

		if (asprintf(&line, "warning: %s", json_string_value(w)) >= 0) {
			fpl_tbl_wrap(f, line, 4);
			free(line);
		}
	}
}

const char *fpl_tbl_param_str(const struct fpl_run *run, const char *key)
{
	const char *v = fpl_run_param_get_str(run, key);

	return v ? v : "";
}

bool fpl_tbl_metric_ci(const struct fpl_metric *m, double *est, double *lo, double *hi)
{
	if (!m || !json_is_object(m->extra))
		return false;
	*est = json_real_value(json_object_get(m->extra, "estimate"));
	*lo = json_real_value(json_object_get(m->extra, "ci95_lo"));
	*hi = json_real_value(json_object_get(m->extra, "ci95_hi"));
	return json_object_get(m->extra, "estimate") != NULL;
}

/*
 * One step of the TSC over a sample's reps, in m's unit (tsc, cycles at the
 * run's core/TSC figure, ns): what a difference of two timings per rep
 * moves by. 0 when the document does not say.
 */
static double unit_step(const struct fpl_result *r, const struct fpl_metric *m)
{
	const json_t *clk = json_object_get(r ? r->host : NULL, "clock");
	double step = json_number_value(json_object_get(clk, "step_tsc"));
	long long reps = fpl_metric_how(m)->reps;

	if (!(step > 0) || reps <= 0)
		return 0;
	step /= (double)reps;
	if (!strcmp(m->unit, "tsc"))
		return step;
	if (!strcmp(m->unit, "cycles"))
		return step * json_number_value(json_object_get(clk, "core_per_tsc_start"));
	if (!strcmp(m->unit, "ns"))
		return step / json_number_value(json_object_get(clk, "tsc_hz")) * 1e9;
	return 0;
}

bool fpl_tbl_below_resolution(const struct fpl_result *r, const struct fpl_metric *m,
			      int decimals, double *bound)
{
	double step = m ? unit_step(r, m) : 0, unit = pow(10, -decimals), b;
	struct fpl_summary s;

	/*
	 * Zero between the quartiles: a quarter of the samples or more either
	 * side of it. Not the median's interval: with few samples that spans
	 * the preempted ones, and a 120-cycle cell would read unresolved.
	 */
	if (!m || !fpl_tbl_summary(m, &s) || s.n < 6)
		return false;
	if (!(s.q1 <= 0 && s.q3 >= 0) && !(fabs(s.median) < step))
		return false;
	b = fmax(fmax(fabs(s.q1), fabs(s.q3)), step);
	/* up to the next figure shown, never "< 0.0" */
	b = ceil(b / unit - 1e-9) * unit;
	*bound = b > 0 ? b : unit;
	return true;
}

/* "142 [139, 150]": median [q1, q3], digits chosen by size. */
const char *fpl_tbl_mq(char *buf, size_t size, const struct fpl_summary *s)
{
	int d = fabs(s->median) >= 100 ? 0 : fabs(s->median) >= 10 ? 1 : 2;

	snprintf(buf, size, "%.*f [%.*f, %.*f]", d, fpl_shown(s->median, d), d,
		 fpl_shown(s->q1, d), d, fpl_shown(s->q3, d));
	return buf;
}

/* How often the FXSAVE64 reference of the run's cell read its floor (bench/interference.h). */
void fpl_tbl_interference_line(const struct fpl_run *run, FILE *f)
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

bool fpl_tbl_aa_line(const struct fpl_run *run, size_t indent, FILE *f)
{
	const char *a = fpl_run_param_get_str(run, "state_a");
	const char *b = fpl_run_param_get_str(run, "state_b");
	char *line;

	if (!a || !b || strcmp(a, b))
		return false;
	if (asprintf(&line, "(an A/A control: --ab %s,%s runs the same state in both arms, so "
		     "a difference proven here is the method's own error; at 95%% no more than 1 "
		     "run in 20 should show one)", a, b) < 0)
		return false;
	fpl_tbl_wrap_labelled(f, "", indent, line);
	free(line);
	return true;
}
