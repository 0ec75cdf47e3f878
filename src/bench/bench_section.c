// SPDX-License-Identifier: GPL-3.0-or-later
/* The lazy-restore experiment (2018): a modelled section around every chunk of work versus one around all. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/bench.h"
#include "section_work.h"
#include "fpulab/stats.h"
#include "fpulab/harness.h"
#include "fpulab/model.h"
#include "fpulab/xstate.h"
#include "ktpass.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_section;

#define FPL_NOVEC __attribute__((target("general-regs-only")))
#define MAX_WORKS 32
#define MAX_CHUNKS 16
#define MIN_CHUNK 64
#define MAX_TOTAL (16u << 20)
#define OWNER_SEED 0x0123456789abcdefull

static const char *const workload_choices[] = { "all", "xor", "chacha20", NULL };
static const char *const policy_choices[] = { "both", "eager", "lazy", NULL };
static const char *const insn_choices[] = { "xsavec", "xsaveopt", "xsave", "fxsave", "all", NULL };
static const char *const owner_choices[] = { "init", "sse", "avx", "avx512", "widest", "amx",
					     "both", "all", NULL };

static const struct fpl_opt section_opts[] = {
	{ "workload", FPL_OPT_STR, "all", 0, 0, workload_choices, "work inside the sections" },
	{ "impl", FPL_OPT_STR, NULL, 0, 0, NULL,
	  "implementations, comma-separated (xor/avx or avx); default: one per ISA" },
	{ "chunks", FPL_OPT_STR, "64,256,1k,4k,16k,64k", 0, 0, NULL,
	  "chunk sizes in bytes, comma-separated; a section per chunk when inside" },
	{ "total", FPL_OPT_INT, "64k", 4096, MAX_TOTAL, NULL,
	  "bytes of work per modelled system call (a multiple of every chunk)" },
	{ "policy", FPL_OPT_STR, "both", 0, 0, policy_choices,
	  "restore at kernel_fpu_end (eager, before 5.2) or on return to user (lazy)" },
	{ "mask", FPL_OPT_STR, "mxcsr", 0, 0, NULL,
	  "kernel_fpu_begin_mask flags: none, mxcsr, 387, 387|mxcsr, or all (the three usual)" },
	{ "insn", FPL_OPT_STR, "xsavec", 0, 0, insn_choices,
	  "save instruction (xsavec: the kernel's choice without XSAVES)" },
	{ "owner", FPL_OPT_STR, "init", 0, 0, owner_choices,
	  "the user task's state before the call: init, SSE, AVX or AVX-512 registers live, "
	  "widest (the widest of those this CPU has), AMX tiles live (asks for AMX permission), "
	  "both (init and widest) or all three" },
	{ .name = NULL },
};

enum mode { M_INSIDE, M_OUTSIDE, M_BARE, M_NR };
/*
 * The parts of a section, each timed alone as an arm of its own in the
 * same rounds as the modes (issue 32): the owner's save, begin's set-up
 * (LDMXCSR, FNINIT), a begin/end pair with nothing to save, set up or
 * restore (the end and its bookkeeping), the owner's restore (at the end,
 * eager; at return to user, lazy).
 */
enum part { P_SAVE, P_SETUP, P_END, P_RESTORE, P_NR };
static const char *const part_names[P_NR] = { "save", "setup", "end", "restore" };
#define NV (M_NR + P_NR)
/* The user task's state: everything init, SSE/AVX/AVX-512 live, or AMX tiles live (the rest init). */
enum owner { O_INIT, O_SSE, O_AVX, O_AVX512, O_AMX, O_NR };
static const char *const owner_names[O_NR] = { "init", "sse", "avx", "avx512", "amx" };
static const char *const mode_names[M_NR] = { "inside", "outside", "bare" };

struct plan {
	const struct fpl_section_work *work[MAX_WORKS];
	size_t nwork;
	size_t chunk[MAX_CHUNKS], nchunk, total;
	enum fpl_fpu_policy pol[FPL_FPU_POLICY_NR];
	size_t npol;
	unsigned kfpu[3];
	size_t nkfpu;
	enum fpl_save_insn insn[4];
	size_t ninsn;
	enum owner owner[O_NR];
	size_t nowner;
};

/* "avx" matches every workload's avx; "xor/avx" only xor's. */
static bool impl_listed(const struct fpl_section_work *w, const char *list)
{
	char item[64];

	while (*list) {
		size_t len = strcspn(list, ",");
		const char *slash;

		snprintf(item, sizeof(item), "%.*s", (int)len, list);
		slash = strchr(item, '/');
		if (slash ? !strncmp(item, w->workload, (size_t)(slash - item)) &&
			    !w->workload[slash - item] && !strcmp(slash + 1, w->impl) :
			    !strcmp(item, w->impl))
			return true;
		list += len + (list[len] == ',');
	}
	return false;
}

