// SPDX-License-Identifier: GPL-3.0-or-later
/* The result model in memory: owned strings, growable sample arrays, jansson objects for params. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/result.h"

struct fpl_result *fpl_result_new(void)
{
	struct fpl_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->host = json_object();
	r->warnings = json_array();
	if (!r->host || !r->warnings) {
		fpl_result_free(r);
		return NULL;
	}
	return r;
}

static void metric_free(struct fpl_metric *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->unit);
	free(m->method);
	free(m->family);
	free(m->what_generic);
	free(m->samples);
	json_decref(m->extra);
	free(m);
}

static void run_free(struct fpl_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->nmetrics; i++)
		metric_free(run->metrics[i]);
	free(run->metrics);
	free(run->bench);
	free(run->skip_reason);
	json_decref(run->params);
	json_decref(run->observed);
	json_decref(run->warnings);
	free(run);
}

void fpl_result_free(struct fpl_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nruns; i++)
		run_free(r->runs[i]);
	free(r->runs);
	json_decref(r->host);
	json_decref(r->warnings);
	free(r);
}

static int grow(void **arr, size_t n, size_t size)
{
	void *p = realloc(*arr, (n + 1) * size);

	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

struct fpl_run *fpl_result_add_run(struct fpl_result *r, const char *bench)
{
	struct fpl_run *run = calloc(1, sizeof(*run));

	if (!run)
		return NULL;
	run->bench = strdup(bench);
	run->params = json_object();
	run->observed = json_object();
	run->warnings = json_array();
	if (!run->bench || !run->params || !run->observed || !run->warnings ||
	    grow((void **)&r->runs, r->nruns, sizeof(*r->runs))) {
		run_free(run);
		return NULL;
	}
	r->runs[r->nruns++] = run;
	return run;
}

struct fpl_metric *fpl_run_add_metric(struct fpl_run *run, const char *name,
				      const char *unit, const char *method)
{
	struct fpl_metric *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->name = strdup(name);
	m->unit = strdup(unit);
	m->method = strdup(method ? method : "");
	m->family = strdup(name);
	if (!m->name || !m->unit || !m->method || !m->family ||
	    grow((void **)&run->metrics, run->nmetrics, sizeof(*run->metrics))) {
		metric_free(m);
		return NULL;
	}
	m->what_len = strlen(m->method);
	run->metrics[run->nmetrics++] = m;
	return m;
}

struct fpl_metric *fpl_run_find_metric(const struct fpl_run *run, const char *name)
{
	for (size_t i = 0; i < run->nmetrics; i++)
		if (!strcmp(run->metrics[i]->name, name))
			return run->metrics[i];
	return NULL;
}

int fpl_metric_add(struct fpl_metric *m, double sample)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		double *p = realloc(m->samples, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->samples = p;
		m->cap = cap;
	}
	m->samples[m->n++] = sample;
	return 0;
}

int fpl_metric_add_many(struct fpl_metric *m, const double *samples, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(m, samples[i]))
			return -ENOMEM;
	return 0;
}

int fpl_metric_summary(const struct fpl_metric *m, double trim, struct fpl_summary *s)
{
	double *fin;
	size_t k = 0;
	int err;

	if (!m || !m->n)
		return -ENODATA;
	fin = malloc(m->n * sizeof(*fin));
	if (!fin)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->samples[i]))
			fin[k++] = m->samples[i];
	err = k ? fpl_summarize(fin, k, trim, s) : -ENODATA;
	free(fin);
	return err;
}

double fpl_metric_median(const struct fpl_metric *m)
{
	struct fpl_summary s;

	return fpl_metric_summary(m, 0, &s) ? NAN : s.median;
}

static int set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

/* The typed setters of params and of observed: the same four for each object. */
#define FPL_RUN_SETTERS(kind, field)							\
	int fpl_run_##kind##_int(struct fpl_run *run, const char *key, long long v)	\
	{										\
		return set(run->field, key, json_integer(v));				\
	}										\
	int fpl_run_##kind##_real(struct fpl_run *run, const char *key, double v)	\
	{										\
		return set(run->field, key, json_real(v));				\
	}										\
	int fpl_run_##kind##_str(struct fpl_run *run, const char *key, const char *v)	\
	{										\
		return set(run->field, key, json_string(v));				\
	}										\
	int fpl_run_##kind##_bool(struct fpl_run *run, const char *key, bool v)	\
	{										\
		return set(run->field, key, json_boolean(v));				\
	}

FPL_RUN_SETTERS(param, params)
FPL_RUN_SETTERS(obs, observed)

int fpl_run_obs_json(struct fpl_run *run, const char *key, json_t *v)
{
	return set(run->observed, key, v);
}

const json_t *fpl_run_param_get(const struct fpl_run *run, const char *key)
{
	return run && run->params ? json_object_get(run->params, key) : NULL;
}

const json_t *fpl_run_obs_get(const struct fpl_run *run, const char *key)
{
	return run && run->observed ? json_object_get(run->observed, key) : NULL;
}

const char *fpl_run_param_get_str(const struct fpl_run *run, const char *key)
{
	return json_string_value(fpl_run_param_get(run, key));
}

const char *fpl_run_obs_get_str(const struct fpl_run *run, const char *key)
{
	return json_string_value(fpl_run_obs_get(run, key));
}

