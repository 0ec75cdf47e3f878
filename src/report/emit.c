// SPDX-License-Identifier: GPL-3.0-or-later
/* Emitters: table for people, JSON and CSV for programs; files written atomically. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpulab/report.h"
#include "fpulab/stats.h"
#include "table_internal.h"

static const char *const fmt_names[] = {
	[FPL_FMT_TABLE] = "table", [FPL_FMT_JSON] = "json", [FPL_FMT_CSV] = "csv",
};

int fpl_format_by_name(const char *name)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(fmt_names); i++)
		if (!strcmp(name, fmt_names[i]))
			return (int)i;
	return -1;
}

const char *fpl_format_name(enum fpl_format fmt)
{
	return (size_t)fmt < FPL_ARRAY_SIZE(fmt_names) ? fmt_names[fmt] : "?";
}

void fpl_tbl_params_text(const json_t *params, char *buf, size_t size, char sep)
{
	const char *key;
	json_t *v;
	size_t len = 0;

	buf[0] = 0;
	json_object_foreach((json_t *)params, key, v) {
		char val[320];

		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(val, sizeof(val), "%g", json_real_value(v));
		else if (json_is_boolean(v))
			snprintf(val, sizeof(val), "%s", json_is_true(v) ? "yes" : "no");
		else
			snprintf(val, sizeof(val), "?");
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%s",
						len ? (char[]){ sep, 0 } : "", key, val);
	}
}

int fpl_units_by_name(const char *name)
{
	for (int i = FPL_UNITS_CYCLES; i <= FPL_UNITS_ALL; i++)
		if (!strcmp(name, fpl_tbl_unit_name((enum fpl_units)i)))
			return i;
	return -1;
}

/* The metric of family in unit (a time unit) in the run, or NULL. */
static const struct fpl_metric *member(const struct fpl_run *run, const char *family,
				       const char *unit)
{
	for (size_t i = 0; i < run->nmetrics; i++) {
		const struct fpl_metric *m = run->metrics[i];

		if (!strcmp(m->unit, unit) && !strcmp(fpl_metric_family(m), family))
			return m;
	}
	return NULL;
}

/*
 * A cycles metric with its family's tsc and ns members beside it: one
 * figure in three units (the harness's, ctxsw's round_trip in ns with its
 * round_trip_cycles and round_trip_tsc, signal's in TSC ticks).
 */
static bool triple_of(const struct fpl_run *run, const struct fpl_metric *m,
		      const struct fpl_metric **tsc, const struct fpl_metric **ns)
{
	if (strcmp(m->unit, "cycles") || member(run, fpl_metric_family(m), "cycles") != m)
		return false;
	*tsc = member(run, fpl_metric_family(m), "tsc");
	*ns = member(run, fpl_metric_family(m), "ns");
	return *tsc && *ns;
}

/* The cycles member of the triple m belongs to (m itself for that member), or NULL. */
static const struct fpl_metric *triple_head(const struct fpl_run *run, const struct fpl_metric *m)
{
	const struct fpl_metric *head = member(run, fpl_metric_family(m), "cycles"), *t, *n;

	if (!head || !triple_of(run, head, &t, &n) || (head != m && t != m && n != m))
		return NULL;
	return head;
}

/* Whether m is the first of its triple's members in the run's order: where the triple shows. */
static bool triple_first(const struct fpl_run *run, const struct fpl_metric *m)
{
	const struct fpl_metric *head = triple_head(run, m), *t, *n;

	if (!head || !triple_of(run, head, &t, &n))
		return false;
	for (size_t i = 0; i < run->nmetrics; i++)
		if (run->metrics[i] == head || run->metrics[i] == t || run->metrics[i] == n)
			return run->metrics[i] == m;
	return false;
}

/*
 * A median of a few quiet rounds is noise shown as a figure: only when
 * there are enough of them, and not all (then it is the median again).
 */
#define QUIET_MIN 10
static bool quiet_shown(const struct fpl_metric *m, size_t n, long long *k, double *v)
{
	json_t *quiet = m->extra ? json_object_get(m->extra, "quiet_median") : NULL;
	json_t *nq = m->extra ? json_object_get(m->extra, "quiet_rounds") : NULL;

	if (!json_is_real(quiet) || !json_is_integer(nq))
		return false;
	*k = (long long)json_integer_value(nq);
	*v = json_real_value(quiet);
	return *k >= QUIET_MIN && (size_t)*k * 4 >= n && (size_t)*k < n;
}

