// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's xor templates: its calibration (optionally inside modelled sections, 2021), and a size sweep. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/bench.h"
#include "fpulab/harness.h"
#include "fpulab/model.h"
#include "fpulab/xor.h"
#include "fpulab/xstate.h"
#include "interference.h"
#include "xorsweep.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_xor;

#define MAX_SIZES 32
#define MAX_IMPLS 16
#define SWEEP_MIN 512
#define SWEEP_MAX (256u << 20)

static const char *const era_choices[] = { "current", "5.10", "pre-5.10", NULL };
static const char *const policy_choices[] = { "lazy", "eager", NULL };
static const char *const insn_choices[] = { "xsavec", "xsaveopt", "xsave", "fxsave", NULL };

static const struct fpl_opt xor_opts[] = {
	{ "calibrate", FPL_OPT_FLAG, NULL, 0, 0, NULL,
	  "time do_2 the way the kernel's do_xor_speed() does and print its lines" },
	{ "kernel-era", FPL_OPT_STR, "current", 0, 0, era_choices,
	  "which do_xor_speed(): current (2024 on), 5.10 (5.10-2024) or pre-5.10" },
	{ "repeat", FPL_OPT_INT, "1", 1, 1000, NULL, "calibrations to run (one is one sample)" },
	{ "section", FPL_OPT_STR, "none", 0, 0, NULL,
	  "also calibrate with a modelled section around every do_2: mxcsr, 387, 387|mxcsr, "
	  "or all (mxcsr and 387|mxcsr)" },
	{ "policy", FPL_OPT_STR, "lazy", 0, 0, policy_choices, "restore policy of those sections" },
	{ "insn", FPL_OPT_STR, "xsavec", 0, 0, insn_choices, "save instruction of those sections" },
	{ "hz", FPL_OPT_INT, "1000", 100, 1000, NULL, "jiffy rate for --kernel-era pre-5.10" },
	{ "impl", FPL_OPT_STR, NULL, 0, 0, NULL, "templates, comma-separated (default: all)" },
	{ "sizes", FPL_OPT_STR, "4k,16k,64k,256k,1M,4M,16M,64M", 0, 0, NULL,
	  "sweep: bytes per call, multiples of 512" },
	{ "arities", FPL_OPT_STR, "2,3,4,5", 0, 0, NULL, "sweep: do_N to time, 2 to 5" },
	{ .name = NULL },
};

struct xplan {
	const struct fpl_xor_impl *impl[MAX_IMPLS];
	size_t nimpl;
	unsigned kfpu[3];	/* [0] is always 0: no section */
	size_t nkfpu;
	size_t size[MAX_SIZES], nsize;
	unsigned arity[4];
	size_t narity;
};

static int named_impls(const char *list, struct xplan *p, struct fpl_diag *diag)
{
	size_t n;
	const struct fpl_xor_impl *all = fpl_xor_impls(&n);

	if (!list) {
		for (size_t i = 0; i < n && p->nimpl < MAX_IMPLS; i++)
			p->impl[p->nimpl++] = &all[i];
		return 0;
	}
	while (*list) {
		size_t len = strcspn(list, ",");
		char name[64];
		const struct fpl_xor_impl *x;

		snprintf(name, sizeof(name), "%.*s", (int)len, list);
		x = fpl_xor_find(name);
		if (!x)
			return fpl_diag_set(diag, -EINVAL, "--impl: unknown template '%s'",
					    name);
		if (p->nimpl == MAX_IMPLS)
			return fpl_diag_set(diag, -EINVAL, "--impl: too many templates");
		p->impl[p->nimpl++] = x;
		list += len + (list[len] == ',');
	}
	return p->nimpl ? 0 : fpl_diag_set(diag, -EINVAL, "--impl: no template named");
}

static int parse_arities(const char *s, struct xplan *p, struct fpl_diag *diag)
{
	while (s && *s) {
		size_t len = strcspn(s, ",");

		if (len != 1 || *s < '2' || *s > '5')
			return fpl_diag_set(diag, -EINVAL, "--arities: '%.*s' is not 2, 3, 4 or 5 "
					    "(do_2 to do_5)", (int)len, s);
		if (p->narity == 4)
			return fpl_diag_set(diag, -EINVAL, "--arities: more than four");
		p->arity[p->narity++] = (unsigned)(*s - '0');
		s += len + (s[len] == ',');
	}
	return p->narity ? 0 : fpl_diag_set(diag, -EINVAL, "--arities: none given");
}

