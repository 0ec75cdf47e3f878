// SPDX-License-Identifier: GPL-3.0-or-later
/* The three reference experiments measured through a session: the rounds, their figures, the cases. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/session.h"
#include "fpulab/xstate.h"
#include "repro.h"

int fpl_repro_add_case(struct fpl_result *r, const char *table, int case_no, const char *label,
		       const char *unit, const char *method, const double *v, size_t n)
{
	struct fpl_run *run = fpl_result_add_run(r, FPL_REPRO_BENCH);
	struct fpl_metric *m;

	if (!run || fpl_run_param_str(run, "experiment", "rfbm") ||
	    fpl_run_param_str(run, "table", table) || fpl_run_param_int(run, "case", case_no) ||
	    fpl_run_param_str(run, "label", label))
		return -ENOMEM;
	m = fpl_run_add_metric(run, "value", unit, method);
	if (!m || fpl_metric_add_many(m, v, n))
		return -ENOMEM;
	return 0;
}

int fpl_repro_add_paired_case(struct fpl_result *r, const char *table, int case_no,
			      const char *label, const char *unit, const char *method,
			      const double *v, const double *base, const char *base_method,
			      size_t n)
{
	struct fpl_metric *m;
	int err = fpl_repro_add_case(r, table, case_no, label, unit, method, v, n);

	if (err)
		return err;
	m = fpl_run_add_metric(r->runs[r->nruns - 1], "baseline", unit, base_method);
	return !m || fpl_metric_add_many(m, base, n) ? -ENOMEM : 0;
}

double fpl_repro_ctx_value(const struct fpl_run *run)
{
	return 1e9 / fpl_metric_median(fpl_run_find_metric(run, "switch"));
}

int fpl_repro_add_left_out(struct fpl_result *r, const char *table, int report_case,
			   const char *label, const char *why)
{
	struct fpl_run *run = fpl_result_add_run(r, FPL_REPRO_BENCH);

	return !run || fpl_run_param_str(run, "experiment", "rfbm") ||
	       fpl_run_param_str(run, "table", table) ||
	       fpl_run_param_int(run, "report_case", report_case) ||
	       fpl_run_param_str(run, "label", label) ||
	       fpl_run_skip(run, "%s", why && *why ? why : "not measured here") ? -ENOMEM : 0;
}

void fpl_repro_ctx_ab_values(const struct fpl_run *run, double *a, double *b)
{
	*a = 1e9 / fpl_metric_median(fpl_run_find_metric(run, "switch_a"));
	*b = 1e9 / fpl_metric_median(fpl_run_find_metric(run, "switch_b"));
}

static void copy_param(char *dst, size_t n, const struct fpl_run *run, const char *key)
{
	const char *v = fpl_run_param_get_str(run, key);

	snprintf(dst, n, "%s", v ? v : "");
}

int fpl_repro_xs_alloc(struct fpl_repro_xs_case *xc, size_t nx, size_t rounds)
{
	int err = 0;

	for (size_t i = 0; i < nx; i++)
		for (size_t k = 0; k < 2; k++)
			if (!(xc[i].v[k] = calloc(rounds ? rounds : 1, sizeof(double))))
				err = -ENOMEM;
	return err;
}

void fpl_repro_xs_free(struct fpl_repro_xs_case *xc, size_t nx)
{
	for (size_t i = 0; i < nx; i++)
		for (size_t k = 0; k < 2; k++) {
			free(xc[i].v[k]);
			xc[i].v[k] = NULL;
		}
}

void fpl_repro_xs_round(const struct fpl_result *r, size_t from, struct fpl_repro_xs_case *xc,
			size_t nx)
{
	for (size_t k = 0; k < nx; k++) {
		const struct fpl_run *last = NULL;

		for (size_t i = from; i < r->nruns; i++) {
			const struct fpl_run *run = r->runs[i];
			const char *insn = fpl_run_param_get_str(run, "insn");
			const char *comp = fpl_run_param_get_str(run, "component");

			if (!run->skipped && insn && !strcmp(insn, xc[k].insn) &&
			    (!xc[k].want || (comp && !strcmp(comp, xc[k].want))) &&
			    fpl_run_find_metric(run, "with_cycles"))
				last = run;
		}
		if (!last)
			continue;
		copy_param(xc[k].comp, sizeof(xc[k].comp), last, "component");
		copy_param(xc[k].with, sizeof(xc[k].with), last, "rfbm_with");
		copy_param(xc[k].without, sizeof(xc[k].without), last, "rfbm_without");
		xc[k].v[0][xc[k].n] = fpl_metric_median(fpl_run_find_metric(last, "without_cycles"));
		xc[k].v[1][xc[k].n] = fpl_metric_median(fpl_run_find_metric(last, "with_cycles"));
		xc[k].n++;
	}
}

static int ctx_cases(struct fpl_result *out, const struct fpl_repro_ctx_case *cc, size_t nc,
		     double budget)
{
	static const char table[] = "Context switches, context_switch1-style";
	char method[512], base[256];
	int err = 0, k = 1;

	for (size_t i = 0; i < nc && !err; i++) {
		/* a case of the report this CPU cannot have is said, not dropped silently */
		if (!cc[i].n && cc[i].skip)
			err = fpl_repro_add_left_out(out, table, (int)i + 1, cc[i].label, cc[i].why);
		if (!cc[i].n)
			continue;
		snprintf(method, sizeof(method), "pipe ping-pong between two processes on one CPU, "
			 "each wider state against init in one run per round (fpulab ctxsw --ab "
			 "init,STATE: their batches alternate), %.2g s per run; value: switches per "
			 "second, 1e9 / the run's median ns per switch of the state (will-it-scale's "
			 "count / time is the mean: the median resists the host's preemptions); "
			 "init: the mean of its arms in the round's runs", budget);
		snprintf(base, sizeof(base), "init's switches per second in the same ctxsw --ab "
			 "run as each value, their batches alternating");
		err = k == 1 || !cc[i].base ?
			fpl_repro_add_case(out, table, k, cc[i].label, "ops/s", method, cc[i].v,
					   cc[i].n) :
			fpl_repro_add_paired_case(out, table, k, cc[i].label, "ops/s", method,
						  cc[i].v, cc[i].base, base, cc[i].n);
		k++;
	}
	return err;
}

