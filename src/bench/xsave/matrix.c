// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the matrix. Cells are built here and timed together by the harness, in rotated rounds. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
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

/*
 * What was wrong with the state before a cell's timed calls: the value and
 * the components by name. A claimed component read init is a warning; a
 * component in use that the state leaves init is only recorded unless the
 * same one was so before every call (c->bad_extra_all, the AND over the
 * set-ups) and is more than x87/SSE: XINUSE may read 1 for a component in
 * init (SDM vol. 1 13.6), which a preemption's restore does on these guests
 * now and then (fpl_live_extra_ok).
 */
void fpl_xs_xinuse_warn(struct fpl_run *run, const struct fpl_xs_cell *c, const char *last)
{
	char words[400], buf[480];

	if (!c->bad_missing && (c->bad < c->checks ||
				fpl_live_extra_ok(c->bad_extra_all, c->bad_extra))) {
		fpl_xfeature_mask_names(c->bad_extra, words, sizeof(words));
		snprintf(buf, sizeof(buf), "0x%" PRIx64 " (%s) before %" PRIu64 " of %" PRIu64
			 " timed calls", c->bad_extra, words, c->bad, c->checks);
		fpl_run_obs_str(run, "xinuse_extra_in_use", buf);
		return;
	}
	fpl_run_warn(run, "XINUSE & the permitted mask was 0x%" PRIx64 ", not 0x%" PRIx64 " (the state "
		     "claimed), before %" PRIu64 " of %" PRIu64 " timed calls%s; last seen %s",
		     c->bad_last, c->expect, c->bad, c->checks,
		     fpl_live_diff_words(c->bad_missing, c->bad_extra, words, sizeof(words)), last);
}

/*
 * Cells whose cycles came out in two levels (fpl_bimodal: a burst of
 * interference for part of the rounds, a frequency change): an observation
 * per run and one warning naming them. They are flagged, not re-measured: a
 * second measurement at another time would not be comparable with the
 * cells measured beside it.
 */
static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * A cell in words after sep: "xsavec latency live avx512"; in the RFBM
 * experiment, whose two variants share a run, "xsavec throughput RFBM with
 * AVX" (its state and mask say nothing of which). The length written.
 */
static size_t cell_words(const struct fpl_variant *v, const char *sep, char *buf, size_t size)
{
	const struct fpl_run *run = v->run;
	const char *comp = fpl_run_param_get_str(run, "component"), *pre = or_empty(v->prefix);
	int n;

	if (comp)
		n = snprintf(buf, size, "%s%s %s RFBM %.*s %s", sep,
			     or_empty(fpl_run_param_get_str(run, "insn")),
			     or_empty(fpl_run_param_get_str(run, "method")),
			     (int)strcspn(pre, "_"), pre, comp);
	else
		n = snprintf(buf, size, "%s%s %s %s %s", sep,
			     or_empty(fpl_run_param_get_str(run, "insn")),
			     or_empty(fpl_run_param_get_str(run, "method")),
			     or_empty(fpl_run_param_get_str(run, "state")),
			     or_empty(fpl_run_param_get_str(run, "mask_name")));
	return n < 0 ? 0 : (size_t)n;
}

static int flag_bimodal(struct fpl_xs_bench *x, struct fpl_variant *v, size_t n)
{
	char names[600] = "";
	size_t nbad = 0, len = 0;

	for (size_t i = 0; i < n; i++) {
		struct fpl_bimodal b;
		char key[32];

		if (!v[i].m_cycles || fpl_bimodal(v[i].m_cycles->samples, v[i].m_cycles->n, &b) ||
		    !b.bimodal)
			continue;
		/* RFBM: with_bimodal, without_bimodal (one run holds both variants) */
		snprintf(key, sizeof(key), "%sbimodal", or_empty(v[i].prefix));
		if (fpl_run_obs_json(v[i].run, key,
				     json_pack("{s:f, s:f, s:f, s:f, s:f}", "lower_median",
					       b.lower_median, "upper_median", b.upper_median,
					       "lower_share", b.lower_share, "gap_pct", b.gap_pct,
					       "ashman_d", isfinite(b.ashman_d) ? b.ashman_d : 1e9)))
			return -ENOMEM;
		if (nbad++ < 8 && len < sizeof(names))
			len += cell_words(&v[i], nbad > 1 ? "; " : "", names + len,
					  sizeof(names) - len);
	}
	if (!nbad)
		return 0;
	return fpl_result_warn(x->result, "%zu cell%s came out in two levels (bimodal: a burst "
			       "of interference or a clock change during part of the rounds), their "
			       "medians uncertain by the gap: %s%s", nbad, nbad == 1 ? "" : "s",
			       names, nbad > 8 ? "; ..." : "") ? -ENOMEM : 0;
}

