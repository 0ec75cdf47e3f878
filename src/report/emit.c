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

/* "k=v k=v" from a params object, in key order of insertion. */
static void params_text(const json_t *params, char *buf, size_t size, char sep)
{
	const char *key;
	json_t *v;
	size_t len = 0;

	buf[0] = 0;
	json_object_foreach((json_t *)params, key, v) {
		char val[96];

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

/* Summary over the finite samples; false when there are none. */
static bool summarize(const struct fpl_metric *m, struct fpl_summary *s)
{
	double *fin = malloc((m->n ? m->n : 1) * sizeof(*fin));
	size_t k = 0;
	bool ok;

	if (!fin)
		return false;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->samples[i]))
			fin[k++] = m->samples[i];
	ok = k && !fpl_summarize(fin, k, 10, s);
	free(fin);
	return ok;
}

/* Methods are long: the table numbers them and prints each once, below. */
struct notes {
	const char **text;
	size_t n;
};

static size_t note_of(struct notes *nt, const char *method)
{
	const char **p;

	for (size_t i = 0; i < nt->n; i++)
		if (!strcmp(nt->text[i], method))
			return i + 1;
	p = realloc(nt->text, (nt->n + 1) * sizeof(*p));
	if (!p)
		return 0;
	nt->text = p;
	nt->text[nt->n++] = method;
	return nt->n;
}

/* "<prefix>cycles" with "<prefix>tsc" and "<prefix>ns" beside it: the harness's triple. */
static bool triple_of(const struct fpl_run *run, const struct fpl_metric *m,
		      const struct fpl_metric **tsc, const struct fpl_metric **ns)
{
	size_t len = strlen(m->name);
	char name[160];

	if (len < 6 || len > 100 || strcmp(m->name + len - 6, "cycles") || strcmp(m->unit, "cycles"))
		return false;
	snprintf(name, sizeof(name), "%.*stsc", (int)(len - 6), m->name);
	*tsc = fpl_run_find_metric(run, name);
	snprintf(name, sizeof(name), "%.*sns", (int)(len - 6), m->name);
	*ns = fpl_run_find_metric(run, name);
	return *tsc && *ns;
}

static bool in_triple(const struct fpl_run *run, const struct fpl_metric *m)
{
	const struct fpl_metric *t, *n;

	for (size_t i = 0; i < run->nmetrics; i++)
		if (triple_of(run, run->metrics[i], &t, &n) && (t == m || n == m))
			return true;
	return false;
}

static void table_metric(FILE *f, struct notes *nt, const struct fpl_metric *m, bool last)
{
	struct fpl_summary s;
	json_t *ci = m->extra ? json_object_get(m->extra, "ci95") : NULL;
	json_t *test = m->extra ? json_object_get(m->extra, "test") : NULL;
	json_t *quiet = m->extra ? json_object_get(m->extra, "quiet_median") : NULL;
	json_t *nq = m->extra ? json_object_get(m->extra, "quiet_rounds") : NULL;

	if (!summarize(m, &s)) {
		fprintf(f, "%s: no samples", m->name);
		return;
	}
	fprintf(f, "%s %.2f %s (IQR %.2f, MAD %.2f) [%zu]", m->name, s.median, m->unit,
		s.q3 - s.q1, s.mad, note_of(nt, m->method ? m->method : ""));
	if (json_is_real(quiet) && json_integer_value(nq) < (json_int_t)s.n)
		fprintf(f, " quiet %lld: %.2f %s", (long long)json_integer_value(nq),
			json_real_value(quiet), m->unit);
	if (json_array_size(ci) == 2)
		fprintf(f, " CI95 [%.2f, %.2f] %s%s%s%s", json_number_value(json_array_get(ci, 0)),
			json_number_value(json_array_get(ci, 1)), m->unit, test ? " (" : "",
			test ? json_string_value(test) : "", test ? ")" : "");
	if (last)
		fprintf(f, "; n=%zu", s.n);
}

static int emit_table(const struct fpl_result *r, FILE *f)
{
	struct notes nt = { NULL, 0 };
	char params[512];
	size_t i;
	json_t *w;

	for (size_t ri = 0; ri < r->nruns; ri++) {
		const struct fpl_run *run = r->runs[ri];

		params_text(run->params, params, sizeof(params), ' ');
		fprintf(f, "%s %s", run->bench, params);
		if (run->skipped) {
			fprintf(f, "\n    skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		fputc('\n', f);
		for (size_t mi = 0; mi < run->nmetrics; mi++) {
			const struct fpl_metric *m = run->metrics[mi], *t, *n;

			if (in_triple(run, m))
				continue;
			fputs("    ", f);
			if (triple_of(run, m, &t, &n)) {
				table_metric(f, &nt, m, false);
				fputs("  ", f);
				table_metric(f, &nt, t, false);
				fputs("  ", f);
				table_metric(f, &nt, n, true);
			} else {
				table_metric(f, &nt, m, true);
			}
			fputc('\n', f);
		}
		json_array_foreach(run->warnings, i, w)
			fprintf(f, "    warning: %s\n", json_string_value(w));
	}
	if (nt.n)
		fprintf(f, "\nMedians of all samples; IQR: interquartile range (type 7 quantiles); "
			   "MAD: median absolute deviation, unscaled (both in the metric's unit); "
			   "quiet K: median of the K "
			   "rounds whose IMUL sentinel read 300 cycles +/- 1.5%% (no contention "
			   "seen). Methods:\n");
	for (size_t k = 0; k < nt.n; k++)
		fprintf(f, "[%zu] %s\n", k + 1, nt.text[k]);
	json_array_foreach(r->warnings, i, w)
		fprintf(f, "warning: %s\n", json_string_value(w));
	free(nt.text);
	return 0;
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

		params_text(run->params, params, sizeof(params), ';');
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
			if (summarize(m, &s))
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

int fpl_emit(const struct fpl_result *r, enum fpl_format fmt, FILE *f, struct fpl_diag *diag)
{
	json_t *doc;
	int err = 0;

	switch (fmt) {
	case FPL_FMT_TABLE:
		err = emit_table(r, f);
		break;
	case FPL_FMT_CSV:
		err = emit_csv(r, f);
		break;
	case FPL_FMT_JSON:
		doc = fpl_report_json(r);
		if (!doc)
			return fpl_diag_set(diag, -ENOMEM, "out of memory building the JSON result");
		err = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ? -EIO : 0;
		if (!err)
			fputc('\n', f);
		json_decref(doc);
		break;
	default:
		return fpl_diag_set(diag, -EINVAL, "unknown output format %d", (int)fmt);
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	if (err)
		fpl_diag_set(diag, err, "writing the result: %s", strerror(-err));
	return err;
}

int fpl_write_file_atomic(const char *path, int (*fill)(FILE *f, void *arg,
							   struct fpl_diag *diag),
			  void *arg, struct fpl_diag *diag)
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
	err = fill(f, arg, diag);
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
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

struct emit_arg {
	const struct fpl_result *r;
	enum fpl_format fmt;
};

static int emit_cb(FILE *f, void *arg, struct fpl_diag *diag)
{
	const struct emit_arg *a = arg;

	return fpl_emit(a->r, a->fmt, f, diag);
}

int fpl_emit_file(const struct fpl_result *r, enum fpl_format fmt, const char *path,
		  struct fpl_diag *diag)
{
	struct emit_arg a = { r, fmt };

	return fpl_write_file_atomic(path, emit_cb, &a, diag);
}
