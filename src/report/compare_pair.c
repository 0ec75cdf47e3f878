// SPDX-License-Identifier: GPL-3.0-or-later
/* compare's pairs: variants of one document, runs matched by identity, the paired test. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

int fpl_cmp_variant_words(struct fpl_cmp *c, const char *spec, struct fpl_diag *diag)
{
	const char *comma = strchr(spec, ',');
	size_t len = comma ? (size_t)(comma - spec) : 0;

	if (!comma || !len || !comma[1] || strchr(comma + 1, ',') ||
	    (strlen(comma + 1) == len && !strncmp(spec, comma + 1, len)))
		return fpl_diag_set(diag, -EINVAL, "--variants wants two different words around "
				    "one comma, as without,with or _a,_b, not '%s'", spec);
	c->variant[0] = strndup(spec, len);
	c->variant[1] = strdup(comma + 1);
	return c->variant[0] && c->variant[1] ? 0 : -ENOMEM;
}

/* name with len characters at off replaced by with. */
static char *replaced(const char *name, size_t off, size_t len, const char *with)
{
	char *s;

	if (asprintf(&s, "%.*s%s%s", (int)off, name, with, name + off + len) < 0)
		return NULL;
	return s;
}

/* The series of cs with r's bench and params named name, not yet taken (role 0); or n. */
static size_t find_named(const struct fpl_cmp_case *cs, const struct fpl_cmp_raw *r,
			 const char *name, const char *role)
{
	for (size_t j = 0; j < cs->nr; j++) {
		const struct fpl_cmp_raw *o = &cs->r[j];

		if (!role[j] && o != r && o->name && !strcmp(o->name, name) &&
		    !strcmp(o->bench, r->bench) && !strcmp(o->params, r->params))
			return j;
	}
	return cs->nr;
}

/*
 * r's partner: the metric of its runs named with W2 in place of an
 * occurrence of W1 (the first occurrence that names one). Its index, or
 * cs->nr; *pair the two names joined, "{without,with}_cycles".
 */
static size_t partner(const struct fpl_cmp *c, const struct fpl_cmp_case *cs, size_t i,
		      const char *role, char **pair)
{
	const struct fpl_cmp_raw *r = &cs->r[i];
	size_t len = strlen(c->variant[0]);
	char *both;

	*pair = NULL;
	if (asprintf(&both, "{%s,%s}", c->variant[0], c->variant[1]) < 0)
		return cs->nr;
	for (const char *p = r->name ? strstr(r->name, c->variant[0]) : NULL; p;
	     p = strstr(p + 1, c->variant[0])) {
		char *name = replaced(r->name, (size_t)(p - r->name), len, c->variant[1]);
		size_t j = name ? find_named(cs, r, name, role) : cs->nr;

		free(name);
		if (j == cs->nr)
			continue;
		*pair = replaced(r->name, (size_t)(p - r->name), len, both);
		free(both);
		return *pair ? j : cs->nr;
	}
	free(both);
	return cs->nr;
}

/* Give r the pair's name in its name, key and label (its label ends with its name). */
static int rename_raw(struct fpl_cmp_raw *r, const char *pair)
{
	size_t keep = strlen(r->label) - strlen(r->name);
	char *key = NULL, *label = NULL, *name = strdup(pair);

	if (!name || asprintf(&key, "%s\x1f%s\x1f%s", r->bench, r->params, pair) < 0 ||
	    asprintf(&label, "%.*s%s", (int)keep, r->label, pair) < 0) {
		free(name);
		free(key);
		return -ENOMEM;
	}
	free(r->name);
	free(r->key);
	free(r->label);
	r->name = name;
	r->key = key;
	r->label = label;
	return 0;
}

/*
 * The pairs found (role 1: W1's metric, mate[i] its partner, role 2) into
 * cases[0] and cases[1] under the pair's name; the rest freed, counted in
 * *left with the first one's label in first (copied).
 */
