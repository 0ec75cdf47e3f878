// SPDX-License-Identifier: GPL-3.0-or-later
/* The result as a fpulab/2 JSON document: samples as taken, summaries computed from them. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/report.h"
#include "fpulab/stats.h"

#define SUMMARY_TRIM	10.0

/* JSON has no NaN or infinity: null stands for a sample that is not a number. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct fpl_metric *m)
{
	struct fpl_summary s;

	if (fpl_metric_summary(m, SUMMARY_TRIM, &s))
		return json_pack("{s:i}", "n", 0);
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:o}",
			 "n", (json_int_t)s.n, "min", num(s.min), "q1", num(s.q1),
			 "median", num(s.median), "q3", num(s.q3), "mean", num(s.mean),
			 "max", num(s.max), "stddev", num(s.stddev), "mad", num(s.mad),
			 "trim", s.trim, "trimmed_mean", num(s.trimmed_mean));
}

/* A string key when the value is known (non-NULL). */
static int set_str(json_t *o, const char *key, const char *v)
{
	return v && json_object_set_new(o, key, json_string(v)) ? -ENOMEM : 0;
}

/* The typed facts beside the method sentence (docs/results-schema.md, "metrics"). */
static int facts_json(json_t *o, const struct fpl_metric *m)
{
	const struct fpl_metric_how *h = fpl_metric_how(m);
	struct fpl_method_parts p;
	char *w = NULL, *u = NULL;
	int err;

	/* what was measured only where the method says more between it and the unit part */
	fpl_metric_method_parts(m, &p);
	if ((p.timing_len && !(w = strndup(p.what, p.what_len))) ||
	    (p.unit_len && !(u = strndup(p.unit, p.unit_len)))) {
		free(w);
		return -ENOMEM;
	}
	err = set_str(o, "family", fpl_metric_family(m)) ||
	      set_str(o, "kind", fpl_metric_kind_name(fpl_metric_kind(m))) ||
	      (h->reps == FPL_REPS_VARIES && set_str(o, "reps", "varies")) ||
	      (h->reps > 0 && json_object_set_new(o, "reps", json_integer(h->reps))) ||
	      set_str(o, "clock", fpl_metric_clock_name(h->clock)) ||
	      set_str(o, "overhead", fpl_metric_overhead_name(h->overhead)) ||
	      set_str(o, "conversion", fpl_metric_conv_name(h->conv)) ||
	      set_str(o, "method_what", w) || set_str(o, "method_unit", u) ||
	      set_str(o, "method_what_generic", m->what_generic) ? -ENOMEM : 0;
	free(w);
	free(u);
	return err;
}

static json_t *metric_json(const struct fpl_metric *m)
{
	json_t *samples = json_array(), *o;

	if (!samples)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (json_array_append_new(samples, num(m->samples[i]))) {
			json_decref(samples);
			return NULL;
		}
	o = json_pack("{s:s, s:s, s:s}", "name", m->name, "unit", m->unit,
		      "method", m->method ? m->method : "");
	if (!o || facts_json(o, m)) {
		json_decref(samples);
		json_decref(o);
		return NULL;
	}
	if (json_object_set_new(o, "samples", samples) ||
	    json_object_set_new(o, "summary", summary_json(m)) ||
	    (m->extra && json_object_set(o, "extra", m->extra))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *run_json(const struct fpl_run *run)
{
	json_t *metrics = json_array(), *o;

	if (!metrics)
		return NULL;
	for (size_t i = 0; i < run->nmetrics; i++)
		if (json_array_append_new(metrics, metric_json(run->metrics[i]))) {
			json_decref(metrics);
			return NULL;
		}
	o = json_pack("{s:s, s:O, s:O, s:b, s:o, s:O, s:o}", "bench", run->bench,
		      "params", run->params, "observed", run->observed, "skipped", run->skipped,
		      "skip_reason", run->skip_reason ? json_string(run->skip_reason) : json_null(),
		      "warnings", run->warnings, "metrics", metrics);
	return o;
}

json_t *fpl_report_json(const struct fpl_result *r)
{
	json_t *runs = json_array();

	if (!runs)
		return NULL;
	for (size_t i = 0; i < r->nruns; i++)
		if (json_array_append_new(runs, run_json(r->runs[i]))) {
			json_decref(runs);
			return NULL;
		}
	return json_pack("{s:s, s:O, s:o, s:O}", "schema", FPL_RESULT_SCHEMA, "host", r->host,
			 "runs", runs, "warnings", r->warnings);
}
