// SPDX-License-Identifier: GPL-3.0-or-later
/* A seeded simulation of compare's method: cases of runs with a random offset per run. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fpulab/stats.h"

/*
 * One run's samples into s: base (1 + within-run noise) each, a preempted
 * sample (probability outliers) turned into -3 times itself, as a negative
 * N/2N difference would be.
 */
static void draw_samples(const struct fpl_sim_opts *o, double base, gsl_rng *rng, double *s)
{
	for (size_t i = 0; i < o->samples; i++) {
		s[i] = base * (1 + gsl_ran_gaussian(rng, o->within_cv / 100));
		if (o->outliers > 0 && gsl_rng_uniform(rng) < o->outliers)
			s[i] *= -3;
	}
}

/* One run's value: its samples (in buf) sorted, their median or trimmed mean. */
static double run_value(const struct fpl_sim_opts *o, double base, gsl_rng *rng, double *buf)
{
	draw_samples(o, base, rng, buf);
	fpl_sort(buf, o->samples);
	return fpl_run_value_sorted(buf, o->samples, o->trim);
}

/* A run's offset: 100 (1 + effect) (1 + offset of the run). */
static double run_base(const struct fpl_sim_opts *o, double effect, gsl_rng *rng)
{
	return 100 * (1 + effect / 100) * (1 + gsl_ran_gaussian(rng, o->between_cv / 100));
}

/*
 * One case of one metric: runs x samples, each sample
 * 100 (1 + effect) (1 + offset of its run) (1 + within-run noise). Into
 * vals: the run values (or, pooled, every sample), sorted.
 */
static size_t one_case(const struct fpl_sim_opts *o, double effect, gsl_rng *rng, double *buf,
		       double *vals)
{
	size_t nv = 0;

	for (size_t k = 0; k < o->runs; k++) {
		double base = run_base(o, effect, rng);

		if (o->pooled) {
			draw_samples(o, base, rng, vals + nv);
			nv += o->samples;
		} else {
			vals[nv++] = run_value(o, base, rng, buf);
		}
	}
	fpl_sort(vals, nv);
	return nv;
}

/*
 * Both variants of one metric timed in the same runs: run k's offset is
 * shared by its a and b (b effect percent higher), each sample its own
 * noise. a and b in run order; sa and sb the same values sorted.
 */
static void one_pair(const struct fpl_sim_opts *o, double effect, gsl_rng *rng, double *buf,
		     double *a, double *b, double *sa, double *sb)
{
	for (size_t k = 0; k < o->runs; k++) {
		double base = run_base(o, 0, rng);

		a[k] = run_value(o, base, rng, buf);
		b[k] = run_value(o, base * (1 + effect / 100), rng, buf);
	}
	memcpy(sa, a, o->runs * sizeof(*sa));
	memcpy(sb, b, o->runs * sizeof(*sb));
	fpl_sort(sa, o->runs);
	fpl_sort(sb, o->runs);
}

struct sim_buf {
	double *buf, *a, *b, *sa, *sb;
};

/* Metric j of one trial: its test into *tt; paired, the unpaired half-width too. */
static int one_metric(const struct fpl_sim_opts *o, size_t j, gsl_rng *rng, struct sim_buf *w,
		      struct fpl_ttest *tt, double *half_u)
{
	double effect = j ? 0 : o->effect;
	struct fpl_paired pr;
	struct fpl_ttest u;
	int err;

	if (!o->paired) {
		size_t na = one_case(o, 0, rng, w->buf, w->sa);
		size_t nb = one_case(o, effect, rng, w->buf, w->sb);

		return fpl_yuen_sorted(w->sa, na, w->sb, nb, o->trim, o->conf, tt);
	}
	one_pair(o, effect, rng, w->buf, w->a, w->b, w->sa, w->sb);
	err = fpl_paired_t(w->a, w->b, o->runs, FPL_PAIR_DIFF, o->trim, o->conf, 0, &pr);
	if (!err)
		err = fpl_yuen_sorted(w->sa, o->runs, w->sb, o->runs, o->trim, o->conf, &u);
	if (err)
		return err;
	*tt = pr.t;
	*half_u = 100 * (u.hi - u.diff) / fabs(u.center_a);
	return 0;
}

/* Holm over one trial's metrics: a false claim, the effect found; into r. */
static int judge(const struct fpl_sim_opts *o, const double *p, const double *diff, double *adj,
		 struct fpl_sim_result *r)
{
	double alpha = 1 - o->conf / 100;
	bool false_claim = false;
	int err = fpl_holm(p, o->metrics, adj);

	for (size_t j = 0; !err && j < o->metrics; j++) {
		bool claim = !isnan(p[j]) && adj[j] < alpha;

		if (claim && (j || !o->effect))
			false_claim = true;
		if (claim && !j && o->effect && (diff[0] > 0) == (o->effect > 0))
			r->found++;
	}
	r->false_claims += false_claim;
	return err;
}

static int bad_opts(const struct fpl_sim_opts *o)
{
	return !o->metrics || o->runs < 2 || !o->samples || !(o->conf > 0 && o->conf < 100) ||
	       (o->paired && o->pooled);
}

int fpl_sim_runs(const struct fpl_sim_opts *o, struct fpl_sim_result *r)
{
	size_t nv = o->pooled ? o->runs * o->samples : o->runs, m = o->metrics;
	double *p = malloc((m ? m : 1) * sizeof(*p)), *adj = malloc((m ? m : 1) * sizeof(*adj));
	double *diff = malloc((m ? m : 1) * sizeof(*diff)), half = 0, half_u = 0;
	double *mem = malloc(((o->samples ? o->samples : 1) + 4 * (nv ? nv : 1)) * sizeof(*mem));
	struct sim_buf w = { .buf = mem };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int err = 0;

	*r = (struct fpl_sim_result){ .trials = o->trials };
	if (!p || !adj || !diff || !mem || !rng) {
		err = -ENOMEM;
		goto out;
	}
	if (bad_opts(o)) {
		err = -EINVAL;
		goto out;
	}
	w.a = mem + (o->samples ? o->samples : 1);
	w.b = w.a + nv;
	w.sa = w.b + nv;
	w.sb = w.sa + nv;
	gsl_rng_set(rng, o->seed);
	for (size_t t = 0; t < o->trials && !err; t++) {
		for (size_t j = 0; j < m && !err; j++) {
			struct fpl_ttest tt;
			double hu = NAN;

			err = one_metric(o, j, rng, &w, &tt, &hu);
			if (err)
				break;
			p[j] = tt.p;
			diff[j] = tt.diff;
			if (j)
				continue;
			half += 100 * (tt.hi - tt.diff) / fabs(tt.center_a);
			half_u += hu;
			/* on a base of 100 the planted difference is effect, in the unit */
			r->covered += tt.lo <= o->effect && o->effect <= tt.hi;
		}
		if (!err)
			err = judge(o, p, diff, adj, r);
	}
	r->half_pct = o->trials ? half / o->trials : NAN;
	r->half_unpaired_pct = o->trials && o->paired ? half_u / o->trials : NAN;
out:
	gsl_rng_free(rng);
	free(mem);
	free(p);
	free(adj);
	free(diff);
	return err;
}