static int plan_works(const struct fpl_bench_env *env, struct plan *p, struct fpl_diag *diag)
{
	const char *wl = fpl_bench_opt(env, "workload"), *impl = fpl_bench_opt(env, "impl");
	size_t n;
	const struct fpl_section_work *all = fpl_section_works(&n);

	p->nwork = 0;
	for (size_t i = 0; i < n && p->nwork < MAX_WORKS; i++) {
		const struct fpl_section_work *w = &all[i];
		bool first_of_isa = true;

		if (strcmp(wl, "all") && strcmp(wl, w->workload))
			continue;
		if (impl) {
			if (impl_listed(w, impl))
				p->work[p->nwork++] = w;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(all[j].workload, w->workload) && !strcmp(all[j].isa, w->isa))
				first_of_isa = false;
		if (first_of_isa)
			p->work[p->nwork++] = w;
	}
	if (impl) {
		/* Every name given must match something. */
		char item[64];

		for (const char *s = impl; *s;) {
			size_t len = strcspn(s, ",");
			bool found = false;

			snprintf(item, sizeof(item), "%.*s", (int)len, s);
			const struct fpl_section_work *other = NULL;

			for (size_t i = 0; i < n && !found; i++) {
				bool named = impl_listed(&all[i], item);

				found = named && (!strcmp(wl, "all") || !strcmp(wl, all[i].workload));
				if (named && !other)
					other = &all[i];
			}
			if (!found && other)
				return fpl_diag_set(diag, -EINVAL, "--impl '%s' is a %s implementation, "
						    "and --workload is %s: name a %s implementation "
						    "or --workload %s (or all)", item, other->workload,
						    wl, wl, other->workload);
			if (!found)
				return fpl_diag_set(diag, -EINVAL, "--impl: no implementation "
						    "named '%s'", item);
			s += len + (s[len] == ',');
		}
	}
	if (!p->nwork)
		return fpl_diag_set(diag, -EINVAL, "no %s implementation is built in",
				    wl);
	return 0;
}

/* "widest": the owner with the widest vector state of this CPU's XCR0 (fpl_xstate_widest). */
static enum owner widest_owner(const struct fpl_cpu *cpu)
{
	struct fpl_xstate xs;
	uint64_t m = 0;

	if (cpu && !fpl_xstate_init(&xs, cpu))
		fpl_xstate_widest(fpl_xstate_xcr0(&xs), &m);
	else
		m = FPL_XFEATURE_MASK_AVX512;	/* no CPU: options only; the run reads its own */
	return m == FPL_XFEATURE_MASK_AVX512 ? O_AVX512 : m == FPL_XFEATURE_MASK_YMM ? O_AVX : O_SSE;
}

/* The components an owner makes live with a pattern (the rest init). */
static uint64_t owner_mask(enum owner o)
{
	switch (o) {
	case O_SSE:
		return FPL_XFEATURE_MASK_FPSSE;
	case O_AVX:
		return FPL_XFEATURE_MASK_FPSSE | FPL_XFEATURE_MASK_YMM;
	case O_AVX512:
		return FPL_XFEATURE_MASK_FPSSE | FPL_XFEATURE_MASK_YMM | FPL_XFEATURE_MASK_AVX512;
	case O_AMX:
		return FPL_XFEATURE_MASK_XTILE;
	default:
		return 0;
	}
}

static int plan_parse(const struct fpl_bench_env *env, struct plan *p, struct fpl_diag *diag)
{
	const char *pol = fpl_bench_opt(env, "policy"), *mask = fpl_bench_opt(env, "mask");
	const char *insn = fpl_bench_opt(env, "insn"), *owner = fpl_bench_opt(env, "owner");
	int err;

	memset(p, 0, sizeof(*p));
	p->total = (size_t)fpl_bench_opt_int(env, "total", 65536);
	if (p->total < 4096 || p->total > MAX_TOTAL)
		return fpl_diag_set(diag, -EINVAL, "--total %zu is outside [4096, %u]",
				    p->total, MAX_TOTAL);
	err = fpl_parse_sizes(fpl_bench_opt(env, "chunks"), MIN_CHUNK, p->total, MIN_CHUNK,
			      p->chunk, MAX_CHUNKS, &p->nchunk, diag);
	if (err) {
		char m[sizeof(diag->msg)];

		snprintf(m, sizeof(m), "%s", diag->msg);
		return fpl_diag_set(diag, err, "--chunks: %s (with --total %zu)", m,
				    p->total);
	}
	for (size_t i = 0; i < p->nchunk; i++)
		if (p->total % p->chunk[i])
			return fpl_diag_set(diag, -EINVAL, "--chunks: %zu does not divide "
					    "--total %zu", p->chunk[i], p->total);
	if (!strcmp(pol, "both") || !strcmp(pol, "eager"))
		p->pol[p->npol++] = FPL_FPU_EAGER;
	if (!strcmp(pol, "both") || !strcmp(pol, "lazy"))
		p->pol[p->npol++] = FPL_FPU_LAZY;
	if (!strcmp(mask, "all")) {
		p->kfpu[p->nkfpu++] = 0;
		p->kfpu[p->nkfpu++] = FPL_KFPU_MXCSR;
		p->kfpu[p->nkfpu++] = FPL_KFPU_ALL;
	} else {
		err = fpl_kfpu_parse_mask(mask, &p->kfpu[0], diag);
		if (err) {
			char m[sizeof(diag->msg)];

			snprintf(m, sizeof(m), "%s", diag->msg);
			return fpl_diag_set(diag, err, "--mask: %s", m);
		}
		p->nkfpu = 1;
	}
	if (!strcmp(insn, "all")) {
		static const enum fpl_save_insn all[] = { FPL_INSN_XSAVEC, FPL_INSN_XSAVEOPT,
							  FPL_INSN_XSAVE, FPL_INSN_FXSAVE };

		memcpy(p->insn, all, sizeof(all));
		p->ninsn = 4;
	} else {
		p->insn[0] = (enum fpl_save_insn)fpl_save_insn_by_name(insn);
		p->ninsn = 1;
	}
	if (!strcmp(owner, "init") || !strcmp(owner, "both") || !strcmp(owner, "all"))
		p->owner[p->nowner++] = O_INIT;
	if (!strcmp(owner, "widest") || !strcmp(owner, "both") || !strcmp(owner, "all"))
		p->owner[p->nowner++] = widest_owner(env->cpu);
	for (enum owner o = O_SSE; o <= O_AMX; o++)
		if (!strcmp(owner, owner_names[o]))
			p->owner[p->nowner++] = o;
	if (!strcmp(owner, "all"))
		p->owner[p->nowner++] = O_AMX;
	return plan_works(env, p, diag);
}

