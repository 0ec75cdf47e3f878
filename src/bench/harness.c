// SPDX-License-Identifier: GPL-3.0-or-later
/* The timing harness: calibrate N, warm up, interleave variants, remove overhead by difference. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/harness.h"
#include "fpulab/stats.h"
#include "interference.h"
#include "ktpass.h"
#include "runclock.h"

#define REPS_MAX	(1ull << 32)
#define RATIO_RING	7

/*
 * The core clock moves with the host's load on a shared machine (here by
 * 30% within seconds), so one start figure would turn a frequency change
 * into a cost change. Each round measures core/TSC once; a sample is
 * converted with the median of the last RATIO_RING rounds.
 */
struct ratio_track {
	bool fixed;
	uint64_t reps, imul_reps;
	double ring[RATIO_RING];
	size_t n, next;
	double last;		/* this round's own ratio */
	double *all;
	size_t nall;
	bool *quiet;		/* per kept round: the IMUL sentinel read 300 +/- QUIET_TOL_PCT */
	size_t nquiet;
};

/*
 * Contention sentinel. On this shared SMT host the sibling's work slows the
 * 1-cycle add chain more than the 3-cycle IMUL chain, and slows microcoded
 * instructions (XSAVE*) by 5-20%. Each round also times 100 dependent IMULs
 * and converts them with the round's own add-chain ratio: off by more than
 * QUIET_TOL_PCT from 300 cycles, the round was contended. All samples are
 * kept; the quiet rounds' median is given beside the median of all.
 */
#define QUIET_TOL_PCT	1.5

static double elapsed_s(const struct fpl_clock *c, uint64_t t0);

static void sentinel(struct ratio_track *t)
{
	double a, b, cyc;
	bool q = false, *p;

	if (t->fixed)
		return;
	a = (double)fpl_chain_imul100(NULL, t->imul_reps);
	b = (double)fpl_chain_imul100(NULL, 2 * t->imul_reps);
	cyc = (b - a) / (double)t->imul_reps * t->last;
	if (isfinite(cyc))
		q = fabs(cyc / FPL_SELFCHECK_IMUL_EXPECT - 1) * 100 <= QUIET_TOL_PCT;
	p = realloc(t->quiet, (t->nquiet + 1) * sizeof(*p));
	if (p) {
		t->quiet = p;
		t->quiet[t->nquiet++] = q;
	}
}

/*
 * Settling: after the warm-up, the core/TSC ratio and the IMUL reference
 * are read in pairs until the last SETTLE_K ratios lie within
 * SETTLE_SPREAD_PCT of their median and the last SETTLE_K references read
 * 300 cycles within QUIET_TOL_PCT, or max_s has gone. Each variant's run
 * gets observed settle_s and settled.
 */
#define SETTLE_K		5
#define SETTLE_SPREAD_PCT	0.5

static void settle(const struct fpl_clock *c, const struct ratio_track *t, double max_s,
		   struct fpl_variant *v, size_t nv)
{
	double r[SETTLE_K], q[SETTLE_K], tmp[SETTLE_K], spent;
	uint64_t t0 = fpl_tsc_end();
	size_t n = 0;
	bool ok = false;

	do {
		double ratio = fpl_clock_ratio_sample(c, t->reps);
		double a = (double)fpl_chain_imul100(NULL, t->imul_reps);
		double b = (double)fpl_chain_imul100(NULL, 2 * t->imul_reps);

		memmove(r, r + 1, (SETTLE_K - 1) * sizeof(*r));
		memmove(q, q + 1, (SETTLE_K - 1) * sizeof(*q));
		r[SETTLE_K - 1] = ratio;
		q[SETTLE_K - 1] = (b - a) / (double)t->imul_reps * ratio;
		if (++n < SETTLE_K)
			continue;
		memcpy(tmp, r, sizeof(tmp));
		fpl_sort(tmp, SETTLE_K);
		ok = isfinite(tmp[0]) && isfinite(tmp[SETTLE_K - 1]) &&
		     (tmp[SETTLE_K - 1] - tmp[0]) / fpl_quantile_sorted(tmp, SETTLE_K, 0.5) * 100 <=
			     SETTLE_SPREAD_PCT;
		for (size_t i = 0; i < SETTLE_K && ok; i++)
			ok = isfinite(q[i]) &&
			     fabs(q[i] / FPL_SELFCHECK_IMUL_EXPECT - 1) * 100 <= QUIET_TOL_PCT;
	} while (!ok && elapsed_s(c, t0) < max_s);
	spent = elapsed_s(c, t0);
	for (size_t i = 0; i < nv; i++) {
		if (!v[i].run)
			continue;
		fpl_run_obs_real(v[i].run, "settle_s", spent);
		fpl_run_obs_bool(v[i].run, "settled", ok);
	}
}

