// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab kvm's records: B - A per round with its intervals, the states verified, the host, the trace. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/ktrace.h"
#include "fpulab/stats.h"
#include "../ktpass.h"
#include "kvmbench.h"

#define AB_TRIM		20.0	/* percent cut from each end of the per-round differences */
#define AB_CONF		95.0
#define KT_ROUND_TRIPS	1000	/* the traced batch: about 10 events each, well inside the buffer */

static const char *ab_sfx(const struct fpl_kvm_ctx *k, unsigned i)
{
	return !k->cfg->ab ? "" : i ? "_b" : "_a";
}

/* One interval as JSON, in the unit and in percent of A's trimmed mean. */
static json_t *test_json(const char *test, const struct fpl_ttest *t, size_t n, const char *unit)
{
	double a = t->center_a;

	return json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "test",
			 test, "unit", unit, "n", (json_int_t)n, "a", a, "b", t->center_b, "diff",
			 t->diff, "ci_lo", t->lo, "ci_hi", t->hi, "pct", 100 * t->diff / a,
			 "pct_lo", 100 * t->lo / a, "pct_hi", 100 * t->hi / a, "df", t->df);
}

/* "+78.2 tsc = +0.35% of A (95% CI +0.20% .. +0.50%)" or "no difference proven ...". */
static void verdict(const struct fpl_ttest *t, const char *unit, char *buf, size_t len)
{
	double a = t->center_a;

	if (t->lo > 0 || t->hi < 0)
		snprintf(buf, len, "%+.1f %s = %+.3f%% of A (95%% CI %+.3f%% .. %+.3f%%)", t->diff,
			 unit, 100 * t->diff / a, fpl_shown(100 * t->lo / a, 3),
			 fpl_shown(100 * t->hi / a, 3));
	else
		snprintf(buf, len, "no difference proven at 95%% (%+.1f %s, CI %+.3f%% .. %+.3f%% "
			 "of A)", fpl_shown(t->diff, 1), unit, fpl_shown(100 * t->lo / a, 3),
			 fpl_shown(100 * t->hi / a, 3));
}

/*
 * The lattice the samples of unit m lie on: a harness sample is a
 * difference of two timings over reps x ops operations, each timing a
 * multiple of the TSC's step, so a sample moves in steps of step_tsc /
 * (reps x ops) TSC ticks; in cycles and ns that at the metric's
 * conversion. The larger of the two arms' (each calibrates its own reps).
 */
static double lattice_step(const struct fpl_kvm_ctx *k, const struct fpl_metric *m)
{
	const struct fpl_clock *c = k->env->clock;
	double q = 0;

	for (unsigned i = 0; i < 2; i++) {
		double ops = k->v[i].ops_per_rep > 0 ? k->v[i].ops_per_rep : 1;

		if (k->v[i].reps && c->step_tsc > 0)
			q = fmax(q, c->step_tsc / ((double)k->v[i].reps * ops));
	}
	if (!strcmp(m->unit, "cycles"))
		return q * c->core_per_tsc;
	if (!strcmp(m->unit, "ns"))
		return q / c->tsc_hz * 1e9;
	return q;
}

