// SPDX-License-Identifier: GPL-3.0-or-later
/* Reading results back: a fpulab/2 (or older fpulab/1) JSON document into struct fpl_result, checked key by key. */
#include <ctype.h>
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

/*
 * Before a metric said its family, kind and method's parts (files written
 * before, and every fpulab/1 file), they are inferred here and nowhere else,
 * from the names and the method texts the benchmarks wrote, as the views
 * used to: docs/results-schema.md, "Files written before".
 */
static bool name_is_difference(const char *name)
{
	return name && (!strncmp(name, "diff", 4) || !strncmp(name, "b_minus_a", 9));
}

/* "<stem>_<unit>" (the harness's "with_cycles", ctxsw's "round_trip_tsc"): stem; "<unit>": "time". */
static int infer_family(struct fpl_metric *m)
{
	size_t n = strlen(m->name), u = strlen(m->unit);
	char *stem;
	int err;

	if (strcmp(m->unit, "cycles") && strcmp(m->unit, "tsc") && strcmp(m->unit, "ns"))
		return 0;
	if (!strcmp(m->name, m->unit))
		return fpl_metric_set_family(m, "time");
	if (n <= u + 1 || strcmp(m->name + n - u, m->unit) || m->name[n - u - 1] != '_')
		return 0;
	stem = strndup(m->name, n - u - 1);
	if (!stem)
		return -ENOMEM;
	err = fpl_metric_set_family(m, stem);
	free(stem);
	return err;
}

/* The harness's texts: "<what>; N reps per sample ...; <unit part>" (src/bench/harness.c). */
static void infer_parts(struct fpl_metric *m)
{
	static const char *const unit_markers[] = { "; core cycles ", "; TSC ticks ",
						    "; ns from TSC " };
	const char *s = m->method, *how = strstr(s, "; N reps per sample"), *u = NULL;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(unit_markers); i++) {
		const char *p = strstr(how ? how : s, unit_markers[i]);

		if (p && (!u || p < u))
			u = p;
	}
	m->what_len = how ? (size_t)(how - s) : u ? (size_t)(u - s) : strlen(s);
	m->timing_len = how ? (u ? (size_t)(u - how) : strlen(how)) - 2 : 0;
}

/* The conversion the unit part names last ("TSC ticks per signal ...; ns from TSC ticks ..."). */
static enum fpl_metric_conv infer_conv(const struct fpl_metric *m)
{
	static const struct { const char *says; enum fpl_metric_conv conv; } said[] = {
		{ "core cycles estimated", FPL_CONV_CYCLES_ESTIMATED },
		{ "core cycles counted", FPL_CONV_CYCLES_COUNTED },
		{ "ns from TSC", FPL_CONV_NS_FROM_TSC },
		{ "TSC ticks from ns", FPL_CONV_TSC_FROM_NS },
	};
	struct fpl_method_parts p;
	const char *last = NULL;
	enum fpl_metric_conv conv = FPL_CONV_UNKNOWN;

	fpl_metric_method_parts(m, &p);
	if (!p.unit_len)
		return FPL_CONV_UNKNOWN;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(said); i++) {
		const char *q = strstr(p.unit, said[i].says);

		for (const char *r = q; r; r = strstr(r + 1, said[i].says))
			q = r;
		if (q && (!last || q > last)) {
			last = q;
			conv = said[i].conv;
		}
	}
	return last ? conv : !strncmp(p.unit, "TSC ticks", 9) ? FPL_CONV_NONE : FPL_CONV_UNKNOWN;
}

/* A harness metric: timed with the TSC, N and the overhead removal in its family's tsc extra. */
static void infer_harness(const struct fpl_run *run, struct fpl_metric *m)
{
	const char *ovh = NULL;
	long long reps = 0;

	for (size_t i = 0; i < run->nmetrics; i++) {
		const struct fpl_metric *t = run->metrics[i];

		if (strcmp(t->unit, "tsc") || strcmp(fpl_metric_family(t), fpl_metric_family(m)))
			continue;
		reps = json_integer_value(json_object_get(t->extra, "reps"));
		ovh = json_string_value(json_object_get(t->extra, "overhead"));
	}
	m->how.clock = FPL_MCLOCK_TSC;
	m->how.reps = reps > 0 ? reps : 0;
	m->how.overhead = ovh && fpl_metric_overhead_by_name(ovh) > 0 ?
			  (enum fpl_metric_overhead)fpl_metric_overhead_by_name(ovh) :
			  FPL_OVERHEAD_UNKNOWN;
}

