// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the matrix. Cells are built here, timed by the harness, interleaved per instruction. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench/livestate.h"

void *fpl_xs_alloc(struct fpl_xs_bench *x)
{
	void **p = realloc(x->allocs, (x->nallocs + 1) * sizeof(*p));
	void *b;

	if (!p)
		return NULL;
	x->allocs = p;
	b = fpl_xstate_alloc(x->size);
	if (b)
		x->allocs[x->nallocs++] = b;
	return b;
}

void fpl_xs_free(struct fpl_xs_bench *x)
{
	for (size_t i = 0; i < x->nallocs; i++)
		free(x->allocs[i]);
	free(x->allocs);
	x->allocs = NULL;
	x->nallocs = 0;
}

/*
 * A part ends when share_end of the budget has gone (0.65 for the matrix,
 * then 0.90, then 1.0): parts and groups that ran long on a loaded machine
 * leave less to the later ones instead of pushing the end out.
 */
double fpl_xs_left(const struct fpl_xs_bench *x, double share_end)
{
	double gone = (double)(fpl_tsc_end() - x->t_start) / x->env->clock->tsc_hz;
	double left = x->budget * share_end - gone;

	return left > 0.01 ? left : 0.01;
}

struct fpl_run *fpl_xs_run_new(struct fpl_xs_bench *x, const char *insn, uint64_t mask, const char *mask_name,
			   const char *state, const char *method)
{
	struct fpl_run *run = fpl_result_add_run(x->result, "xsave");
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, mask);
	if (!run || fpl_run_param_str(run, "insn", insn) || fpl_run_param_str(run, "mask", hex) ||
	    fpl_run_param_str(run, "mask_name", mask_name ? mask_name : hex) ||
	    fpl_run_param_str(run, "state", state) || fpl_run_param_str(run, "method", method))
		return NULL;
	return run;
}

void fpl_xs_make_compacted(struct fpl_xs_bench *x, const void *img, void *out)
{
	fpl_xs_establish(img, x->permitted, true, false);
	fpl_xsavec64(out, x->permitted);
}

/* What was wrong with the state before a cell's timed calls: the value and the components by name. */
void fpl_xs_xinuse_warn(struct fpl_run *run, const struct fpl_xs_cell *c, const char *last)
{
	char words[400];

	fpl_run_warn(run, "XINUSE & XCR0 was 0x%" PRIx64 ", not 0x%" PRIx64 " (the state "
		     "claimed), before %" PRIu64 " of %" PRIu64 " timed calls%s; last seen %s",
		     c->bad_last, c->expect, c->bad, c->checks,
		     fpl_live_diff_words(c->bad_missing, c->bad_extra, words, sizeof(words)), last);
}

int fpl_xs_group_run(struct fpl_xs_bench *x, struct fpl_xs_cell *cells, struct fpl_variant *v, size_t n,
		 double budget_s)
{
	struct fpl_harness_cfg cfg;
	int err;

	if (!n)
		return 0;
	fpl_harness_defaults(x->env, &cfg);
	cfg.budget_s = budget_s;
	cfg.warmup_s = budget_s * 0.05;
	cfg.hard_s = budget_s * 2;
	cfg.max_samples = x->max_samples;
	err = fpl_harness_run(x->env, &cfg, v, n);
	for (size_t i = 0; i < n; i++) {
		struct fpl_xs_cell *c = &cells[i];
		char hex[24];

		if (!c->xgetbv1)
			continue;
		snprintf(hex, sizeof(hex), "0x%" PRIx64, c->xinuse_seen);
		fpl_run_obs_str(v[i].run, "xinuse_before", hex);
		if (c->bad)
			fpl_xs_xinuse_warn(v[i].run, c, hex);
	}
	return err;
}

enum fpl_xs_state { ST_INIT, ST_LIVE, ST_UNMOD };

struct op_desc {
	enum fpl_xs_op op;
	const char *name, *mnemonic;
	enum fpl_save_insn need;	/* the instruction whose support it needs */
};

static const struct op_desc ops[] = {
	{ XS_FXSAVE, "fxsave", "FXSAVE64", FPL_INSN_FXSAVE },
	{ XS_FXRSTOR, "fxrstor", "FXRSTOR64", FPL_INSN_FXSAVE },
	{ XS_XSAVE, "xsave", "XSAVE64", FPL_INSN_XSAVE },
	{ XS_XSAVEOPT, "xsaveopt", "XSAVEOPT64", FPL_INSN_XSAVEOPT },
	{ XS_XSAVEC, "xsavec", "XSAVEC64", FPL_INSN_XSAVEC },
	{ XS_XRSTOR, "xrstor", "XRSTOR64 (standard image)", FPL_INSN_XSAVE },
	{ XS_XRSTOR_C, "xrstor-c", "XRSTOR64 (compacted image)", FPL_INSN_XSAVEC },
};