static long long get_int(const json_t *v, long long dflt)
{
	double d;

	if (json_is_integer(v))
		return (long long)json_integer_value(v);
	if (!json_is_real(v))
		return dflt;
	d = json_real_value(v);
	if (!(d >= -9.2e18 && d <= 9.2e18) || d != floor(d))
		return dflt;
	return (long long)d;
}

long long fpl_run_param_get_int(const struct fpl_run *run, const char *key, long long dflt)
{
	return get_int(fpl_run_param_get(run, key), dflt);
}

long long fpl_run_obs_get_int(const struct fpl_run *run, const char *key, long long dflt)
{
	return get_int(fpl_run_obs_get(run, key), dflt);
}

static int append_fmt(json_t *arr, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return json_array_append_new(arr, json_string(buf)) ? -ENOMEM : 0;
}

int fpl_run_skip(struct fpl_run *run, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(run->skip_reason);
	run->skip_reason = strdup(buf);
	run->skipped = true;
	return run->skip_reason ? 0 : -ENOMEM;
}

int fpl_run_warn(struct fpl_run *run, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = append_fmt(run->warnings, fmt, ap);
	va_end(ap);
	return err;
}

int fpl_result_warn(struct fpl_result *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = append_fmt(r->warnings, fmt, ap);
	va_end(ap);
	return err;
}

int fpl_result_move_runs(struct fpl_result *dst, struct fpl_result *src, size_t from)
{
	size_t n = src->nruns - from;
	struct fpl_run **p;

	if (!dst) {
		for (size_t i = from; i < src->nruns; i++)
			run_free(src->runs[i]);
		src->nruns = from;
		return 0;
	}
	if (!n)
		return 0;
	p = realloc(dst->runs, (dst->nruns + n) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memcpy(p + dst->nruns, src->runs + from, n * sizeof(*p));
	dst->runs = p;
	dst->nruns += n;
	src->nruns = from;
	return 0;
}

/* A copy of params less the keys of the comma-separated list; bit i of *found: key i was there. */
static json_t *params_less(const json_t *params, const char *list, uint64_t *found)
{
	json_t *p = json_deep_copy(params);
	const char *at = list;

	for (unsigned i = 0; p && at && *at; i++) {
		const char *e = strchr(at, ',');
		size_t len = e ? (size_t)(e - at) : strlen(at);
		char *key = strndup(at, len);

		if (!key) {
			json_decref(p);
			return NULL;
		}
		if (len && !json_object_del(p, key) && found && i < 64)
			*found |= UINT64_C(1) << i;
		free(key);
		at = e ? e + 1 : NULL;
	}
	return p;
}

char *fpl_run_config_key(const struct fpl_run *run, const char *metric, const char *ignore,
			 uint64_t *found)
{
	json_t *p = ignore ? params_less(run->params, ignore, found) : json_incref(run->params);
	char *text = p ? json_dumps(p, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	char *key = NULL;

	if (text && asprintf(&key, "%s%c%s%s%s", run->bench, FPL_CONFIG_KEY_SEP, text,
			     metric ? (char[]){ FPL_CONFIG_KEY_SEP, 0 } : "", metric ? metric : "") < 0)
		key = NULL;
	free(text);
	json_decref(p);
	return key;
}

/*
 * A word of argv as a JSON string: itself when it is UTF-8; else its bytes
 * with those outside printable ASCII, and the backslash, as \xNN (a path's
 * Latin-1 bytes).
 */
static json_t *command_word(const char *w)
{
	json_t *j = json_string(w);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (j)
		return j;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)w; *p; p++)
		fprintf(f, *p >= 0x20 && *p < 0x7f && *p != '\\' ? "%c" : "\\x%02x", *p);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	j = json_string(buf);
	free(buf);
	return j;
}

int fpl_result_set_command(struct fpl_result *r, char *const *argv)
{
	json_t *a = json_array();

	for (size_t i = 0; a && argv && argv[i]; i++)
		if (json_array_append_new(a, command_word(argv[i]))) {
			json_decref(a);
			return -ENOMEM;
		}
	return !a || json_object_set_new(r->host, "command", a) ? -ENOMEM : 0;
}

const char *fpl_result_command_word(const struct fpl_result *r, size_t i)
{
	return r && r->host ? json_string_value(json_array_get(json_object_get(r->host, "command"),
								i)) : NULL;
}

int fpl_result_note_ran(struct fpl_result *r, const char *what, double took_s,
			const char *status)
{
	json_t *ran = json_object_get(r->host, "ran");
	json_t *e = json_pack("{s:s, s:o, s:s}", "what", what, "took_s",
			      isfinite(took_s) ? json_real(took_s) : json_null(), "status", status);

	if (!e)
		return -ENOMEM;
	if (!ran && json_object_set_new(r->host, "ran", ran = json_array())) {
		json_decref(e);
		return -ENOMEM;
	}
	return json_array_append_new(ran, e) ? -ENOMEM : 0;
}

int fpl_result_note_ran_runs(struct fpl_result *r, const char *what, double took_s,
			     const char *status, size_t first_run, size_t nruns)
{
	json_t *ran, *e;
	int err = fpl_result_note_ran(r, what, took_s, status);

	if (err)
		return err;
	ran = json_object_get(r->host, "ran");
	e = json_array_get(ran, json_array_size(ran) - 1);
	if (json_object_set_new(e, "first_run", json_integer((json_int_t)first_run)) ||
	    json_object_set_new(e, "runs", json_integer((json_int_t)nruns)))
		return -ENOMEM;
	return 0;
}
