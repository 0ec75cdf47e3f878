// SPDX-License-Identifier: GPL-3.0-or-later
/* Reading results back: a fpulab/2 (or older fpulab/1) JSON document into struct fpl_result, checked key by key. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/result.h"

/* diag gets "where: what"; where is a JSON path such as runs[2].metrics[0].samples[7]. */
static int bad(struct fpl_diag *diag, const char *where, const char *what)
{
	return fpl_diag_set(diag, -EINVAL, "%s: %s", where, what);
}

static int read_warnings(json_t *src, json_t *dst, const char *where, struct fpl_diag *diag)
{
	size_t i;
	json_t *w;

	if (!src)
		return 0;
	if (!json_is_array(src))
		return bad(diag, where, "not an array");
	json_array_foreach(src, i, w) {
		if (!json_is_string(w))
			return bad(diag, where, "holds something other than strings");
		if (json_array_append(dst, w))
			return -ENOMEM;
	}
	return 0;
}

static int read_metric(json_t *o, struct fpl_run *run, const char *where, struct fpl_diag *diag)
{
	json_t *name = json_object_get(o, "name"), *unit = json_object_get(o, "unit");
	json_t *method = json_object_get(o, "method"), *samples = json_object_get(o, "samples");
	json_t *extra = json_object_get(o, "extra"), *x;
	struct fpl_metric *m;
	char w[160];
	size_t i;

	if (!json_is_object(o))
		return bad(diag, where, "not an object");
	if (!json_is_string(name) || !json_is_string(unit))
		return bad(diag, where, "needs string \"name\" and \"unit\"");
	if (method && !json_is_string(method) && !json_is_null(method))
		return bad(diag, where, "\"method\" is not a string");
	if (!json_is_array(samples))
		return bad(diag, where, "\"samples\" is missing or not an array");
	if (extra && !json_is_object(extra))
		return bad(diag, where, "\"extra\" is not an object");
	if (fpl_run_find_metric(run, json_string_value(name)))
		return bad(diag, where, "a metric of this name is already in the run");
	m = fpl_run_add_metric(run, json_string_value(name), json_string_value(unit),
			       json_is_string(method) ? json_string_value(method) : "");
	if (!m)
		return -ENOMEM;
	json_array_foreach(samples, i, x) {
		double v;

		if (json_is_number(x)) {
			v = json_number_value(x);
		} else if (json_is_null(x)) {
			v = NAN;
		} else {
			snprintf(w, sizeof(w), "%s.samples[%zu]", where, i);
			return bad(diag, w, "not a number");
		}
		if (fpl_metric_add(m, v))
			return -ENOMEM;
	}
	if (extra)
		m->extra = json_incref(extra);
	return 0;
}

/*
 * fpulab/1 kept what a run measured in params. These are the keys its
 * writers put there; read back they go to observed, so that an old file
 * matches a new one of the same configuration.
 */