static const char *cpu_skip(const struct fpl_cpu *cpu, enum owner owner,
			    enum fpl_save_insn insn, const char *amx_why, char *buf, size_t size);

/*
 * Before anything runs: bad values are -EINVAL; a plan of which no cell
 * can run on this CPU (an implementation, instruction or owner state it
 * lacks) is -ENOTSUP with the first cell's reason, exit 77 before the
 * clock is calibrated; "widest" (also in both and all) is said once.
 */
static int section_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	const char *owner = fpl_bench_opt(env, "owner");
	struct plan *p = cfg;
	char first[sizeof(diag->msg)] = "", buf[256];
	const char *amx_why = NULL;
	struct fpl_xstate xs;
	int err = plan_parse(env, p, diag);

	if (err || !env->cpu)	/* no CPU given: the options alone checked */
		return err;
	err = fpl_xstate_init(&xs, env->cpu);
	if (err)
		return fpl_diag_set(diag, err, "xstate: CPUID leaf 0xD unreadable");
	if (!fpl_amx_supported(&xs, &amx_why) && !amx_why)
		amx_why = "no AMX here";
	for (size_t w = 0; w < p->nwork; w++)
	for (size_t i = 0; i < p->ninsn; i++)
	for (size_t o = 0; o < p->nowner; o++) {
		const char *why = NULL;

		if (p->work[w]->supported(p->work[w], env->cpu, &why))
			why = cpu_skip(env->cpu, p->owner[o], p->insn[i], amx_why, buf,
				       sizeof(buf));
		else if (!why)
			why = "the CPU cannot run this implementation";
		if (!why)
			goto measurable;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", why);
	}
	return fpl_diag_set(diag, -ENOTSUP, "%s", first);
measurable:
	if (!strcmp(owner, "widest") || !strcmp(owner, "both") || !strcmp(owner, "all"))
		fpl_xstate_widest_note(fpl_xstate_xcr0(&xs), "XCR0", diag->msg, sizeof(diag->msg));
	return 0;
}

struct cell {
	const struct fpl_section_work *w;
	const struct fpl_cpu *cpu;
	const struct fpl_xstate *xs;
	struct fpl_fpu_ctx ctx;
	uint8_t *dst;
	const uint8_t *src;
	size_t total, chunk;
	unsigned kfpu;
	enum owner owner;
	uint64_t owner_mask;	/* components made live with a pattern; 0: all at init */
	uint64_t init_mask;
	const char *amx_why;	/* why there is no AMX owner here; NULL: tiles usable */
};

/*
 * The user task's registers as the call finds them: re-made before every
 * timing. The AMX owner has tiles live and everything else init, in one
 * XRSTOR; the model's sections save and restore the tiles with the rest (the
 * kernel's fpstate holds them) and its work never touches them.
 */
static void set_owner(struct cell *c)
{
	if (c->owner == O_AMX)
		fpl_regs_set_exact(c->xs, c->owner_mask, OWNER_SEED);
	else if (c->owner_mask)
		fpl_regs_set(c->xs, c->owner_mask, OWNER_SEED);
	else
		fpl_regs_init(c->xs, c->init_mask);
}

/*
 * One rep is one modelled system call over total bytes. Nothing here may
 * touch a vector register outside the work itself: between return to user
 * and the next begin the registers are the owner's.
 */
static FPL_NOVEC uint64_t body(struct cell *c, uint64_t reps, enum mode m)
{
	struct fpl_fpu_ctx *ctx = &c->ctx;
	uint64_t t0, t1;

	set_owner(c);
	t0 = fpl_tsc_begin();
	for (uint64_t r = 0; r < reps; r++) {
		if (m == M_OUTSIDE)
			fpl_fpu_begin(ctx, c->kfpu);
		for (size_t off = 0; off < c->total; off += c->chunk) {
			if (m == M_INSIDE)
				fpl_fpu_begin(ctx, c->kfpu);
			c->w->fn(c->w, c->dst + off, c->src + off, c->chunk, off);
			if (m == M_INSIDE)
				fpl_fpu_end(ctx);
		}
		if (m == M_OUTSIDE)
			fpl_fpu_end(ctx);
		if (m != M_BARE)
			fpl_return_to_user(ctx);
	}
	t1 = fpl_tsc_end();
	return t1 - t0;
}