static int xplan_parse(const struct fpl_bench_env *env, struct xplan *p, struct fpl_diag *diag)
{
	const char *section = fpl_bench_opt(env, "section");
	char m[sizeof(diag->msg)];
	int err;

	memset(p, 0, sizeof(*p));
	err = named_impls(fpl_bench_opt(env, "impl"), p, diag);
	if (err)
		return err;
	p->kfpu[p->nkfpu++] = 0;
	if (!strcmp(section, "all")) {
		p->kfpu[p->nkfpu++] = FPL_KFPU_MXCSR;
		p->kfpu[p->nkfpu++] = FPL_KFPU_ALL;
	} else {
		err = fpl_kfpu_parse_mask(section, &p->kfpu[1], diag);
		if (err) {
			snprintf(m, sizeof(m), "%s", diag->msg);
			return fpl_diag_set(diag, err, "--section: %s", m);
		}
		if (p->kfpu[1])
			p->nkfpu++;
	}
	err = fpl_parse_sizes(fpl_bench_opt(env, "sizes"), SWEEP_MIN, SWEEP_MAX, FPL_XOR_LINE,
			      p->size, MAX_SIZES, &p->nsize, diag);
	if (err) {
		snprintf(m, sizeof(m), "%s", diag->msg);
		return fpl_diag_set(diag, err, "--sizes: %s (the templates work on whole "
				    "%d-byte lines)", m, FPL_XOR_LINE);
	}
	return parse_arities(fpl_bench_opt(env, "arities"), p, diag);
}

/*
 * Before anything runs: bad values are -EINVAL; templates of which none
 * runs on this CPU leave nothing asked for to measure (the memcpy
 * reference is not what was asked): -ENOTSUP with the first one's reason,
 * exit 77 before the clock is calibrated.
 */
static int xor_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	struct xplan *p = cfg;
	const char *first = NULL;
	int err = xplan_parse(env, p, diag);

	if (err || !env->cpu)	/* no CPU given: the options alone checked */
		return err;
	for (size_t i = 0; i < p->nimpl; i++) {
		const char *why = NULL;

		if (p->impl[i]->supported(env->cpu, &why))
			return 0;
		if (!first)
			first = why ? why : "not supported";
	}
	return p->nimpl ? fpl_diag_set(diag, -ENOTSUP, "%s", first) : 0;
}

/* The plan .check parsed (env->cfg), or parsed now for a caller that gave none. */
static int xplan_of(const struct fpl_bench_env *env, struct xplan *p)
{
	struct fpl_diag diag = { "" };

	if (env->cfg) {
		*p = *(const struct xplan *)env->cfg;
		return 0;
	}
	return xplan_parse(env, p, env->diag ? env->diag : &diag);
}

/* ---- calibration ---- */

struct hook_arg {
	struct fpl_fpu_ctx *ctx;
	unsigned kfpu;
};

static void hook_begin(void *arg)
{
	struct hook_arg *h = arg;

	fpl_fpu_begin(h->ctx, h->kfpu);
}

static void hook_end(void *arg)
{
	fpl_fpu_end(((struct hook_arg *)arg)->ctx);
}

struct calib_cell {
	struct fpl_run *run;
	struct fpl_metric *speed, *reps, *ns;
	const struct fpl_xor_impl *impl;
	unsigned kfpu;
	bool sectioned;
};

/* The calibration's figures: CLOCK_MONOTONIC intervals of as many do_2 calls as fit (calls). */
static void calib_facts(struct calib_cell *c)
{
	struct fpl_metric_how how = { .reps = FPL_REPS_VARIES, .clock = FPL_MCLOCK_MONOTONIC,
				      .overhead = FPL_OVERHEAD_NONE, .conv = FPL_CONV_COMPUTED };

	fpl_metric_set_how(c->speed, &how);
	how.conv = FPL_CONV_NONE;
	fpl_metric_set_how(c->ns, &how);
	fpl_metric_set_how(c->reps, &(struct fpl_metric_how){ .clock = FPL_MCLOCK_NONE,
							      .conv = FPL_CONV_NONE });
}

