// SPDX-License-Identifier: GPL-3.0-or-later
/* The harness's save-path interference reference: readings between samples, quiet samples kept. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

void fpl_interf_init(struct fpl_interf *f, const struct fpl_clock *c,
		     const struct fpl_harness_cfg *cfg)
{
	memset(f, 0, sizeof(*f));
	f->ref = cfg->ref ? cfg->ref : fpl_interf_fxsave;
	f->rounds = cfg->drop_rounds;
	f->warn_to = cfg->warn_to;
	f->carried = cfg->ref_floor;
	f->best = INFINITY;
	f->own_floor = NAN;
	if (f->carried && f->carried->tsc > 0 && f->carried->reps) {
		/* the readings of the earlier calls' floor, so that it applies here */
		f->carried_tsc = f->carried->tsc;
		f->best = f->carried_tsc;
		f->reps = f->carried->reps;
		return;
	}
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
	if (r < f->best)
		f->best = r;
	f->read[f->nread++] = r;
}

void fpl_interf_end_round(struct fpl_interf *f)
{
	bool quiet;

	fpl_interf_read(f);
	if (f->failed || !f->nround)
		return;
	/*
	 * Every reading of the round near the running floor (which is never
	 * above the floor fpl_interf_apply judges by): its samples will be kept.
	 */
	quiet = f->round0[f->nround - 1] < f->nread;
	for (size_t j = f->round0[f->nround - 1]; j < f->nread && quiet; j++)
		quiet = f->read[j] <= f->best * (1 + FPL_INTERF_TOL_PCT / 100);
	f->quiet_rounds += quiet;
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

static int record(struct fpl_variant *v, size_t all, size_t kept, bool applied, bool rounds,
		  double dist_med)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:b, s:s, s:o}", "reference", "FXSAVE64 readings "
			      "between samples", "samples_taken", (json_int_t)all, "samples_quiet",
			      (json_int_t)kept, "applied", applied, "kept_by",
			      rounds ? "round" : "sample", "disturbed_median_tsc",
			      isfinite(dist_med) ? json_real(dist_med) : json_null());

	if (!o)
		return -ENOMEM;
	if (!v->m_tsc->extra)
		v->m_tsc->extra = json_object();
	return json_object_set_new(v->m_tsc->extra, "interference", o) ? -ENOMEM : 0;
}

/* Whether sample s of variant i (of nv, rotated rounds) lies between two quiet readings. */
static bool sample_quiet(const struct fpl_interf *f, const bool *qr, size_t i, size_t nv,
			 size_t s)
{
	size_t k = (i + nv - s % nv) % nv;
	size_t b = s < f->nround ? f->round0[s] + k / FPL_INTERF_EVERY : f->nread;

	return b + 1 < f->nread && qr[b] && qr[b + 1];
}

/* keep[s] for variant i's n samples; by round: only where every variant's sample is quiet. */
static size_t keep_flags(const struct fpl_interf *f, const bool *qr, size_t i, size_t nv,
			 size_t n, bool *keep)
{
	size_t kept = 0;

	for (size_t s = 0; s < n; s++) {
		keep[s] = sample_quiet(f, qr, i, nv, s);
		for (size_t j = 0; j < nv && f->rounds && keep[s]; j++)
			keep[s] = sample_quiet(f, qr, j, nv, s);
		kept += keep[s];
	}
	return kept;
}

static json_t *observed(const struct fpl_interf *f, double floor, size_t nquiet)
{
	return json_pack("{s:s, s:f, s:o, s:o, s:f, s:f, s:I, s:I, s:I, s:s}",
			 "reference", "FXSAVE64 into a private buffer", "floor_tsc", floor,
			 "call_floor_tsc", isfinite(f->own_floor) ? json_real(f->own_floor) :
			 json_null(), "carried_floor_tsc",
			 f->carried_tsc > 0 ? json_real(f->carried_tsc) : json_null(),
			 "tol_pct", FPL_INTERF_TOL_PCT, "quiet_share",
			 f->nread ? (double)nquiet / (double)f->nread : 0.0,
			 "reps", (json_int_t)f->reps, "readings", (json_int_t)f->nread,
			 "quiet_readings", (json_int_t)nquiet, "kept_by",
			 f->rounds ? "round" : "sample");
}