static const char *state_name(enum fpl_xs_op op, enum fpl_xs_state st)
{
	if (st == ST_INIT)
		return "init";
	if (op == XS_XSAVEOPT)
		return st == ST_UNMOD ? "unmodified" : "modified";
	return "live";
}

/* XSAVEOPT "modified": the loops that write one register of the highest live component. */
static const struct fpl_xs_modify *modify_for(const struct fpl_xs_bench *x, uint64_t live, unsigned *comp)
{
	for (int id = 63; id >= 0; id--) {
		if (!(live >> id & 1))
			continue;
		*comp = (unsigned)id;
		switch (id) {
		case FPL_XFEATURE_FP:
		case FPL_XFEATURE_SSE:
			return &fpl_xs_modify_base[id];
		case FPL_XFEATURE_YMM:
			return x->avx ? &fpl_xs_modify_avx : NULL;
		case FPL_XFEATURE_OPMASK:
		case FPL_XFEATURE_ZMM_Hi256:
		case FPL_XFEATURE_Hi16_ZMM:
			return x->avx512 ? &fpl_xs_modify_avx512[id - FPL_XFEATURE_OPMASK] : NULL;
		default:
			return NULL;
		}
	}
	return NULL;
}

static void method_text(char *buf, size_t size, const struct op_desc *d, enum fpl_xs_state st,
			bool lat, unsigned comp)
{
	const char *what = d->mnemonic;

	if (!lat && d->op == XS_XSAVEOPT && st == ST_LIVE)
		snprintf(buf, size, "throughput: back-to-back (write one %s register; %s) to one "
			 "buffer, last XRSTOR from that buffer; minus nothing: the write is ~1 cycle",
			 fpl_xfeature_name(comp), what);
	else if (!lat && d->op == XS_XSAVEOPT && st == ST_UNMOD)
		snprintf(buf, size, "throughput: back-to-back %s to the buffer last XRSTORed from, "
			 "state unmodified since", what);
	else if (!lat)
		snprintf(buf, size, "throughput: back-to-back %s on one 64-byte-aligned buffer, "
			 "state set by XRSTOR before timing and checked with XINUSE", what);
	else if (d->op == XS_XSAVEOPT && st == ST_UNMOD)
		snprintf(buf, size, "latency: XRSTOR from the buffer then %s to it, minus the "
			 "XRSTOR alone", what);
	else if (d->op == XS_XSAVEOPT && st == ST_LIVE)
		snprintf(buf, size, "latency: XRSTOR from the buffer, write one %s register, %s, "
			 "minus XRSTOR and the write", fpl_xfeature_name(comp), what);
	else
		snprintf(buf, size, "latency: XRSTOR of the state image (RFBM=XCR0) then %s, minus "
			 "the XRSTOR alone", what);
}

struct group {
	struct fpl_xs_cell *cells;
	struct fpl_variant *v;
	char (*methods)[320];
	size_t n, cap;
};

static int make_cell(struct fpl_xs_bench *x, struct group *g, const struct op_desc *d, uint64_t mask,
		     const char *mask_name, enum fpl_xs_state st, bool lat)
{
	uint64_t permitted = x->permitted;
	uint64_t live = st == ST_INIT ? 0 : mask;
	const struct fpl_xs_modify *mod = NULL;
	struct fpl_xs_cell *c = &g->cells[g->n];
	struct fpl_variant *v = &g->v[g->n];
	unsigned comp = 0;
	struct fpl_run *run;
	void *img;

	if (d->op == XS_XSAVEOPT && st == ST_LIVE)
		mod = modify_for(x, live, &comp);
	run = fpl_xs_run_new(x, d->name, mask, mask_name, state_name(d->op, st),
			 lat ? "latency" : "throughput");
	if (!run)
		return -ENOMEM;
	if (d->op == XS_XSAVEOPT && st == ST_LIVE && !mod)
		return fpl_run_skip(run, "no register-writing loop for component %u here", comp);
	if (lat && !x->xs.xsave)
		return fpl_run_skip(run, "the latency method re-establishes state with XRSTOR: "
				    "no XSAVE on this CPU");
	if (mod)
		fpl_run_param_str(run, "modified_component", fpl_xfeature_name(comp));
	img = fpl_xs_alloc(x);
	if (!img)
		return -ENOMEM;
	fpl_xstate_pattern(&x->xs, live, 0x5eed0000 + mask * 7 + st, img);

	memset(c, 0, sizeof(*c));
	c->permitted = permitted;
	c->xsave = x->xs.xsave;
	c->xgetbv1 = x->xgetbv1;
	c->expect = live & permitted;
	c->setup_img = img;
	c->loop = (struct fpl_xs_loop){ .state = img, .lo = (uint32_t)mask,
				    .hi = (uint32_t)(mask >> 32), .slo = (uint32_t)permitted,
				    .shi = (uint32_t)(permitted >> 32) };
	c->loop.buf = fpl_xs_alloc(x);
	if (!c->loop.buf)
		return -ENOMEM;
	if (d->op == XS_FXRSTOR || d->op == XS_XRSTOR)
		memcpy(c->loop.buf, img, x->size);
	else if (d->op == XS_XRSTOR_C)
		fpl_xs_make_compacted(x, img, c->loop.buf);
	else if (d->op == XS_XSAVEOPT && st != ST_INIT) {
		/* Tracked: the set-up XRSTOR is from the save target itself. */
		memcpy(c->loop.buf, img, x->size);
		c->setup_img = c->loop.buf;
		c->loop.state = c->loop.buf;
	}
	c->body = lat ? fpl_xs_lat[d->op] : fpl_xs_tp[d->op];
	c->empty = lat ? fpl_xs_lat0[d->op] : NULL;
	if (d->op == XS_XSAVEOPT && st == ST_UNMOD && lat) {
		c->body = fpl_xs_xsaveopt_unmod_lat;
		c->empty = fpl_xs_xsaveopt_unmod_lat0;
	}
	if (mod) {
		c->body = lat ? mod->lat : mod->tp;
		c->empty = lat ? mod->lat0 : NULL;
	}
	method_text(g->methods[g->n], sizeof(g->methods[0]), d, st, lat, comp);
	*v = (struct fpl_variant){ .name = d->name, .timed = fpl_xs_cell_timed,
				   .empty = c->empty ? fpl_xs_cell_empty : NULL, .arg = c,
				   .ops_per_rep = 1, .run = run, .method = g->methods[g->n] };
	g->n++;
	return 0;
}