/*
 * One part of a section alone, reps times, over the owner's registers as
 * body() finds them. The restore arm first saves the owner (outside the
 * timing) so that its image is the one a section restores; the end arm
 * runs a begin/end pair of a copy of the context that has nothing to save
 * (its load already pending), no set-up and, lazy, nothing to restore.
 */
static FPL_NOVEC uint64_t part_body(struct cell *c, uint64_t reps, enum part p)
{
	struct fpl_fpu_ctx *ctx = &c->ctx, book = c->ctx;
	uint64_t t0, t1, r;

	book.need_load = true;
	book.in_section = false;
	book.policy = FPL_FPU_LAZY;
	set_owner(c);
	if (p == P_RESTORE)
		fpl_fpu_save_owner(ctx);
	t0 = fpl_tsc_begin();
	switch (p) {
	case P_SAVE:
		for (r = 0; r < reps; r++)
			fpl_fpu_save_owner(ctx);
		break;
	case P_SETUP:
		for (r = 0; r < reps; r++)
			fpl_fpu_setup(c->kfpu);
		break;
	case P_END:
		for (r = 0; r < reps; r++) {
			fpl_fpu_begin(&book, 0);
			fpl_fpu_end(&book);
		}
		break;
	default:
		for (r = 0; r < reps; r++)
			fpl_fpu_restore_owner(ctx);
		break;
	}
	t1 = fpl_tsc_end();
	return t1 - t0;
}

static uint64_t timed_save(void *arg, uint64_t reps) { return part_body(arg, reps, P_SAVE); }
static uint64_t timed_setup(void *arg, uint64_t reps) { return part_body(arg, reps, P_SETUP); }
static uint64_t timed_end(void *arg, uint64_t reps) { return part_body(arg, reps, P_END); }
static uint64_t timed_restore(void *arg, uint64_t reps) { return part_body(arg, reps, P_RESTORE); }
static uint64_t timed_inside(void *arg, uint64_t reps) { return body(arg, reps, M_INSIDE); }
static uint64_t timed_outside(void *arg, uint64_t reps) { return body(arg, reps, M_OUTSIDE); }
static uint64_t timed_bare(void *arg, uint64_t reps) { return body(arg, reps, M_BARE); }

/*
 * A cost below zero is a fault to report, never a speedup (issue 14):
 * judged once every cell has run, over every section run of the result
 * (chance below zero among many intervals is not a fault). An earlier
 * invocation's runs in the same result are judged again over the larger
 * family: a verdict that no longer holds goes, with its warning.
 */
static int flag_anomalies(struct fpl_result *result)
{
	char why[1200];

	for (size_t i = 0; i < result->nruns; i++) {
		struct fpl_run *run = result->runs[i];
		const char *old = fpl_run_obs_get_str(run, "anomaly");
		const char *now = run->skipped || strcmp(run->bench, "section") ? NULL :
				  fpl_section_anomaly(result, run, why, sizeof(why));

		bool changed = old ? !now || strcmp(old, now) : now != NULL;
		json_t *w;
		size_t k;

		if (!changed)
			continue;
		if (old) {
			json_array_foreach(run->warnings, k, w)
				if (!strcmp(json_string_value(w), old)) {
					json_array_remove(run->warnings, k);
					break;
				}
			json_object_del(run->observed, "anomaly");	/* frees old */
		}
		if (now && (fpl_run_obs_str(run, "anomaly", now) || fpl_run_warn(run, "%s", now)))
			return -ENOMEM;
	}
	return 0;
}

/* A median with its distribution-free 95% interval, as a metric's extra. */
static void median_extra(struct fpl_metric *m)
{
	struct fpl_ci ci;

	if (m && !fpl_median_ci(m->samples, m->n, &ci))
		m->extra = json_pack("{s:f, s:f, s:f, s:I}", "estimate", ci.estimate,
				     "ci95_lo", ci.lo, "ci95_hi", ci.hi, "n", (json_int_t)ci.n);
}

/*
 * Facts of a figure computed per round from the variants' samples (of,
 * in of's unit): how they were timed, not one N (each variant has its own).
 */
static int from_variants(struct fpl_metric *m, const struct fpl_metric *of, const char *family,
			 enum fpl_metric_kind kind, enum fpl_metric_conv conv)
{
	struct fpl_metric_how how = *fpl_metric_how(of);

	how.reps = 0;
	how.conv = conv;
	fpl_metric_set_how(m, &how);
	fpl_metric_set_kind(m, kind);
	return fpl_metric_set_family(m, family);
}

/*
 * A cost metric WHAT_UNIT from in's unit, its method how and the interval
 * in extra; the cycles texts as they always were, the others say which
 * samples. A cost net of a baseline variant (FPL_KIND_NET).
 */
static struct fpl_metric *cost_metric(struct fpl_run *run, const char *what,
				      const struct fpl_metric *in, const char *how)
{
	const char *u = in->unit;
	char name[32], meth[320], of[48] = "";
	struct fpl_metric *m;

	if (strcmp(u, "cycles"))
		snprintf(of, sizeof(of), "; from the *_%s samples", u);
	snprintf(name, sizeof(name), "%s_%s", what, u);
	snprintf(meth, sizeof(meth), "%s; extra: median with a distribution-free 95%% interval%s",
		 how, of);
	m = fpl_run_add_metric(run, name, u, meth);
	return m && !from_variants(m, in, what, FPL_KIND_NET, fpl_metric_how(in)->conv) ? m : NULL;
}

