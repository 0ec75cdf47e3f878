// SPDX-License-Identifier: GPL-3.0-or-later
/* The harness's save-path interference reference: readings between samples, quiet samples kept. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "interference.h"

uint64_t fpl_interf_fxsave(void *arg, uint64_t reps)
{
	static _Alignas(64) unsigned char buf[512];
	uint64_t t0, t1, n = reps;

	if (!n)
		return 0;
	t0 = fpl_tsc_begin();
	/* FXSAVE64 only stores: it changes no register, so the cells' state stays as set. */
	__asm__ volatile("1:\n\t"
			 "fxsave64 %[b]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n), [b] "=m"(buf)
			 :
			 : "cc", "memory");
	t1 = fpl_tsc_end();
	return t1 - t0;
}

void fpl_interf_init(struct fpl_interf *f, const struct fpl_clock *c, fpl_timed_fn ref)
{
	memset(f, 0, sizeof(*f));
	f->ref = ref ? ref : fpl_interf_fxsave;
	f->best = INFINITY;
	/*
	 * A reading of at least a fifth of a sample's minimum (the timer step
	 * under 0.5% of it) and 64 ops; the smaller of two reads, so that an
	 * interrupt cannot stop the doubling early.
	 */
	f->reps = 64;
	while (f->reps < (1u << 20)) {
		uint64_t a = f->ref(NULL, f->reps), b = f->ref(NULL, f->reps);

		if ((a < b ? a : b) >= c->min_sample_tsc / 5)
			break;
		f->reps *= 2;
	}
}

void fpl_interf_free(struct fpl_interf *f)
{
	free(f->read);
	free(f->round0);
	f->read = NULL;
	f->round0 = NULL;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*p, (*cap ? *cap * 2 : 256) * size);
	if (!q)
		return false;
	*p = q;
	*cap = *cap ? *cap * 2 : 256;
	return true;
}

void fpl_interf_round(struct fpl_interf *f)
{
	if (f->failed)
		return;
	if (!grow((void **)&f->round0, &f->rcap, f->nround, sizeof(*f->round0))) {
		f->failed = true;
		return;
	}
	f->round0[f->nround++] = f->nread;
}

void fpl_interf_read(struct fpl_interf *f)
{
	double r;

	if (f->failed)
		return;
	if (!grow((void **)&f->read, &f->cap, f->nread, sizeof(*f->read))) {
		f->failed = true;
		return;
	}
	r = (double)f->ref(NULL, f->reps) / (double)f->reps;
	/* a round's first reading near the running floor: the round counts as quiet */
	if (f->nround && f->round0[f->nround - 1] == f->nread &&
	    (!isfinite(f->best) || r <= f->best * (1 + FPL_INTERF_TOL_PCT / 100)))
		f->quiet_rounds++;
	if (r < f->best)
		f->best = r;
	f->read[f->nread++] = r;
}

/* Keep the samples whose flag is set, in all three parallel metrics. */
static void compact(struct fpl_variant *v, const bool *keep, size_t n)
{
	struct fpl_metric *ms[3] = { v->m_cycles, v->m_tsc, v->m_ns };

	for (int j = 0; j < 3; j++) {
		size_t w = 0;

		for (size_t s = 0; s < n && s < ms[j]->n; s++)
			if (keep[s])
				ms[j]->samples[w++] = ms[j]->samples[s];
		ms[j]->n = w;
	}
}

static double median_of(const double *x, size_t n, const bool *keep, bool want)
{
	double *t = malloc((n ? n : 1) * sizeof(*t)), m = NAN;
	size_t k = 0;

	if (!t)
		return NAN;
	for (size_t s = 0; s < n; s++)
		if (keep[s] == want && isfinite(x[s]))
			t[k++] = x[s];
	if (k) {
		fpl_sort(t, k);
		m = fpl_quantile_sorted(t, k, 0.5);
	}
	free(t);
	return m;
}

static int record(struct fpl_variant *v, size_t all, size_t kept, bool applied, double dist_med)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:b, s:o}", "reference", "FXSAVE64 readings between "
			      "samples", "samples_taken", (json_int_t)all, "samples_quiet",
			      (json_int_t)kept, "applied", applied, "disturbed_median_tsc",
			      isfinite(dist_med) ? json_real(dist_med) : json_null());

	if (!o)
		return -ENOMEM;
	if (!v->m_tsc->extra)
		v->m_tsc->extra = json_object();
	return json_object_set_new(v->m_tsc->extra, "interference", o) ? -ENOMEM : 0;
}

int fpl_interf_apply(struct fpl_interf *f, struct fpl_variant *v, size_t nv, size_t min_keep)
{
	double floor = fpl_floor_med3(f->read, f->nread), lim;
	size_t nquiet = 0, short_of = 0;
	bool *qr, *keep;
	int err = 0;

	if (f->failed || !nv || !isfinite(floor))
		return 0;
	lim = floor * (1 + FPL_INTERF_TOL_PCT / 100);
	qr = malloc(f->nread * sizeof(*qr));
	keep = malloc((f->nround ? f->nround : 1) * sizeof(*keep));
	if (!qr || !keep) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < f->nread; j++)
		nquiet += qr[j] = f->read[j] <= lim;
	for (size_t i = 0; i < nv && !err; i++) {
		size_t n = v[i].m_tsc->n, kept = 0;
		double dist;
		bool applied;

		for (size_t s = 0; s < n; s++) {
			size_t k = (i + nv - s % nv) % nv;
			size_t b = s < f->nround ? f->round0[s] + k / FPL_INTERF_EVERY : f->nread;

			keep[s] = b + 1 < f->nread && qr[b] && qr[b + 1];
			kept += keep[s];
		}
		applied = kept >= min_keep && kept < n;
		short_of += kept < min_keep && kept < n;
		dist = median_of(v[i].m_tsc->samples, n, keep, false);
		err = record(&v[i], n, kept, applied, dist);
		if (!err && applied)
			compact(&v[i], keep, n);
		if (!err && v[i].run)
			err = fpl_run_obs_json(v[i].run, "interference",
					       json_pack("{s:s, s:f, s:f, s:f, s:I, s:I, s:I}",
							 "reference", "FXSAVE64 into a private buffer",
							 "floor_tsc", floor, "tol_pct", FPL_INTERF_TOL_PCT,
							 "quiet_share", f->nread ? (double)nquiet /
							 (double)f->nread : 0.0, "reps", (json_int_t)f->reps,
							 "readings", (json_int_t)f->nread,
							 "quiet_readings", (json_int_t)nquiet)) ? -ENOMEM : 0;
	}
	if (!err && short_of && v[0].run)
		err = fpl_run_warn(v[0].run, "%zu of %zu measurements had fewer than %zu samples "
				   "between quiet readings of the FXSAVE64 reference (interference "
				   "in most rounds): every sample of those kept", short_of, nv,
				   min_keep);
	/* both when both hold: the share is what tells two groups' runs apart */
	if (!err && v[0].run && f->nread &&
	    (double)nquiet / (double)f->nread < FPL_QUIET_SHARE_SUSPECT)
		err = fpl_run_warn(v[0].run, "suspect run: the FXSAVE64 reference was quiet in only "
				   "%.0f%% of its readings between the samples of %zu measurement%s "
				   "(host interference): episodes shorter than the gap between two "
				   "readings stay in the kept samples (on a Zen 4 guest such runs read "
				   "3-5%% high); compare runs of similar "
				   "observed.interference.quiet_share", 100.0 * (double)nquiet /
				   (double)f->nread, nv, nv == 1 ? "" : "s");
out:
	free(qr);
	free(keep);
	return err;
}
