// SPDX-License-Identifier: GPL-3.0-or-later
/* ctxsw: two tasks ping-pong one byte over two pipes; live extended state, placement, A/B. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fpulab/bench.h"
#include "fpulab/stats.h"
#include "fpulab/sysinfo.h"
#include "abdiff.h"
#include "abstate.h"
#include "anchor.h"
#include "ktpass.h"
#include "pingpong.h"
#include "runclock.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_ctxsw;

#define BATCH_NS	1000000.0	/* auto batch: about 1 ms of round trips */
#define WARMUP_S	0.2

static const char *const modes[] = { "processes", "threads", NULL };
static const char *const placements[] = { "same", "cross", "free", NULL };
static const char *const refreshes[] = { "write", "batch", NULL };

static const struct fpl_opt ctxsw_opts[] = {
	{ "mode", FPL_OPT_STR, "processes", 0, 0, modes, "tasks: fork()ed processes or threads" },
	{ "placement", FPL_OPT_STR, "same", 0, 0, placements,
	  "same: both tasks on one CPU; cross: on two CPUs; free: unbound" },
	{ "state", FPL_OPT_STR, "none", 0, 0, NULL,
	  "components each task makes live before writing: none, init, widest (the widest this "
	  "CPU has: avx512, else avx, else sse), or a mask (avx512, 0xe0)" },
	{ "ab", FPL_OPT_STR, NULL, 0, 0, NULL,
	  "STATE_A,STATE_B: alternate two states in interleaved batches, report B - A with a "
	  "95% interval (join components inside one state with '+')" },
	{ "refresh", FPL_OPT_STR, "write", 0, 0, refreshes,
	  "write: XRSTOR the state before every write; batch: once per batch, kept live "
	  "across switches by the kernel (verified with XINUSE)" },
	{ "batch", FPL_OPT_INT, "0", 0, 1e7, NULL, "round trips per sample; 0: about 1 ms" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};


/*
 * The configuration: the states (--state, --ab) parsed once by .check into
 * names, masks and, where this CPU lacks a state, why (states_err
 * -ENOTSUP: the run is skipped); the rest read when the run starts.
 */
struct ctxsw_cfg {
	bool threads, ab;
	const char *placement;
	const char *state_name[FPL_LIVE_MAX];	/* into names */
	char names[FPL_LIVE_MAX][64];
	uint64_t mask[FPL_LIVE_MAX];
	bool none;
	int states_err;
	char why[sizeof(((struct fpl_diag *)0)->msg)];
	unsigned long batch;
	double budget_s;
};

/* The states of --state or --ab (abstate.c, shared with signal); -EINVAL or -ENOTSUP with diag. */
static int parse_states(const struct fpl_bench_env *env, struct ctxsw_cfg *c,
			struct fpl_diag *diag)
{
	struct fpl_ab_states st;
	struct fpl_xstate xs;
	int err = fpl_xstate_init(&xs, env->cpu);

	if (err)
		return fpl_diag_set(diag, err, "xstate: CPUID leaf 0xD unreadable");
	err = fpl_ab_states_parse(&xs, fpl_bench_opt(env, "state"), fpl_bench_opt(env, "ab"), &st,
				  diag);
	c->ab = st.ab;
	c->none = st.none;
	for (unsigned i = 0; i < st.n; i++) {
		snprintf(c->names[i], sizeof(c->names[i]), "%s", st.name[i]);
		c->state_name[i] = c->names[i];
		c->mask[i] = st.mask[i];
	}
	return err;
}

/*
 * Before anything runs: a value no CPU accepts is a usage error (-EINVAL),
 * a state this CPU lacks is refused (-ENOTSUP, exit 77) before the clock
 * is calibrated; "widest" leaves its one line in diag with 0.
 */
static int ctxsw_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	struct ctxsw_cfg *c = cfg;
	const char *ab = fpl_bench_opt(env, "ab");
	struct fpl_xstate xs;
	int err = parse_states(env, c, diag);

	if (err)
		return err;
	diag->msg[0] = 0;
	if (fpl_xstate_names_widest(ab ? ab : fpl_bench_opt(env, "state")) &&
	    !fpl_xstate_init(&xs, env->cpu))
		fpl_xstate_widest_note(fpl_xstate_xcr0(&xs), "XCR0", diag->msg,
				       sizeof(diag->msg));
	return 0;
}