static double ratio_now(const struct fpl_clock *c, struct ratio_track *t)
{
	double v, tmp[RATIO_RING], *p;

	if (t->fixed)
		return c->core_per_tsc;
	v = fpl_clock_ratio_sample(c, t->reps);
	t->last = v;
	if (isfinite(v)) {
		t->ring[t->next] = v;
		t->next = (t->next + 1) % RATIO_RING;
		if (t->n < RATIO_RING)
			t->n++;
		p = realloc(t->all, (t->nall + 1) * sizeof(*p));
		if (p) {
			t->all = p;
			t->all[t->nall++] = v;
		}
	}
	if (!t->n)
		return c->core_per_tsc;
	memcpy(tmp, t->ring, t->n * sizeof(*tmp));
	fpl_sort(tmp, t->n);
	return fpl_quantile_sorted(tmp, t->n, 0.5);
}

/* Median of m's samples taken in quiet rounds; NaN with none. */
static double quiet_median(const struct ratio_track *t, const struct fpl_metric *m, size_t *k)
{
	double *x = malloc((m->n ? m->n : 1) * sizeof(*x)), med = NAN;

	*k = 0;
	if (!x)
		return NAN;
	for (size_t i = 0; i < m->n && i < t->nquiet; i++)
		if (t->quiet[i] && isfinite(m->samples[i]))
			x[(*k)++] = m->samples[i];
	if (*k) {
		fpl_sort(x, *k);
		med = fpl_quantile_sorted(x, *k, 0.5);
	}
	free(x);
	return med;
}

static void quiet_record(const struct ratio_track *t, struct fpl_variant *v, size_t nv)
{
	for (size_t i = 0; i < nv && t->nquiet; i++) {
		struct fpl_metric *ms[2] = { v[i].m_cycles, v[i].m_tsc };

		for (int j = 0; j < 2; j++) {
			size_t k;
			double med = quiet_median(t, ms[j], &k);

			if (!ms[j]->extra)
				ms[j]->extra = json_object();
			json_object_set_new(ms[j]->extra, "quiet_rounds", json_integer((json_int_t)k));
			json_object_set_new(ms[j]->extra, "quiet_median",
					    isfinite(med) ? json_real(med) : json_null());
		}
	}
}

/* The ratios used, summarised in each variant's cycles metric. */
static void ratio_record(const struct fpl_clock *c, const struct ratio_track *t,
			 struct fpl_variant *v, size_t nv)
{
	struct fpl_summary s;

	if (t->fixed || !t->nall || fpl_summarize(t->all, t->nall, 0, &s))
		return;
	for (size_t i = 0; i < nv; i++) {
		if (v[i].m_cycles->extra)
			continue;
		v[i].m_cycles->extra = json_pack("{s:{s:I, s:f, s:f, s:f, s:f}}", "core_per_tsc",
						 "n", (json_int_t)s.n, "min", s.min,
						 "median", s.median, "max", s.max,
						 "clock_start", c->core_per_tsc_start);
	}
}

void fpl_harness_defaults(const struct fpl_bench_env *env, struct fpl_harness_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->budget_s = env && env->budget_s > 0 ? env->budget_s : env && env->quick ? 0.3 : 1.0;
	cfg->min_samples = 11;
	cfg->max_samples = 1000;
	cfg->warmup_s = cfg->budget_s * 0.05;
	cfg->kernel_trace = true;
}

