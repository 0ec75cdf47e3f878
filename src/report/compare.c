// SPDX-License-Identifier: GPL-3.0-or-later
/* compare: match metrics across cases, summarise, test against the baseline, Holm. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/result.h"
#include "compare_internal.h"

static void metric_free(struct fpl_cmp_metric *m, size_t ncases)
{
	free(m->label);
	free(m->bench);
	free(m->name);
	free(m->params);
	free(m->unit);
	free(m->method);
	for (size_t i = 0; m->s && i < ncases; i++) {
		free(m->s[i].raw);
		free(m->s[i].run_len);
		free(m->s[i].run_values);
		free(m->s[i].sorted);
		for (size_t k = 0; m->s[i].run_ids && k < m->s[i].nruns; k++)
			free(m->s[i].run_ids[k]);
		free(m->s[i].run_ids);
		free(m->s[i].run_pos);
	}
	free(m->s);
	free(m->t);
}

void fpl_cmp_free(struct fpl_cmp *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nm; i++)
		metric_free(&c->m[i], c->ncases);
	free(c->m);
	for (size_t i = 0; i < c->ncases; i++)
		free(c->paths ? c->paths[i] : NULL);
	free(c->paths);
	free(c->nfiles);
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	free(c->variant[0]);
	free(c->variant[1]);
	free(c);
}

/*
 * xsave runs whose save-path reference was quiet in under half of its
 * readings read 3-5% high on a shared host (docs/method.md): a case with
 * such runs gets a note, so that a difference between cases is not read as
 * the kernel's when it is the host's.
 */