/* Both tasks' CPU sets for the placement, and the first two usable CPUs. */
static int placement_sets(const struct fpl_bench_env *env, const char *placement,
			  cpu_set_t *a, cpu_set_t *b, struct fpl_run *run)
{
	int ca, cb, err;

	CPU_ZERO(a);
	CPU_ZERO(b);
	if (!strcmp(placement, "free")) {
		/* unbound among the CPUs it started with, and the one --cpu named */
		fpl_cpuset_start(env->cpus_start, a);
		if (env->pin_cpu >= 0 && env->pin_cpu < CPU_SETSIZE)
			CPU_SET(env->pin_cpu, a);
		*b = *a;
		return 0;
	}
	err = fpl_cpu_pair(env->pin_cpu, env->cpus_start, &ca, &cb);
	if (err)
		return err;
	CPU_SET(ca, a);
	CPU_SET(strcmp(placement, "cross") ? ca : cb, b);
	if (!strcmp(placement, "cross") && ca == cb)
		fpl_run_warn(run, "only one CPU usable (of those it started with): cross placement "
			     "runs both tasks on CPU %d", ca);
	return 0;
}

static int pp_open(struct fpl_pp *pp, const struct ctxsw_cfg *c, const struct fpl_bench_env *env,
		   struct fpl_run *run)
{
	struct fpl_diag diag = { "" };
	int err;

	pp->p1[0] = pp->p1[1] = pp->p2[0] = pp->p2[1] = pp->p3[0] = pp->p3[1] = -1;
	pp->threads = c->threads;
	pp->sh = fpl_shared_alloc(sizeof(*pp->sh));
	if (!pp->sh)
		return fpl_run_warn(run, "mmap: %s", strerror(errno)), -ENOMEM;
	if (pipe(pp->p1) || pipe(pp->p2)) {
		err = -errno;
		fpl_run_warn(run, "pipe: %s", strerror(errno));
		return err;
	}
	if (c->none)
		return 0;
	pp->nstates = c->ab ? 2 : 1;
	err = fpl_live_init(&pp->live, env->cpu, c->mask, pp->nstates, &diag);
	if (err == -ENOTSUP)
		fpl_run_skip(run, "%s", diag.msg);
	else if (err)
		fpl_run_warn(run, "%s", diag.msg);
	return err;
}


struct pp_metrics {
	struct fpl_metric *rt[FPL_LIVE_MAX];	/* ns per round trip, one sample per batch */
	struct fpl_metric *med[FPL_LIVE_MAX];	/* median single round trip of each batch */
	struct fpl_metric *set[FPL_LIVE_MAX];	/* ns of state setting per round trip (A/B only) */
	double ticks, ns;			/* all batches: TSC ticks and ns, for the TSC rate */
	struct fpl_anchor_round *rounds;	/* per round: batches, anchor, run delay */
	size_t nrounds, cap;
};

static unsigned long calibrate(struct fpl_pp *pp, const struct ctxsw_cfg *c, double warm_s, int *err)
{
	unsigned nst = c->ab ? 2 : 1;
	double end = (double)fpl_pp_now_ns() + warm_s * 1e9, sum = 0, t;
	unsigned long count = 0, n;

	do {
		for (unsigned st = 0; st < nst; st++) {
			*err = fpl_pp_batch(pp, st, 32, &t, NULL);
			if (*err)
				return 0;
			sum += t;
			count++;
		}
	} while ((double)fpl_pp_now_ns() < end);
	if (c->batch)
		return c->batch;
	n = (unsigned long)(BATCH_NS / (sum / count));
	return n < 16 ? 16 : n > 1000000 ? 1000000 : n;
}

/* One batch: its mean, its median single round trip (in TSC ticks until the end), its set cost. */
static int sample(struct fpl_pp *pp, struct pp_metrics *m, unsigned st, unsigned long n,
		  uint32_t *ticks, double *work)
{
	double t, sum = 0;
	int err = fpl_pp_batch(pp, st, n, &t, ticks);

	if (err)
		return err;
	for (unsigned long i = 0; i < n; i++) {
		work[i] = ticks[i];
		sum += ticks[i];
	}
	fpl_sort(work, n);
	m->ticks += sum;
	m->ns += t * n;
	err = fpl_metric_add(m->rt[st], t);
	if (!err)
		err = fpl_metric_add(m->med[st], fpl_quantile_sorted(work, n, 0.5));
	if (!err && m->set[st])
		err = fpl_metric_add(m->set[st], fpl_pp_set_cost(pp, st, n));
	return err;
}

/* Both tasks' run delay so far (ns), NaN where schedstat is not readable. */
static double tasks_wait(const struct fpl_pp *pp, int self)
{
	struct fpl_schedstat a, b;
	int echo = pp->sh->seen[1].tid;

	if (fpl_schedstat_read(0, self, &a) ||
	    fpl_schedstat_read(pp->threads ? 0 : pp->echo.pid, echo, &b))
		return NAN;
	return (double)a.wait_ns + (double)b.wait_ns;
}