/* section_skip: why the sectioned cells cannot run (no such save instruction), or NULL. */
static int calib_cells(const struct fpl_bench_env *env, struct fpl_result *result,
		       const struct xplan *p, const char *section_skip, struct calib_cell *cells,
		       size_t *ncells)
{
	const char *era = fpl_bench_opt(env, "kernel-era");
	const struct fpl_xor_impl *forced = fpl_xor_kernel_forced(env->cpu);
	size_t n = 0;

	for (size_t i = 0; i < p->nimpl; i++) {
		for (size_t k = 0; k < p->nkfpu; k++) {
			struct calib_cell *c = &cells[n];
			const char *why = NULL;

			c->impl = p->impl[i];
			c->kfpu = p->kfpu[k];
			c->sectioned = k > 0;
			c->run = fpl_result_add_run(result, "xor");
			if (!c->run || fpl_run_param_str(c->run, "mode", "calibrate") ||
			    fpl_run_param_str(c->run, "template", c->impl->name) ||
			    fpl_run_param_str(c->run, "isa", c->impl->isa) ||
			    fpl_run_param_str(c->run, "section", k ? fpl_kfpu_mask_name(c->kfpu)
									: "no section") ||
			    fpl_run_param_str(c->run, "kernel_era", era) ||
			    (k && fpl_run_param_str(c->run, "policy", fpl_bench_opt(env, "policy"))) ||
			    (k && fpl_run_param_str(c->run, "insn", fpl_bench_opt(env, "insn"))) ||
			    (forced && fpl_run_param_str(c->run, "kernel_forced", forced->name)))
				return -ENOMEM;
			if (k && section_skip)
				why = section_skip;
			if ((k && section_skip) || !c->impl->supported(env->cpu, &why)) {
				if (fpl_run_skip(c->run, "%s", why ? why : "not supported"))
					return -ENOMEM;
				continue;
			}
			if (k && !strcmp(fpl_bench_opt(env, "insn"), "fxsave") &&
			    (env->cpu->xcr0 & ~FPL_XFEATURE_MASK_FPSSE) &&
			    fpl_run_warn(c->run, "FXSAVE keeps x87 and SSE only: AVX and AVX-512 "
					 "state is not preserved across these sections"))
				return -ENOMEM;
			c->speed = fpl_run_add_metric(c->run, "speed", "MB/s",
				"the kernel's do_xor_speed() in the era given: 4096-byte do_2 calls "
				"between mfence pairs timed with CLOCK_MONOTONIC, MB/s = 1000 * "
				"calls * 4096 / ns truncated to an integer (pre-5.10: calls in one "
				"jiffy * HZ * 4 KiB, printed /1000); one sample per calibration");
			c->reps = fpl_run_add_metric(c->run, "calls", "count",
						     "do_2 calls in the interval behind speed");
			c->ns = fpl_run_add_metric(c->run, "interval", "ns",
						   "the interval behind speed");
			if (!c->speed || !c->reps || !c->ns)
				return -ENOMEM;
			calib_facts(c);
			n++;
		}
	}
	*ncells = n;
	return 0;
}

/* A figure computed sample by sample from src's: src's repetitions and clock. */
static void computed_from(struct fpl_metric *m, const struct fpl_metric *src)
{
	struct fpl_metric_how how = *fpl_metric_how(src);

	how.conv = FPL_CONV_COMPUTED;
	fpl_metric_set_how(m, &how);
}

/* One calibration of one cell: the hook holds a section open around every do_2. */
static int calib_one(const struct fpl_bench_env *env, struct calib_cell *c,
		     struct fpl_fpu_ctx *ctx, uint64_t *b1, const uint64_t *b2)
{
	struct hook_arg ha = { ctx, c->kfpu };
	struct fpl_xor_hook hook = { hook_begin, hook_end, &ha };
	struct fpl_xor_calib_opts o = {
		.era = (enum fpl_xor_era)fpl_xor_era_by_name(fpl_bench_opt(env, "kernel-era")),
		.hook = ctx ? &hook : NULL,
		.hz = (unsigned)fpl_bench_opt_int(env, "hz", 1000),
	};
	struct fpl_xor_speed sp;
	int err;

	err = fpl_xor_calibrate(c->impl, &o, b1, b2, &sp);
	if (ctx)
		fpl_return_to_user(ctx);
	if (err)
		return err;
	return fpl_metric_add(c->speed, o.era == FPL_XOR_ERA_PRE_5_10 ? sp.speed / 1000.0 :
				       (double)sp.speed) ||
	       fpl_metric_add(c->reps, (double)sp.reps) ||
	       fpl_metric_add(c->ns, (double)sp.ns) ? -ENOMEM : 0;
}