/* This call's floor, and the floor it is judged against: the lower of it and the carried one. */
static double floor_of(struct fpl_interf *f)
{
	double floor;

	f->own_floor = fpl_floor_med3(f->read, f->nread);
	floor = f->own_floor;
	if (f->carried_tsc > 0 && !(floor <= f->carried_tsc))
		floor = f->carried_tsc;
	if (f->carried && isfinite(floor) && floor > 0 &&
	    (!(f->carried->tsc > 0) || floor < f->carried->tsc)) {
		f->carried->tsc = floor;
		f->carried->reps = f->reps;
	}
	return floor;
}

/*
 * Too few quiet samples (every sample kept), or a suspect run. By round
 * (the xor sweep) no suspect-run warning: the call waits for quiet rounds,
 * so its quiet share says mostly how long it waited (cells of share 0.00
 * to 0.49 read within the spread of those of 0.9 on the Zen 4 guest,
 * docs/method.md).
 */
static int say(const struct fpl_interf *f, const struct fpl_variant *v, const char *fmt, ...)
	FPL_PRINTF(3, 4);
static int say(const struct fpl_interf *f, const struct fpl_variant *v, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (f->warn_to)
		return fpl_result_warn(f->warn_to, "%s: %s", v[0].run ? v[0].run->bench : "harness",
				       msg);
	return fpl_run_warn(v[0].run, "%s", msg);
}

static int warn_short(struct fpl_interf *f, struct fpl_variant *v, size_t nv, size_t short_of,
		      size_t kept, size_t nquiet, size_t min_keep)
{
	if (!v[0].run && !f->warn_to)
		return 0;
	if (short_of && f->rounds)
		return say(f, v, "only %zu of %zu rounds lay between quiet readings "
				    "of the FXSAVE64 reference, fewer than %zu (the host's "
				    "interference in most rounds): every sample kept, the slow "
				    "ones with them", kept, v[0].m_tsc->n, min_keep);
	if (short_of &&
	    say(f, v, "%zu of %zu measurements had fewer than %zu samples between "
			 "quiet readings of the FXSAVE64 reference (interference in most rounds): "
			 "every sample of those kept", short_of, nv, min_keep))
		return -ENOMEM;
	/* both when both hold: the share is what tells two groups' runs apart */
	if (!f->rounds && f->nread && (double)nquiet / (double)f->nread < FPL_QUIET_SHARE_SUSPECT)
		return say(f, v, "suspect run: the FXSAVE64 reference was quiet in "
				    "only %.0f%% of its readings between the samples of %zu "
				    "measurement%s (host interference): episodes shorter than the "
				    "gap between two readings stay in the kept samples (on a Zen 4 "
				    "guest such runs read 3-5%% high); compare runs of similar "
				    "observed.interference.quiet_share", 100.0 * (double)nquiet /
				    (double)f->nread, nv, nv == 1 ? "" : "s");
	return 0;
}

int fpl_interf_apply(struct fpl_interf *f, struct fpl_variant *v, size_t nv, size_t min_keep)
{
	double floor = floor_of(f), lim;
	size_t nquiet = 0, short_of = 0, kept = 0;
	bool *qr, *keep;
	int err = 0;

	if (f->failed || !nv || !isfinite(floor))
		return 0;
	lim = floor * (1 + FPL_INTERF_TOL_PCT / 100);
	qr = malloc((f->nread ? f->nread : 1) * sizeof(*qr));
	keep = malloc((f->nround ? f->nround : 1) * sizeof(*keep));
	if (!qr || !keep) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < f->nread; j++)
		nquiet += qr[j] = f->read[j] <= lim;
	for (size_t i = 0; i < nv && !err; i++) {
		/* one sample per round: n is the number of rounds, at most nround */
		size_t n = v[i].m_tsc->n < f->nround ? v[i].m_tsc->n : f->nround;
		bool applied;

		kept = keep_flags(f, qr, i, nv, n, keep);
		applied = kept >= min_keep && kept < v[i].m_tsc->n;
		short_of += kept < min_keep && kept < v[i].m_tsc->n;
		err = record(&v[i], v[i].m_tsc->n, kept, applied, f->rounds,
			     median_of(v[i].m_tsc->samples, n, keep, false));
		if (!err && applied)
			compact(&v[i], keep, n);
		if (!err && v[i].run)
			err = fpl_run_obs_json(v[i].run, "interference",
					       observed(f, floor, nquiet)) ? -ENOMEM : 0;
	}
	if (!err)
		err = warn_short(f, v, nv, short_of, kept, nquiet, min_keep) ? -ENOMEM : 0;
out:
	free(qr);
	free(keep);
	return err;
}