/*
 * One round: a batch per state, then the anchor (a self-pipe of as many
 * write+read pairs), the tasks' run delay around all of it (issue 35).
 */
static int round_of(struct fpl_pp *pp, struct pp_metrics *m, unsigned nst, unsigned long round,
		    unsigned long n, uint32_t *ticks, double *work, struct fpl_anchor_round *ar)
{
	int self = (int)syscall(SYS_gettid), err = 0;
	double w0 = tasks_wait(pp, self);

	for (unsigned k = 0; k < nst && !err; k++) {
		unsigned st = round & 1 ? nst - 1 - k : k;

		err = sample(pp, m, st, n, ticks, work);
		if (!err)
			ar->rt[st] = m->rt[st]->samples[m->rt[st]->n - 1];
	}
	if (!err)
		err = fpl_pp_anchor(pp, n, &ar->anchor);
	ar->wait = (tasks_wait(pp, self) - w0) / ((double)n * nst);
	return err;
}

/* Rounds of one batch per state, in A B, B A order so that a linear drift hits both alike. */
static int measure(struct fpl_pp *pp, const struct ctxsw_cfg *c, const struct fpl_bench_env *env,
		   struct pp_metrics *m, unsigned long n, double *elapsed)
{
	unsigned nst = c->ab ? 2 : 1;
	double start = (double)fpl_pp_now_ns(), end = start + c->budget_s * 1e9;
	uint32_t *ticks = malloc(n * sizeof(*ticks));
	double *work = malloc(n * sizeof(*work));
	int err = ticks && work ? 0 : -ENOMEM;

	for (unsigned long round = 0; !err; round++) {
		double now = (double)fpl_pp_now_ns();

		if (fpl_bench_stopped(env)) {
			err = -EINTR;
			break;
		}
		if (now >= end && round >= 3)
			break;
		if (m->nrounds == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 256;
			struct fpl_anchor_round *g = realloc(m->rounds, cap * sizeof(*g));

			if (!g) {
				err = -ENOMEM;
				break;
			}
			m->rounds = g;
			m->cap = cap;
		}
		m->rounds[m->nrounds] = (struct fpl_anchor_round){ { NAN, NAN }, NAN, NAN };
		err = round_of(pp, m, nst, round, n, ticks, work, &m->rounds[m->nrounds]);
		m->nrounds++;
		if (!(round & 63))
			fpl_bench_progress(env, (now - start) / (end - start), "ping-pong");
	}
	*elapsed = ((double)fpl_pp_now_ns() - start) / 1e9;
	free(ticks);
	free(work);
	/* The medians to ns with the TSC rate of this very run. */
	for (unsigned st = 0; st < nst && m->ticks > 0; st++)
		for (size_t i = 0; i < m->med[st]->n; i++)
			m->med[st]->samples[i] *= m->ns / m->ticks;
	return err;
}

static void param_seen(struct fpl_run *run, const char *who, const struct fpl_pp_seen *s)
{
	char key[48];

	snprintf(key, sizeof(key), "cpus_%s", who);
	fpl_run_obs_str(run, key, s->cpus);
	snprintf(key, sizeof(key), "cpu_end_%s", who);
	fpl_run_obs_int(run, key, s->cpu_end);
}