int fpl_repro_rfbm_cases(struct fpl_result *out, const struct fpl_repro_ctx_case *cc, size_t nc,
			 const struct fpl_repro_xs_case *xc, size_t nx, double budget)
{
	char method[384], label[96], table[200], base[160];
	int err = ctx_cases(out, cc, nc, budget);

	for (size_t x = 0; x < nx && !err; x++) {
		if (!xc[x].n)
			continue;
		snprintf(table, sizeof(table), "%s with %s in RFBM or not (%s in its init state, "
			 "the rest of %s live)", xc[x].title, xc[x].comp, xc[x].comp, xc[x].with);
		snprintf(method, sizeof(method), "fpulab xsave --part rfbm: median core cycles of "
			 "back-to-back %s per run, with and without timed in the same rounds",
			 xc[x].title);
		snprintf(label, sizeof(label), "RFBM %s, without %s", xc[x].without, xc[x].comp);
		err = fpl_repro_add_case(out, table, 1, label, "cycles", method, xc[x].v[0],
					 xc[x].n);
		snprintf(label, sizeof(label), "RFBM %s, with %s", xc[x].with, xc[x].comp);
		snprintf(base, sizeof(base), "RFBM %s (without %s) in the same run as each value, "
			 "its rounds interleaved with the value's", xc[x].without, xc[x].comp);
		if (!err)
			err = fpl_repro_add_paired_case(out, table, 2, label, "cycles", method,
							xc[x].v[1], xc[x].v[0], base, xc[x].n);
	}
	return err;
}


int fpl_repro_kvm_cases(struct fpl_result *out, const struct fpl_repro_ctx_case *kc, size_t nk,
			const char *ab, const char *label, double budget)
{
	char table[160], method[600], base[200];
	int err = 0;

	if (nk < 2 || !kc[1].n || kc[1].skip)
		return 0;
	snprintf(table, sizeof(table), "KVM_RUN round trips, the guest's state init or live "
		 "(fpulab kvm --ab %s)", ab);
	snprintf(method, sizeof(method), "one vCPU, a guest that exits to user space in a loop "
		 "(OUT, KVM_EXIT_IO), its state set once with KVM_SET_XSAVE, both states in one run "
		 "per round, their samples interleaved, %.2g s per run; value: the run's median "
		 "core cycles per KVM_RUN round trip of the state%s%s", budget,
		 label && *label ? "; " : "", label ? label : "");
	snprintf(base, sizeof(base), "the guest state init in the same fpulab kvm --ab run as "
		 "each value, its rounds interleaved with the value's");
	err = fpl_repro_add_case(out, table, 1, kc[0].label, "cycles", method, kc[0].v, kc[0].n);
	for (size_t i = 1; i < nk && !err; i++)
		err = fpl_repro_add_paired_case(out, table, (int)i + 1, kc[i].label, "cycles",
						method, kc[i].v, kc[i].base, base, kc[i].n);
	return err;
}