static int regroup(struct fpl_cmp_case *cases, const char *role, const size_t *mate,
		   char **pair, size_t np, size_t *left, char *first, size_t flen)
{
	struct fpl_cmp_case *cs = &cases[0];
	struct fpl_cmp_raw *r0 = calloc(np, sizeof(*r0)), *r1 = calloc(np, sizeof(*r1));
	size_t k = 0;
	int err = r0 && r1 ? 0 : -ENOMEM;

	for (size_t i = 0; i < cs->nr && !err; i++) {
		if (role[i] == 1) {
			err = rename_raw(&cs->r[i], pair[i]);
			if (!err)
				err = rename_raw(&cs->r[mate[i]], pair[i]);
			r0[k] = cs->r[i];
			r1[k++] = cs->r[mate[i]];
			memset(&cs->r[i], 0, sizeof(cs->r[i]));
			memset(&cs->r[mate[i]], 0, sizeof(cs->r[i]));
		} else if (!role[i]) {
			if (!(*left)++)
				snprintf(first, flen, "%s", cs->r[i].label ? cs->r[i].label : "");
		}
	}
	if (err) {
		for (size_t i = 0; i < k; i++) {
			fpl_cmp_raw_free(&r0[i]);
			fpl_cmp_raw_free(&r1[i]);
		}
		free(r0);
		free(r1);
		return err;
	}
	for (size_t i = 0; i < cs->nr; i++)
		fpl_cmp_raw_free(&cs->r[i]);	/* those not taken; the taken ones are zeroed */
	free(cs->r);
	cs->r = r0;
	cases[1].r = r1;
	cs->nr = cases[1].nr = np;
	return 0;
}

/* Each metric of cases[0] with W1 in its name, and its partner: how many pairs. */
static size_t find_pairs(const struct fpl_cmp *c, const struct fpl_cmp_case *cs, char *role,
			 size_t *mate, char **pair)
{
	size_t np = 0;

	for (size_t i = 0; i < cs->nr; i++) {
		size_t j;

		if (role[i])
			continue;
		j = partner(c, cs, i, role, &pair[i]);
		if (j == cs->nr)
			continue;
		role[i] = 1;
		role[j] = 2;
		mate[i] = j;
		np++;
	}
	return np;
}

int fpl_cmp_split_variants(struct fpl_cmp *c, struct fpl_cmp_case *cases, struct fpl_diag *diag)
{
	struct fpl_cmp_case *cs = &cases[0];
	size_t n = cs->nr ? cs->nr : 1, np, left = 0;
	char *role = calloc(n, 1), **pair = calloc(n, sizeof(*pair)), first[256] = "";
	size_t *mate = calloc(n, sizeof(*mate));
	int err = role && pair && mate ? 0 : -ENOMEM;

	if (!err && cs->kind != FPL_CMP_RESULTS)
		err = fpl_diag_set(diag, -EINVAL, "--variants: %s is %s: variants are metrics of "
				   "an fpulab results document", cs->path, fpl_cmp_kind_names[cs->kind]);
	np = err ? 0 : find_pairs(c, cs, role, mate, pair);
	if (!err && !np)
		err = fpl_diag_set(diag, -EINVAL, "--variants %s,%s: no metric of %s has '%s' in "
				   "its name and a metric of the same runs (bench and params) "
				   "named with '%s' in its place", c->variant[0], c->variant[1],
				   cs->path, c->variant[0], c->variant[1]);
	if (!err)
		err = regroup(cases, role, mate, pair, np, &left, first, sizeof(first));
	if (!err && left)
		err = fpl_cmp_note(c, "--variants %s,%s: %zu metric%s of %s without a partner "
				   "(neither word, or no metric named with the other) left out, "
				   "first %s", c->variant[0], c->variant[1], left, left == 1 ? "" :
				   "s", cs->path, first);
	cases[1].kind = cs->kind;
	cases[1].kind_set = true;
	cases[1].nfiles = cs->nfiles;
	cases[1].path = c->paths[1];
	cs->path = c->paths[0];
	for (size_t i = 0; pair && i < n; i++)
		free(pair[i]);
	free(pair);
	free(role);
	free(mate);
	return err;
}