/* XINUSE as each task saw it: every component of the state live, every other one init. */
static void verify_state(struct fpl_run *run, const struct fpl_pp *pp, const struct ctxsw_cfg *c)
{
	static const char *const who[2] = { "initiator", "echo" };
	bool ok = true, any = false;
	char key[64], val[96];

	if (!pp->nstates)
		return;
	if (!pp->live.xinuse) {
		fpl_run_obs_str(run, "state_verified", "no (no XGETBV with ECX=1)");
		return;
	}
	for (unsigned t = 0; t < 2; t++) {
		for (unsigned st = 0; st < pp->nstates; st++) {
			const struct fpl_pp_seen *s = &pp->sh->seen[t];
			uint64_t want = c->mask[st], others = pp->live.rfbm & ~want;
			bool live = (s->xin_and[st] & want) == want;
			bool init = fpl_live_extra_ok(s->xin_and[st], others);
			char names[160];

			snprintf(key, sizeof(key), "xinuse_%s%s%s", who[t], c->ab ? "_" : "",
				 c->ab ? (st ? "b" : "a") : "");
			if (!s->checks[st]) {
				fpl_run_obs_str(run, key, "not checked");
				continue;
			}
			any = true;
			snprintf(val, sizeof(val), "and 0x%" PRIx64 " or 0x%" PRIx64 " n=%" PRIu64,
				 s->xin_and[st], s->xin_or[st], s->checks[st]);
			fpl_run_obs_str(run, key, val);
			snprintf(key, sizeof(key), "xinuse_extra_%s%s%s", who[t], c->ab ? "_" : "",
				 c->ab ? (st ? "b" : "a") : "");
			fpl_live_obs_extra(run, key, s->xin_and[st], s->xin_or[st], others);
			if (!live) {
				fpl_xfeature_mask_names(want & ~s->xin_and[st], names, sizeof(names));
				fpl_run_warn(run, "%s task: state 0x%" PRIx64 " not live at every check: "
					     "%s read init at least once (XINUSE and 0x%" PRIx64 ")",
					     who[t], want, names, s->xin_and[st]);
			}
			if (!init) {
				fpl_xfeature_mask_names(s->xin_and[st] & others & ~FPL_XFEATURE_MASK_FPSSE,
							names, sizeof(names));
				fpl_run_warn(run, "%s task: %s in use at every check although the "
					     "state 0x%" PRIx64 " leaves it init (XINUSE and 0x%" PRIx64 ")",
					     who[t], names, want, s->xin_and[st]);
			}
			ok = ok && live && init;
		}
	}
	fpl_run_obs_str(run, "state_verified", !any ? "no (no checks)" : ok ? "yes" : "NO");
}

static int add_derived(struct fpl_run *run, const struct fpl_metric *rt, const char *sfx,
		       const char *method)
{
	char name[40], meth[512];
	struct fpl_metric *sw, *rate;
	struct fpl_metric_how how;

	snprintf(name, sizeof(name), "switch%s", sfx);
	snprintf(meth, sizeof(meth), "%s; half a round trip", method);
	sw = fpl_run_add_metric(run, name, "ns", meth);
	snprintf(name, sizeof(name), "round_trips_per_s%s", sfx);
	snprintf(meth, sizeof(meth), "%s; 1e9 / ns per round trip", method);
	rate = fpl_run_add_metric(run, name, "ops/s", meth);
	if (!sw || !rate)
		return -ENOMEM;
	how = *fpl_metric_how(rt);
	fpl_metric_set_how(sw, &how);
	how.conv = FPL_CONV_COMPUTED;
	fpl_metric_set_how(rate, &how);
	for (size_t i = 0; i < rt->n; i++)
		if (fpl_metric_add(sw, rt->samples[i] / 2) ||
		    fpl_metric_add(rate, 1e9 / rt->samples[i]))
			return -ENOMEM;
	return 0;
}

/*
 * The A/B differences; step_ns is the TSC's step in ns, the resolution of
 * the batch medians (each the median of single round trips read with it).
 */
/*
 * The rounds whose tasks did not wait for the CPU (the anchor's rule,
 * fpl_anchor_flag): their A and B batches into ka, kb. A batch another task
 * preempted is a heavy tail that Welch's mean and variance take whole (the
 * A/A control claimed a difference in 4 of 32 loaded runs). Returns how
 * many; 0 when the rounds do not match the batches one to one.
 */
static size_t kept_rounds(const struct pp_metrics *m, double *ka, double *kb)
{
	size_t n = m->rt[0]->n, k = 0;
	bool *flag;

	if (n != m->rt[1]->n || n != m->nrounds || !(flag = calloc(n ? n : 1, sizeof(*flag))))
		return 0;
	fpl_anchor_flag(m->rounds, n, flag);
	for (size_t i = 0; i < n; i++)
		if (!flag[i]) {
			ka[k] = m->rt[0]->samples[i];
			kb[k++] = m->rt[1]->samples[i];
		}
	free(flag);
	return k;
}