static int calibrate(const struct fpl_bench_env *env, struct fpl_result *result,
		     const struct xplan *p)
{
	struct calib_cell *cells = calloc(p->nimpl * p->nkfpu, sizeof(*cells));
	long long repeat = fpl_bench_opt_int(env, "repeat", 1);
	struct fpl_diag diag = { "" };
	struct fpl_fpu_ctx ctx;
	struct fpl_xstate xs;
	uint64_t *b1, *b2;
	void *region = NULL;
	size_t ncells = 0;
	bool have_ctx = false;
	int err = -ENOMEM;

	if (!cells || fpl_xor_calib_buffers(&region, &b1, &b2))
		goto out;
	if (p->nkfpu > 1) {
		err = fpl_xstate_init(&xs, env->cpu);
		if (!err)
			err = fpl_fpu_ctx_init(&ctx, env->cpu, &xs,
					       (enum fpl_fpu_policy)fpl_fpu_policy_by_name(
						       fpl_bench_opt(env, "policy")),
					       (enum fpl_save_insn)fpl_save_insn_by_name(
						       fpl_bench_opt(env, "insn")), &diag);
		if (err == -ENOMEM)
			goto out;
		have_ctx = !err;
		if (err && !diag.msg[0])
			fpl_diag_set(&diag, err, "no extended-state layout for this CPU");
	}
	err = calib_cells(env, result, p, p->nkfpu > 1 && !have_ctx ? diag.msg : NULL, cells,
			  &ncells);
	if (err)
		goto out;
	/* Interleaved: every template and mask once per round, in the kernel's order. */
	for (long long r = 0; r < repeat && !err; r++) {
		for (size_t i = 0; i < ncells && !err; i++) {
			if (fpl_bench_stopped(env)) {
				err = -EINTR;
				break;
			}
			err = calib_one(env, &cells[i], cells[i].sectioned ? &ctx : NULL, b1, b2);
		}
		fpl_bench_progress(env, (double)(r + 1) / (double)repeat, "calibration");
	}
out:
	if (have_ctx)
		fpl_fpu_ctx_destroy(&ctx);
	free(region);
	free(cells);
	return err;
}

/* ---- sweep ---- */

struct sweep_arg {
	const struct fpl_xor_impl *impl;	/* NULL: memcpy */
	unsigned arity;
	size_t size;
	uint64_t **buf;				/* dest, then up to four sources */
};

static uint64_t timed_xor(void *p, uint64_t reps)
{
	const struct sweep_arg *a = p;
	uint64_t **b = a->buf, t0 = fpl_tsc_begin();

	for (uint64_t r = 0; r < reps; r++) {
		switch (a->arity) {
		case 2: a->impl->do_2(a->size, b[0], b[1]); break;
		case 3: a->impl->do_3(a->size, b[0], b[1], b[2]); break;
		case 4: a->impl->do_4(a->size, b[0], b[1], b[2], b[3]); break;
		default: a->impl->do_5(a->size, b[0], b[1], b[2], b[3], b[4]); break;
		}
	}
	return fpl_tsc_end() - t0;
}

static uint64_t timed_memcpy(void *p, uint64_t reps)
{
	const struct sweep_arg *a = p;
	uint64_t t0 = fpl_tsc_begin();

	for (uint64_t r = 0; r < reps; r++) {
		memcpy(a->buf[0], a->buf[1], a->size);
		/* every copy is made: none may be merged with the next */
		__asm__ volatile("" : : : "memory");
	}
	return fpl_tsc_end() - t0;
}

/* A median above this share of the bound cannot be true: the row is an anomaly. */

static int bound_anomaly(struct fpl_run *run, const struct sweep_arg *a,
			 const struct fpl_xor_bound *b, double pct)
{
	char m[600];

	snprintf(m, sizeof(m), "do_%u %s at %zu bytes: %.0f%% of the L1 bound (%.2f of %.2f bytes "
		 "per cycle), above %.0f%%, which a bound cannot allow: %s", a->arity,
		 a->impl->name, a->size, pct, pct * b->bytes_per_cycle / 100,
		 b->bytes_per_cycle, FPL_XOR_BOUND_ANOMALY_PCT,
		 b->known ? "the load and store figures for this core are wrong, or the "
			    "core-clock estimate or the timing was disturbed (run again on a "
			    "quiet machine)" :
			    "this CPU is not in fpulab's table and the default figures are too "
			    "low for it");
	return fpl_run_obs_str(run, "bound_anomaly", m) || fpl_run_warn(run, "%s", m) ? -ENOMEM : 0;
}

/* How a cell's samples were kept, for the derived metrics' method strings. */
static const char *kept_text(bool dropped)
{
	return dropped ? "per kept sample: the rounds in which an FXSAVE64 interference reference "
			 "read more than 4% over its floor beside any sample are dropped, the "
			 "same rounds in every run of the size and arity (memcpy's too), when "
			 "enough quiet ones remain (extra.interference on the tsc metric)" :
			 "per sample, every one kept (from 4 MiB on no round is dropped)";
}