/* Replace every whole-word copy of word in s by repl (s is rewritten in place, size bytes). */
static void replace_word(char *s, size_t size, const char *word, const char *repl)
{
	size_t wl = strlen(word), rl = strlen(repl);
	char *p = s;

	if (!wl)
		return;
	while ((p = strstr(p, word))) {
		bool start = p == s || !isalnum((unsigned char)p[-1]);
		bool end = !isalnum((unsigned char)p[wl]) && p[wl] != '_';

		if (!start || !end || strlen(s) - wl + rl + 1 > size) {
			p += wl;
			continue;
		}
		memmove(p + rl, p + wl, strlen(p + wl) + 1);
		memcpy(p, repl, rl);
		p += rl;
	}
}

static const char *param_str(const struct fpl_run *run, const char *key)
{
	const char *v = fpl_run_param_get_str(run, key);

	return v ? v : "";
}

/*
 * An xsave cell's what-part with its instruction and component written INSN
 * and COMP (what_generic), from the words its method used: the mnemonic
 * (XSAVEC, XRSTOR64 (compacted image), ...) and the component of its
 * params. Other benchmarks' metrics have none.
 */
static int infer_generic(const struct fpl_run *run, struct fpl_metric *m)
{
	const char *insn = param_str(run, "insn");
	char what[1024], mn[32], comp[64];
	size_t k;

	if (strcmp(run->bench, "xsave") || !m->what_len)
		return 0;
	snprintf(what, sizeof(what), "%.*s", (int)m->what_len, m->method);
	for (k = 0; insn[k] && insn[k] != '-' && k + 3 < sizeof(mn); k++)
		mn[k] = (char)toupper((unsigned char)insn[k]);
	snprintf(mn + k, sizeof(mn) - k, "64 (compacted image)");
	replace_word(what, sizeof(what), mn, "INSN");
	mn[k + 2] = 0;
	snprintf(comp, sizeof(comp), "%s", param_str(run, "modified_component"));
	if (!*comp)
		snprintf(comp, sizeof(comp), "%s", param_str(run, "component"));
	if (json_object_get(run->params, "mask") || json_object_get(run->params, "experiment")) {
		snprintf(mn + k + 2, sizeof(mn) - k - 2, " (standard image)");
		replace_word(what, sizeof(what), mn, "INSN");
		mn[k + 2] = 0;
		replace_word(what, sizeof(what), mn, "INSN");
		replace_word(what, sizeof(what), comp, "COMP");
	}
	return fpl_metric_set_what_generic(m, what);
}

/* Everything a metric of a file written before the typed facts does not say. */
static int infer_facts(const struct fpl_run *run, struct fpl_metric *m)
{
	int err = infer_family(m);
	const char *fam = fpl_metric_family(m);

	/* section's speedup: inside against outside, about 0 where sections cost nothing */
	if (name_is_difference(m->name) || !strcmp(m->name, "speedup_pct"))
		m->kind = FPL_KIND_DIFFERENCE;
	else if (!strcmp(run->bench, "section") &&
		 (!strcmp(fam, "section") || !strcmp(fam, "one_section")))
		m->kind = FPL_KIND_NET;
	infer_parts(m);
	m->how.conv = infer_conv(m);
	if (m->timing_len)
		infer_harness(run, m);
	return err ? err : infer_generic(run, m);
}

/* "reps": a count, or "varies". */
static int read_reps(json_t *o, struct fpl_metric *m, const char *where, struct fpl_diag *diag)
{
	json_t *reps = json_object_get(o, "reps");

	if (!reps)
		return 0;
	if (json_is_string(reps) && !strcmp(json_string_value(reps), "varies"))
		m->how.reps = FPL_REPS_VARIES;
	else if (json_is_integer(reps) && json_integer_value(reps) > 0)
		m->how.reps = (long long)json_integer_value(reps);
	else
		return bad(diag, where, "\"reps\" is neither a count nor \"varies\"");
	return 0;
}

/*
 * The method's parts: method ends with "; " method_unit when that is given,
 * and starts with method_what "; " when that is given (the repetitions and
 * overhead between them, not empty); without method_what, what was measured is all
 * before the unit part. A value another writer named that this reader does
 * not know is left unknown: the facts describe, nothing depends on them.
 * The kind is not: a view decides by it.
 */
