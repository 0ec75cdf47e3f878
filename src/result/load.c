// SPDX-License-Identifier: GPL-3.0-or-later
/* Read a results JSON document (schema fpulab/1) back into struct fpl_result. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "fpulab/result.h"

static int bad(struct fpl_diag *diag, const char *path, const char *what, size_t run)
{
	return fpl_diag_set(diag, -EINVAL, "%s: runs[%zu]: %s", path, run, what);
}

static int load_metric(struct fpl_run *run, json_t *jm, const char *path, size_t ri,
		       struct fpl_diag *diag)
{
	const char *name = json_string_value(json_object_get(jm, "name"));
	const char *unit = json_string_value(json_object_get(jm, "unit"));
	const char *method = json_string_value(json_object_get(jm, "method"));
	json_t *samples = json_object_get(jm, "samples"), *v, *extra;
	struct fpl_metric *m;
	size_t i;

	if (!json_is_object(jm) || !name || !unit)
		return bad(diag, path, "a metric without a name or unit", ri);
	if (!json_is_array(samples))
		return fpl_diag_set(diag, -EINVAL, "%s: runs[%zu]: metric %s has no samples array",
				    path, ri, name);
	m = fpl_run_add_metric(run, name, unit, method);
	if (!m)
		return -ENOMEM;
	json_array_foreach(samples, i, v) {
		if (!json_is_number(v))
			return fpl_diag_set(diag, -EINVAL,
					    "%s: runs[%zu]: metric %s: samples[%zu] is not a number",
					    path, ri, name, i);
		if (fpl_metric_add(m, json_number_value(v)))
			return -ENOMEM;
	}
	extra = json_object_get(jm, "extra");
	if (json_is_object(extra))
		m->extra = json_incref(extra);
	return 0;
}

static int load_run(struct fpl_result *r, json_t *jr, const char *path, size_t ri,
		    struct fpl_diag *diag)
{
	const char *bench = json_string_value(json_object_get(jr, "bench"));
	json_t *params = json_object_get(jr, "params"), *metrics, *jm, *w;
	const char *why;
	struct fpl_run *run;
	size_t i;
	int err;

	if (!json_is_object(jr) || !bench)
		return bad(diag, path, "not an object with a \"bench\" string", ri);
	run = fpl_result_add_run(r, bench);
	if (!run)
		return -ENOMEM;
	if (json_is_object(params) && json_object_update(run->params, params))
		return -ENOMEM;
	if (json_is_true(json_object_get(jr, "skipped"))) {
		why = json_string_value(json_object_get(jr, "skip_reason"));
		if (fpl_run_skip(run, "%s", why ? why : "skipped"))
			return -ENOMEM;
	}
	w = json_object_get(jr, "warnings");
	if (json_is_array(w) && json_array_extend(run->warnings, w))
		return -ENOMEM;
	metrics = json_object_get(jr, "metrics");
	if (metrics && !json_is_array(metrics))
		return bad(diag, path, "\"metrics\" is not an array", ri);
	json_array_foreach(metrics, i, jm) {
		err = load_metric(run, jm, path, ri, diag);
		if (err)
			return err;
	}
	return 0;
}

int fpl_result_load(const char *path, struct fpl_result **out, struct fpl_diag *diag)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_DECODE_ANY, &jerr), *runs, *jr, *v;
	struct fpl_result *r = NULL;
	const char *schema;
	int err = -EINVAL;
	size_t i;

	*out = NULL;
	if (!root)
		return fpl_diag_set(diag, -EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, FPL_RESULT_SCHEMA)) {
		fpl_diag_set(diag, err, "%s: not a results document (schema \"%s\" expected)",
			     path, FPL_RESULT_SCHEMA);
		goto out;
	}
	runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		fpl_diag_set(diag, err, "%s: no \"runs\" array", path);
		goto out;
	}
	err = -ENOMEM;
	r = fpl_result_new();
	if (!r)
		goto out;
	v = json_object_get(root, "host");
	if (json_is_object(v) && json_object_update(r->host, v))
		goto out;
	v = json_object_get(root, "warnings");
	if (json_is_array(v) && json_array_extend(r->warnings, v))
		goto out;
	json_array_foreach(runs, i, jr) {
		err = load_run(r, jr, path, i, diag);
		if (err)
			goto out;
	}
	err = 0;
	*out = r;
	r = NULL;
out:
	fpl_result_free(r);
	json_decref(root);
	return err;
}