/*
 * The bound (fpl_xor_bound: loads and stores per cycle of the template's
 * width) and the percentage of it reached per sample, templates only; with
 * whether the N x size bytes fit in L1D, without which the bound does not apply.
 */
static int bound_derived(const struct fpl_bench_env *env, struct fpl_variant *v,
			 const struct sweep_arg *a, const struct fpl_metric *bpc, bool dropped)
{
	struct fpl_xor_bound b;
	struct fpl_metric *pct;
	char method[1400];
	size_t outside = 0;
	double med;
	int err;

	if (!a->impl || fpl_xor_bound(env->cpu, a->impl, a->arity, a->size, &b))
		return 0;
	snprintf(method, sizeof(method), "bytes_per_cycle as a percentage of the L1 bound "
		 "min(loads x width / N, stores x width) = %.2f bytes of destination per cycle "
		 "for do_%u at %u-byte accesses, with %g loads and %g stores per cycle: %s (%s); "
		 "it holds only while the N x size bytes touched fit in L1D (observed fits_l1d); "
		 "%s; a sample outside 0-100 is an N vs 2N difference across an interruption "
		 "(extra.outside_0_100 counts them): the median is the figure, the summary's "
		 "min, max and mean include them",
		 b.bytes_per_cycle, a->arity, b.width, b.loads, b.stores, b.core, b.source,
		 kept_text(dropped));
	pct = fpl_run_add_metric(v->run, "bound_pct", "percent", method);
	if (!pct)
		return -ENOMEM;
	computed_from(pct, bpc);
	for (size_t i = 0; i < bpc->n; i++) {
		double x = 100 * bpc->samples[i] / b.bytes_per_cycle;

		outside += isfinite(x) && (x < 0 || x > 100);
		if (fpl_metric_add(pct, x))
			return -ENOMEM;
	}
	pct->extra = json_pack("{s:f, s:f, s:f, s:i, s:s, s:s, s:b, s:I}", "bound_bytes_per_cycle",
			       b.bytes_per_cycle, "loads_per_cycle", b.loads, "stores_per_cycle",
			       b.stores, "width_bytes", (int)b.width, "core", b.core, "source",
			       b.source, "core_known", b.known, "outside_0_100", (json_int_t)outside);
	if (!pct->extra)
		return -ENOMEM;
	err = fpl_run_obs_real(v->run, "bound_bytes_per_cycle", b.bytes_per_cycle) ||
	      fpl_run_obs_int(v->run, "footprint_bytes", (long long)b.footprint) ||
	      (b.l1d_bytes ? fpl_run_obs_int(v->run, "l1d_bytes", (long long)b.l1d_bytes) :
			     fpl_run_obs_json(v->run, "l1d_bytes", json_null())) ||
	      (b.fits_l1d < 0 ? fpl_run_obs_json(v->run, "fits_l1d", json_null()) :
				fpl_run_obs_bool(v->run, "fits_l1d", b.fits_l1d)) ? -ENOMEM : 0;
	med = fpl_metric_median(pct);
	if (!err && med > FPL_XOR_BOUND_ANOMALY_PCT)
		err = bound_anomaly(v->run, a, &b, med);
	return err;
}

/*
 * MB/s (decimal MB of destination) and bytes per core cycle from the
 * per-call samples the harness kept (its ns and cycles metrics: the same
 * samples, so sample k of each is from one round).
 */
static int sweep_derived(struct fpl_variant *v, size_t size, bool dropped)
{
	char m[2][700];
	struct fpl_metric *mb, *bpc;

	snprintf(m[0], sizeof(m[0]), "decimal MB of destination per second, the kernel's "
		 "convention: size / ns per call * 1000, %s", kept_text(dropped));
	snprintf(m[1], sizeof(m[1]), "bytes of destination per core cycle (estimated core "
		 "clock), %s", kept_text(dropped));
	mb = fpl_run_add_metric(v->run, "speed", "MB/s", m[0]);
	bpc = fpl_run_add_metric(v->run, "bytes_per_cycle", "ratio", m[1]);
	if (!mb || !bpc)
		return -ENOMEM;
	computed_from(mb, v->m_ns);
	computed_from(bpc, v->m_cycles);
	for (size_t i = 0; i < v->m_ns->n; i++)
		if (fpl_metric_add(mb, (double)size / v->m_ns->samples[i] * 1000) ||
		    fpl_metric_add(bpc, (double)size / v->m_cycles->samples[i]))
			return -ENOMEM;
	return 0;
}

/*
 * The runs of one cell, the variants and their arguments: the templates the
 * CPU runs, then memcpy. *nv gets how many are measured. 0 or -ENOMEM.
 */