/* The per-round differences of one unit, their tests in extra; the verdicts for TSC ticks. */
static int ab_unit(struct fpl_kvm_ctx *k, const struct fpl_metric *a, const struct fpl_metric *b)
{
	double q = lattice_step(k, a);
	size_t n = a->n < b->n ? a->n : b->n;
	char name[48], what[1200], timing[1200], unit[600], v[200];
	struct fpl_method_parts mp;
	struct fpl_paired tr, pt;
	struct fpl_ci mci;
	struct fpl_metric *d;

	fpl_metric_method_parts(a, &mp);
	snprintf(name, sizeof(name), "difference_%s", a->unit);
	snprintf(what, sizeof(what), "B - A per round: the two states' samples of one harness "
		 "round (their order alternating), so that what moves the host between rounds "
		 "moves both; of %.*s", (int)mp.what_len, mp.what);
	snprintf(timing, sizeof(timing), "%.*s", (int)mp.timing_len, mp.timing);
	snprintf(unit, sizeof(unit), "%.*s", (int)mp.unit_len, mp.unit);
	d = fpl_run_add_metric(k->run, name, a->unit, NULL);
	/* Its family, kind and how: a's, then its own family and kind. */
	if (!d || fpl_metric_set_method(d, what, timing, unit) || fpl_metric_copy_facts(d, a) ||
	    fpl_metric_set_family(d, "difference"))
		return -ENOMEM;
	fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(d, b->samples[i] - a->samples[i]))
			return -ENOMEM;
	/*
	 * The rounding of each sample to the lattice q is in the trimmed t
	 * (fpl_paired_t's q); the median of values on a lattice can sit up to
	 * a step from where the rounds put it, in every run alike, so its
	 * interval gets one step at each end (issue 32 item 7).
	 */
	if (fpl_paired_t(a->samples, b->samples, n, FPL_PAIR_DIFF, AB_TRIM, AB_CONF, q, &tr) ||
	    fpl_paired_t(a->samples, b->samples, n, FPL_PAIR_DIFF, 0, AB_CONF, q, &pt))
		return fpl_run_warn(k->run, "too few rounds for a difference"), 0;
	d->extra = json_pack("{s:o, s:o}", "paired_trimmed",
			     test_json("paired, 20% trimmed (Yuen's one-sample form)", &tr.t, tr.n,
				       a->unit),
			     "paired_t", test_json("paired t (means)", &pt.t, pt.n, a->unit));
	if (d->extra)
		json_object_set_new(d->extra, "lattice_step", json_real(q));
	if (d->extra && !fpl_median_ci(d->samples, d->n, &mci))
		json_object_set_new(d->extra, "median", json_pack("{s:f, s:f, s:f, s:I}",
				    "estimate", mci.estimate, "ci_lo", mci.lo - q,
				    "ci_hi", mci.hi + q, "n", (json_int_t)mci.n));
	if (strcmp(a->unit, "tsc"))
		return 0;
	verdict(&tr.t, "TSC ticks", v, sizeof(v));
	fpl_run_obs_str(k->run, "b_minus_a", v);
	fpl_run_obs_real(k->run, "b_minus_a_halfwidth_pct",
			 100 * (tr.t.hi - tr.t.lo) / 2 / tr.t.center_a);
	if (!fpl_median_ci(d->samples, d->n, &mci)) {
		snprintf(v, sizeof(v), "%+.1f TSC ticks (95%% CI %+.1f .. %+.1f, one %.1f-tick "
			 "step of the samples at each end)", fpl_shown(mci.estimate, 1),
			 fpl_shown(mci.lo - q, 1), fpl_shown(mci.hi + q, 1), q);
		fpl_run_obs_str(k->run, "b_minus_a_median", v);
	}
	return 0;
}

int fpl_kvm_record_ab(struct fpl_kvm_ctx *k)
{
	const struct fpl_variant *a = &k->v[0], *b = &k->v[1];
	int err;

	if (!a->m_tsc || !b->m_tsc)
		return 0;
	err = ab_unit(k, a->m_tsc, b->m_tsc);
	if (!err)
		err = ab_unit(k, a->m_cycles, b->m_cycles);
	if (!err)
		err = ab_unit(k, a->m_ns, b->m_ns);
	return err;
}

static void obs_hex(struct fpl_run *run, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	fpl_run_obs_str(run, key, buf);
}