static int by_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * Runs that do not pair: case i cannot be paired with case 1 (no note); with
 * --paired, -EINVAL and the words, else 0.
 */
static int unmatched(const struct fpl_cmp *c, struct fpl_cmp_case *cs, struct fpl_diag *diag,
		     const char *fmt, ...) FPL_PRINTF(4, 5);
static int unmatched(const struct fpl_cmp *c, struct fpl_cmp_case *cs, struct fpl_diag *diag,
		     const char *fmt, ...)
{
	va_list ap;

	cs->same_runs = false;
	if (c->pairing != FPL_CMP_PAIRED_RUNS)
		return 0;
	if (diag) {
		va_start(ap, fmt);
		vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* r's run identities sorted into ids; the index of one that is missing or repeated, or nruns. */
static size_t sorted_ids(const struct fpl_cmp_raw *r, char **ids, bool *repeated)
{
	*repeated = false;
	for (size_t k = 0; k < r->nruns; k++) {
		if (!r->runid[k])
			return k;
		ids[k] = r->runid[k];
	}
	qsort(ids, r->nruns, sizeof(*ids), by_str);
	for (size_t k = 1; k < r->nruns; k++)
		if (!strcmp(ids[k], ids[k - 1])) {
			*repeated = true;
			for (size_t j = 0; j < r->nruns; j++)
				if (r->runid[j] == ids[k])
					return j;
		}
	return r->nruns;
}

/* The first run of r (input order) whose identity is not among sorted; or r->nruns. */
static size_t first_missing(const struct fpl_cmp_raw *r, char **sorted, size_t n)
{
	for (size_t k = 0; k < r->nruns; k++)
		if (!bsearch(&r->runid[k], sorted, n, sizeof(*sorted), by_str))
			return k;
	return r->nruns;
}

/* Both cases' runs carry identities, each once: 0; else unmatched()'s answer. */
static int check_ids(const struct fpl_cmp *c, struct fpl_cmp_case *cases, size_t i,
		     const struct fpl_cmp_raw *const *raw, char **ids, const char *label,
		     struct fpl_diag *diag)
{
	for (int j = 0; j < 2; j++) {
		size_t ci = j ? i : 0, bad;
		bool rep;

		if (!raw[j]->runid)
			return unmatched(c, &cases[i], diag, "--paired: case %zu (%s) is %s, which "
					 "records no run identity: pairs come from fpulab results "
					 "written by --runs", ci + 1, c->paths[ci],
					 fpl_cmp_kind_names[cases[ci].kind]);
		bad = sorted_ids(raw[j], ids + (j ? raw[0]->nruns : 0), &rep);
		if (bad < raw[j]->nruns && rep)
			return unmatched(c, &cases[i], diag, "--paired: case %zu (%s): %s: two of "
					 "its runs are one run (%s): a file given twice, or settings "
					 "merged by --ignore-param; the pairs would be ambiguous",
					 ci + 1, c->paths[ci], label, raw[j]->runid[bad]);
		if (bad < raw[j]->nruns)
			return unmatched(c, &cases[i], diag, "--paired: case %zu (%s): %s: its run "
					 "%zu has no run identity (observed run_index, run_pid and "
					 "run_started, which --runs writes)", ci + 1, c->paths[ci],
					 label, bad + 1);
	}
	return 0;
}

int fpl_cmp_runs_match(const struct fpl_cmp *c, struct fpl_cmp_case *cases, size_t i,
		       const struct fpl_cmp_raw *base, const struct fpl_cmp_raw *r,
		       const char *label, struct fpl_diag *diag)
{
	const struct fpl_cmp_raw *raw[2] = { base, r };
	size_t n = base->nruns + r->nruns, k;
	char **ids;
	int err;

	if (c->pairing == FPL_CMP_UNPAIRED && (!cases[i].same_runs || c->kind != FPL_CMP_RESULTS))
		return 0;
	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	err = check_ids(c, cases, i, raw, ids, label, diag);
	/* unpaired, runs without identities are simply not the same runs */
	for (int j = 0; j < 2 && !err && cases[i].same_runs; j++) {
		const struct fpl_cmp_raw *x = raw[j], *y = raw[!j];
		size_t cx = j ? i : 0, cy = j ? 0 : i;

		k = first_missing(x, ids + (j ? 0 : base->nruns), y->nruns);
		if (k < x->nruns)
			err = unmatched(c, &cases[i], diag, "--paired: case 1 (%s) and case %zu (%s) "
					"are not from the same runs: %s: run %zu of case %zu (%s) is "
					"not in %s", c->paths[0], i + 1, c->paths[i], label, k + 1,
					cx + 1, x->runid[k], c->paths[cy]);
	}
	free(ids);
	return err;
}

int fpl_cmp_note_same_runs(struct fpl_cmp *c, const struct fpl_cmp_case *cases)
{
	if (c->pairing != FPL_CMP_UNPAIRED || c->kind != FPL_CMP_RESULTS || !c->nm)
		return 0;
	for (size_t i = 1; i < c->ncases; i++)
		if (cases[i].same_runs &&
		    fpl_cmp_note(c, "case %zu (%s) and case 1 (%s): these cases come from the same "
				 "runs (the same run_index, run_pid and run_started): --paired "
				 "tests them as pairs, each run's difference, in which the run's "
				 "level cancels", i + 1, c->paths[i], c->paths[0]))
			return -ENOMEM;
	return 0;
}

/* Runs k of a and l of b are one run: the same position (variants) or identity (--paired). */
static bool same_run(const struct fpl_cmp *c, const struct fpl_cmp_series *a, size_t k,
		     const struct fpl_cmp_series *b, size_t l)
{
	if (c->pairing == FPL_CMP_PAIRED_VARIANTS)
		return a->run_pos && b->run_pos && a->run_pos[k] == b->run_pos[l];
	return a->run_ids && b->run_ids && a->run_ids[k] && b->run_ids[l] &&
	       !strcmp(a->run_ids[k], b->run_ids[l]);
}

/* The run values of a and b paired by run, into pa and pb; how many pairs. */
static size_t pair_values(const struct fpl_cmp *c, const struct fpl_cmp_series *a,
			  const struct fpl_cmp_series *b, double *pa, double *pb)
{
	size_t n = 0;

	for (size_t k = 0; k < a->nruns && b->nruns; k++)
		/* runs come in the same order in both, as a rule: look there first */
		for (size_t d = 0; d < b->nruns; d++) {
			size_t l = (k + d) % b->nruns;

			if (!same_run(c, a, k, b, l))
				continue;
			pa[n] = a->run_values[k];
			pb[n++] = b->run_values[l];
			break;
		}
	return n;
}

/* The per-run differences' stddev (n - 1), NaN below 2. */
static double diff_sd(const double *pa, const double *pb, size_t n)
{
	double mean = 0, m2 = 0;

	if (n < 2)
		return NAN;
	for (size_t k = 0; k < n; k++)
		mean += (pb[k] - pa[k]) / (double)n;
	for (size_t k = 0; k < n; k++)
		m2 += (pb[k] - pa[k] - mean) * (pb[k] - pa[k] - mean);
	return sqrt(m2 / (n - 1.0));
}

int fpl_cmp_pair_test(const struct fpl_cmp *c, const struct fpl_cmp_metric *m, size_t i,
		      struct fpl_cmp_test *t)
{
	const struct fpl_cmp_series *a = &m->s[0], *b = &m->s[i];
	size_t n = a->nruns ? a->nruns : 1;
	double *pa = malloc(2 * n * sizeof(*pa)), *pb = pa + n;
	double q = isfinite(t->resolution) ? t->resolution : 0;
	struct fpl_paired pr;
	int err;

	if (!pa)
		return -ENOMEM;
	t->paired = true;
	t->unpaired = t->t;
	t->unpaired_pct_half = fpl_cmp_pct_of_base(m, t->t.hi - t->t.diff);
	t->pairs = pair_values(c, a, b, pa, pb);
	t->diff_sd_pct = fpl_cmp_pct_of_base(m, diff_sd(pa, pb, t->pairs));
	t->runs_needed[0] = fpl_runs_needed_paired(t->diff_sd_pct, 0.5, c->opts.confidence);
	t->runs_needed[1] = fpl_runs_needed_paired(t->diff_sd_pct, 0.2, c->opts.confidence);
	err = t->pairs < 2 ? -EINVAL : fpl_paired_t(pa, pb, t->pairs, FPL_PAIR_DIFF, c->opts.trim,
						     c->opts.confidence, q, &pr);
	free(pa);
	if (err == -ENOMEM)
		return err;
	/* too few pairs (or too few left by the trim): no test, no verdict */
	t->verdict = !err && t->pairs >= FPL_MIN_RUNS;
	if (!err) {
		t->t = pr.t;
		t->pairs = pr.n;
	} else {
		t->t = (struct fpl_ttest){ .diff = b->center - a->center, .se = NAN, .df = NAN,
					   .t = NAN, .p = NAN, .tcrit = NAN, .lo = NAN, .hi = NAN,
					   .center_a = a->center, .center_b = b->center };
	}
	return 0;
}

static const char *pairing_words(const struct fpl_cmp *c)
{
	switch (c->pairing) {
	case FPL_CMP_PAIRED_RUNS:
		return "run identity";
	case FPL_CMP_PAIRED_VARIANTS:
		return "variants";
	default:
		return "unpaired";
	}
}

void fpl_cmp_pair_header(const struct fpl_cmp *c, FILE *out)
{
	if (c->pairing == FPL_CMP_PAIRED_RUNS)
		fprintf(out, "Pairs: each run of case 1 with the run of case N that has its run "
			"identity (observed run_index, run_pid, run_started), ");
	else if (c->pairing == FPL_CMP_PAIRED_VARIANTS)
		fprintf(out, "Pairs: each metric named with '%s' (case 1) with the one named with "
			"'%s' in its place, in the same run, ", c->variant[0], c->variant[1]);
	else
		return;
	fprintf(out, "so the run's level cancels in the difference; unpaired (%s's t on the "
		"same run values as independent cases) alongside for comparison.\n",
		fpl_cmp_unpaired_name(c));
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int fpl_cmp_pair_json(const struct fpl_cmp *c, const struct fpl_cmp_test *t, json_t *o)
{
	const struct fpl_ttest *u = &t->unpaired;
	json_t *uj;

	if (json_object_set_new(o, "paired", json_boolean(t->paired)))
		return -ENOMEM;
	if (!t->paired)
		return 0;
	uj = json_pack("{s:s, s:o, s:[o,o], s:o, s:o, s:o, s:o}", "test",
		       fpl_cmp_unpaired_name(c), "diff", num_or_null(u->diff), "ci",
		       num_or_null(u->lo), num_or_null(u->hi), "ci_half_pct",
		       num_or_null(t->unpaired_pct_half), "t", num_or_null(u->t), "df",
		       num_or_null(u->df), "p", num_or_null(u->p));
	if (!uj || json_object_set_new(o, "unpaired", uj) ||
	    json_object_set_new(o, "pairs", json_integer((json_int_t)t->pairs)) ||
	    json_object_set_new(o, "diff_sd_pct", num_or_null(t->diff_sd_pct)))
		return -ENOMEM;
	return 0;
}

int fpl_cmp_pairing_json(const struct fpl_cmp *c, json_t *root)
{
	json_t *v = c->variant[0] ? json_pack("[s,s]", c->variant[0], c->variant[1]) : json_null();

	if (!v || json_object_set_new(root, "pairing", json_string(pairing_words(c))) ||
	    json_object_set_new(root, "variants", v))
		return -ENOMEM;
	return 0;
}