static int cell_variants(const struct fpl_bench_env *env, struct fpl_result *result,
			 const struct fpl_xor_cell *cell, struct fpl_variant *v,
			 struct sweep_arg *a, char (*method)[128], size_t *nv)
{
	*nv = 0;
	for (size_t i = 0; i <= cell->nimpl; i++) {
		const struct fpl_xor_impl *x = i < cell->nimpl ? cell->impl[i] : NULL;
		struct fpl_run *run = fpl_result_add_run(result, "xor");
		const char *why = NULL;
		size_t k = *nv;

		if (!run || fpl_run_param_str(run, "mode", "sweep") ||
		    fpl_run_param_str(run, "template", x ? x->name : "memcpy") ||
		    fpl_run_param_str(run, "isa", x ? x->isa : "libc") ||
		    fpl_run_param_int(run, "size", (long long)cell->size) ||
		    fpl_run_param_int(run, "arity", cell->arity))
			return -ENOMEM;
		if (x && !x->supported(env->cpu, &why)) {
			if (fpl_run_skip(run, "%s", why ? why : "not supported"))
				return -ENOMEM;
			continue;
		}
		a[k] = (struct sweep_arg){ x, cell->arity, cell->size, cell->buf };
		if (x)
			snprintf(method[k], sizeof(method[k]), "one do_%u call of %s over %zu bytes",
				 cell->arity, x->name, cell->size);
		else
			snprintf(method[k], sizeof(method[k]),
				 "one memcpy of %zu bytes (glibc's choice)", cell->size);
		v[k] = (struct fpl_variant){ .name = x ? x->name : "memcpy",
					     .timed = x ? timed_xor : timed_memcpy,
					     .arg = &a[k], .run = run, .method = method[k] };
		(*nv)++;
	}
	return 0;
}

/*
 * The host's episodes (docs/method.md, xor section) slow the templates and
 * memcpy alike, by 20-60%, for tens of ms to seconds, and the interference
 * reference with them: a cell keeps only the rounds between quiet
 * readings, the same rounds for every variant, and goes on (to its hard
 * limit) until it has XOR_QUIET_ROUNDS of them where rounds are cheap
 * (the data in L1 or L2; min_samples up to XOR_BIG). From XOR_BIG on, a
 * round of seven templates takes 10 ms to 0.3 s, of which few would be
 * quiet from end to end, and those cells keep every sample, as before. The
 * sweep may take up to XOR_HARD_BUDGETS times its budget: the time its
 * cells did not use is there for a later one to wait for an episode's end.
 */
#define XOR_QUIET_ROUNDS	101
#define XOR_QUIET_MAX_SIZE	(256u << 10)
#define XOR_BIG			(4u << 20)
#define XOR_HARD_BUDGETS	2.0

int fpl_xor_sweep_cell(const struct fpl_bench_env *env, struct fpl_result *result,
		       const struct fpl_xor_cell *cell)
{
	struct fpl_variant v[MAX_IMPLS + 1];
	struct sweep_arg a[MAX_IMPLS + 1];
	char method[MAX_IMPLS + 1][128];
	struct fpl_harness_cfg cfg;
	size_t nv = 0;
	int err;

	if (cell->nimpl > MAX_IMPLS)
		return -EINVAL;
	err = cell_variants(env, result, cell, v, a, method, &nv);
	if (err || !nv)
		return err;
	fpl_harness_defaults(env, &cfg);
	cfg.budget_s = cell->budget_s;
	cfg.warmup_s = cell->budget_s * 0.05;
	cfg.hard_s = cell->hard_s > cell->budget_s ? cell->hard_s : cell->budget_s;
	cfg.progress_lo = cell->progress_lo;
	cfg.progress_span = cell->progress_span;
	cfg.drop_disturbed = cell->size < XOR_BIG;
	cfg.drop_rounds = true;		/* x memcpy: a template against memcpy, same rounds */
	cfg.ref = cell->ref;
	cfg.ref_floor = cell->ref_floor;
	if (cell->size <= XOR_QUIET_MAX_SIZE)
		cfg.quiet_rounds = XOR_QUIET_ROUNDS;
	if (cell->size >= XOR_BIG)
		cfg.min_samples = 5;
	err = fpl_harness_run(env, &cfg, v, nv);
	for (size_t i = 0; i < nv && !err; i++) {
		/* where the buffers lay: the figures depend on it (docs/method.md, xor) */
		err = fpl_run_obs_int(v[i].run, "buffers_apart_bytes",
				      (long long)((uintptr_t)cell->buf[1] - (uintptr_t)cell->buf[0])) ||
		      fpl_run_obs_int(v[i].run, "buffer_page_offset",
				      (long long)((uintptr_t)cell->buf[0] & 4095)) ? -ENOMEM : 0;
		if (!err)
			err = sweep_derived(&v[i], cell->size, cfg.drop_disturbed);
		if (!err)
			err = bound_derived(env, &v[i], &a[i],
					    fpl_run_find_metric(v[i].run, "bytes_per_cycle"),
					    cfg.drop_disturbed);
	}
	return err;
}