static int add_ab(struct fpl_run *run, const struct pp_metrics *m, const char *method,
		  double step_ns)
{
	struct fpl_abdiff w, p, ws, y;
	const struct fpl_metric *a = m->rt[0], *b = m->rt[1];
	size_t n = a->n < b->n ? a->n : b->n, k;
	double *ka = malloc((a->n + 1) * sizeof(*ka)), *kb = malloc((a->n + 1) * sizeof(*kb));
	struct fpl_metric *d;
	char meth[600];

	if (!ka || !kb) {
		free(ka);
		free(kb);
		return -ENOMEM;
	}
	k = kept_rounds(m, ka, kb);
	if ((k >= 2 ? fpl_abdiff_welch(ka, k, kb, k, 0.95, &w) :
		      fpl_abdiff_welch(a->samples, a->n, b->samples, b->n, 0.95, &w)) ||
	    fpl_abdiff_paired(a->samples, b->samples, n, 0.95, &p)) {
		free(ka);
		free(kb);
		return fpl_run_warn(run, "too few samples for a difference"), 0;
	}
	free(ka);
	free(kb);
	fpl_run_obs_int(run, "welch_batches_kept", (long long)(k >= 2 ? k : a->n));
	snprintf(meth, sizeof(meth), "B - A per round (%s); Welch on the batches of the rounds "
		 "whose tasks did not wait for the CPU in extra (observed welch_batches_kept)",
		 method);
	d = fpl_abdiff_metric(run, a, b, "ns", meth);
	if (!d)
		return -ENOMEM;
	/* The verdicts where a table shows them: B - A as a percentage of A. */
	fpl_abdiff_note(run, d, "welch", "b_minus_a_welch", &w, "ns");
	fpl_abdiff_note(run, d, "paired", NULL, &p, "ns");
	if (!fpl_abdiff_yuen(a->samples, a->n, b->samples, b->n, 20, 0.95, &y))
		fpl_abdiff_note(run, d, "yuen", "b_minus_a_yuen", &y, "ns");
	if (!fpl_abdiff_medians(m->med[0]->samples, m->med[0]->n, m->med[1]->samples,
				m->med[1]->n, step_ns, 0.95, &y))
		fpl_abdiff_note(run, d, "median_welch", "b_minus_a_median", &y, "ns");
	if (m->set[0] && !fpl_abdiff_welch(m->set[0]->samples, m->set[0]->n, m->set[1]->samples,
					   m->set[1]->n, 0.95, &ws)) {
		double diff = w.diff - ws.diff, se = sqrt(w.se * w.se + ws.se * ws.se);

		fpl_abdiff_note(run, d, "set_cost_welch", NULL, &ws, "ns");
		/* Large df: the normal quantile is the t quantile here. */
		json_object_set_new(d->extra, "minus_set_cost",
				    json_pack("{s:f, s:f, s:f, s:f}", "diff", diff,
					      "ci_lo", diff - 1.96 * se, "ci_hi", diff + 1.96 * se,
					      "pct", 100 * diff / w.mean_a));
	}
	return 0;
}

/* Each task's signal-frame xstate_size after the run: the state the kernel keeps for it. */
static void record_frames(struct fpl_run *run, struct fpl_pp *pp)
{
	static const char *const who[2] = { "initiator", "echo" };
	struct fpl_pp_seen *s = pp->sh->seen;
	char key[48], buf[24];

	if (fpl_xstate_sigframe_probe(&s[0].frame_xfeatures, &s[0].frame_xstate_size))
		s[0].frame_xstate_size = 0;
	for (unsigned t = 0; t < 2; t++) {
		if (!s[t].frame_xstate_size)
			continue;
		snprintf(key, sizeof(key), "frame_xstate_size_%s", who[t]);
		fpl_run_obs_int(run, key, s[t].frame_xstate_size);
		snprintf(key, sizeof(key), "frame_xfeatures_%s", who[t]);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, s[t].frame_xfeatures);
		fpl_run_obs_str(run, key, buf);
	}
}

/* AMX: the permitted mask around the request, the echo task's own first tile use. */
static void record_amx(struct fpl_run *run, const struct fpl_pp *pp)
{
	int fu = pp->sh->seen[1].amx_first_use;
	char buf[64];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, pp->live.perm_before);
	fpl_run_obs_str(run, "permitted_before", buf);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, pp->live.perm_after);
	fpl_run_obs_str(run, "permitted_after", buf);
	snprintf(buf, sizeof(buf), "failed: %s", fu < 0 ? strerror(-fu) : "not run");
	fpl_run_obs_str(run, "amx_first_use_echo", fu == 0 ? "ok" : buf);
	if (fu)
		fpl_run_warn(run, "echo task: AMX first tile use %s", buf);
}

/*
 * Every ns metric of the run (all are times) in TSC ticks and core cycles
 * too, NAME_tsc and NAME_cycles: the same samples at the TSC rate measured
 * over this run and the core/TSC ratio around it.
 */
/* A metric's name without a "_ns" its name carries (anchor_ns: anchor_cycles, anchor_tsc). */
static int base_len(const char *name)
{
	size_t n = strlen(name);

	return (int)(n > 3 && !strcmp(name + n - 3, "_ns") ? n - 3 : n);
}