int fpl_xs_group_run(struct fpl_xs_bench *x, struct fpl_xs_cell *cells, struct fpl_variant *v, size_t n,
		 double budget_s, bool paired)
{
	struct fpl_harness_cfg cfg;
	int err;

	if (!n)
		return 0;
	fpl_harness_defaults(x->env, &cfg);
	cfg.drop_disturbed = !paired;
	cfg.warn_to = x->result;	/* about the group, not its first cell */
	cfg.budget_s = budget_s;
	cfg.warmup_s = budget_s * 0.05;
	cfg.hard_s = budget_s * 2;
	cfg.max_samples = x->max_samples;
	cfg.settle_s = budget_s * 0.1 < 1 ? budget_s * 0.1 : 1;
	err = fpl_harness_run(x->env, &cfg, v, n);
	if (!err)
		err = flag_bimodal(x, v, n);
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

static const char *const st_opt[XS_ST_NR] = { "init", "live", "unmodified", "released",
						 "tilecfg" };

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
	if (st == XS_ST_INIT || st == XS_ST_RELEASED || st == XS_ST_TILECFG)
		return st_opt[st];
	if (op == XS_XSAVEOPT)
		return st == XS_ST_UNMOD ? "unmodified" : "modified";
	return "live";
}

/* XSAVEOPT "modified": the loops that write one register of the highest live component. */
static const struct fpl_xs_modify *modify_for(const struct fpl_xs_bench *x, uint64_t live,
					      unsigned *comp)
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
		case FPL_XFEATURE_XTILE_CFG:	/* LDTILECFG: no permission needed, never traps */
			return x->amx_avail ? &fpl_xs_modify_amx[0] : NULL;
		case FPL_XFEATURE_XTILE_DATA:
			return x->amx ? &fpl_xs_modify_amx[1] : NULL;
		case FPL_XFEATURE_PKRU:
			/*
			 * No write loop for PKRU (WRPKRU would change what memory
			 * this task may touch): the next component down is the one
			 * written, so a CPU with PKRU in XCR0 (Zen 3 with pkeys,
			 * Genoa, Sapphire Rapids) still has its "modified" cell.
			 */
			continue;
		default:
			return NULL;
		}
	}
	return NULL;
}

/*
 * What a cell times, in words: with its own instruction (what) and
 * component (comp), or with INSN and COMP for the text the cells of one
 * kind share (what_generic).
 */
static void method_text(char *buf, size_t size, const struct fpl_xs_plan *p, bool write_removed,
			const char *what, const char *comp)
{
	enum fpl_xs_state st = p->st;
	bool lat = p->lat, opt = p->op == XS_XSAVEOPT;
	char extra[160];
	int n;

	if (!lat && opt && st == XS_ST_LIVE && write_removed)
		n = snprintf(buf, size, "throughput: back-to-back (write one %s register; %s) to one "
			     "buffer, last XRSTOR from that buffer; minus the write alone back to back",
			     comp, what);
	else if (!lat && st == XS_ST_RELEASED)
		n = snprintf(buf, size, "throughput: back-to-back %s on one 64-byte-aligned buffer, "
			     "state set by XRSTOR (tiles live) then TILERELEASE before timing, checked "
			     "with XINUSE", what);
	else if (lat && st == XS_ST_RELEASED)
		n = snprintf(buf, size, "latency: XRSTOR of the state image (tiles init in it: what "
			     "TILERELEASE leaves) then %s, minus the XRSTOR alone", what);
	else if (!lat && opt && st == XS_ST_LIVE)
		n = snprintf(buf, size, "throughput: back-to-back (write one %s register; %s) to one "
			     "buffer, last XRSTOR from that buffer; minus nothing: the write is ~1 "
			     "cycle", comp, what);
	else if (!lat && opt && st == XS_ST_UNMOD)
		n = snprintf(buf, size, "throughput: back-to-back %s to the buffer last XRSTORed "
			     "from, state unmodified since", what);
	else if (!lat)
		n = snprintf(buf, size, "throughput: back-to-back %s on one 64-byte-aligned buffer, "
			     "state set by XRSTOR before timing and checked with XINUSE", what);
	else if (opt && st == XS_ST_UNMOD)
		n = snprintf(buf, size, "latency: XRSTOR from the buffer then %s to it, minus the "
			     "XRSTOR alone", what);
	else if (opt && st == XS_ST_LIVE)
		n = snprintf(buf, size, "latency: XRSTOR from the buffer, write one %s register, %s, "
			     "minus XRSTOR and the write", comp, what);
	else
		n = snprintf(buf, size, "latency: XRSTOR of the state image (RFBM = the permitted mask) then %s, "
			     "minus the XRSTOR alone", what);
	if (!(p->setup & ~p->live) || n < 0 || (size_t)n >= size)
		return;
	fpl_xfeature_mask_names(p->setup & ~p->live, extra, sizeof(extra));
	snprintf(buf + n, size - (size_t)n, "; %s live too, outside RFBM (the write needs it)",
		 extra);
}

