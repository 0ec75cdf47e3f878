// SPDX-License-Identifier: GPL-3.0-or-later
/* Finding runs and figures in a result by name: what the summary, repro tables and plots read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"

const char *fpl_pick_param(const struct fpl_run *run, const char *key, char *buf, size_t size)
{
	json_t *v = run->params ? json_object_get(run->params, key) : NULL;

	buf[0] = 0;
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, size, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, size, "%s", json_is_true(v) ? "yes" : "no");
	return buf;
}

bool fpl_pick_match(const struct fpl_run *run, const char *bench, const char *spec)
{
	const char *p = spec;

	if (bench && strcmp(run->bench, bench))
		return false;
	while (p && *p) {
		size_t len = strcspn(p, " "), klen;
		const char *eq = memchr(p, '=', len);
		char key[64], buf[64];
		const char *have;

		if (!eq || (klen = (size_t)(eq - p)) >= sizeof(key))
			return false;
		memcpy(key, p, klen);
		key[klen] = 0;
		have = fpl_pick_param(run, key, buf, sizeof(buf));
		if (strlen(have) != len - klen - 1 || memcmp(have, eq + 1, len - klen - 1))
			return false;
		p += len;
		p += strspn(p, " ");
	}
	return true;
}

const struct fpl_run *fpl_pick_run(const struct fpl_result *r, const char *bench,
				   const char *spec)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_pick_match(r->runs[i], bench, spec))
			return r->runs[i];
	return NULL;
}

bool fpl_pick_stat(const struct fpl_run *run, const char *metric, struct fpl_summary *s)
{
	return run && !fpl_metric_summary(fpl_run_find_metric(run, metric), 10, s);
}

/* The value at a dotted path ("a.b.c") below v; NULL when a step is missing. */
static json_t *at_path(json_t *v, const char *path)
{
	char key[64];

	while (v && *path) {
		size_t len = strcspn(path, ".");

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = 0;
		v = json_object_get(v, key);
		path += len + (path[len] == '.');
	}
	return v;
}

static json_t *extra_at(const struct fpl_run *run, const char *metric, const char *path)
{
	const struct fpl_metric *m = run ? fpl_run_find_metric(run, metric) : NULL;

	return at_path(m ? m->extra : NULL, path);
}

double fpl_pick_extra(const struct fpl_run *run, const char *metric, const char *path)
{
	json_t *v = extra_at(run, metric, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *fpl_pick_extra_str(const struct fpl_run *run, const char *metric, const char *path)
{
	return json_string_value(extra_at(run, metric, path));
}

const char *fpl_pick_host_str(const struct fpl_result *r, const char *path)
{
	return json_string_value(at_path(r->host, path));
}