/* The ns metrics from index first on, in TSC ticks and core cycles too. */
static int add_units(const struct fpl_bench_env *env, struct fpl_run *run,
		     const struct pp_metrics *m, const struct fpl_runclock *rc, size_t first)
{
	bool meas = m->ticks > 0 && m->ns > 0;
	double hz = meas ? m->ticks / m->ns * 1e9 : env->clock->tsc_hz;
	char cyc[512], name[64];
	size_t n = run->nmetrics;
	/* the clock's calibrated rate when this run's own could not be measured */
	const char *rate = meas ? "the TSC rate measured over this run (observed tsc_hz_measured)" :
			   "the clock's calibrated TSC rate (host.clock.tsc_hz)";
	char tsc[200], from[160];

	snprintf(tsc, sizeof(tsc), "TSC ticks from ns at %s, which move with the core clock",
		 rate);
	snprintf(from, sizeof(from), "from ns at %s, then ", rate);
	fpl_runclock_cycles_text(env->clock, rc, from, cyc, sizeof(cyc));
	for (size_t i = first; i < n; i++) {
		const struct fpl_metric *src = run->metrics[i];

		if (strcmp(src->unit, "ns"))
			continue;
		snprintf(name, sizeof(name), "%.*s_cycles", base_len(src->name), src->name);
		if (!fpl_metric_scaled(run, src, name, "cycles", hz / 1e9 * rc->ratio, cyc,
				       fpl_runclock_cycles_conv(env->clock)))
			return -ENOMEM;
		src = run->metrics[i];
		snprintf(name, sizeof(name), "%.*s_tsc", base_len(src->name), src->name);
		if (!fpl_metric_scaled(run, src, name, "tsc", hz / 1e9, tsc, FPL_CONV_TSC_FROM_NS))
			return -ENOMEM;
	}
	return 0;
}

static int record(const struct fpl_bench_env *env, struct fpl_run *run, struct fpl_pp *pp,
		  const struct ctxsw_cfg *c, const struct pp_metrics *m, unsigned long n,
		  double elapsed, const struct fpl_runclock *rc)
{
	char buf[32];
	size_t n0;
	int err = 0;

	fpl_run_obs_int(run, "batch", (long long)n);
	fpl_run_obs_real(run, "elapsed_s", elapsed);
	if (m->ticks > 0 && m->ns > 0)
		fpl_run_obs_real(run, "tsc_hz_measured", m->ticks / m->ns * 1e9);
	if (pp->nstates) {
		fpl_run_obs_str(run, "rfbm", fpl_live_mask_str(pp->live.rfbm, buf, sizeof(buf)));
		for (unsigned st = 0; st < pp->nstates; st++)
			fpl_run_obs_str(run, c->ab ? (st ? "mask_b" : "mask_a") : "mask",
					  fpl_live_mask_str(c->mask[st], buf, sizeof(buf)));
	}
	if (pp->nstates)
		record_frames(run, pp);
	if (pp->live.amx)
		record_amx(run, pp);
	param_seen(run, "initiator", &pp->sh->seen[0]);
	param_seen(run, "echo", &pp->sh->seen[1]);
	verify_state(run, pp, c);
	for (unsigned st = 0; st < (c->ab ? 2u : 1u) && !err; st++)
		err = add_derived(run, m->rt[st], c->ab ? (st ? "_b" : "_a") : "", m->rt[st]->method);
	if (!err && c->ab)
		err = add_ab(run, m, m->rt[0]->method, env->clock->step_tsc *
			     (m->ticks > 0 && m->ns > 0 ? m->ns / m->ticks :
			      1e9 / env->clock->tsc_hz));
	if (!err)
		err = add_units(env, run, m, rc, 0);
	/* the anchor's metrics after the switch's, in every unit too */
	n0 = run->nmetrics;
	if (!err)
		err = fpl_anchor_record(run, m->rounds, m->nrounds, c->ab ? 2 : 1);
	return err ? err : add_units(env, run, m, rc, n0);
}

static int make_metrics(struct fpl_run *run, const struct ctxsw_cfg *c, const struct fpl_pp *pp,
			struct pp_metrics *m, unsigned long n)
{
	/* a sample is the batch's n round trips together, or the median of their single timings */
	const struct fpl_metric_how batch = { .reps = (long long)n,
		.clock = FPL_MCLOCK_MONOTONIC_RAW, .overhead = FPL_OVERHEAD_NONE,
		.conv = FPL_CONV_NONE }, single = { .reps = 1, .clock = FPL_MCLOCK_TSC,
		.overhead = FPL_OVERHEAD_NONE, .conv = FPL_CONV_NS_FROM_TSC };
	char meth[512], name[32];