static bool want(const char *opt, const char *v)
{
	return !opt || !strcmp(opt, "all") || !strcmp(opt, "both") || !strcmp(opt, v);
}

static void plan_init(struct fpl_xs_plan *p, const struct op_desc *d, const char *method,
		      uint64_t mask, const char *mask_name, enum fpl_xs_state st)
{
	memset(p, 0, sizeof(*p));
	p->op = d->op;
	p->insn = d->name;
	p->mnemonic = d->mnemonic;
	p->method = method;
	p->lat = !strcmp(method, "latency");
	p->mask = mask;
	p->mask_name = mask_name;
	p->st = st;
	p->state = st == XS_ST_NR ? "any" : state_name(d->op, st);
	p->modified = -1;
}

/* One cell: the state's components, the XSAVEOPT write, or why it cannot run here. */
static void plan_cell(const struct fpl_xs_bench *x, const struct op_desc *d, bool lat,
		      uint64_t mask, const char *mask_name, enum fpl_xs_state st,
		      struct fpl_xs_plan *p)
{
	unsigned comp = 0;

	plan_init(p, d, lat ? "latency" : "throughput", mask, mask_name, st);
	p->live = st == XS_ST_INIT ? 0 :
		  st == XS_ST_RELEASED ? mask & ~FPL_XFEATURE_MASK_XTILE :
		  st == XS_ST_TILECFG ? mask & ~FPL_XFEATURE_MASK_XTILE_DATA : mask;
	p->setup = p->live;
	if (d->op == XS_XSAVEOPT && st == XS_ST_LIVE) {
		p->mod = modify_for(x, p->live, &comp);
		if (!p->mod) {
			snprintf(p->skip, sizeof(p->skip),
				 "no register-writing loop for component %u here", comp);
			return;
		}
		p->modified = (int)comp;
		/*
		 * TILELOADD needs a tile configuration (with TILECFG in init it
		 * raises #UD): TILECFG is live at set-up even where RFBM leaves it out.
		 */
		if (comp == FPL_XFEATURE_XTILE_DATA)
			p->setup |= FPL_XFEATURE_MASK_XTILE_CFG;
	}
	if (lat && !x->xs.xsave)
		snprintf(p->skip, sizeof(p->skip), "the latency method re-establishes state with "
			 "XRSTOR: no XSAVE on this CPU");
}

/* The states of one instruction, method and mask that differ from each other here. */
static bool state_applies(const struct fpl_xs_bench *x, const struct op_desc *d, uint64_t mask,
			  enum fpl_xs_state st)
{
	bool tiles = mask & FPL_XFEATURE_MASK_XTILE;