/* ---- the rounds, through a session ---- */

/* One line of how far it is, through cfg->say. */
static void say(const struct fpl_repro_cfg *cfg, const char *fmt, long a, long b)
{
	char line[96];

	if (!cfg->say)
		return;
	snprintf(line, sizeof(line), fmt, a, b);
	cfg->say(cfg->arg, line);
}

/* Runs [from, nruns) of the session's result into dst (NULL: dropped). 0 or -ENOMEM. */
static int take_runs(struct fpl_session *s, struct fpl_result *dst, size_t from)
{
	return fpl_result_move_runs(dst, s->result, from);
}

/*
 * One round of the context-switch cases: each wider state against init in
 * one interleaved run (ctxsw --ab init,STATE, batches alternating), in an
 * order that rotates each round; init's figure of the round is the mean of
 * its arms.
 */
static int ctx_round(struct fpl_session *s, const struct fpl_repro_cfg *cfg,
		     struct fpl_repro_ctx_case *cc, size_t nc, long round, struct fpl_diag *diag)
{
	double init_sum = 0;
	size_t init_n = 0;

	for (size_t j = 0; j + 1 < nc; j++) {
		struct fpl_repro_ctx_case *c = &cc[1 + (j + (size_t)round) % (nc - 1)];
		char ab[48];
		struct fpl_optval o[] = { { "ab", ab } };
		size_t from = s->result->nruns;
		int err;

		if (c->skip)
			continue;
		snprintf(ab, sizeof(ab), "%s,%s", cc[0].state, c->state);
		err = fpl_session_run(s, "ctxsw", o, 1, diag);
		if (err == -ENOTSUP) {
			c->skip = true;
			if (s->result->nruns > from && s->result->runs[from]->skip_reason)
				snprintf(c->why, sizeof(c->why), "ctxsw --ab %s: %s", ab,
					 s->result->runs[from]->skip_reason);
		} else if (err)
			return err;
		else if (s->result->nruns > from) {
			fpl_repro_ctx_ab_values(s->result->runs[from], &c->base[c->n], &c->v[c->n]);
			init_sum += c->base[c->n++];
			init_n++;
		}
		/* The first round's traced runs are kept for the kernel's xcomp_bv line. */
		err = take_runs(s, !round && cfg->traced && s->result->nruns > from &&
				fpl_run_obs_get(s->result->runs[from], "kernel") ? cfg->traced : NULL,
				from);
		if (err)
			return fpl_diag_set(diag, err, "out of memory");
	}
	if (init_n)
		cc[0].v[cc[0].n++] = init_sum / (double)init_n;
	return 0;
}

/*
 * One round of the KVM cases (the upstream sequel: CET_S is guest-only
 * state, swapped on every KVM_RUN): init and a live state in one kvm --ab
 * run. A host where /dev/kvm cannot be used skips them for good.
 */