	snprintf(meth, sizeof(meth), "pipe ping-pong, 1 byte each way, %s, placement %s; "
		 "%lu round trips per sample timed with CLOCK_MONOTONIC_RAW; ns per round trip%s",
		 c->threads ? "threads" : "processes", c->placement, n,
		 !pp->nstates ? "" : pp->each ? "; each task XRSTORs its state before every write"
		 : "; state XRSTORed once per batch and kept live by the kernel");
	for (unsigned st = 0; st < (c->ab ? 2u : 1u); st++) {
		snprintf(name, sizeof(name), "round_trip%s", c->ab ? (st ? "_b" : "_a") : "");
		m->rt[st] = fpl_run_add_metric(run, name, "ns", meth);
		if (!m->rt[st])
			return -ENOMEM;
		fpl_metric_set_how(m->rt[st], &batch);
		snprintf(name, sizeof(name), "round_trip_median%s", c->ab ? (st ? "_b" : "_a") : "");
		m->med[st] = fpl_run_add_metric(run, name, "ns", "median of the batch's single round "
						"trips, each timed with lfence;rdtsc, converted with "
						"the TSC rate measured over this run; robust to "
						"preemption by other tasks");
		if (!m->med[st])
			return -ENOMEM;
		fpl_metric_set_how(m->med[st], &single);
		if (!c->ab || !pp->each)
			continue;
		snprintf(name, sizeof(name), "set_cost_%s", st ? "b" : "a");
		m->set[st] = fpl_run_add_metric(run, name, "ns",
						"2 XRSTORs of the state back to back after each "
						"batch, in the initiator alone; ns per round trip");
		if (!m->set[st])
			return -ENOMEM;
		fpl_metric_set_how(m->set[st], &batch);
	}
	return 0;
}

/* The states .check parsed (env->cfg), or parsed now for a caller that gave none. */
static int states(const struct fpl_bench_env *env, struct ctxsw_cfg *c, struct fpl_run *run)
{
	struct fpl_diag diag = { "" };
	int err;

	if (env->cfg) {
		*c = *(const struct ctxsw_cfg *)env->cfg;
		for (unsigned i = 0; i < FPL_LIVE_MAX; i++)
			if (c->state_name[i])
				c->state_name[i] = c->names[i];
		err = c->states_err;
		snprintf(diag.msg, sizeof(diag.msg), "%s", c->why);
	} else {
		err = parse_states(env, c, &diag);
	}
	if (err == -ENOTSUP)
		fpl_run_skip(run, "%s", diag.msg);
	else if (err == -EINVAL && env->diag)
		fpl_diag_set(env->diag, err, "%s", diag.msg);
	else if (err)
		fpl_run_warn(run, "%s", diag.msg);
	return err;
}

static int read_cfg(const struct fpl_bench_env *env, struct ctxsw_cfg *c, struct fpl_run *run)
{
	double def = fpl_bench_budget(&fpl_bench_ctxsw, env, fpl_bench_opt(env, "ab") != NULL);
	int err = states(env, c, run);

	if (err)
		return err;
	c->threads = !strcmp(fpl_bench_opt(env, "mode"), "threads");
	c->placement = fpl_bench_opt(env, "placement");
	c->batch = (unsigned long)fpl_bench_opt_int(env, "batch", 0);
	c->budget_s = env->budget_s > 0 ? env->budget_s : def;
	fpl_run_param_str(run, "mode", c->threads ? "threads" : "processes");
	fpl_run_param_str(run, "placement", c->placement);
	if (c->ab) {
		fpl_run_param_str(run, "state_a", c->state_name[0]);
		fpl_run_param_str(run, "state_b", c->state_name[1]);
	} else {
		fpl_run_param_str(run, "state", c->state_name[0]);
	}
	if (!c->none)
		fpl_run_param_str(run, "refresh", fpl_bench_opt(env, "refresh"));
	fpl_run_param_real(run, "budget_s", c->budget_s);
	/* asked for, it is configuration; the automatic size is observed.batch alone */
	if (c->batch)
		fpl_run_param_int(run, "batch", (long long)c->batch);
	return 0;
}

#define KT_ROUND_TRIPS	2000	/* the traced batch: 8000 events, well inside the buffer */

/*
 * --kernel-trace: one more batch of state A, bracketed by markers. What the
 * kernel should show (same CPU: 2 saves and 2 restores per round trip) is
 * model/kexpect.c's, for op "round trip" and the run's placement.
 */