struct gen_table {
	struct fpl_tbl_notes methods, units;
	bool any_quiet;
};

/*
 * A method's note. A triple member's: the method without its unit part,
 * the unit part its own note ("[u1]"); any other metric's: the whole text.
 */
static void method_refs(struct gen_table *g, const struct fpl_metric *m, bool triple, char *buf,
			size_t size)
{
	const char *method = m->method ? m->method : "";
	struct fpl_method_parts p;
	char *base, *unit = NULL;

	fpl_metric_method_parts(m, &p);
	if (!triple)
		p.unit_len = 0;
	base = strndup(method, p.unit_len ? (size_t)(p.unit - method) - 2 : strlen(method));
	if (!base || (p.unit_len && !(unit = strndup(p.unit, p.unit_len)))) {
		snprintf(buf, size, "[?]");
	} else if (unit) {
		snprintf(buf, size, "[%zu, u%zu]", fpl_tbl_note(&g->methods, base),
			 fpl_tbl_note(&g->units, unit));
	} else {
		snprintf(buf, size, "[%zu]", fpl_tbl_note(&g->methods, base));
	}
	free(base);
	free(unit);
}

/* "time", or "<family>_time": a triple shown in every unit, by its quantity. */
static void time_label(const struct fpl_metric *m, char *buf, size_t size)
{
	const char *f = fpl_metric_family(m);

	snprintf(buf, size, strcmp(f, "time") ? "%s_time" : "%s", f);
}

static void table_metric(FILE *f, struct gen_table *g, const struct fpl_metric *m,
			 const struct fpl_metric *t, const struct fpl_metric *ns, enum fpl_units u)
{
	json_t *ci = m->extra ? json_object_get(m->extra, "ci95") : NULL;
	json_t *test = m->extra ? json_object_get(m->extra, "test") : NULL;
	const struct fpl_metric *shown = m;
	struct fpl_summary s, st, sn;
	char refs[64], name[128];
	long long k;
	double q;

	time_label(m, name, sizeof(name));
	if (t && u == FPL_UNITS_TSC)
		shown = t;
	else if (t && u == FPL_UNITS_NS)
		shown = ns;
	if (!fpl_tbl_summary(shown, &s)) {
		fprintf(f, "    %s: no samples\n", shown->name);
		return;
	}
	method_refs(g, shown, t != NULL, refs, sizeof(refs));
	fprintf(f, "    %s %.2f %s (IQR %.2f)", t && u == FPL_UNITS_ALL ? name : shown->name,
		fpl_shown(s.median, 2), shown->unit, s.q3 - s.q1);
	if (t && u == FPL_UNITS_ALL && fpl_tbl_summary(t, &st) && fpl_tbl_summary(ns, &sn)) {
		char r2[64], r3[64];

		method_refs(g, t, true, r2, sizeof(r2));
		method_refs(g, ns, true, r3, sizeof(r3));
		fprintf(f, " %s = %.2f tsc %s = %.2f ns %s", refs, fpl_shown(st.median, 2), r2,
			fpl_shown(sn.median, 2), r3);
	} else {
		fprintf(f, " %s", refs);
	}
	if (quiet_shown(shown, s.n, &k, &q)) {
		fprintf(f, " quiet %lld: %.2f", k, fpl_shown(q, 2));
		g->any_quiet = true;
	}
	if (json_array_size(ci) == 2)
		fprintf(f, " CI95 [%.2f, %.2f]%s%s%s",
			fpl_shown(json_number_value(json_array_get(ci, 0)), 2),
			fpl_shown(json_number_value(json_array_get(ci, 1)), 2), test ? " (" : "",
			test ? json_string_value(test) : "", test ? ")" : "");
	fprintf(f, "; n=%zu\n", s.n);
}

/* FPL_UNITS_* of a time unit ("cycles", "tsc", "ns"), -1 for any other unit. */
static int time_unit(const char *unit)
{
	for (int i = 0; i < FPL_UNITS_ALL; i++)
		if (!strcmp(unit, fpl_tbl_unit_name((enum fpl_units)i)))
			return i;
	return -1;
}

/*
 * Whether a run's plain (non-triple) time metrics are filtered by --units:
 * only when it has some in the unit asked for and some in another. A run
 * without the unit asked for shows what it has, and says so when tsc or ns
 * was asked for (cycles is the default: its absence is no news).
 */