static int kvm_round(struct fpl_session *s, const struct fpl_repro_cfg *cfg,
		     struct fpl_repro_ctx_case *kc, const char *ab, long round, char *label,
		     size_t label_len, struct fpl_result *out, struct fpl_diag *diag)
{
	struct fpl_optval o[] = { { "ab", ab } };
	size_t from = s->result->nruns;
	const struct fpl_run *run;
	int err = fpl_session_run(s, "kvm", o, 1, diag);

	if (err == -ENOTSUP || (!err && s->result->nruns == from)) {
		kc[1].skip = true;
		diag->msg[0] = 0;
		run = s->result->nruns > from ? s->result->runs[from] : NULL;
		if (fpl_result_warn(out, "repro rfbm: no KVM_RUN cases: %s", run &&
				    run->skip_reason ? run->skip_reason : "kvm did not run"))
			return fpl_diag_set(diag, -ENOMEM, "out of memory");
	} else if (err) {
		return err;
	} else {
		run = s->result->runs[from];
		kc[0].v[kc[0].n++] = fpl_metric_median(fpl_run_find_metric(run,
								       "round_trip_a_cycles"));
		kc[1].base[kc[1].n] = kc[0].v[kc[0].n - 1];
		kc[1].v[kc[1].n++] = fpl_metric_median(fpl_run_find_metric(run,
								       "round_trip_b_cycles"));
		snprintf(label, label_len, "%s", fpl_run_obs_get_str(run, "kvm_label") ?: "");
	}
	/* The first round's traced run is kept: guest fpstates against host tasks. */
	err = take_runs(s, !round && cfg->traced && s->result->nruns > from &&
			fpl_run_obs_get(s->result->runs[from], "kernel") ? cfg->traced : NULL,
			from);
	return err ? fpl_diag_set(diag, err, "out of memory") : 0;
}

static int xsave_round(struct fpl_session *s, struct fpl_repro_xs_case *xc, size_t nx, bool amx,
		       struct fpl_diag *diag)
{
	/* Naming amx asks for AMX permission: tile data then has rows of its own. */
	struct fpl_optval o[] = { { "part", "rfbm" }, { "mask", "amx" } };
	size_t from = s->result->nruns;
	int err = fpl_session_run(s, "xsave", o, amx ? 2 : 1, diag);

	if (err)
		return err;
	fpl_repro_xs_round(s->result, from, xc, nx);
	return take_runs(s, NULL, from) ? fpl_diag_set(diag, -ENOMEM, "out of memory") : 0;
}

static bool stopped(const struct fpl_session *s)
{
	return s->cfg.stop && *s->cfg.stop;
}

static void ctx_free(struct fpl_repro_ctx_case *cc, size_t nc)
{
	for (size_t i = 0; i < nc; i++) {
		free(cc[i].v);
		free(cc[i].base);
	}
}

static int rfbm(struct fpl_session *s, const struct fpl_repro_cfg *cfg, struct fpl_result *out,
		struct fpl_diag *diag)
{
	long n = cfg->runs ? cfg->runs : s->cfg.quick ? 5 : 10;
	double given = cfg->budget_s, budget = given > 0 ? given : s->cfg.quick ? 0.25 : 0.5;
	/* two A/B runs per round take the time three single-state runs took */
	double ctx_budget = given > 0 ? given : 1.5 * budget;
	struct fpl_repro_ctx_case cc[] = {
		{ "init", "state init", NULL, NULL, 0, false, "" },
		{ "avx", "AVX registers live", NULL, NULL, 0, !fpl_cpu_has(s->cpu, FPL_FEAT_AVX),
		  "" },
		{ "avx512", "AVX-512 registers live", NULL, NULL, 0,
		  !fpl_cpu_has(s->cpu, FPL_FEAT_AVX512F), "" },
	};
	struct fpl_repro_xs_case xc[] = {
		{ "xsavec", "XSAVEC", NULL, "", "", "", { NULL, NULL }, 0 },
		{ "xrstor-c", "XRSTOR of a compacted image", NULL, "", "", "", { NULL, NULL }, 0 },
	};
	bool avx512 = fpl_cpu_has(s->cpu, FPL_FEAT_AVX512F);
	/* the report's cases this CPU lacks, and why (the table says so) */
	static const char *const need_name[] = { "", "AVX", "AVX-512" };
	struct fpl_repro_ctx_case kc[] = {
		{ "init", "guest state init", NULL, NULL, 0, false, "" },
		{ avx512 ? "avx512" : "avx", avx512 ? "AVX-512 live in the guest" :
		  "AVX live in the guest", NULL, NULL, 0, !fpl_bench_find("kvm") ||
		  !fpl_cpu_has(s->cpu, FPL_FEAT_AVX), "" },
	};
	const char *kvm_ab = avx512 ? "init,avx512" : "init,avx";
	char kvm_label[128] = "";
	bool ctx = fpl_bench_find("ctxsw"), xs = fpl_bench_find("xsave") && s->cpu->xcr0;
	int err = 0;