static bool want(const char *opt, const char *v)
{
	return !opt || !strcmp(opt, "all") || !strcmp(opt, "both") || !strcmp(opt, v);
}

static int op_group(struct fpl_xs_bench *x, const struct op_desc *d, bool lat, const uint64_t *masks,
		    const char *const *names, size_t nmasks, double budget_s)
{
	bool fx = d->op == XS_FXSAVE || d->op == XS_FXRSTOR;
	struct group g = { 0 };
	int err = 0;

	g.cap = (nmasks + 1) * 3;
	g.cells = calloc(g.cap, sizeof(*g.cells));
	g.v = calloc(g.cap, sizeof(*g.v));
	g.methods = calloc(g.cap, sizeof(*g.methods));
	if (!g.cells || !g.v || !g.methods) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < (fx ? 1 : nmasks) && !err; i++) {
		uint64_t mask = fx ? FPL_XFEATURE_MASK_FPSSE : masks[i];
		const char *mname = fx ? "x87+sse" : names[i];
		uint64_t permitted = x->permitted;

		if (mask & ~permitted) {
			struct fpl_run *run = fpl_xs_run_new(x, d->name, mask, mname, "any",
							 lat ? "latency" : "throughput");

			err = run ? fpl_run_skip(run, "RFBM 0x%" PRIx64 " has components not enabled "
						 "in XCR0 (0x%" PRIx64 ") or armed by XFD", mask,
						 x->xs.xcr0) : -ENOMEM;
			continue;
		}
		for (enum fpl_xs_state st = ST_INIT; st <= ST_UNMOD && !err; st++) {
			if (st == ST_UNMOD && d->op != XS_XSAVEOPT)
				continue;
			if (st != ST_INIT && !mask)
				continue;	/* nothing in RFBM to make live */
			if (!want(x->state, st == ST_INIT ? "init" : st == ST_LIVE ? "live" :
				  "unmodified"))
				continue;
			err = make_cell(x, &g, d, mask, mname, st, lat);
		}
	}
	if (!err)
		err = fpl_xs_group_run(x, g.cells, g.v, g.n, budget_s);
out:
	free(g.cells);
	free(g.v);
	free(g.methods);
	return err;
}

int fpl_xs_matrix(struct fpl_xs_bench *x, const uint64_t *masks, const char *const *names, size_t nmasks,
	      double share_end)
{
	size_t ngroups = 0, done = 0;
	int err = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < FPL_ARRAY_SIZE(ops) && !err; i++) {
			const struct op_desc *d = &ops[i];
			const char *why = NULL;

			if (!want(x->insn, d->name))
				continue;
			if (!fpl_save_insn_supported(x->env->cpu, d->need, &why)) {
				struct fpl_run *run;

				if (pass == 0)
					continue;
				run = fpl_xs_run_new(x, d->name, 0, "any", "any", "any");
				err = run ? fpl_run_skip(run, "%s: %s", fpl_save_insn_name(d->need),
							 why ? why : "not supported") : -ENOMEM;
				continue;
			}
			for (int lat = 0; lat < 2 && !err; lat++) {
				if (!want(x->method, lat ? "latency" : "throughput"))
					continue;
				if (pass == 0) {
					ngroups++;
					continue;
				}
				fpl_bench_progress(x->env, (double)done / ngroups, d->name);
				err = op_group(x, d, lat, masks, names, nmasks,
					       fpl_xs_left(x, share_end) / (ngroups - done));
				done++;
			}
		}
	}
	return err;
}