static bool v1_measured(const char *bench, const char *key)
{
	static const char *const exact[] = {
		"tsc_hz_measured", "elapsed_s", "state_verified", "xinuse_before",
		"xinuse_after_return", "at_minsigstksz", "owner_xinuse", "rfbm", "mask_a", "mask_b",
	};
	static const char *const prefix[] = { "frame_", "xinuse_", "cpus_", "cpu_end_", "b_minus_a_" };
	size_t len = strlen(key);

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(key, exact[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(key, prefix[i], strlen(prefix[i])))
			return true;
	if (!strcmp(bench, "section") &&
	    ((len > 6 && !strcmp(key + len - 6, "_saves")) ||
	     (len > 9 && !strcmp(key + len - 9, "_restores"))))
		return true;
	return !strcmp(bench, "ctxsw") && (!strcmp(key, "batch") || !strcmp(key, "mask"));
}

static int read_params(struct fpl_run *run, json_t *params, json_t *observed, bool v1)
{
	const char *k;
	json_t *v;

	if (observed && json_object_update(run->observed, observed))
		return -ENOMEM;
	json_object_foreach(params, k, v)
		if (json_object_set(v1 && v1_measured(run->bench, k) ? run->observed : run->params,
				    k, v))
			return -ENOMEM;
	return 0;
}

static int read_run(json_t *o, struct fpl_result *r, const char *where, bool v1,
		    struct fpl_diag *diag)
{
	json_t *observed = json_object_get(o, "observed");
	json_t *bench = json_object_get(o, "bench"), *params = json_object_get(o, "params");
	json_t *skipped = json_object_get(o, "skipped"), *reason = json_object_get(o, "skip_reason");
	json_t *metrics = json_object_get(o, "metrics"), *m;
	struct fpl_run *run;
	char w[128];
	size_t i;
	int err;

	if (!json_is_object(o))
		return bad(diag, where, "not an object");
	if (!json_is_string(bench))
		return bad(diag, where, "needs a string \"bench\"");
	if (params && !json_is_object(params))
		return bad(diag, where, "\"params\" is not an object");
	if (observed && !json_is_object(observed))
		return bad(diag, where, "\"observed\" is not an object");
	if (skipped && !json_is_boolean(skipped))
		return bad(diag, where, "\"skipped\" is not true or false");
	if (reason && !json_is_string(reason) && !json_is_null(reason))
		return bad(diag, where, "\"skip_reason\" is not a string");
	if (metrics && !json_is_array(metrics))
		return bad(diag, where, "\"metrics\" is not an array");
	run = fpl_result_add_run(r, json_string_value(bench));
	if (!run)
		return -ENOMEM;
	if (read_params(run, params, observed, v1))
		return -ENOMEM;
	if (json_is_true(skipped) &&
	    fpl_run_skip(run, "%s", json_is_string(reason) ? json_string_value(reason) : ""))
		return -ENOMEM;
	snprintf(w, sizeof(w), "%s.warnings", where);
	err = read_warnings(json_object_get(o, "warnings"), run->warnings, w, diag);
	if (err)
		return err;
	json_array_foreach(metrics, i, m) {
		snprintf(w, sizeof(w), "%s.metrics[%zu]", where, i);
		err = read_metric(m, run, w, diag);
		if (err)
			return err;
	}
	return 0;
}

int fpl_result_from_json(json_t *doc, struct fpl_result **out, struct fpl_diag *diag)
{
	json_t *schema = json_object_get(doc, "schema"), *host = json_object_get(doc, "host");
	json_t *runs = json_object_get(doc, "runs"), *run;
	struct fpl_result *r;
	char w[64];
	size_t i;
	bool v1;
	int err;

	*out = NULL;
	if (!json_is_object(doc))
		return bad(diag, "(top)", "not a JSON object");
	if (!json_is_string(schema) || (strcmp(json_string_value(schema), FPL_RESULT_SCHEMA) &&
					strcmp(json_string_value(schema), FPL_RESULT_SCHEMA_V1)))
		return bad(diag, "schema", "not \"" FPL_RESULT_SCHEMA "\" (nor the older \""
			   FPL_RESULT_SCHEMA_V1 "\")");
	v1 = !strcmp(json_string_value(schema), FPL_RESULT_SCHEMA_V1);
	if (!json_is_object(host))
		return bad(diag, "host", "missing or not an object");
	if (!json_is_array(runs))
		return bad(diag, "runs", "missing or not an array");
	r = fpl_result_new();
	if (!r)
		return -ENOMEM;
	err = json_object_update(r->host, host) ? -ENOMEM : 0;
	if (!err)
		err = read_warnings(json_object_get(doc, "warnings"), r->warnings, "warnings", diag);
	json_array_foreach(runs, i, run) {
		if (err)
			break;
		snprintf(w, sizeof(w), "runs[%zu]", i);
		err = read_run(run, r, w, v1, diag);
	}
	if (err == -ENOMEM)
		fpl_diag_set(diag, err, "out of memory");
	if (err) {
		fpl_result_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int load_doc(json_t *doc, const char *path, struct fpl_result **out,
		    struct fpl_diag *diag)
{
	int err = fpl_result_from_json(doc, out, diag);

	json_decref(doc);
	if (err && diag) {
		char msg[sizeof(diag->msg)];

		memcpy(msg, diag->msg, sizeof(msg));
		fpl_diag_set(diag, err, "%.200s: %.300s", path, msg);
	}
	return err;
}

int fpl_result_load(const char *path, struct fpl_result **out, struct fpl_diag *diag)
{
	json_error_t jerr;
	json_t *doc;

	*out = NULL;
	doc = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!doc) {
		if (json_error_code(&jerr) == json_error_cannot_open_file)
			return fpl_diag_set(diag, -ENOENT, "%s: %s", path, jerr.text);
		return fpl_diag_set(diag, -EINVAL, "%s:%d:%d: %s", path, jerr.line, jerr.column,
				    jerr.text);
	}
	return load_doc(doc, path, out, diag);
}

int fpl_result_load_buf(const char *buf, size_t len, const char *name, struct fpl_result **out,
			struct fpl_diag *diag)
{
	json_error_t jerr;
	json_t *doc;

	*out = NULL;
	doc = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!doc)
		return fpl_diag_set(diag, -EINVAL, "%s:%d:%d: %s", name, jerr.line, jerr.column,
				    jerr.text);
	return load_doc(doc, name, out, diag);
}