	for (size_t i = 1; i < FPL_ARRAY_SIZE(cc); i++)
		if (cc[i].skip)
			snprintf(cc[i].why, sizeof(cc[i].why), "no %s on this CPU (XCR0 0x%llx): "
				 "ctxsw --ab init,%s cannot run here", need_name[i],
				 (unsigned long long)s->cpu->xcr0, cc[i].state);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(kc); i++)
		if (!(kc[i].v = calloc((size_t)n, sizeof(double))) ||
		    !(kc[i].base = calloc((size_t)n, sizeof(double))))
			err = -ENOMEM;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cc); i++)
		if (!(cc[i].v = calloc((size_t)n, sizeof(double))) ||
		    (i && !(cc[i].base = calloc((size_t)n, sizeof(double)))))
			err = -ENOMEM;
	if (fpl_repro_xs_alloc(xc, FPL_ARRAY_SIZE(xc), (size_t)n))
		err = -ENOMEM;
	for (long r = 0; r < n && !err && !stopped(s); r++) {
		say(cfg, "repro rfbm: round %ld of %ld", r + 1, n);
		s->cfg.budget_s = ctx_budget;
		if (ctx)
			err = ctx_round(s, cfg, cc, FPL_ARRAY_SIZE(cc), r, diag);
		s->cfg.budget_s = budget;
		if (xs && !err)
			err = xsave_round(s, xc, FPL_ARRAY_SIZE(xc), false, diag);
		s->cfg.budget_s = ctx_budget;
		if (!kc[1].skip && !err && !stopped(s))
			err = kvm_round(s, cfg, kc, kvm_ab, r, kvm_label, sizeof(kvm_label), out,
					diag);
	}
	if (!err || stopped(s))
		err = fpl_repro_rfbm_cases(out, cc, FPL_ARRAY_SIZE(cc), xc, FPL_ARRAY_SIZE(xc),
					   ctx_budget) ||
		      fpl_repro_kvm_cases(out, kc, FPL_ARRAY_SIZE(kc), kvm_ab, kvm_label,
					  ctx_budget) ? -ENOMEM : stopped(s) ? -EINTR : 0;
	ctx_free(cc, FPL_ARRAY_SIZE(cc));
	ctx_free(kc, FPL_ARRAY_SIZE(kc));
	fpl_repro_xs_free(xc, FPL_ARRAY_SIZE(xc));
	return err;
}

/*
 * The 2024 question at 8 KiB, where AMX exists: XSAVE and XSAVEC with AMX
 * tile data (init) in RFBM or not. Asking for permission and using the
 * tiles enlarges this process's fpstate for good, so this runs after every
 * other experiment, none of whose figures it can then change.
 */
static int rfbm_amx(struct fpl_session *s, const struct fpl_repro_cfg *cfg,
		    struct fpl_result *out, struct fpl_diag *diag)
{
	long n = cfg->runs ? cfg->runs : s->cfg.quick ? 5 : 10;
	double budget = cfg->budget_s > 0 ? cfg->budget_s : s->cfg.quick ? 0.25 : 0.5;
	struct fpl_repro_xs_case ac[] = {
		{ "xsave", "XSAVE", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
		{ "xsavec", "XSAVEC", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
	};
	struct fpl_xstate xs;
	int err = 0;

	if (!fpl_bench_find("xsave") || fpl_xstate_init(&xs, s->cpu) ||
	    !fpl_amx_supported(&xs, NULL))
		return -ENOTSUP;
	if (fpl_repro_xs_alloc(ac, FPL_ARRAY_SIZE(ac), (size_t)n))
		err = -ENOMEM;
	s->cfg.budget_s = budget;
	for (long r = 0; r < n && !err && !stopped(s); r++) {
		say(cfg, "repro rfbm: AMX round %ld of %ld", r + 1, n);
		err = xsave_round(s, ac, FPL_ARRAY_SIZE(ac), true, diag);
	}
	if (!err || stopped(s))
		err = fpl_repro_rfbm_cases(out, NULL, 0, ac, FPL_ARRAY_SIZE(ac), budget) ?
		      -ENOMEM : stopped(s) ? -EINTR : 0;
	fpl_repro_xs_free(ac, FPL_ARRAY_SIZE(ac));
	return err;
}

static int kfpu(struct fpl_session *s, const struct fpl_repro_cfg *cfg, struct fpl_result *out,
		struct fpl_diag *diag)
{
	char reps[24];
	struct fpl_optval o[] = { { "calibrate", NULL }, { "section", "all" }, { "repeat", reps } };
	size_t from = s->result->nruns;
	int err;