/*
 * The traced passes (--kernel-trace): one body of N per variant, the empty
 * body not subtracted; model/kexpect.c's op "operation" says what to expect.
 */
static int trace_variants(const struct fpl_bench_env *env, struct fpl_variant *v, size_t nv)
{
	int err = 0;

	for (size_t i = 0; i < nv && !err; i++) {
		struct fpl_ktpass p;

		if (!v[i].run || !fpl_ktpass_begin(env, &p, v[i].run, v[i].name))
			continue;
		v[i].timed(v[i].arg, v[i].reps);
		err = fpl_ktpass_end(env, &p, v[i].run, v[i].name,
				     (double)v[i].reps * (v[i].ops_per_rep > 0 ? v[i].ops_per_rep : 1),
				     "operation", NULL);
	}
	return err;
}

/* Smallest power-of-two N whose body takes at least the clock's minimum sample. */
static uint64_t calibrate(const struct fpl_clock *c, const struct fpl_variant *v)
{
	uint64_t n = 1;

	while (n < REPS_MAX) {
		/* The smaller of two reads: one interrupt must not stop the doubling early. */
		uint64_t a = v->timed(v->arg, n), b = v->timed(v->arg, n);

		if ((a < b ? a : b) >= c->min_sample_tsc)
			break;
		n *= 2;
	}
	return n;
}

/* One sample of one variant, in TSC ticks per operation. */
static double sample(const struct fpl_variant *v)
{
	double ops = v->ops_per_rep > 0 ? v->ops_per_rep : 1;
	double a, b;

	if (v->empty) {
		a = (double)v->timed(v->arg, v->reps);
		b = (double)v->empty(v->arg, v->reps);
		return (a - b) / ((double)v->reps * ops);
	}
	a = (double)v->timed(v->arg, v->reps);
	b = (double)v->timed(v->arg, 2 * v->reps);
	return (b - a) / ((double)v->reps * ops);
}

/* How the harness keeps samples: every one, per sample between quiet readings, by round. */
enum keep_mode { KEEP_ALL, KEEP_SAMPLES, KEEP_ROUNDS };

/* "<prefix>cycles", "<prefix>tsc", "<prefix>ns": one figure, family the prefix (without '_') or "time". */
static int add_triple(struct fpl_variant *v, const char *what, const char *timing,
		      char (*unit)[400], const enum fpl_metric_conv *conv)
{
	static const char *const units[3] = { "cycles", "tsc", "ns" };
	const char *pfx = v->prefix ? v->prefix : "";
	struct fpl_metric_how how = {
		.reps = (long long)v->reps, .clock = FPL_MCLOCK_TSC,
		.overhead = v->empty ? FPL_OVERHEAD_EMPTY_BODY : FPL_OVERHEAD_N_VS_2N,
	};
	struct fpl_metric *m[3];
	char name[96], family[96];
	size_t len = strlen(pfx);

	snprintf(family, sizeof(family), "%.*s", (int)(len && pfx[len - 1] == '_' ? len - 1 : len),
		 pfx);
	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "%s%s", pfx, units[k]);
		m[k] = fpl_run_add_metric(v->run, name, units[k], NULL);
		how.conv = conv[k];
		if (!m[k] || fpl_metric_set_method(m[k], what, timing, unit[k]) ||
		    fpl_metric_set_family(m[k], *family ? family : "time") ||
		    fpl_metric_set_what_generic(m[k], v->method_generic))
			return -ENOMEM;
		fpl_metric_set_how(m[k], &how);
	}
	v->m_cycles = m[0];
	v->m_tsc = m[1];
	v->m_ns = m[2];
	return 0;
}

static int add_metrics(const struct fpl_clock *c, struct fpl_variant *v, bool ratio_at_start,
		       enum keep_mode keep)
{
	const enum fpl_metric_conv conv[3] = { fpl_runclock_cycles_conv(c), FPL_CONV_NONE,
					       FPL_CONV_NS_FROM_TSC };
	double ops = v->ops_per_rep > 0 ? v->ops_per_rep : 1;
	char timing[900], unit[3][400];
	json_t *extra;