	if (st == XS_ST_UNMOD && d->op != XS_XSAVEOPT)
		return false;
	if (st != XS_ST_INIT && !mask)
		return false;	/* nothing in RFBM to make live */
	/* Released and TILECFG-only differ from init and live only with more in RFBM. */
	/* TILERELEASE needs tile data permitted and used (XFD armed: #NM). */
	if (st == XS_ST_RELEASED && (!tiles || !x->amx || !(mask & ~FPL_XFEATURE_MASK_XTILE)))
		return false;
	if (st == XS_ST_TILECFG && (mask & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE)
		return false;
	return want(x->state, st_opt[st]);
}

static int plan_op(const struct fpl_xs_bench *x, const struct op_desc *d, bool lat,
		   const uint64_t *masks, const char *const *names, size_t nmasks,
		   fpl_xs_plan_fn fn, void *arg)
{
	bool fx = d->op == XS_FXSAVE || d->op == XS_FXRSTOR;
	const char *method = lat ? "latency" : "throughput";
	struct fpl_xs_plan p;
	int err = 0;

	for (size_t i = 0; i < (fx ? 1 : nmasks) && !err; i++) {
		uint64_t mask = fx ? FPL_XFEATURE_MASK_FPSSE : masks[i];
		const char *mname = fx ? "x87+sse" : names[i];

		if ((mask & ~x->permitted) || ((mask & FPL_XFEATURE_MASK_XTILE_DATA) && !x->amx) ||
		    ((mask & FPL_XFEATURE_MASK_XTILE_CFG) && !x->amx_avail)) {
			plan_init(&p, d, method, mask, mname, XS_ST_NR);
			if ((mask & FPL_XFEATURE_MASK_XTILE) && x->amx_why[0])
				snprintf(p.skip, sizeof(p.skip), "RFBM 0x%" PRIx64 ": %s", mask,
					 x->amx_why);
			else
				snprintf(p.skip, sizeof(p.skip), "RFBM 0x%" PRIx64 " has components "
					 "outside this process's permitted mask 0x%" PRIx64 " (XCR0 "
					 "0x%" PRIx64 ")", mask, x->permitted, x->xs.xcr0);
			err = fn(arg, &p);
			continue;
		}
		for (enum fpl_xs_state st = XS_ST_INIT; st < XS_ST_NR && !err; st++) {
			if (!state_applies(x, d, mask, st))
				continue;
			plan_cell(x, d, lat, mask, mname, st, &p);
			err = fn(arg, &p);
		}
	}
	return err;
}

int fpl_xs_plan_matrix(const struct fpl_xs_bench *x, const uint64_t *masks,
		       const char *const *names, size_t nmasks, fpl_xs_plan_fn fn, void *arg)
{
	struct fpl_xs_plan p;
	int err = 0;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(ops) && !err; i++) {
		const struct op_desc *d = &ops[i];
		const char *why = NULL;

		if (!want(x->insn, d->name))
			continue;
		if (!fpl_save_insn_supported(x->env->cpu, d->need, &why)) {
			plan_init(&p, d, "any", 0, "any", XS_ST_NR);
			snprintf(p.skip, sizeof(p.skip), "%s: %s", fpl_save_insn_name(d->need),
				 why ? why : "not supported");
			err = fn(arg, &p);
			continue;
		}
		for (int lat = 0; lat < 2 && !err; lat++)
			if (want(x->method, lat ? "latency" : "throughput"))
				err = plan_op(x, d, lat, masks, names, nmasks, fn, arg);
	}
	return err;
}

struct group {
	struct fpl_xs_bench *x;
	struct fpl_xs_cell *cells;
	struct fpl_variant *v;
	char (*methods)[400];
	char (*generic)[400];	/* the same, INSN and COMP for the cell's words */
	size_t n, cap;
};