static int ctxsw_trace(const struct fpl_bench_env *env, struct fpl_pp *pp,
		       const struct ctxsw_cfg *c, struct fpl_run *run, unsigned long n)
{
	unsigned long k = n < KT_ROUND_TRIPS ? n : KT_ROUND_TRIPS;
	struct fpl_ktpass p;
	double t;
	int err;

	if (!fpl_ktpass_begin(env, &p, run, "ctxsw"))
		return 0;
	fpl_ktpass_add_tid(&p, pp->sh->seen[1].tid);
	err = fpl_pp_batch(pp, 0, k, &t, NULL);
	if (err) {
		/* Tracing off and the pass recorded (as what it saw) before the error goes up. */
		fpl_ktpass_end(env, &p, run, "failed batch", (double)k, "round trip", NULL);
		return err;
	}
	return fpl_ktpass_end(env, &p, run, c->ab ? "state_a" : "batch", (double)k, "round trip",
			      NULL);
}

static int ctxsw_go(const struct fpl_bench_env *env, struct fpl_pp *pp, const struct ctxsw_cfg *c,
		    struct fpl_run *run)
{
	struct fpl_diag diag = { "" };
	struct fpl_runclock rc;
	struct pp_metrics m;
	cpu_set_t sa, sb;
	unsigned long n;
	double elapsed = 0;
	int err, err2;

	memset(&m, 0, sizeof(m));
	err = placement_sets(env, c->placement, &sa, &sb, run);
	if (err)
		return fpl_run_warn(run, "no usable CPU found (hwloc)"), err;
	if (sched_setaffinity(0, sizeof(sa), &sa)) {
		err = -errno;
		fpl_run_warn(run, "sched_setaffinity: %s", strerror(errno));
		return err;
	}
	fpl_runclock_begin(env->clock, &rc);
	fpl_pp_seen_start(&pp->sh->seen[0]);
	err = fpl_task_start(&pp->echo, c->threads, &sb, fpl_pp_echo, pp, &diag);
	if (err)
		return fpl_run_warn(run, "%s", diag.msg), err;
	n = calibrate(pp, c, fmin(WARMUP_S, c->budget_s / 10), &err);
	if (!err)
		err = make_metrics(run, c, pp, &m, n);
	if (!err)
		err = measure(pp, c, env, &m, n, &elapsed);
	if (!err)
		err = ctxsw_trace(env, pp, c, run, n);
	pp->sh->seen[0].cpu_end = sched_getcpu();
	fpl_pp_stop_echo(pp);
	if (err == -EPIPE)
		fpl_run_warn(run, "the echo task ended early (status %d)", pp->echo.status);
	else if (err && err != -EINTR)
		fpl_run_warn(run, "ping-pong: %s", strerror(-err));
	if (err == -EINTR)
		fpl_run_warn(run, "interrupted after %.2f s: samples so far kept", elapsed);
	if (!m.rt[0] || (err && err != -EINTR)) {
		free(m.rounds);
		return err;
	}
	err2 = fpl_runclock_end(env->clock, &rc, run);
	if (!err2)
		err2 = record(env, run, pp, c, &m, n, elapsed, &rc);
	free(m.rounds);
	return err ? err : err2;
}

static int ctxsw_run(const struct fpl_bench_env *env, struct fpl_result *res)
{
	struct fpl_run *run = fpl_result_add_run(res, "ctxsw");
	struct ctxsw_cfg c = { 0 };
	struct fpl_pp pp = { .p1 = { -1, -1 }, .p2 = { -1, -1 } };
	cpu_set_t old;
	int err;

	if (!run)
		return -ENOMEM;
	err = read_cfg(env, &c, run);
	if (err)
		return err == -ENOTSUP ? 0 : err;
	pp.each = !strcmp(fpl_bench_opt(env, "refresh"), "write");
	err = pp_open(&pp, &c, env, run);
	if (!err) {
		if (sched_getaffinity(0, sizeof(old), &old)) {
			err = -errno;
			fpl_run_warn(run, "sched_getaffinity: %s", strerror(errno));
		} else {
			err = ctxsw_go(env, &pp, &c, run);
			sched_setaffinity(0, sizeof(old), &old);
		}
	}
	fpl_pp_free(&pp);
	return err == -ENOTSUP && run->skipped ? 0 : err;
}

const struct fpl_bench fpl_bench_ctxsw = {
	.name = "ctxsw",
	.budget = { 3, 0.5 },
	.budget_ab = { 20, 3 },
	.summary = "context switch via pipes (processes or threads), live state, placement, A/B",
	.opts = ctxsw_opts,
	.cfg_size = sizeof(struct ctxsw_cfg),
	.check = ctxsw_check,
	.run = ctxsw_run,
};