	/* N varies by cell: it is in extra.reps, so cells of one kind share one method text. */
	snprintf(timing, sizeof(timing),
		 "N reps per sample (extra.reps), N the smallest power of two with a sample "
		 ">= 1000 timer steps; %g op(s) per rep; overhead removed by %s; median of samples%s",
		 ops,
		 v->empty ? "difference with the empty body: (body(N) - empty(N)) / N" :
			    "difference of N and 2N reps: (body(2N) - body(N)) / N",
		 keep == KEEP_SAMPLES ?
			 "; samples taken while an FXSAVE64 reference read more than 4% over its "
			 "floor dropped when enough quiet ones remain (extra.interference: how many "
			 "taken, kept, and whether any were dropped)" :
		 keep == KEEP_ROUNDS ?
			 "; whole rounds dropped where an FXSAVE64 reference read more than 4% over "
			 "its floor beside any sample of the round, when enough quiet rounds remain, "
			 "so every variant keeps the same rounds (extra.interference: how many "
			 "taken, kept, and whether any were dropped)" : "");
	if (ratio_at_start)
		snprintf(unit[0], sizeof(unit[0]), "core cycles %s: TSC ticks x %.4f, the clock's "
			 "start figure", fpl_clock_core_method(c), c->core_per_tsc);
	else
		snprintf(unit[0], sizeof(unit[0]), "core cycles %s: TSC ticks x the core/TSC ratio "
			 "measured once per round, median of the last %d rounds; the unit to "
			 "compare runs in (the core clock moves between runs)",
			 fpl_clock_core_method(c), RATIO_RING);
	/* Intel (issue 14): the core clock moved 3.79-4.09 GHz between runs; TSC/ns 1.4%, cycles 0.06% */
	snprintf(unit[1], sizeof(unit[1]), "TSC ticks (lfence;rdtsc .. lfence;rdtsc;lfence), which "
		 "move with the core clock: compare runs in cycles");
	snprintf(unit[2], sizeof(unit[2]), "ns from TSC ticks at %.0f Hz, which move with the core "
		 "clock: compare runs in cycles", c->tsc_hz);
	if (add_triple(v, v->method ? v->method : v->name, timing, unit, conv))
		return -ENOMEM;
	extra = json_pack("{s:I, s:f, s:s}", "reps", (json_int_t)v->reps,
			  "ops_per_rep", ops, "overhead", v->empty ? "empty-body" : "n-vs-2n");
	if (!extra)
		return -ENOMEM;
	v->m_tsc->extra = extra;
	return 0;
}

static double elapsed_s(const struct fpl_clock *c, uint64_t t0)
{
	return (double)(fpl_tsc_end() - t0) / c->tsc_hz;
}

/* Unless the ratio is fixed at the start: how many reps each core/TSC ratio reading takes. */
static void ratio_setup(const struct fpl_clock *c, struct ratio_track *rt)
{
	if (rt->fixed)
		return;
	rt->reps = fpl_clock_ratio_reps(c);
	rt->imul_reps = 1;
	while (rt->imul_reps < (1u << 20) &&
	       fpl_chain_imul100(NULL, rt->imul_reps) < c->min_sample_tsc)
		rt->imul_reps *= 2;
}

/*
 * One sample of every variant, rotated: round r starts at variant r mod nv,
 * so no variant is always first. inf (NULL: none) reads the interference
 * counters every FPL_INTERF_EVERY variants. 0 or -ENOMEM.
 */