/* The sweep: every size and arity a cell, each measured into its own part, then moved in order. */
struct sweep_state {
	const struct fpl_bench_env *env;
	const struct xplan *p;
	/*
	 * One region, page-aligned; a cell's destination and sources lie in it
	 * back to back, each its own size rounded up to a page apart (as the
	 * kernel's do_xor_speed() places b1 and b2 in one allocation), however
	 * large the sweep's largest cell. Buffers of the largest size each,
	 * allocated apart, put a 4 KiB cell's pages 64 MiB apart: on Zen 4 do_5
	 * then read 43-72% of the L1 bound by where ASLR put them, 95% one page
	 * apart (docs/method.md).
	 */
	char *region;
	uint64_t *buf[FPL_XOR_MAX_SRCS + 1];
	struct fpl_ref_floor floor;	/* the reference's floor, carried from cell to cell */
	size_t cells;
	double total, cell;		/* the sweep's budget, a cell's */
	uint64_t t0;
	fpl_timed_fn ref;		/* NULL: FXSAVE64 */
};

static size_t page_up(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

static double sweep_spent(const struct sweep_state *st)
{
	return (double)(fpl_tsc_end() - st->t0) / st->env->clock->tsc_hz;
}

/* Cell i (sizes outer, arities inner) into a new *part; its hard limit hard_s. */
static int sweep_measure(struct sweep_state *st, size_t i, double hard_s, double lo, double span,
			 struct fpl_result **part)
{
	const struct xplan *p = st->p;

	size_t size = p->size[i / p->narity];

	*part = fpl_result_new();
	if (!*part)
		return -ENOMEM;
	for (size_t k = 0; k <= FPL_XOR_MAX_SRCS; k++)
		st->buf[k] = (uint64_t *)(st->region + k * page_up(size));
	return fpl_xor_sweep_cell(st->env, *part, &(struct fpl_xor_cell){
		.impl = p->impl, .nimpl = p->nimpl, .size = size,
		.arity = p->arity[i % p->narity], .buf = st->buf, .budget_s = st->cell,
		.hard_s = hard_s, .progress_lo = lo, .progress_span = span,
		.ref_floor = &st->floor, .ref = st->ref });
}

/* The reference floor a cell's runs were judged by (observed.interference); NAN without one. */
static double part_floor(const struct fpl_result *part)
{
	for (size_t i = 0; part && i < part->nruns; i++) {
		const json_t *o = json_object_get(fpl_run_obs_get(part->runs[i], "interference"),
						  "floor_tsc");

		if (json_is_number(o))
			return json_number_value(o);
	}
	return NAN;
}

static int part_warn_floor(struct fpl_result *part, double floor, double lowest)
{
	for (size_t i = 0; i < part->nruns; i++) {
		struct fpl_run *run = part->runs[i];

		if (run->skipped)
			continue;
		return fpl_run_warn(run, "do_%lld at %lld bytes: the interference reference's "
				    "floor in this cell (%.1f TSC ticks) was %.0f%% above the "
				    "sweep's lowest (%.1f): it was measured wholly inside a slow "
				    "episode, its kept samples slow too, and no time was left to "
				    "measure it again (a larger --budget gives some)",
				    fpl_run_param_get_int(run, "arity", 0),
				    fpl_run_param_get_int(run, "size", 0), floor,
				    100 * (floor / lowest - 1), lowest) ? -ENOMEM : 0;
	}
	return 0;
}

/*
 * A cell measured before the sweep's floor was known (the first ones, in a
 * slow episode from its start) may have found its own floor inside the
 * episode, whose levels (70-85 TSC ticks for a floor of 59 here) it then
 * took for quiet. Such cells are measured again against the sweep's floor,
 * in the time left of its hard limit, or warned about.
 */
static int sweep_again(struct sweep_state *st, struct fpl_result **parts)
{
	double lim = st->floor.tsc * (1 + FPL_INTERF_TOL_PCT / 100);
	size_t n = 0, k = 0;
	int err = 0;

	for (size_t i = 0; i < st->cells; i++)
		n += part_floor(parts[i]) > lim;
	for (size_t i = 0; i < st->cells && !err; i++) {
		double fl = part_floor(parts[i]), left;
		struct fpl_result *again = NULL;

		if (!(fl > lim))
			continue;
		left = st->total * XOR_HARD_BUDGETS - sweep_spent(st) - (double)(n - ++k) * st->cell;
		if (left < st->cell || fpl_bench_stopped(st->env)) {
			err = part_warn_floor(parts[i], fl, st->floor.tsc);
			continue;
		}
		/* at 100%: the sweep's share of the progress is spent (a span of 0 means all) */
		err = sweep_measure(st, i, left, 1, 1e-9, &again);
		for (size_t j = 0; !err && j < again->nruns; j++)
			err = again->runs[j]->skipped ? 0 :
			      fpl_run_obs_real(again->runs[j], "first_floor_tsc", fl);
		if (err) {
			fpl_result_free(again);	/* stopped: the first measurement stays */
			break;
		}
		fpl_result_free(parts[i]);
		parts[i] = again;
	}
	return err;
}

static int sweep_buffers(struct sweep_state *st)
{
	size_t max = 0;
	void *region;

	for (size_t i = 0; i < st->p->nsize; i++)
		max = st->p->size[i] > max ? st->p->size[i] : max;
	if (posix_memalign(&region, 4096, (FPL_XOR_MAX_SRCS + 1) * page_up(max)))
		return -ENOMEM;
	st->region = region;
	/* the largest cell's buffers: every smaller cell's lie inside them */
	for (size_t i = 0; i <= FPL_XOR_MAX_SRCS; i++) {
		uint64_t *b = (uint64_t *)(st->region + i * page_up(max));

		for (size_t w = 0; w < page_up(max) / 8; w++)
			b[w] = 0x9e3779b97f4a7c15ull * (w + 1) + i;
	}
	return 0;
}

static int sweep(const struct fpl_bench_env *env, struct fpl_result *result,
		 const struct xplan *p, fpl_timed_fn ref)
{
	struct sweep_state st = { .env = env, .p = p, .cells = p->nsize * p->narity,
				  .total = fpl_bench_budget(&fpl_bench_xor, env, false), .t0 = fpl_tsc_end(),
				  .ref = ref };
	struct fpl_result **parts = calloc(st.cells, sizeof(*parts));
	int err = parts ? sweep_buffers(&st) : -ENOMEM;

	st.cell = st.total / (double)st.cells;
	for (size_t i = 0; i < st.cells && !err; i++) {
		/* what is left of the sweep's hard limit after the later cells' budgets */
		double hard = st.total * XOR_HARD_BUDGETS - sweep_spent(&st) -
			      (double)(st.cells - i - 1) * st.cell;

		err = fpl_bench_stopped(env) ? -EINTR :
		      sweep_measure(&st, i, hard, (double)i / (double)st.cells,
				    1 / (double)st.cells, &parts[i]);
		fpl_bench_progress(env, (double)(i + 1) / (double)st.cells, "sweep");
	}
	if (!err)
		err = sweep_again(&st, parts);
	/* in order, what was measured (interrupted: so far) */
	for (size_t i = 0; parts && i < st.cells; i++) {
		if (parts[i] && fpl_result_move_runs(result, parts[i], 0) && !err)
			err = -ENOMEM;
		fpl_result_free(parts[i]);
	}
	free(st.region);
	free(parts);
	return err;
}

int fpl_xor_sweep(const struct fpl_bench_env *env, struct fpl_result *result, fpl_timed_fn ref)
{
	struct xplan *p = malloc(sizeof(*p));
	int err = p ? xplan_of(env, p) : -ENOMEM;

	if (!err)
		err = sweep(env, result, p, ref);
	free(p);
	return err;
}

static int xor_run(const struct fpl_bench_env *env, struct fpl_result *result)
{
	struct xplan *p = malloc(sizeof(*p));
	int err = -ENOMEM;

	if (p)
		err = xplan_of(env, p);
	if (!err)
		err = fpl_bench_flag(env, "calibrate") ? calibrate(env, result, p) :
							 sweep(env, result, p, NULL);
	free(p);
	return err;
}

const struct fpl_bench fpl_bench_xor = {
	.name = "xor",
	.budget = { 15.0, 3.0 },
	.summary = "the kernel's xor templates: its calibration (with modelled sections) or a "
		   "size sweep",
	.opts = xor_opts,
	.cfg_size = sizeof(struct xplan),
	.check = xor_check,
	.run = xor_run,
};