/*
 * The section costs in one unit, from the inside, outside and bare samples
 * in that unit (per round: they were taken together): section_UNIT (more
 * than one chunk) and one_section_UNIT.
 */
static int add_costs(struct fpl_run *run, const struct fpl_metric *in,
		     const struct fpl_metric *out, const struct fpl_metric *bare, size_t n,
		     size_t nchunks)
{
	struct fpl_metric *sc = NULL, *one;

	if (nchunks > 1) {
		sc = cost_metric(run, "section", in, "cost of one more section: (inside - "
				 "outside) / (chunks - 1) per round");
		if (!sc)
			return -ENOMEM;
	}
	one = cost_metric(run, "one_section", in, "one section around all the work plus "
			  "the return to user: outside - bare per round");
	if (!one)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((sc && fpl_metric_add(sc, (in->samples[i] - out->samples[i]) /
					  (double)(nchunks - 1))) ||
		    fpl_metric_add(one, out->samples[i] - bare->samples[i]))
			return -ENOMEM;
	median_extra(sc);
	median_extra(one);
	return 0;
}

static int add_derived(struct fpl_run *run, struct fpl_variant *v, size_t nchunks)
{
	const struct fpl_metric *in = v[M_INSIDE].m_cycles, *out = v[M_OUTSIDE].m_cycles;
	const struct fpl_metric *bare = v[M_BARE].m_cycles;
	size_t n = in->n < out->n ? in->n : out->n;
	struct fpl_metric *sp;
	struct fpl_ci ci;
	int err;

	n = n < bare->n ? n : bare->n;
	sp = fpl_run_add_metric(run, "speedup_pct", "percent",
				"outside over inside: 100 * (inside / outside - 1) per round of "
				"interleaved samples; extra: median with a distribution-free 95% "
				"interval (order statistics)");
	/* inside against outside: about 0 where sections cost nothing, either side */
	if (!sp || from_variants(sp, in, sp->name, FPL_KIND_DIFFERENCE, FPL_CONV_COMPUTED))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(sp, 100 * (in->samples[i] / out->samples[i] - 1)))
			return -ENOMEM;
	if (!fpl_speedup_ci(in->samples, out->samples, n, &ci))
		sp->extra = json_pack("{s:f, s:f, s:f, s:I}", "estimate", ci.estimate,
				      "ci95_lo", ci.lo, "ci95_hi", ci.hi, "n", (json_int_t)ci.n);
	/* Cycles first, as before; TSC ticks and ns for --units (the same rounds). */
	err = add_costs(run, in, out, bare, n, nchunks);
	if (!err)
		err = add_costs(run, v[M_INSIDE].m_tsc, v[M_OUTSIDE].m_tsc, v[M_BARE].m_tsc, n,
				nchunks);
	if (!err)
		err = add_costs(run, v[M_INSIDE].m_ns, v[M_OUTSIDE].m_ns, v[M_BARE].m_ns, n,
				nchunks);
	return err;
}

#define KT_CALLS	64	/* calls in a traced batch */

/*
 * --kernel-trace: KT_CALLS more calls of a mode, bracketed by markers, next
 * to what the model counted for one call (lazy: the owner saved once and
 * restored once on the way out). The model runs in user space: a difference
 * from the kernel's count says what the model stands for, not a bug.
 */
static int section_trace(const struct fpl_bench_env *env, struct fpl_run *run, struct cell *c,
			 enum mode m, uint64_t saves, uint64_t restores)
{
	const struct fpl_kt_model model = {
		(double)saves, (double)restores,
		"fpulab's model (src/model) of kernel_fpu_begin/end and the return to user: "
		"its own saves and restores of the owner's registers per call, done in user "
		"space, which the kernel does not see"
	};
	struct fpl_ktpass p;

	if (!fpl_ktpass_begin(env, &p, run, mode_names[m]))
		return 0;
	body(c, KT_CALLS, m);
	return fpl_ktpass_end(env, &p, run, mode_names[m], KT_CALLS, "call", &model);
}