static int round_samples(const struct fpl_clock *c, struct fpl_variant *v, size_t nv,
			 size_t round, double ratio, struct fpl_interf *inf, uint64_t *shuffle)
{
	size_t order[64];

	for (size_t k = 0; k < nv && k < FPL_ARRAY_SIZE(order); k++)
		order[k] = (k + round) % nv;
	/* Fisher-Yates with xorshift64: the same orders in every run */
	for (size_t k = nv < FPL_ARRAY_SIZE(order) ? nv : 0; shuffle && k > 1; k--) {
		size_t j, t;

		*shuffle ^= *shuffle << 13;
		*shuffle ^= *shuffle >> 7;
		*shuffle ^= *shuffle << 17;
		j = (size_t)(*shuffle % k);
		t = order[k - 1];
		order[k - 1] = order[j];
		order[j] = t;
	}
	for (size_t k = 0; k < nv; k++) {
		size_t i = k < FPL_ARRAY_SIZE(order) ? order[k] : (k + round) % nv;
		double tsc;

		if (inf && k % FPL_INTERF_EVERY == 0)
			fpl_interf_read(inf);
		tsc = sample(&v[i]);

		if (fpl_metric_add(v[i].m_tsc, tsc) ||
		    fpl_metric_add(v[i].m_ns, fpl_clock_tsc_to_ns(c, tsc)) ||
		    fpl_metric_add(v[i].m_cycles, tsc * ratio))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Whether n rounds, e seconds in, are enough: max_samples of them, or the
 * budget spent with min_samples; with the reference (inf), not before
 * quiet_rounds (0: min_samples) rounds were quiet while hard_s is set and
 * not reached, past the budget and max_samples alike (a call spent in a
 * slow episode waits for its end); at hard_s in any case: a loaded machine
 * gives few rounds per second, and the hard limit wins over min_samples
 * (3 rounds at least).
 */
static bool rounds_done(const struct fpl_harness_cfg *cfg, size_t n, double e,
			const struct fpl_interf *inf)
{
	if (cfg->hard_s > 0 && e >= cfg->hard_s && n >= 3)
		return true;
	if (inf && cfg->hard_s > 0 && e < cfg->hard_s &&
	    inf->quiet_rounds < (cfg->quiet_rounds ? cfg->quiet_rounds : cfg->min_samples))
		return false;
	return n >= cfg->max_samples || (n >= cfg->min_samples && e >= cfg->budget_s);
}

int fpl_harness_run(const struct fpl_bench_env *env, const struct fpl_harness_cfg *cfg,
		    struct fpl_variant *v, size_t nv)
{
	const struct fpl_clock *c = env->clock;
	struct ratio_track rt = { .fixed = cfg->ratio_at_start };
	struct fpl_interf inf;
	bool ref = cfg->drop_disturbed;
	enum keep_mode keep = !ref ? KEEP_ALL : cfg->drop_rounds ? KEEP_ROUNDS : KEEP_SAMPLES;
	uint64_t t0 = fpl_tsc_end(), seed = 0x9e3779b97f4a7c15ull;
	double last_progress = 0, ratio;
	size_t round;
	int err = 0;

	ratio_setup(c, &rt);
	if (ref)
		fpl_interf_init(&inf, c, cfg);
	for (size_t i = 0; i < nv; i++) {
		v[i].reps = cfg->reps ? cfg->reps : calibrate(c, &v[i]);
		err = add_metrics(c, &v[i], rt.fixed, keep);
		if (err)
			goto out;
	}
	do {
		ratio_now(c, &rt);
		for (size_t i = 0; i < nv; i++)
			sample(&v[i]);
	} while (elapsed_s(c, t0) < cfg->warmup_s && !fpl_bench_stopped(env));
	if (cfg->settle_s > 0 && !rt.fixed)
		settle(c, &rt, cfg->settle_s, v, nv);

	t0 = fpl_tsc_end();
	for (round = 0;; round++) {
		double e;

		if (fpl_bench_stopped(env)) {
			err = -EINTR;
			break;
		}
		ratio = ratio_now(c, &rt);
		sentinel(&rt);
		if (ref)
			fpl_interf_round(&inf);
		err = round_samples(c, v, nv, round, ratio, ref ? &inf : NULL,
				    cfg->shuffle ? &seed : NULL);
		if (ref)
			fpl_interf_end_round(&inf);
		if (err)
			break;
		e = elapsed_s(c, t0);
		if (e - last_progress > 0.1 && cfg->budget_s > 0) {
			/* Done when both the budget and min_samples are: the lesser is how far. */
			double frac = fmin(e / cfg->budget_s, (double)(round + 1) /
					   (double)(cfg->min_samples ? cfg->min_samples : 1));

			fpl_bench_progress(env, cfg->progress_lo + (cfg->progress_span > 0 ?
					   cfg->progress_span : 1) * fmin(1.0, frac), v[0].name);
			last_progress = e;
		}
		if (rounds_done(cfg, round + 1, e, ref ? &inf : NULL))
			break;
	}
	ratio_record(c, &rt, v, nv);
	quiet_record(&rt, v, nv);	/* by round index: before samples are dropped */
	if (!err && ref)
		err = fpl_interf_apply(&inf, v, nv, cfg->min_samples);
	if (!err && env->ktrace && cfg->kernel_trace)
		err = trace_variants(env, v, nv);
out:
	if (ref)
		fpl_interf_free(&inf);
	free(rt.all);
	free(rt.quiet);
	return err;
}

static double metric_median(const struct fpl_metric *m)
{
	struct fpl_summary s;

	return m && m->n && !fpl_summarize(m->samples, m->n, 0, &s) ? s.median : NAN;
}

int fpl_selfcheck_run(struct fpl_clock *c, struct fpl_selfcheck *sc)
{
	struct fpl_bench_env env = { .clock = c };
	struct fpl_harness_cfg cfg = {
		.min_samples = 31, .max_samples = 101, .budget_s = 0.08, .warmup_s = 0.005,
	};
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = r ? fpl_result_add_run(r, "selfcheck") : NULL;
	struct fpl_variant v[2] = {
		{ .name = "imul100", .timed = fpl_chain_imul100, .run = run, .prefix = "imul100_",
		  .method = "100 dependent 64-bit IMULs" },
		{ .name = "empty", .timed = fpl_chain_empty, .run = run, .prefix = "empty_",
		  .method = "empty loop body" },
	};
	int err = -ENOMEM;

	memset(sc, 0, sizeof(*sc));
	if (!run)
		goto out;
	err = fpl_harness_run(&env, &cfg, v, 2);
	if (err)
		goto out;
	sc->imul100_cycles = metric_median(v[0].m_cycles);
	sc->imul100_tsc = metric_median(v[0].m_tsc);
	sc->empty_cycles = metric_median(v[1].m_cycles);
	sc->imul_err_pct = (sc->imul100_cycles - FPL_SELFCHECK_IMUL_EXPECT) /
			   FPL_SELFCHECK_IMUL_EXPECT * 100;
	sc->imul_ok = fabs(sc->imul_err_pct) <= FPL_SELFCHECK_IMUL_TOL_PCT;
	sc->empty_ok = fabs(sc->empty_cycles) <= FPL_SELFCHECK_EMPTY_MAX;
	sc->ok = sc->imul_ok && sc->empty_ok;
	snprintf(sc->text, sizeof(sc->text),
		 "self-check %s: 100 dependent IMULs = %.1f cycles (expect 300 +/- 2%%: %+.2f%% %s), "
		 "empty body = %.2f cycles/rep (expect 1-2, the loop's own branch; at most %.0f: %s); "
		 "cycles %s",
		 sc->ok ? "ok" : "FAILED", sc->imul100_cycles, sc->imul_err_pct,
		 sc->imul_ok ? "ok" : "FAIL", sc->empty_cycles, FPL_SELFCHECK_EMPTY_MAX,
		 sc->empty_ok ? "ok" : "FAIL",
		 c->core_source == FPL_CORE_RDPMC ? "counted" : "estimated from an add chain");
out:
	fpl_result_free(r);
	return err;
}

json_t *fpl_selfcheck_json(const struct fpl_selfcheck *sc)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:b, s:f, s:f, s:b, s:b, s:s}",
			 "imul100_cycles", sc->imul100_cycles, "imul100_tsc", sc->imul100_tsc,
			 "imul100_expect", FPL_SELFCHECK_IMUL_EXPECT,
			 "imul_err_pct", sc->imul_err_pct, "imul_ok", sc->imul_ok,
			 "empty_cycles", sc->empty_cycles,
			 "empty_max", FPL_SELFCHECK_EMPTY_MAX, "empty_ok", sc->empty_ok,
			 "ok", sc->ok, "text", sc->text);
}