static int read_parts(json_t *o, struct fpl_metric *m, const char *where, struct fpl_diag *diag)
{
	const char *w = json_string_value(json_object_get(o, "method_what"));
	const char *u = json_string_value(json_object_get(o, "method_unit"));
	size_t len = strlen(m->method), ul = u && *u ? strlen(u) + 2 : 0;
	size_t wl = w ? strlen(w) : len - (ul < len ? ul : len);

	if (ul > len || (ul && (strncmp(m->method + len - ul, "; ", 2) ||
				strcmp(m->method + len - ul + 2, u))) ||
	    wl + ul > len || strncmp(m->method, w ? w : m->method, wl) ||
	    (w && wl + ul < len && (wl + ul + 2 >= len || strncmp(m->method + wl, "; ", 2))))
		return bad(diag, where, "\"method\" does not start with its \"method_what\" "
			   "and end with its \"method_unit\"");
	m->what_len = wl;
	m->timing_len = wl + ul < len ? len - ul - wl - 2 : 0;
	return 0;
}

static int read_facts(json_t *o, struct fpl_metric *m, const char *where, struct fpl_diag *diag)
{
	json_t *fam = json_object_get(o, "family"), *kind = json_object_get(o, "kind");
	int k;

	if (!json_is_string(fam) || !json_is_string(kind))
		return bad(diag, where, "\"kind\" needs a string \"family\" beside it");
	k = fpl_metric_kind_by_name(json_string_value(kind));
	if (k < 0)
		return bad(diag, where, "\"kind\" is not sample, difference or net");
	m->kind = (enum fpl_metric_kind)k;
	k = read_parts(o, m, where, diag);
	if (k)
		return k;
	k = fpl_metric_clock_by_name(json_string_value(json_object_get(o, "clock")));
	m->how.clock = k > 0 ? (enum fpl_metric_clock)k : FPL_MCLOCK_UNKNOWN;
	k = fpl_metric_overhead_by_name(json_string_value(json_object_get(o, "overhead")));
	m->how.overhead = k > 0 ? (enum fpl_metric_overhead)k : FPL_OVERHEAD_UNKNOWN;
	k = fpl_metric_conv_by_name(json_string_value(json_object_get(o, "conversion")));
	m->how.conv = k > 0 ? (enum fpl_metric_conv)k : FPL_CONV_UNKNOWN;
	if (fpl_metric_set_family(m, json_string_value(fam)) ||
	    fpl_metric_set_what_generic(m, json_string_value(json_object_get(o,
									      "method_what_generic"))))
		return -ENOMEM;
	return read_reps(o, m, where, diag);
}

static int read_samples(json_t *samples, struct fpl_metric *m, const char *where,
			struct fpl_diag *diag)
{
	char w[160];
	size_t i;
	json_t *x;

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
	return 0;
}

/* *typed: the metric said its facts (else the run infers them once all are read). */
static int read_metric(json_t *o, struct fpl_run *run, const char *where, bool *typed,
		       struct fpl_diag *diag)
{
	json_t *name = json_object_get(o, "name"), *unit = json_object_get(o, "unit");
	json_t *method = json_object_get(o, "method"), *samples = json_object_get(o, "samples");
	json_t *extra = json_object_get(o, "extra");
	struct fpl_metric *m;
	int err;

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
	*typed = json_object_get(o, "kind") != NULL;
	err = *typed ? read_facts(o, m, where, diag) : 0;
	if (!err)
		err = read_samples(samples, m, where, diag);
	if (!err && extra)
		m->extra = json_incref(extra);
	return err;
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
	bool *typed;
	char w[128];
	size_t i;
	int err = 0;

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
	typed = calloc(json_array_size(metrics) + 1, sizeof(*typed));
	if (!typed)
		return -ENOMEM;
	json_array_foreach(metrics, i, m) {
		snprintf(w, sizeof(w), "%s.metrics[%zu]", where, i);
		err = read_metric(m, run, w, &typed[i], diag);
		if (err)
			break;
	}
	for (i = 0; !err && i < run->nmetrics; i++)
		if (!typed[i])
			err = infer_facts(run, run->metrics[i]);
	free(typed);
	return err;
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