void fpl_kvm_record_states(struct fpl_kvm_ctx *k, const uint64_t *bv_set)
{
	bool ok = true, any = false;
	char key[64], val[128], names[160];

	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		const struct fpl_kvm_arm *a = &k->arm[i];
		const char *s = ab_sfx(k, i);

		snprintf(key, sizeof(key), "mask%s", s);
		obs_hex(k->run, key, a->mask);
		snprintf(key, sizeof(key), "xstate_bv_set%s", s);
		obs_hex(k->run, key, bv_set[i]);
		snprintf(key, sizeof(key), "xstate_bv_after%s", s);
		snprintf(val, sizeof(val), "and 0x%" PRIx64 " or 0x%" PRIx64 " n=%lu", a->bv_and,
			 a->bv_or, a->checks);
		fpl_run_obs_str(k->run, key, a->checks ? val : "not checked");
		snprintf(key, sizeof(key), "state_mismatches%s", s);
		fpl_run_obs_int(k->run, key, (long long)a->data_bad);
		any = any || a->checks;
		ok = ok && !a->data_bad && !a->get_failed;
		if (a->data_bad)
			fpl_run_warn(k->run, "state '%s': %lu of %lu reads after round trips differ from "
				     "what was set (XSTATE_BV and 0x%" PRIx64 " or 0x%" PRIx64 "; %s "
				     "set)", k->cfg->names[i], a->data_bad, a->checks, a->bv_and,
				     a->bv_or, fpl_xfeature_mask_names(a->mask, names,
								    sizeof(names)));
	}
	fpl_run_obs_str(k->run, "state_verified", !any ? "no (no checks)" : ok ? "yes" : "NO");
}

void fpl_kvm_record_observed(struct fpl_kvm_ctx *k)
{
	const struct fpl_kvm_host *h = k->host;
	unsigned long interrupted = 0, batches = 0;

	fpl_run_obs_str(k->run, "kvm_backend", fpl_kvm_backend_name(h->backend));
	fpl_run_obs_str(k->run, "kvm_label", fpl_kvm_backend_label(h->backend));
	fpl_run_obs_bool(k->run, "kvm_nested", h->nested);
	if (!h->cpuid_read)
		return;
	obs_hex(k->run, "guest_supported_xcr0", h->supported_xcr0);
	obs_hex(k->run, "guest_supported_xss", h->supported_xss);
	if (!k->vm || !k->vm->xsave_size)
		return;
	fpl_run_obs_int(k->run, "guest_ring", k->ring);
	obs_hex(k->run, "guest_xcr0", k->vm->xcr0);
	obs_hex(k->run, "guest_rfbm", k->rfbm);
	fpl_run_obs_int(k->run, "xsave_size", (long long)k->vm->xsave_size);
	fpl_run_obs_str(k->run, "host_state", "init (an XRSTOR of an all-init image before each "
			"batch)");
	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		interrupted += k->arm[i].interrupted;
		batches += k->arm[i].batches;
	}
	fpl_run_obs_int(k->run, "batches", (long long)batches);
	if (interrupted)
		fpl_run_obs_int(k->run, "kvm_run_interrupted", (long long)interrupted);
}

int fpl_kvm_trace(struct fpl_kvm_ctx *k)
{
	const struct fpl_bench_env *env = k->env;
	struct fpl_diag d = { "" }, d2 = { "" };
	int kvm_err, err = 0;

	if (!env->ktrace)
		return 0;
	kvm_err = fpl_ktrace_kvm(env->ktrace, true, &d);
	if (kvm_err)
		fpl_run_obs_str(k->run, "kernel_kvm_events", d.msg);
	for (unsigned i = 0; i < k->cfg->nstates && !err; i++) {
		const char *name = !k->cfg->ab ? "batch" : i ? "state_b" : "state_a";
		struct fpl_ktpass p;

		if (!fpl_ktpass_begin(env, &p, k->run, name))
			continue;
		fpl_kvm_arm_timed(&k->arm[i], KT_ROUND_TRIPS);
		err = fpl_ktpass_end(env, &p, k->run, name, KT_ROUND_TRIPS, "round trip", NULL);
		if (!err)
			err = k->arm[i].err;
	}
	if (!kvm_err)
		fpl_ktrace_kvm(env->ktrace, false, &d2);
	return err;
}