static int note_interference(struct fpl_cmp *c, const struct fpl_cmp_case *cases)
{
	for (size_t i = 0; i < c->ncases; i++) {
		const struct fpl_cmp_case *cs = &cases[i];

		if (!cs->nquiet || cs->quiet_lo >= FPL_QUIET_SHARE_SUSPECT)
			continue;
		if (fpl_cmp_note(c, "case %zu (%s): its xsave runs' FXSAVE64 reference was quiet in "
			 "%.0f-%.0f%% of readings; runs under %.0f%% read 3-5%% high on a shared "
			 "host (observed.interference.quiet_share), so a difference with another "
			 "case may be the host's", i + 1, c->paths[i], 100 * cs->quiet_lo,
			 100 * cs->quiet_hi, 100 * FPL_QUIET_SHARE_SUSPECT))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Matched metrics whose runs handled another task state than case 1's
 * (fpl_cmp_state_keys): a process that has used AMX tile data saves it in
 * every later save and delivers it in every signal frame, so section's
 * modelled save mask and the frame sizes change under the same params.
 */
static int note_state(struct fpl_cmp *c, const struct fpl_cmp_case *cases)
{
	for (size_t i = 1; i < c->ncases; i++)
		if (cases[i].state_differ &&
		    fpl_cmp_note(c, "case %zu (%s): %zu metric%s measured in another task state than "
			 "case 1's (%s): not the same measurement, though the params match (tile "
			 "data used earlier in the process, as after xsave's tile cells in fpulab "
			 "--amx run)", i + 1, cases[i].path, cases[i].state_differ,
			 cases[i].state_differ == 1 ? "" : "s", cases[i].state_first))
			return -ENOMEM;
	return 0;
}

/*
 * Cases whose results files came from other hosts, kernels or builds than
 * case 1's: the kernel is what a kernel A/B is meant to change (said, so
 * that a wrong file is seen); another CPU, microcode, hypervisor, XCR0 or
 * fpulab build is a second difference the figures cannot tell apart from
 * the first. A case whose own files differ is said too.
 */
static int note_hosts(struct fpl_cmp *c, const struct fpl_cmp_case *cases)
{
	for (size_t i = 0; i < c->ncases; i++)
		for (int k = 0; k < FPL_CMP_HOST_NR; k++) {
			const char *v = cases[i].host[k], *base = cases[0].host[k];
			int err = 0;

			if (v && !strcmp(v, "mixed"))
				err = fpl_cmp_note(c, "case %zu (%s): its files differ in their %s: the runs "
					   "of one case should share it", i + 1, c->paths[i],
					   fpl_cmp_host_words[k]);
			else if (!i || !v || !base || !strcmp(base, "mixed") || !strcmp(v, base))
				continue;
			else if (k == FPL_CMP_HOST_KERNEL)
				err = fpl_cmp_note(c, "case %zu (%s): kernel %s, case 1's %s", i + 1,
					   c->paths[i], v, base);
			else
				err = fpl_cmp_note(c, "case %zu (%s): another %s than case 1's (%s against "
					   "%s): a difference may be that, not what you changed",
					   i + 1, c->paths[i], fpl_cmp_host_words[k], v, base);
			if (err)
				return err;
		}
	return 0;
}

/*
 * Count o against case 1's r in cs when a state observation both recorded
 * (files from before did not) differs; the first one's words kept. -ENOMEM.
 */
static int state_differs(struct fpl_cmp_case *cs, const struct fpl_cmp_raw *r,
			 const struct fpl_cmp_raw *o)
{
	for (int k = 0; k < FPL_CMP_STATE_NR; k++) {
		if (!r->state[k] || !o->state[k] || !strcmp(r->state[k], o->state[k]))
			continue;
		if (!cs->state_differ++ &&
		    asprintf(&cs->state_first, "observed.%s %s against %s, first %s",
			     fpl_cmp_state_keys[k], o->state[k], r->state[k], r->label) < 0) {
			cs->state_first = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	return 0;
}

/*
 * The notes about whole cases (the host's interference, another task
 * state, another kernel, CPU or build) ahead of the per-metric ones that
 * matching made ("not in case 1"): a table shows only the first few.
 */
static int case_notes_first(struct fpl_cmp *c, const struct fpl_cmp_case *cases)
{
	size_t before = c->nnotes, k;
	char **moved;
	int err = fpl_cmp_note_same_runs(c, cases);

	if (!err)
		err = note_interference(c, cases);
	if (!err)
		err = note_state(c, cases);
	if (!err)
		err = note_hosts(c, cases);
	k = c->nnotes - before;
	if (err || !k || !before)
		return err;
	moved = malloc(k * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	memcpy(moved, c->notes + before, k * sizeof(*moved));
	memmove(c->notes + k, c->notes, before * sizeof(*moved));
	memcpy(c->notes, moved, k * sizeof(*moved));
	free(moved);
	return 0;
}

static struct fpl_cmp_raw *find(struct fpl_cmp_case *cs, const char *key)
{
	for (size_t i = 0; i < cs->nr; i++)
		if (!strcmp(cs->r[i].key, key))
			return &cs->r[i];
	return NULL;
}

static bool selected(const struct fpl_cmp_raw *r, const char *pattern)
{
	char both[512];

	if (!pattern)
		return true;
	snprintf(both, sizeof(both), "%s/%s", r->bench ? r->bench : "", r->name ? r->name : "");
	return !fnmatch(pattern, r->label, 0) || (r->name && !fnmatch(pattern, r->name, 0)) ||
	       (r->bench && !fnmatch(pattern, both, 0));
}

/*
 * A run with no sample left (all null) is no run: the runs of r kept, with
 * their identities and positions, into s; how many were empty.
 */
static size_t keep_runs(struct fpl_cmp_raw *r, struct fpl_cmp_series *s)
{
	size_t kept = 0, empty = 0;

	for (size_t k = 0; k < r->nruns; k++) {
		if (!r->runlen[k]) {
			empty++;
			if (r->runid)
				free(r->runid[k]);
			continue;
		}
		r->runlen[kept] = r->runlen[k];
		if (r->runid) {
			r->runid[kept] = r->runid[k];
			r->runpos[kept] = r->runpos[k];
		}
		kept++;
	}
	s->raw = r->v;
	s->n = r->n;
	s->run_len = r->runlen;
	s->run_ids = r->runid;
	s->run_pos = r->runpos;
	s->nruns = kept;
	r->v = NULL;
	r->runlen = NULL;
	r->runid = NULL;
	r->runpos = NULL;
	r->nruns = 0;
	return empty;
}

/* Move a matched metric's text and values out of the cases into c->m[c->nm]. */
static int take(struct fpl_cmp *c, struct fpl_cmp_case *cases, struct fpl_cmp_raw *base,
		struct fpl_diag *diag)
{
	struct fpl_cmp_metric *m = &c->m[c->nm];
	int err = 0;

	/* whether the runs pair up: before any run is moved or left out */
	for (size_t i = 1; i < c->ncases && !err && c->pairing != FPL_CMP_PAIRED_VARIANTS; i++)
		err = fpl_cmp_runs_match(c, cases, i, base, find(&cases[i], base->key),
					 base->label, diag);
	if (err)
		return err;
	memset(m, 0, sizeof(*m));
	m->s = calloc(c->ncases, sizeof(*m->s));
	m->t = calloc(c->ncases, sizeof(*m->t));
	if (!m->s || !m->t) {
		free(m->s);
		free(m->t);
		return -ENOMEM;
	}
	c->nm++;
#define MOVE(f) (m->f = base->f, base->f = NULL)
	MOVE(label);
	MOVE(bench);
	MOVE(name);
	MOVE(params);
	MOVE(unit);
	MOVE(method);
#undef MOVE
	m->kind = base->kind;
	for (size_t i = 0; i < c->ncases; i++) {
		struct fpl_cmp_raw *r = i ? find(&cases[i], base->key) : base;
		size_t empty = keep_runs(r, &m->s[i]);

		if (r->dropped && fpl_cmp_note(c, "%s: case %zu: %zu null samples left out",
					       m->label, i + 1, r->dropped))
			return -ENOMEM;
		if (empty && fpl_cmp_note(c, "%s: case %zu: %zu run%s without a sample left out",
					  m->label, i + 1, empty, empty == 1 ? "" : "s"))
			return -ENOMEM;
	}
	return 0;
}

static int match(struct fpl_cmp *c, struct fpl_cmp_case *cases, struct fpl_diag *diag)
{
	size_t nsel = 0;
	int err;

	c->m = calloc(cases[0].nr ? cases[0].nr : 1, sizeof(*c->m));
	if (!c->m)
		return -ENOMEM;
	for (size_t k = 0; k < cases[0].nr; k++) {
		struct fpl_cmp_raw *r = &cases[0].r[k], *o;
		size_t missing = 0;

		if (!selected(r, c->opts.metric))
			continue;
		nsel++;
		for (size_t i = 1; i < c->ncases; i++) {
			o = find(&cases[i], r->key);
			if (!o) {
				missing = i;
				break;
			}
			if (strcmp(o->unit, r->unit))
				return fpl_diag_set(diag, -EINVAL,
						    "mixed units: %s is in '%s' in %s but in '%s' in %s",
						    r->label, r->unit, r->where, o->unit, o->where);
			if (state_differs(&cases[i], r, o))
				return -ENOMEM;
		}
		if (missing) {
			err = fpl_cmp_note(c, "%s: not in case %zu (%s), not compared", r->label,
				   missing + 1, cases[missing].path);
		} else {
			err = take(c, cases, r, diag);
		}
		if (err)
			return err;
	}
	for (size_t i = 1; i < c->ncases; i++)
		for (size_t k = 0; k < cases[i].nr; k++)
			if (selected(&cases[i].r[k], c->opts.metric) &&
			    !find(&cases[0], cases[i].r[k].key) &&
			    fpl_cmp_note(c, "%s: not in case 1 (%s), not compared", cases[i].r[k].label,
				 cases[0].path))
				return -ENOMEM;
	if (!nsel)
		return fpl_diag_set(diag, -EINVAL, "metric pattern '%s' matches no metric of case 1 (%s)",
				    c->opts.metric, cases[0].path);
	if (!c->nm)
		return fpl_diag_set(diag, -EINVAL, "no metric is in every case: %s (cases that "
				    "differ in a setting, --state say, match with --ignore-param "
				    "state)", c->nnotes ? c->notes[0] : "");
	return 0;
}

/* Each run's value and the within-run spread; the tested values. */
static int run_values(const struct fpl_cmp *c, struct fpl_cmp_series *s)
{
	size_t maxlen = 1, off = 0, nw = 0;
	double *buf, *work, *wcv;
	int err = 0;

	for (size_t k = 0; k < s->nruns; k++)
		if (s->run_len[k] > maxlen)
			maxlen = s->run_len[k];
	s->run_values = malloc((s->nruns ? s->nruns : 1) * sizeof(*s->run_values));
	buf = malloc(2 * maxlen * sizeof(*buf));
	wcv = malloc((s->nruns ? s->nruns : 1) * sizeof(*wcv));
	if (!s->run_values || !buf || !wcv) {
		err = -ENOMEM;
		goto out;
	}
	work = buf + maxlen;
	for (size_t k = 0; k < s->nruns; k++) {
		size_t len = s->run_len[k];
		double cv;

		memcpy(buf, s->raw + off, len * sizeof(*buf));
		off += len;
		fpl_sort(buf, len);
		s->run_values[k] = fpl_run_value_sorted(buf, len, c->opts.trim);
		cv = fpl_robust_cv_sorted(buf, len, work);
		if (isfinite(cv))
			wcv[nw++] = cv;
	}
	fpl_sort(wcv, nw);
	s->within_cv = nw ? fpl_quantile_sorted(wcv, nw, 0.5) : NAN;
	s->values = c->opts.within_run ? s->raw : s->run_values;
	s->nv = c->opts.within_run ? s->n : s->nruns;
out:
	free(buf);
	free(wcv);
	return err;
}

static int summarise(struct fpl_cmp *c, struct fpl_cmp_metric *m, size_t i,
		     struct fpl_diag *diag)
{
	struct fpl_cmp_series *s = &m->s[i];
	size_t g;
	int err;

	if (!s->n || !s->nruns)
		return fpl_diag_set(diag, -EINVAL, "case %zu (%s): empty case: no values of %s",
				    i + 1, c->paths[i], m->label);
	err = run_values(c, s);
	if (err)
		return err;
	g = fpl_trim_count(s->nv, c->opts.trim);
	/* the trim asked for leaves too little (one run alone is no error: no verdict) */
	if (g && s->nv - 2 * g < 2)
		return fpl_diag_set(diag, -EINVAL,
				    "case %zu (%s): %s: %zu value%s, fewer than 2 left after trimming %g%% from each end",
				    i + 1, c->paths[i], m->label, s->nv, s->nv == 1 ? "" : "s",
				    c->opts.trim);
	s->sorted = malloc(s->nv * sizeof(*s->sorted));
	if (!s->sorted)
		return -ENOMEM;
	memcpy(s->sorted, s->values, s->nv * sizeof(*s->sorted));
	fpl_sort(s->sorted, s->nv);
	if (fpl_summarize_sorted(s->sorted, s->nv, c->opts.trim, &s->sum))
		return -ENOMEM;
	s->center = c->opts.trim > 0 ? s->sum.trimmed_mean : s->sum.mean;
	if (s->nruns >= 2) {
		double m2 = 0, mean = 0;

		for (size_t k = 0; k < s->nruns; k++)
			mean += s->run_values[k] / s->nruns;
		for (size_t k = 0; k < s->nruns; k++)
			m2 += (s->run_values[k] - mean) * (s->run_values[k] - mean);
		s->between_cv = mean ? 100 * sqrt(m2 / (s->nruns - 1)) / fabs(mean) : NAN;
	} else {
		s->between_cv = NAN;
	}
	/* a spread in percent of a centre near 0 (fpl_cmp_pct_of_base): none */
	if (m->kind == FPL_KIND_DIFFERENCE)
		s->between_cv = s->within_cv = NAN;
	return 0;
}

/* The two cases' between-run spread together: for the runs a target needs. */
static double pooled_cv(const struct fpl_cmp_series *a, const struct fpl_cmp_series *b)
{
	bool fa = isfinite(a->between_cv), fb = isfinite(b->between_cv);

	if (fa && fb)
		return sqrt((a->between_cv * a->between_cv + b->between_cv * b->between_cv) / 2);
	return fa ? a->between_cv : fb ? b->between_cv : NAN;
}

static void no_test(struct fpl_cmp_test *t)
{
	t->t = (struct fpl_ttest){ .diff = NAN, .se = NAN, .df = NAN, .t = NAN, .p = NAN,
				   .tcrit = NAN, .lo = NAN, .hi = NAN, .center_a = NAN,
				   .center_b = NAN };
	t->mw = (struct fpl_mwu){ .u = NAN, .mean = NAN, .sd = NAN, .z = NAN, .p = NAN };
	t->boot = (struct fpl_boot){ .ratio = NAN, .lo = NAN, .hi = NAN };
}

/*
 * The step of x[0..n) when its values sit on a lattice: the smallest gap
 * between distinct values, when there are ties (a quantised measurement
 * repeats values; continuous ones almost never do) and every value is a
 * whole number of such gaps above the smallest. INFINITY otherwise.
 */
static double min_gap(const double *x, size_t n, double *v)
{
	size_t k = 0;
	double q = INFINITY;
	bool ties = false;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	fpl_sort(v, k);
	for (size_t i = 1; i < k; i++) {
		if (v[i] == v[i - 1])
			ties = true;
		else if (v[i] - v[i - 1] < q)
			q = v[i] - v[i - 1];
	}
	if (!ties || !isfinite(q))
		return INFINITY;
	for (size_t i = 1; i < k; i++) {
		double steps = (v[i] - v[0]) / q;

		if (fabs(steps - round(steps)) > 1e-6 * fmax(1, steps))
			return INFINITY;
	}
	return q;
}

/*
 * The measurement's step: per run the step of its samples' lattice (one
 * run's samples share one conversion, so they sit on one lattice; runs
 * converted with their own TSC rate do not share it), and the largest of
 * those over the runs of both series. NaN when no run is quantised.
 */
static double resolution(const struct fpl_cmp_series *a, const struct fpl_cmp_series *b)
{
	const struct fpl_cmp_series *sr[2] = { a, b };
	size_t max = 1;
	double q = -INFINITY, *v;

	for (int j = 0; j < 2; j++)
		for (size_t k = 0; k < sr[j]->nruns; k++)
			if (sr[j]->run_len[k] > max)
				max = sr[j]->run_len[k];
	v = malloc(max * sizeof(*v));
	if (!v)
		return NAN;
	for (int j = 0; j < 2; j++) {
		size_t off = 0;

		for (size_t k = 0; k < sr[j]->nruns; k++) {
			double g = min_gap(sr[j]->raw + off, sr[j]->run_len[k], v);

			off += sr[j]->run_len[k];
			if (isfinite(g) && g > q)
				q = g;
		}
	}
	free(v);
	return isfinite(q) ? q : NAN;
}

static int test(struct fpl_cmp *c, struct fpl_cmp_metric *m, size_t i)
{
	const struct fpl_cmp_series *a = &m->s[0], *b = &m->s[i];
	struct fpl_cmp_test *t = &m->t[i];
	int err = 0;

	t->verdict = c->opts.within_run || (a->nruns >= FPL_MIN_RUNS && b->nruns >= FPL_MIN_RUNS);
	t->cv = pooled_cv(a, b);
	t->runs_needed[0] = fpl_runs_needed(t->cv, 0.5, c->opts.confidence);
	t->runs_needed[1] = fpl_runs_needed(t->cv, 0.2, c->opts.confidence);
	/* a quantised measurement: its runs' values carry the step's rounding */
	t->resolution = resolution(a, b);
	if (a->nv < 2 || b->nv < 2) {
		no_test(t);
		t->t.diff = b->center - a->center;
		t->verdict = false;
	} else {
		err = fpl_yuen_sorted_step(a->sorted, a->nv, b->sorted, b->nv, c->opts.trim,
					   c->opts.confidence, c->opts.within_run ? 0 :
					   t->resolution, &t->t);
		if (!err)
			err = fpl_mann_whitney_sorted(a->sorted, a->nv, b->sorted, b->nv, &t->mw);
		if (!err && c->opts.bootstrap)
			err = fpl_bootstrap_ratio_sorted(a->sorted, a->nv, b->sorted, b->nv,
							 c->opts.trim, c->opts.confidence,
							 c->opts.bootstrap, c->opts.seed, &t->boot);
	}
	/* variants of the same runs: the per-run differences are the replicates */
	if (!err && c->pairing != FPL_CMP_UNPAIRED)
		err = fpl_cmp_pair_test(c, m, i, t);
	t->below_resolution = !c->opts.within_run && isfinite(t->resolution) &&
			      fabs(t->t.diff) <= t->resolution * (1 + 1e-9);
	/* n/a (null in JSON) where a percentage means nothing, with the absolute difference */
	t->pct = fpl_cmp_pct_of_base(m, t->t.diff);
	t->pct_half = fpl_cmp_pct_of_base(m, t->t.hi - t->t.diff);
	return err;
}

/* Holm over every case-versus-baseline comparison (of every metric) that has a verdict. */
static int holm(struct fpl_cmp *c)
{
	size_t n = c->nm * (c->ncases - 1), k = 0;
	double *p = malloc((n ? n : 1) * sizeof(*p)), *adj = malloc((n ? n : 1) * sizeof(*adj));
	double alpha = 1 - c->opts.confidence / 100;
	int err = -ENOMEM;

	if (!p || !adj)
		goto out;
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 1; i < c->ncases; i++)
			if (c->m[j].t[i].verdict)
				p[k++] = c->m[j].t[i].t.p;
	err = fpl_holm(p, k, adj);
	if (err)
		goto out;
	c->family = k;
	k = 0;
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 1; i < c->ncases; i++) {
			struct fpl_cmp_test *t = &c->m[j].t[i];

			if (!t->verdict) {
				t->p_holm = NAN;
				t->proven = false;
				c->no_verdict++;
				continue;
			}
			t->p_holm = adj[k++];
			t->proven = !isnan(t->t.p) && t->p_holm < alpha && !t->below_resolution;
			c->different += t->proven;
		}
out:
	free(p);
	free(adj);
	return err;
}

static int setup(struct fpl_cmp **out, char *const *paths, size_t ncases,
		 const struct fpl_cmp_opts *opts, struct fpl_diag *diag)
{
	struct fpl_cmp *c = calloc(1, sizeof(*c));
	size_t n = opts->variants ? 2 : ncases;
	int err = 0;

	*out = c;
	if (!c)
		return -ENOMEM;
	c->opts = *opts;
	c->ncases = n;
	c->pairing = opts->variants ? FPL_CMP_PAIRED_VARIANTS :
		     opts->paired ? FPL_CMP_PAIRED_RUNS : FPL_CMP_UNPAIRED;
	c->paths = calloc(n, sizeof(*c->paths));
	c->nfiles = calloc(n, sizeof(*c->nfiles));
	if (!c->paths || !c->nfiles)
		return -ENOMEM;
	/* --variants: the one document's two cases are "x.json:without" and "x.json:with" */
	if (opts->variants && !(err = fpl_cmp_variant_words(c, opts->variants, diag)))
		for (size_t i = 0; i < 2 && !err; i++)
			if (asprintf(&c->paths[i], "%s:%s", paths[0], c->variant[i]) < 0) {
				c->paths[i] = NULL;
				err = -ENOMEM;
			}
	for (size_t i = 0; i < n && !err && !opts->variants; i++)
		if (!(c->paths[i] = strdup(paths[i])))
			err = -ENOMEM;
	return err;
}

static int check_opts(size_t ncases, const struct fpl_cmp_opts *opts, struct fpl_diag *diag)
{
	if (opts->variants && ncases != 1)
		return fpl_diag_set(diag, -EINVAL, "--variants %s makes two cases of one results "
				    "document: give one case, not %zu", opts->variants, ncases);
	if (!opts->variants && ncases < 2)
		return fpl_diag_set(diag, -EINVAL, "at least two cases are needed");
	if (!(opts->trim >= 0 && opts->trim < 50) ||
	    !(opts->confidence > 0 && opts->confidence < 100))
		return fpl_diag_set(diag, -EINVAL, "trim must be in [0, 50) and confidence in (0, 100)");
	if ((opts->paired || opts->variants) && opts->within_run)
		return fpl_diag_set(diag, -EINVAL, "%s pairs run values; --within-run pools every "
				    "sample instead", opts->paired ? "--paired" : "--variants");
	return 0;
}

/* An --ignore-param key in no case's params is a mistyped key, not a match. */
static int check_ignored(const struct fpl_cmp_case *cases, size_t ncases, const char *list,
			 struct fpl_diag *diag)
{
	uint64_t found = 0;
	const char *p = list;

	for (size_t i = 0; i < ncases; i++)
		found |= cases[i].ignore_found;
	for (unsigned i = 0; p && *p && i < 64; i++) {
		const char *e = strchr(p, ',');
		int len = e ? (int)(e - p) : (int)strlen(p);

		if (len && !(found >> i & 1))
			return fpl_diag_set(diag, -EINVAL, "--ignore-param %.*s: no case's runs "
					    "have that params key", len, p);
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int fpl_cmp_run(char *const *paths, size_t ncases, const struct fpl_cmp_opts *opts,
		struct fpl_cmp **out, struct fpl_diag *diag)
{
	size_t nc = ncases < 2 ? 2 : ncases;
	struct fpl_cmp_case *cases = calloc(nc, sizeof(*cases));
	struct fpl_cmp *c = NULL;
	int err;

	*out = NULL;
	if (!cases)
		return -ENOMEM;
	err = check_opts(ncases, opts, diag);
	if (!err)
		err = setup(&c, paths, ncases, opts, diag);
	for (size_t i = 0; !err && i < ncases; i++)
		err = fpl_cmp_read_case(&cases[i], paths[i], i, opts, diag);
	if (!err && opts->variants)
		err = fpl_cmp_split_variants(c, cases, diag);
	if (!err)
		err = check_ignored(cases, c->ncases, opts->ignore_params, diag);
	for (size_t i = 1; !err && i < c->ncases; i++)
		if (cases[i].kind != cases[0].kind)
			err = fpl_diag_set(diag, -EINVAL, "case %zu (%s) is %s but case 1 (%s) is %s",
					   i + 1, c->paths[i], fpl_cmp_kind_names[cases[i].kind],
					   c->paths[0], fpl_cmp_kind_names[cases[0].kind]);
	if (!err) {
		c->kind = cases[0].kind;
		for (size_t i = 0; i < c->ncases; i++) {
			c->nfiles[i] = cases[i].nfiles;
			cases[i].same_runs = i > 0;
		}
		err = match(c, cases, diag);
	}
	if (!err)
		err = case_notes_first(c, cases);
	for (size_t j = 0; !err && j < c->nm; j++)
		for (size_t i = 0; !err && i < c->ncases; i++)
			err = summarise(c, &c->m[j], i, diag);
	for (size_t j = 0; !err && j < c->nm; j++)
		for (size_t i = 1; !err && i < c->ncases; i++)
			err = test(c, &c->m[j], i);
	if (!err)
		err = holm(c);
	for (size_t i = 0; i < nc; i++)
		fpl_cmp_case_free(&cases[i]);
	free(cases);
	if (err)
		fpl_cmp_free(c);
	else
		*out = c;
	return err;
}