/* What the model did in one call of each mode: the evidence that eager and lazy differ. */
static int record_counts(const struct fpl_bench_env *env, struct fpl_run *run, struct cell *c)
{
	char key[32];
	uint64_t xinuse = 0;
	int err = 0;

	for (int m = M_INSIDE; m <= M_OUTSIDE && !err; m++) {
		fpl_fpu_reset_stats(&c->ctx);
		body(c, 1, (enum mode)m);
		/* Tiles are never touched by the section's work: the owner's must be back. */
		if (c->owner == O_AMX && fpl_xinuse(c->cpu, &xinuse) &&
		    (xinuse & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE)
			fpl_run_warn(run, "owner amx: XINUSE 0x%" PRIx64 " after a %s call: the "
				     "tile state did not survive the modelled sections", xinuse,
				     mode_names[m]);
		snprintf(key, sizeof(key), "%s_saves", mode_names[m]);
		err = fpl_run_obs_int(run, key, (long long)c->ctx.st.saves);
		snprintf(key, sizeof(key), "%s_restores", mode_names[m]);
		err = err ? err : fpl_run_obs_int(run, key, (long long)c->ctx.st.restores);
		if (!err)
			err = section_trace(env, run, c, (enum mode)m, c->ctx.st.saves,
					    c->ctx.st.restores);
	}
	/*
	 * Whether the work leaves the upper halves dirty (XINUSE's YMM or ZMM
	 * bits after one chunk from an init owner): then an XRSTOR of init
	 * state after it cleans them (METHOD.md, Intel's dirty-upper penalty).
	 */
	set_owner(c);
	c->w->fn(c->w, c->dst, c->src, c->chunk, 0);
	if (!err && fpl_xinuse(c->cpu, &xinuse)) {
		snprintf(key, sizeof(key), "0x%" PRIx64, xinuse);
		err = fpl_run_obs_str(run, "work_xinuse", key) ||
		      fpl_run_obs_bool(run, "work_ends_dirty", xinuse & FPL_SECTION_UPPER) ?
		      -ENOMEM : 0;
	}
	/* the harness shuffled each round's order (cfg.shuffle): no arm always after the same */
	if (!err)
		err = fpl_run_obs_str(run, "order", "shuffled");
	/* The owner's components the modelled save writes: this task's active mask. */
	snprintf(key, sizeof(key), "0x%" PRIx64, c->ctx.rfbm);
	if (!err)
		err = fpl_run_obs_str(run, "save_rfbm", key);
	set_owner(c);
	if (!err && fpl_xinuse(c->cpu, &xinuse)) {
		snprintf(key, sizeof(key), "0x%" PRIx64, xinuse);
		err = fpl_run_obs_str(run, "owner_xinuse", key);
	}
	return err;
}

static int params(struct fpl_run *run, const struct cell *c, enum fpl_fpu_policy pol,
		  enum fpl_save_insn insn)
{
	return fpl_run_param_str(run, "workload", c->w->workload) ||
	       fpl_run_param_str(run, "impl", c->w->impl) ||
	       fpl_run_param_str(run, "isa", c->w->isa) ||
	       fpl_run_param_int(run, "chunk", (long long)c->chunk) ||
	       fpl_run_param_int(run, "total", (long long)c->total) ||
	       fpl_run_param_int(run, "sections_inside", (long long)(c->total / c->chunk)) ||
	       fpl_run_param_str(run, "policy", fpl_fpu_policy_name(pol)) ||
	       fpl_run_param_str(run, "mask", fpl_kfpu_mask_name(c->kfpu)) ||
	       fpl_run_param_str(run, "insn", fpl_save_insn_name(insn)) ||
	       fpl_run_param_str(run, "owner", owner_names[c->owner]) ? -ENOMEM : 0;
}

/* Why this cell cannot run here, or NULL. */
static const char *cell_skip(const struct fpl_bench_env *env, const struct cell *c,
			     enum fpl_save_insn insn, char *buf, size_t size)
{
	const char *why = NULL;

	if (!c->w->supported(c->w, env->cpu, &why))
		return why ? why : "the CPU cannot run this implementation";
	if (c->chunk % c->w->unit) {
		snprintf(buf, size, "%s works on multiples of %zu bytes", c->w->workload,
			 c->w->unit);
		return buf;
	}
	return cpu_skip(env->cpu, c->owner, insn, c->amx_why, buf, size);
}

/* Why a cell of this owner and instruction cannot run on cpu, its implementation aside; or NULL. */
static const char *cpu_skip(const struct fpl_cpu *cpu, enum owner owner,
			    enum fpl_save_insn insn, const char *amx_why, char *buf, size_t size)
{
	const char *why = NULL;

	if (!fpl_save_insn_supported(cpu, insn, &why)) {
		static const enum fpl_save_insn alt[] = { FPL_INSN_XSAVEOPT, FPL_INSN_XSAVE,
							  FPL_INSN_FXSAVE };
		size_t k = 0;

		/* Name the instruction, and one that would run here, if any. */
		while (k < FPL_ARRAY_SIZE(alt) &&
		       (alt[k] == insn || !fpl_save_insn_supported(cpu, alt[k], NULL)))
			k++;
		if (k < FPL_ARRAY_SIZE(alt))
			snprintf(buf, size, "%s: %s; try --insn %s", fpl_save_insn_name(insn),
				 why ? why : "not usable", fpl_save_insn_name(alt[k]));
		else
			snprintf(buf, size, "%s: %s", fpl_save_insn_name(insn),
				 why ? why : "not usable");
		return buf;
	}
	if (owner == O_AVX512 && !fpl_cpu_has(cpu, FPL_FEAT_AVX512F))
		return "owner state avx512 needs AVX-512";
	if (owner == O_AVX && !fpl_cpu_has(cpu, FPL_FEAT_AVX))
		return "owner state avx needs AVX";
	if (owner == O_AMX && amx_why) {
		snprintf(buf, size, "owner state amx: %s", amx_why);
		return buf;
	}
	if (owner == O_AMX && insn == FPL_INSN_FXSAVE)
		return "owner state amx: FXSAVE cannot hold tile state";
	return NULL;
}

/* The part arms' variants, after the modes' in v (method and prefix: their texts). */
static void part_variants(struct cell *c, enum fpl_save_insn insn, struct fpl_run *run,
			  struct fpl_variant *v, char (*method)[200], char (*prefix)[16])
{
	static const fpl_timed_fn fns[P_NR] = { timed_save, timed_setup, timed_end,
						timed_restore };

	for (int k = 0; k < P_NR; k++) {
		static const char *const what[P_NR] = {
			"the owner's save alone: %s of RFBM 0x%" PRIx64 " into its image",
			"begin's set-up alone: %s (kernel_fpu_begin_mask)",
			"a begin/end pair alone, nothing to save, set up or restore: the end and "
			"the bookkeeping of a section%s",
			"the owner's restore alone: %s of RFBM 0x%" PRIx64 " from its image (at "
			"the end, eager; at return to user, lazy)",
		};
		int m = M_NR + k;
		const char *ins = insn == FPL_INSN_FXSAVE ? (k == P_SAVE ? "FXSAVE64" : "FXRSTOR64") :
				  k == P_SAVE ? fpl_save_insn_name(insn) : "XRSTOR";

		snprintf(prefix[m], sizeof(prefix[m]), "part_%s_", part_names[k]);
		if (k == P_SETUP)
			snprintf(method[m], sizeof(method[m]), what[k],
				 c->kfpu == FPL_KFPU_ALL ? "LDMXCSR of the default and FNINIT" :
				 c->kfpu == FPL_KFPU_MXCSR ? "LDMXCSR of the default" :
				 c->kfpu == FPL_KFPU_387 ? "FNINIT" : "nothing (mask none)");
		else if (k == P_END)
			snprintf(method[m], sizeof(method[m]), what[k], "");
		else
			snprintf(method[m], sizeof(method[m]), what[k], ins, c->ctx.rfbm);
		v[m] = (struct fpl_variant){ .name = part_names[k], .timed = fns[k], .arg = c,
					     .run = run, .prefix = prefix[m],
					     .method = method[m] };
	}
}

static int run_cell(const struct fpl_bench_env *env, struct fpl_result *result, struct cell *c,
		    enum fpl_fpu_policy pol, enum fpl_save_insn insn, double budget)
{
	struct fpl_run *run = fpl_result_add_run(result, "section");
	struct fpl_diag diag = { "" };
	struct fpl_harness_cfg cfg;
	struct fpl_variant v[NV];
	fpl_timed_fn fns[M_NR] = { timed_inside, timed_outside, timed_bare };
	char why[128], method[NV][200], prefix[NV][16];
	json_t *explain = NULL;
	const char *skip;
	int err;

	if (!run || params(run, c, pol, insn))
		return -ENOMEM;
	skip = cell_skip(env, c, insn, why, sizeof(why));
	if (skip)
		return fpl_run_skip(run, "%s", skip);
	err = fpl_fpu_ctx_init(&c->ctx, env->cpu, c->xs, pol, insn, &diag);
	if (err)
		return err == -ENOMEM ? err : fpl_run_skip(run, "%s", diag.msg);
	if (insn == FPL_INSN_FXSAVE && (c->xs->xcr0 & ~FPL_XFEATURE_MASK_FPSSE) &&
	    fpl_run_warn(run, "FXSAVE keeps x87 and SSE only: the owner's AVX and AVX-512 "
			 "state is not preserved, as on a kernel that used FXSAVE here")) {
		fpl_fpu_ctx_destroy(&c->ctx);
		return -ENOMEM;
	}
	fpl_harness_defaults(env, &cfg);
	cfg.kernel_trace = false;	/* section_trace() instead */
	cfg.budget_s = budget;
	cfg.warmup_s = budget * 0.1;
	/* what ran just before an arm moves its time: no arm always follows the same one */
	cfg.shuffle = true;
	memset(v, 0, sizeof(v));
	for (int m = 0; m < M_NR; m++) {
		snprintf(prefix[m], sizeof(prefix[m]), "%s_", mode_names[m]);
		snprintf(method[m], sizeof(method[m]),
			 m == M_BARE ? "one call: %zu bytes of %s/%s in %zu-byte chunks, no section" :
			 m == M_INSIDE ? "one call: %zu bytes of %s/%s, a section around each "
					 "%zu-byte chunk, return to user" :
			 "one call: %zu bytes of %s/%s in %zu-byte chunks, one section around "
			 "all, return to user", c->total, c->w->workload, c->w->impl, c->chunk);
		v[m] = (struct fpl_variant){ .name = mode_names[m], .timed = fns[m], .arg = c,
					     .run = run, .prefix = prefix[m],
					     .method = method[m] };
	}
	part_variants(c, insn, run, v, method, prefix);
	err = fpl_harness_run(env, &cfg, v, NV);
	if (!err)
		err = add_derived(run, v, c->total / c->chunk);
	if (!err)
		err = fpl_section_explain(run, &explain);
	if (!err && explain)
		err = fpl_run_obs_json(run, "explain", explain);
	if (!err)
		err = record_counts(env, run, c);
	fpl_fpu_ctx_destroy(&c->ctx);
	return err;
}

/* The owner's components: this task's active mask, without PKRU (a pattern there could lock memory). */
static uint64_t user_mask(const struct fpl_xstate *xs)
{
	return fpl_xstate_active(xs) & ~FPL_XFEATURE_MASK_PKRU;
}

static bool plan_has_amx(const struct plan *p)
{
	for (size_t i = 0; i < p->nowner; i++)
		if (p->owner[i] == O_AMX)
			return true;
	return false;
}

/*
 * The AMX owner: permission, then this task's first tile use (the XFD trap),
 * before anything is timed. NULL when tiles are usable, else why not.
 */
static const char *amx_owner_setup(const struct fpl_xstate *xs, char *buf, size_t len)
{
	struct fpl_diag diag = { "" };
	const char *why = NULL;

	if (!fpl_amx_supported(xs, &why))
		return why;
	if (fpl_amx_request_perm(xs, NULL, NULL, &diag) || fpl_amx_first_use(xs, &diag)) {
		snprintf(buf, len, "%s", diag.msg);
		return buf;
	}
	return NULL;
}

/*
 * Every cell of one owner pass, in the order workload, chunk, owner, insn,
 * mask, policy; amx says which pass: the AMX owner's cells, or everyone
 * else's. *done counts the cells, run or left out, for the progress.
 */
static int run_pass(const struct fpl_bench_env *env, struct fpl_result *result,
		    const struct plan *p, struct cell *c, bool amx, double budget, size_t *done)
{
	size_t ncells = p->nwork * p->nchunk * p->npol * p->nkfpu * p->ninsn * p->nowner;
	bool chunks_given = false;
	int err = 0;

	for (size_t i = 0; i < env->nopts; i++)
		chunks_given |= !strcmp(env->opts[i].name, "chunks");
	for (size_t w = 0; w < p->nwork; w++)
	for (size_t k = 0; k < p->nchunk; k++)
	for (size_t o = 0; o < p->nowner; o++) {
		if ((p->owner[o] == O_AMX) != amx)
			continue;
		for (size_t i = 0; i < p->ninsn; i++)
		for (size_t m = 0; m < p->nkfpu; m++)
		for (size_t q = 0; q < p->npol && !err; q++) {
			if (fpl_bench_stopped(env))
				return -EINTR;
			c->w = p->work[w];
			c->chunk = p->chunk[k];
			/* The default chunk list serves every workload: each takes
			 * the sizes it works on. */
			if (!chunks_given && c->chunk % c->w->unit) {
				++*done;
				continue;
			}
			c->kfpu = p->kfpu[m];
			c->owner = p->owner[o];
			c->owner_mask = owner_mask(c->owner);
			c->owner_mask &= c->init_mask;
			err = run_cell(env, result, c, p->pol[q], p->insn[i], budget);
			fpl_bench_progress(env, (double)++*done / (double)ncells, c->w->impl);
		}
	}
	return err;
}

/*
 * The owners init and avx512 first, then amx. The AMX owner's first tile
 * use (the XFD trap) makes TILEDATA part of this task's active mask for
 * good, and with it of every later owner's modelled save (the model saves
 * the active mask, as the kernel's fpstate holds it): it happens only
 * after the last row of the other owners, so that their rows in an `all`
 * plan are the same measurement as in a `both` plan. The masks are read
 * again after it.
 */
static int run_plan(const struct fpl_bench_env *env, struct fpl_result *result,
		    const struct plan *p, struct cell *c, char *amx_why, size_t len)
{
	size_t ncells = p->nwork * p->nchunk * p->npol * p->nkfpu * p->ninsn * p->nowner, done = 0;
	double total_s = fpl_bench_budget(&fpl_bench_section, env, false);
	double budget = total_s / (double)(ncells ? ncells : 1);
	int err;

	c->init_mask = user_mask(c->xs);
	err = run_pass(env, result, p, c, false, budget, &done);
	if (err || !plan_has_amx(p))
		return err;
	c->amx_why = amx_owner_setup(c->xs, amx_why, len);
	c->init_mask = user_mask(c->xs);
	if (!c->amx_why && (c->init_mask & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE)
		c->amx_why = "tile data not in this task's active state after its first use";
	return run_pass(env, result, p, c, true, budget, &done);
}

static int section_run(const struct fpl_bench_env *env, struct fpl_result *result)
{
	struct fpl_diag diag = { "" };
	struct fpl_xstate xs;
	struct plan *p = malloc(sizeof(*p));
	struct cell *c = calloc(1, sizeof(*c));
	uint8_t *dst = NULL, *src = NULL;
	char amx_why[sizeof(diag.msg)];
	int err = -ENOMEM, ferr;

	if (!p || !c)
		goto out;
	err = 0;
	/* the plan .check parsed, or parsed now for a caller that gave none */
	if (env->cfg)
		*p = *(const struct plan *)env->cfg;
	else
		err = plan_parse(env, p, env->diag ? env->diag : &diag);
	if (err)
		goto out;
	err = fpl_xstate_init(&xs, env->cpu);
	if (err)
		goto out;
	err = -ENOMEM;
	dst = fpl_xstate_alloc(p->total);
	src = fpl_xstate_alloc(p->total);
	if (!dst || !src)
		goto out;
	for (size_t i = 0; i < p->total; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	c->cpu = env->cpu;
	c->xs = &xs;
	c->dst = dst;
	c->src = src;
	c->total = p->total;
	err = run_plan(env, result, p, c, amx_why, sizeof(amx_why));
	/* also when interrupted: the cells measured keep their samples, and their verdicts */
	ferr = flag_anomalies(result);
	err = err ? err : ferr;
out:
	free(dst);
	free(src);
	free(c);
	free(p);
	return err;
}

const struct fpl_bench fpl_bench_section = {
	.name = "section",
	.budget = { 10.0, 2.0 },
	.summary = "kernel-style FPU sections around each chunk vs around all (lazy restore, 2018)",
	.opts = section_opts,
	.cfg_size = sizeof(struct plan),
	.check = section_check,
	.run = section_run,
};