static int make_cell(struct fpl_xs_bench *x, struct group *g, const struct fpl_xs_plan *p)
{
	uint64_t permitted = x->permitted, mask = p->mask;
	const struct fpl_xs_modify *mod = p->mod;
	struct fpl_xs_cell *c = &g->cells[g->n];
	struct fpl_variant *v = &g->v[g->n];
	struct fpl_run *run;
	void *img;

	run = fpl_xs_run_new(x, p->insn, mask, p->mask_name, p->state, p->method);
	if (!run)
		return -ENOMEM;
	if (mod)
		fpl_run_param_str(run, "modified_component", fpl_xfeature_name((unsigned)p->modified));
	img = fpl_xs_alloc(x);
	if (!img)
		return -ENOMEM;
	fpl_xstate_pattern(&x->xs, p->setup, 0x5eed0000 + mask * 7 + p->st, img);

	memset(c, 0, sizeof(*c));
	if (p->st == XS_ST_RELEASED) {
		/* Set up as a program leaves it: tiles live, then TILERELEASE. */
		void *with_tiles = fpl_xs_alloc(x);

		if (!with_tiles)
			return -ENOMEM;
		fpl_xstate_pattern(&x->xs, mask, 0x5eed0000 + mask * 7 + p->st, with_tiles);
		c->release = true;
		c->setup_img = with_tiles;
	}
	c->permitted = permitted;
	c->xsave = x->xs.xsave;
	c->xgetbv1 = x->xgetbv1;
	c->expect = p->setup & permitted;
	if (!c->setup_img)
		c->setup_img = img;
	c->loop = (struct fpl_xs_loop){ .state = img, .lo = (uint32_t)mask,
				    .hi = (uint32_t)(mask >> 32), .slo = (uint32_t)permitted,
				    .shi = (uint32_t)(permitted >> 32) };
	c->loop.buf = fpl_xs_alloc(x);
	if (!c->loop.buf)
		return -ENOMEM;
	if (p->op == XS_FXRSTOR || p->op == XS_XRSTOR)
		memcpy(c->loop.buf, img, x->size);
	else if (p->op == XS_XRSTOR_C)
		fpl_xs_make_compacted(x, img, c->loop.buf);
	else if (p->op == XS_XSAVEOPT && (p->st == XS_ST_LIVE || p->st == XS_ST_UNMOD)) {
		/* Tracked: the set-up XRSTOR is from the save target itself. */
		memcpy(c->loop.buf, img, x->size);
		c->setup_img = c->loop.buf;
		c->loop.state = c->loop.buf;
	}
	c->body = p->lat ? fpl_xs_lat[p->op] : fpl_xs_tp[p->op];
	c->empty = p->lat ? fpl_xs_lat0[p->op] : NULL;
	if (p->op == XS_XSAVEOPT && p->st == XS_ST_UNMOD && p->lat) {
		c->body = fpl_xs_xsaveopt_unmod_lat;
		c->empty = fpl_xs_xsaveopt_unmod_lat0;
	}
	if (mod) {
		c->body = p->lat ? mod->lat : mod->tp;
		c->empty = p->lat ? mod->lat0 : mod->w;
		/* The modify loops restore from the save target: state says what the write reads. */
		if (p->modified == FPL_XFEATURE_XTILE_CFG)
			c->loop.state = x->tilecfg;
		else if (p->modified == FPL_XFEATURE_XTILE_DATA)
			c->loop.state = x->tile_src;
	}
	method_text(g->methods[g->n], sizeof(g->methods[0]), p, mod && mod->w, p->mnemonic,
		    p->modified >= 0 ? fpl_xfeature_name((unsigned)p->modified) : "");
	method_text(g->generic[g->n], sizeof(g->generic[0]), p, mod && mod->w, "INSN", "COMP");
	*v = (struct fpl_variant){ .name = p->insn, .timed = fpl_xs_cell_timed,
				   .empty = c->empty ? fpl_xs_cell_empty : NULL, .arg = c,
				   .ops_per_rep = 1, .run = run, .method = g->methods[g->n],
				   .method_generic = g->generic[g->n] };
	g->n++;
	return 0;
}

static int count_cell(void *arg, const struct fpl_xs_plan *p)
{
	if (!p->skip[0])
		++*(size_t *)arg;
	return 0;
}

/* A planned cell becomes a skipped run or a cell of the group (timed later, all together). */
static int build_cell(void *arg, const struct fpl_xs_plan *p)
{
	struct group *g = arg;
	struct fpl_run *run;

	if (p->skip[0]) {
		run = fpl_xs_run_new(g->x, p->insn, p->mask, p->mask_name, p->state, p->method);
		return run ? fpl_run_skip(run, "%s", p->skip) : -ENOMEM;
	}
	if (g->n == g->cap)
		return -ENOMEM;	/* the count was wrong */
	return make_cell(g->x, g, p);
}

/*
 * Every cell of the matrix is timed in one harness call: short rounds with
 * one sample of every cell each, the order rotated per round, so that a
 * burst of interference or a clock change hits all cells alike instead of
 * the instruction that happened to be measured then (issue 14: FXSAVE, the
 * first group, once read 90 against 75 cycles).
 */
int fpl_xs_matrix(struct fpl_xs_bench *x, const uint64_t *masks, const char *const *names,
		  size_t nmasks, double share_end)
{
	struct group g = { .x = x };
	int err;

	err = fpl_xs_plan_matrix(x, masks, names, nmasks, count_cell, &g.cap);
	if (err)
		return err;
	g.cap = g.cap ? g.cap : 1;
	g.cells = calloc(g.cap, sizeof(*g.cells));
	g.v = calloc(g.cap, sizeof(*g.v));
	g.methods = calloc(g.cap, sizeof(*g.methods));
	g.generic = calloc(g.cap, sizeof(*g.generic));
	if (!g.cells || !g.v || !g.methods || !g.generic) {
		err = -ENOMEM;
		goto out;
	}
	err = fpl_xs_plan_matrix(x, masks, names, nmasks, build_cell, &g);
	if (!err)
		err = fpl_xs_group_run(x, g.cells, g.v, g.n, fpl_xs_left(x, share_end), false);
out:
	free(g.cells);
	free(g.v);
	free(g.methods);
	free(g.generic);
	return err;
}