	snprintf(reps, sizeof(reps), "%ld", cfg->runs ? cfg->runs : s->cfg.quick ? 7 : 21);
	say(cfg, "repro kfpu-mask: xor calibrations", 0, 0);
	s->cfg.budget_s = cfg->budget_s;
	err = fpl_session_run(s, "xor", o, FPL_ARRAY_SIZE(o), diag);
	if (take_runs(s, out, from))
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	return err;
}

static int lazy(struct fpl_session *s, const struct fpl_repro_cfg *cfg, struct fpl_result *out,
		struct fpl_diag *diag)
{
	char impls[128] = "";
	struct fpl_optval o[] = {
		{ "impl", impls }, { "chunks", "1k" }, { "policy", "both" },
		{ "mask", "mxcsr" }, { "insn", "xsavec" }, { "owner", "init" },
	};
	size_t from = s->result->nruns;
	int err;

	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX))
		strcat(impls, ",xor/avx");
	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX2))
		strcat(impls, ",chacha20/avx2");
	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX512F))
		strcat(impls, ",xor/avx512,chacha20/avx512");
	if (!impls[0])
		return fpl_diag_set(diag, -ENOTSUP, "lazy-restore: the 2018 experiment needs AVX "
				    "or AVX-512; this CPU has neither");
	memmove(impls, impls + 1, strlen(impls));
	say(cfg, "repro lazy-restore: sections inside and outside", 0, 0);
	s->cfg.budget_s = cfg->budget_s;
	err = fpl_session_run(s, "section", o, FPL_ARRAY_SIZE(o), diag);
	if (take_runs(s, out, from))
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	return err;
}

/* The experiments, in the order they run; each with the benchmarks it needs. */
static const struct {
	unsigned what;
	const char *needs[2];		/* any one of them */
	const char *why;
	int (*measure)(struct fpl_session *s, const struct fpl_repro_cfg *cfg,
		       struct fpl_result *out, struct fpl_diag *diag);
} experiments[] = {
	{ FPL_REPRO_RFBM, { "ctxsw", "xsave" }, "rfbm needs the ctxsw and xsave benchmarks",
	  rfbm },
	{ FPL_REPRO_KFPU, { "xor", NULL }, "kfpu-mask needs the xor benchmark", kfpu },
	{ FPL_REPRO_LAZY, { "section", NULL }, "lazy-restore needs the section benchmark", lazy },
	/* Last: AMX permission and tile use change this process for good. */
	{ FPL_REPRO_RFBM, { "xsave", NULL }, NULL, rfbm_amx },
};

const char *fpl_repro_missing(unsigned what)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(experiments); i++)
		if ((what & experiments[i].what) && experiments[i].why &&
		    !fpl_bench_find(experiments[i].needs[0]) &&
		    !(experiments[i].needs[1] && fpl_bench_find(experiments[i].needs[1])))
			return experiments[i].why;
	return NULL;
}

int fpl_repro_measure(struct fpl_session *s, unsigned what, const struct fpl_repro_cfg *cfg,
		      struct fpl_result *out, unsigned *done, struct fpl_diag *diag)
{
	double budget = s->cfg.budget_s;
	int err = 0;

	*done = 0;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(experiments) && !err && !stopped(s); i++) {
		unsigned e = experiments[i].what;
		int one;

		if (!(what & e) || fpl_repro_missing(e))
			continue;
		one = experiments[i].measure(s, cfg, out, diag);
		if (cfg->say)
			cfg->say(cfg->arg, NULL);
		if (!one)
			*done |= e;
		else if (one != -ENOTSUP)
			err = one;
		else if (diag->msg[0] && fpl_result_warn(out, "%s", diag->msg))
			err = -ENOMEM;	/* not on this CPU: the reason is kept, the rest goes on */
		if (one == -ENOTSUP)
			diag->msg[0] = 0;
	}
	s->cfg.budget_s = budget;
	/* Stopped between experiments: interrupted all the same. */
	if (!err && stopped(s))
		err = -EINTR;
	return err;
}