static bool units_pick(const struct fpl_run *run, enum fpl_units u, FILE *f)
{
	bool has[FPL_UNITS_ALL] = { false }, other = false;

	if (u == FPL_UNITS_ALL)
		return false;
	for (size_t i = 0; i < run->nmetrics; i++) {
		int k = time_unit(run->metrics[i]->unit);

		if (k >= 0 && !triple_head(run, run->metrics[i])) {
			has[k] = true;
			other |= k != (int)u;
		}
	}
	if (!has[u] && other && u != FPL_UNITS_CYCLES)
		fprintf(f, "    (no %s figures in this run: what it measured is shown)\n",
			fpl_tbl_unit_name(u));
	return has[u] && other;
}

static bool same_skip(const struct fpl_run *a, const struct fpl_run *b)
{
	return a->skipped && b->skipped && !strcmp(a->bench, b->bench) &&
	       !strcmp(a->skip_reason ? a->skip_reason : "", b->skip_reason ? b->skip_reason : "");
}

/* A parameter's value as the table writes it. */
static void param_text(const json_t *v, char *val, size_t n)
{
	if (json_is_string(v))
		snprintf(val, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(val, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(val, n, "%g", json_real_value(v));
	else
		snprintf(val, n, "%s", json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "?");
}

/*
 * Skipped runs of one benchmark for one reason (every cell of an RFBM
 * this CPU lacks): one line with their count and the parameters they
 * differ in, "xsave: 10 runs skipped (insn xsave, xsavec; method
 * throughput, latency): RFBM 0xe0 has ...". The first of them prints it.
 */
static void skip_group(const struct fpl_result *r, size_t first, size_t n, FILE *f)
{
	const struct fpl_run *run = r->runs[first];
	char *line = NULL;
	size_t len = 0, nk = 0;
	FILE *m = open_memstream(&line, &len);
	const char *key;
	json_t *v;

	if (!m)
		return;
	fprintf(m, "%s: %zu runs skipped", run->bench, n);
	json_object_foreach(run->params, key, v) {
		char vals[512] = "", val[128];
		size_t nv = 0, vl = 0;

		for (size_t i = first; i < r->nruns; i++) {
			const json_t *w;

			if (!same_skip(run, r->runs[i]) ||
			    !(w = json_object_get(r->runs[i]->params, key)))
				continue;
			param_text(w, val, sizeof(val));
			/* each value once, in the order met */
			bool seen = false;

			for (const char *p = vals; *p && !seen;) {
				size_t l = strcspn(p, "\x1f");

				seen = l == strlen(val) && !strncmp(p, val, l);
				p += l + (p[l] != 0);
			}
			if (seen || vl >= sizeof(vals))
				continue;
			vl += (size_t)snprintf(vals + vl, sizeof(vals) - vl, "%s%s", nv ? "\x1f" : "",
					       val);
			nv++;
		}
		if (nv < 2)
			continue;
		for (char *p = vals; *p; p++)
			if (*p == '\x1f')
				*p = '|';
		fprintf(m, "%s%s %s", nk++ ? "; " : " (", key, vals);
	}
	fprintf(m, "%s: %s", nk ? ")" : "", run->skip_reason ? run->skip_reason : "");
	if (!fclose(m)) {
		fpl_tbl_wrap(f, line, 4);
	}
	free(line);
}

int fpl_emit_table(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	struct gen_table g = { { NULL, 0 }, { NULL, 0 }, false };
	char params[512], *line;

	for (size_t ri = 0; ri < r->nruns; ri++) {
		const struct fpl_run *run = r->runs[ri];

		if (run->skipped) {
			size_t n = 0;
			bool before = false;

			for (size_t i = 0; i < r->nruns; i++) {
				n += same_skip(run, r->runs[i]);
				before |= i < ri && same_skip(run, r->runs[i]);
			}
			if (before)
				continue;
			if (n > 1) {
				skip_group(r, ri, n, f);
				continue;
			}
		}
		fpl_tbl_params_text(run->params, params, sizeof(params), ' ');
		if (asprintf(&line, "%s %s", run->bench, params) >= 0) {
			fpl_tbl_wrap(f, line, 4);
			free(line);
		}
		if (run->skipped) {
			fprintf(f, "    skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		bool pick = units_pick(run, o->units, f);

		for (size_t mi = 0; mi < run->nmetrics; mi++) {
			const struct fpl_metric *m = run->metrics[mi], *head = triple_head(run, m);
			const struct fpl_metric *t, *n;

			/* A triple where its first member is (ctxsw's cycles come after its ns) */
			if (head) {
				if (triple_first(run, m) && triple_of(run, head, &t, &n))
					table_metric(f, &g, head, t, n, o->units);
				continue;
			}
			/* --units: of a run's plain time metrics, those in the unit asked for */
			if (pick && time_unit(m->unit) >= 0 && time_unit(m->unit) != (int)o->units)
				continue;
			table_metric(f, &g, m, NULL, NULL, o->units);
		}
		if (o->run_lines)
			o->run_lines(run, f);
	}
	if (g.methods.n) {
		fputc('\n', f);
		fpl_tbl_wrap(f, g.any_quiet ?
			     "Medians of all samples; IQR: interquartile range (type 7 "
			     "quantiles); quiet K: median of the K rounds whose IMUL sentinel read "
			     "300 cycles +/- 1.5% (no contention seen), shown when K >= 10 and K >= "
			     "n/4. Methods:" :
			     "Medians of all samples; IQR: interquartile range (type 7 quantiles). "
			     "Methods:", 0);
		fpl_tbl_notes_print(f, &g.methods, "");
	}
	if (g.units.n)
		fpl_tbl_units_legend(f, o, &g.units);
	fpl_tbl_warnings(r, (const struct fpl_run *const *)r->runs, r->nruns, o, f);
	fpl_tbl_notes_free(&g.methods);
	fpl_tbl_notes_free(&g.units);
	return ferror(f) ? -EIO : 0;
}

/* RFC 4180: quote when needed, double the quotes. */
static void csv_field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

static int emit_csv(const struct fpl_result *r, FILE *f)
{
	char params[512];

	fputs("bench,params,metric,unit,n,min,q1,median,q3,max,mean,stddev,mad,trimmed_mean_10,"
	      "skipped,method\n", f);
	for (size_t ri = 0; ri < r->nruns; ri++) {
		const struct fpl_run *run = r->runs[ri];

		fpl_tbl_params_text(run->params, params, sizeof(params), ';');
		if (run->skipped) {
			csv_field(f, run->bench, false);
			csv_field(f, params, false);
			fputs(",,,,,,,,,,,,", f);
			csv_field(f, "yes", false);
			csv_field(f, run->skip_reason ? run->skip_reason : "", true);
			continue;
		}
		for (size_t mi = 0; mi < run->nmetrics; mi++) {
			const struct fpl_metric *m = run->metrics[mi];
			struct fpl_summary s;

			csv_field(f, run->bench, false);
			csv_field(f, params, false);
			csv_field(f, m->name, false);
			csv_field(f, m->unit, false);
			if (fpl_tbl_summary(m, &s))
				fprintf(f, "%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", s.n,
					s.min, s.q1, s.median, s.q3, s.max, s.mean, s.stddev, s.mad,
					s.trimmed_mean);
			else
				fputs("0,,,,,,,,,,", f);
			csv_field(f, "no", false);
			csv_field(f, m->method ? m->method : "", true);
		}
	}
	return 0;
}

struct emit_arg {
	const struct fpl_result *r;
	enum fpl_format fmt;
};

/* r into f in its format (the fill of fpl_emit and fpl_emit_file). 0 or -errno with diag. */
static int emit_cb(FILE *f, void *arg, struct fpl_diag *diag)
{
	const struct emit_arg *a = arg;
	json_t *doc;
	int err;

	switch (a->fmt) {
	case FPL_FMT_TABLE:
		return fpl_emit_table(a->r, &(struct fpl_table_opts){ .warnings = true }, f);
	case FPL_FMT_CSV:
		return emit_csv(a->r, f);
	case FPL_FMT_JSON:
		doc = fpl_report_json(a->r);
		if (!doc)
			return fpl_diag_set(diag, -ENOMEM, "out of memory building the JSON result");
		err = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ? -EIO : 0;
		if (!err)
			fputc('\n', f);
		json_decref(doc);
		return err;
	default:
		return fpl_diag_set(diag, -EINVAL, "unknown output format %d", (int)a->fmt);
	}
}

/*
 * Fill f, then flush it: 0 or -errno. stdio keeps only a flag when a write
 * fails, and the fill functions say -EIO; the reason (ENOSPC: the disk is
 * full, EFBIG, EDQUOT) is the errno the failing write left, cleared before.
 */
static int fill_flush(FILE *f, int (*fill)(FILE *f, void *arg, struct fpl_diag *diag),
		      void *arg, struct fpl_diag *diag)
{
	int err;

	errno = 0;
	err = fill(f, arg, diag);
	if (!err && fflush(f))
		err = -EIO;
	if ((!err || err == -EIO) && ferror(f))
		err = errno ? -errno : -EIO;
	return err;
}

int fpl_emit(const struct fpl_result *r, enum fpl_format fmt, FILE *f, struct fpl_diag *diag)
{
	struct emit_arg a = { r, fmt };
	int err = fill_flush(f, emit_cb, &a, diag);

	/* what emit_cb said (out of memory, the format), or the write's reason */
	if (err && (ferror(f) || !diag || !diag->msg[0]))
		fpl_diag_set(diag, err, "writing the result: %s", strerror(-err));
	return err;
}

/* Into a FIFO, a device or a terminal: there is no file to replace, so no rename. */
static int write_direct(const char *path,
			int (*fill)(FILE *f, void *arg, struct fpl_diag *diag), void *arg,
			struct fpl_diag *diag)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return fpl_diag_set(diag, -errno, "%s: %s", path, strerror(errno));
	err = fill_flush(f, fill, arg, diag);
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		fpl_diag_set(diag, err, "%s: not written: %s", path, strerror(-err));
	return err;
}

static int write_atomic(const char *path,
			int (*fill)(FILE *f, void *arg, struct fpl_diag *diag), void *arg,
			struct fpl_diag *diag);

/*
 * rename() replaces the name it is given: a symbolic link would become a
 * file (the target untouched), and as root -o /dev/stdout would replace the
 * system's /dev/stdout. So a link is followed to its target, and what is not
 * a regular file (FIFO, device, the pipe behind /dev/stdout) is written into.
 */
int fpl_write_file_atomic(const char *path,
			int (*fill)(FILE *f, void *arg, struct fpl_diag *diag), void *arg,
			struct fpl_diag *diag)
{
	char *real = NULL;
	struct stat st;
	int err;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (!real || stat(real, &st)) {
			/* dangling, or a pipe or socket behind /proc/self/fd */
			free(real);
			return write_direct(path, fill, arg, diag);
		}
		path = real;
	} else if (stat(path, &st)) {
		return write_atomic(path, fill, arg, diag);
	}
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		err = write_atomic(path, fill, arg, diag);
	else
		err = write_direct(path, fill, arg, diag);
	free(real);
	return err;
}

static int write_atomic(const char *path,
			int (*fill)(FILE *f, void *arg, struct fpl_diag *diag), void *arg,
			struct fpl_diag *diag)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dup = strdup(path), *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, err = -ENOMEM;
	mode_t mode;

	if (!*base) {
		free(dup);
		return fpl_diag_set(diag, -EISDIR, "%s: names a directory, not a file", path);
	}
	/* The temporary file must be in the same directory, or rename is not atomic. */
	if (!dup || asprintf(&tmp, "%s/.%s.tmpXXXXXX", dirname(dup), base) < 0) {
		tmp = NULL;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = fpl_diag_set(diag, -errno, "%s: cannot create a temporary file beside it: %s",
				   path, strerror(errno));
		goto out;
	}
	/* mkstemp makes it 0600; a results file is as readable as any other new file. */
	mode = umask(0);
	umask(mode);
	if (fchmod(fd, 0666 & ~mode)) {
		err = -errno;
		close(fd);
		goto fail;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto fail;
	}
	err = fill_flush(f, fill, arg, diag);
	if (err)
		goto fail;
	if (fsync(fileno(f))) {
		err = -errno;
		goto fail;
	}
	if (fclose(f)) {
		f = NULL;
		err = -errno;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, path)) {
		err = -errno;
		goto fail;
	}
	err = 0;
	goto out;
fail:
	if (f)
		fclose(f);
	unlink(tmp);
	fpl_diag_set(diag, err, "%s: not written: %s", path, strerror(-err));
out:
	free(tmp);
	free(dup);
	return err;
}

int fpl_emit_file(const struct fpl_result *r, enum fpl_format fmt, const char *path,
		  struct fpl_diag *diag)
{
	struct emit_arg a = { r, fmt };

	return fpl_write_file_atomic(path, emit_cb, &a, diag);
}
