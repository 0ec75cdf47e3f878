// SPDX-License-Identifier: GPL-3.0-or-later
/* A seeded simulation of compare's method: cases of runs with a random offset per run. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fpulab/stats.h"

/*
 * One case of one metric: runs x samples, each sample
 * 100 (1 + effect) (1 + offset of its run) (1 + within-run noise), a
 * preempted sample (probability outliers) turned into -3 times itself, as a
 * negative N/2N difference would be. Into vals: the run values (or, pooled,
 * every sample), sorted.
 */
static size_t one_case(const struct fpl_sim_opts *o, double effect, gsl_rng *rng, double *buf,
		       double *vals)
{
	size_t nv = 0;

	for (size_t k = 0; k < o->runs; k++) {
		double *s = o->pooled ? vals + nv : buf;
		double base = 100 * (1 + effect / 100) *
			      (1 + gsl_ran_gaussian(rng, o->between_cv / 100));

		for (size_t i = 0; i < o->samples; i++) {
			s[i] = base * (1 + gsl_ran_gaussian(rng, o->within_cv / 100));
			if (o->outliers > 0 && gsl_rng_uniform(rng) < o->outliers)
				s[i] *= -3;
		}
		if (o->pooled) {
			nv += o->samples;
			continue;
		}
		fpl_sort(s, o->samples);
		vals[nv++] = fpl_run_value_sorted(s, o->samples, o->trim);
	}
	fpl_sort(vals, nv);
	return nv;
}

int fpl_sim_runs(const struct fpl_sim_opts *o, struct fpl_sim_result *r)
{
	size_t nv = o->pooled ? o->runs * o->samples : o->runs, m = o->metrics;
	double *buf = malloc((o->samples ? o->samples : 1) * sizeof(*buf));
	double *a = malloc((nv ? nv : 1) * sizeof(*a)), *b = malloc((nv ? nv : 1) * sizeof(*b));
	double *p = malloc((m ? m : 1) * sizeof(*p)), *adj = malloc((m ? m : 1) * sizeof(*adj));
	double *diff = malloc((m ? m : 1) * sizeof(*diff)), alpha = 1 - o->conf / 100, half = 0;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int err = 0;

	*r = (struct fpl_sim_result){ .trials = o->trials };
	if (!buf || !a || !b || !p || !adj || !diff || !rng) {
		err = -ENOMEM;
		goto out;
	}
	if (!m || o->runs < 2 || !o->samples || !(o->conf > 0 && o->conf < 100)) {
		err = -EINVAL;
		goto out;
	}
	gsl_rng_set(rng, o->seed);
	for (size_t t = 0; t < o->trials && !err; t++) {
		bool false_claim = false;

		for (size_t j = 0; j < m && !err; j++) {
			struct fpl_ttest tt;
			size_t na = one_case(o, 0, rng, buf, a);
			size_t nb = one_case(o, j ? 0 : o->effect, rng, buf, b);

			err = fpl_yuen_sorted(a, na, b, nb, o->trim, o->conf, &tt);
			p[j] = tt.p;
			diff[j] = tt.diff;
			if (!j)
				half += 100 * (tt.hi - tt.diff) / fabs(tt.center_a);
		}
		if (err || (err = fpl_holm(p, m, adj)))
			break;
		for (size_t j = 0; j < m; j++) {
			bool claim = !isnan(p[j]) && adj[j] < alpha;

			if (claim && (j || !o->effect))
				false_claim = true;
			if (claim && !j && o->effect && (diff[0] > 0) == (o->effect > 0))
				r->found++;
		}
		r->false_claims += false_claim;
	}
	r->half_pct = o->trials ? half / o->trials : NAN;
out:
	gsl_rng_free(rng);
	free(buf);
	free(a);
	free(b);
	free(p);
	free(adj);
	free(diff);
	return err;
}
