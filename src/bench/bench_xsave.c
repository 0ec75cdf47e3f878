// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the XSAVE-family cost matrix (instruction x RFBM x state x method) and neighbours. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpulab/amx.h"
#include "fpulab/bench.h"
#include "xsave/bench.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_xsave;


/* What .check parses of the options: --mask, when given. */
struct xsave_cfg {
	bool has_mask;
	uint64_t mask;
};

static const char *const parts[] = { "all", "matrix", "rfbm", "misc", NULL };
static const char *const methods[] = { "both", "throughput", "latency", NULL };
static const char *const states[] = { "all", "init", "live", "unmodified", "released", "tilecfg",
				      NULL };
static const char *const insns[] = { "all", "fxsave", "fxrstor", "xsave", "xsaveopt", "xsavec",
				     "xrstor", "xrstor-c", NULL };

static const struct fpl_opt xsave_opts[] = {
	{ "part", FPL_OPT_STR, "all", 0, 0, parts,
	  "what to measure: the matrix, the RFBM experiment, the other instructions" },
	{ "insn", FPL_OPT_STR, "all", 0, 0, insns, "one instruction of the matrix" },
	{ "mask", FPL_OPT_STR, NULL, 0, 0, NULL,
	  "one RFBM instead of the default list (hex, or names: sse+avx, avx512, widest, all, "
	  "tilecfg, tiledata, amx; naming an AMX component asks for AMX permission)" },
	{ "state", FPL_OPT_STR, "all", 0, 0, states,
	  "components in RFBM: init, live, or (XSAVEOPT) live and unmodified since XRSTOR; "
	  "with AMX in RFBM also released (the rest live, tiles put to init by TILERELEASE) and "
	  "tilecfg (TILECFG live, tile data init)" },
	{ "method", FPL_OPT_STR, "both", 0, 0, methods,
	  "throughput: back-to-back; latency: state re-established before each, removed by difference" },
	{ "samples", FPL_OPT_INT, NULL, 11, 100000, NULL, "at most this many samples per cell" },
	{ .name = NULL },
};

static int xsave_supported(const struct fpl_cpu *cpu, const char **why)
{
	if (!fpl_cpu_has(cpu, FPL_FEAT_FXSR)) {
		*why = "no FXSAVE";
		return 0;
	}
	return 1;
}

/* The default RFBM list of the issue; masks the CPU lacks become skipped runs. */
static const struct {
	const char *name;
	uint64_t mask;	/* ~0: XCR0 */
} default_masks[] = {
	{ "0", 0 },
	{ "x87", FPL_XFEATURE_MASK_FP },
	{ "sse", FPL_XFEATURE_MASK_SSE },
	{ "avx", FPL_XFEATURE_MASK_YMM },
	{ "opmask", FPL_XFEATURE_MASK_OPMASK },
	{ "zmm_hi256", FPL_XFEATURE_MASK_ZMM_Hi256 },
	{ "hi16_zmm", FPL_XFEATURE_MASK_Hi16_ZMM },
	{ "avx512", FPL_XFEATURE_MASK_AVX512 },
	{ "tilecfg", FPL_XFEATURE_MASK_XTILE_CFG },	/* these three only where AMX exists */
	{ "tiledata", FPL_XFEATURE_MASK_XTILE_DATA },
	{ "amx", FPL_XFEATURE_MASK_XTILE },
	{ "all", ~0ull },
};

/*
 * AMX where the CPU has it: permission when --mask names a tile component,
 * then (when tile data is permitted, by this or by --amx) the first use,
 * outside every timed region. What is missing is said in amx_why.
 */
static int amx_setup(struct fpl_xs_bench *x, struct fpl_result *r)
{
	struct fpl_diag diag = { "" };
	const char *why = NULL;
	int err;

	if (!fpl_amx_supported(&x->xs, &why)) {
		snprintf(x->amx_why, sizeof(x->amx_why), "%s", why ? why : "no AMX on this CPU");
		return 0;
	}
	x->tilecfg = fpl_xs_alloc(x);
	x->tile_src = fpl_xs_alloc(x);
	if (!x->tilecfg || !x->tile_src)
		return -ENOMEM;
	if (fpl_tilecfg_make(&x->xs.amx, x->tilecfg)) {
		snprintf(x->amx_why, sizeof(x->amx_why), "no valid palette-1 TILECFG (CPUID 0x1D)");
		return 0;
	}
	for (size_t i = 0; i < 64u * 64u && i < x->size; i++)
		x->tile_src[i] = (unsigned char)((i * 7 + 1) & 0xff);
	x->amx_avail = true;
	if (x->has_one_mask && (x->one_mask & FPL_XFEATURE_MASK_XTILE)) {
		x->amx_asked = true;
		err = fpl_amx_request_perm(&x->xs, &x->perm_before, &x->perm_after, &diag);
		if (err)
			snprintf(x->amx_why, sizeof(x->amx_why), "AMX permission: %s", diag.msg);
	}
	x->permitted = fpl_xstate_permitted(&x->xs);
	if (!(x->permitted & FPL_XFEATURE_MASK_XTILE_DATA)) {
		if (!x->amx_why[0])
			snprintf(x->amx_why, sizeof(x->amx_why), "AMX tile data is not permitted in "
				 "this process: name tiledata or amx in --mask, or give --amx");
		return 0;
	}
	/* Tile data permitted: its XFD trap happens here, never in a timed loop. */
	err = fpl_amx_first_use(&x->xs, &diag);
	if (err) {
		fpl_result_warn(r, "xsave: AMX first use: %s", diag.msg);
		return err;
	}
	x->amx = true;
	return 0;
}

int fpl_xs_setup(struct fpl_xs_bench *x, const struct fpl_bench_env *env, struct fpl_result *r)
{
	struct fpl_diag diag = { "" };
	const char *s;
	int err;

	memset(x, 0, sizeof(*x));
	x->env = env;
	x->result = r;
	x->t_start = fpl_tsc_end();
	err = fpl_xstate_init(&x->xs, env->cpu);
	if (err)
		return err;
	x->permitted = fpl_xstate_permitted(&x->xs);
	x->xgetbv1 = fpl_cpu_has(env->cpu, FPL_FEAT_XGETBV1);
	x->avx = fpl_cpu_has(env->cpu, FPL_FEAT_AVX);
	x->avx512 = fpl_cpu_has(env->cpu, FPL_FEAT_AVX512F) &&
		    (x->xs.xcr0 & FPL_XFEATURE_MASK_AVX512) == FPL_XFEATURE_MASK_AVX512;
	x->size = x->xs.xsave ? x->xs.size_std_max : 512;
	if (x->size < 576)
		x->size = 576;
	x->max_samples = (size_t)fpl_bench_opt_int(env, "samples", env->quick ? 101 : 301);
	x->method = fpl_bench_opt(env, "method");
	x->state = fpl_bench_opt(env, "state");
	x->insn = fpl_bench_opt(env, "insn");
	s = fpl_bench_opt(env, "mask");
	/* What is left of 10 s (2 s quick) after the clock, self-checks and output. */
	x->budget = fpl_bench_budget(&fpl_bench_xsave, env, false);
	if (env->cfg) {
		/* parsed once, by .check */
		x->has_one_mask = ((const struct xsave_cfg *)env->cfg)->has_mask;
		x->one_mask = ((const struct xsave_cfg *)env->cfg)->mask;
	} else if (s) {
		err = fpl_xstate_parse_mask(&x->xs, s, &x->one_mask, &diag);
		if (err)
			return env->diag ? fpl_diag_set(env->diag, -EINVAL, "--mask: %s", diag.msg) :
					   -EINVAL;
		x->has_one_mask = true;
	}
	return amx_setup(x, r);
}

size_t fpl_xs_masks(const struct fpl_xs_bench *x, uint64_t *out, const char **names, size_t max)
{
	size_t n = 0;

	if (x->has_one_mask) {
		uint64_t m;

		out[0] = x->one_mask;
		names[0] = fpl_bench_opt(x->env, "mask");
		/* "widest" named as what it is here ("avx"), as the other benchmarks record it */
		if (!strcasecmp(names[0], "widest"))
			names[0] = fpl_xstate_widest(fpl_xstate_xcr0(&x->xs), &m);
		return 1;
	}
	for (size_t i = 0; i < FPL_ARRAY_SIZE(default_masks) && n < max; i++) {
		uint64_t m = default_masks[i].mask == ~0ull ? x->permitted : default_masks[i].mask;

		if ((m & FPL_XFEATURE_MASK_XTILE) && default_masks[i].mask != ~0ull && !x->amx_avail)
			continue;

		out[n] = m;
		names[n++] = default_masks[i].name;
	}
	return n;
}

static bool want(const char *opt, const char *v)
{
	return !opt || !strcmp(opt, "all") || !strcmp(opt, "both") || !strcmp(opt, v);
}

static int xsave_run(const struct fpl_bench_env *env, struct fpl_result *r)
{
	struct fpl_xs_bench *x = calloc(1, sizeof(*x));
	const char *part = fpl_bench_opt(env, "part");
	uint64_t masks[16];
	const char *names[16];
	size_t nmasks;
	int err;

	if (!x)
		return -ENOMEM;
	err = fpl_xs_setup(x, env, r);
	if (err)
		goto out;
	nmasks = fpl_xs_masks(x, masks, names, FPL_ARRAY_SIZE(masks));
	if (want(part, "matrix")) {
		err = fpl_xs_matrix(x, masks, names, nmasks, want(part, "all") ? 0.65 : 1.0);
		if (err)
			goto out;
	}
	if (want(part, "rfbm") && x->xs.xsave) {
		err = fpl_xs_rfbm(x, want(part, "all") ? 0.90 : 1.0);
		if (err)
			goto out;
	}
	if (want(part, "misc"))
		err = fpl_xs_misc(x, 1.0);
out:
	fpl_xs_free(x);
	free(x);
	return err;
}

/* The save instruction a matrix row needs (matrix.c's ops[]). */
static enum fpl_save_insn insn_need(const char *insn)
{
	if (!strcmp(insn, "fxsave") || !strcmp(insn, "fxrstor"))
		return FPL_INSN_FXSAVE;
	if (!strcmp(insn, "xsaveopt"))
		return FPL_INSN_XSAVEOPT;
	if (!strcmp(insn, "xsavec") || !strcmp(insn, "xrstor-c"))
		return FPL_INSN_XSAVEC;
	return FPL_INSN_XSAVE;
}

/*
 * --mask parsed before any calibration, once: a bad name is a usage error
 * at once. With --part matrix, a mask or an instruction this CPU lacks
 * leaves nothing asked for to measure: -ENOTSUP with the reason the cells
 * would skip with (exit 77), before the clock is calibrated.
 */
static int xsave_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	const char *s = fpl_bench_opt(env, "mask"), *insn = fpl_bench_opt(env, "insn");
	bool matrix = !strcmp(fpl_bench_opt(env, "part"), "matrix");
	struct xsave_cfg *c = cfg;
	struct fpl_xstate xs;
	const char *why = NULL;
	int err;

	if (!env->cpu)
		return 0;	/* no CPU given: nothing to check the mask against */
	err = fpl_xstate_init(&xs, env->cpu);
	if (err)
		return 0;	/* run() says why */
	if (s) {
		err = fpl_xstate_parse_mask(&xs, s, &c->mask, diag);
		c->has_mask = !err;
		if (err)
			return fpl_diag_prefix(diag, -EINVAL, "--mask");
	}
	if (matrix && strcmp(insn, "all") &&
	    !fpl_save_insn_supported(env->cpu, insn_need(insn), &why))
		return fpl_diag_set(diag, -ENOTSUP, "%s: %s",
				    fpl_save_insn_name(insn_need(insn)), why ? why : "not supported");
	/* the words the matrix's cells would skip with (matrix.c's plan_op) */
	if (matrix && s && (c->mask & ~fpl_xstate_xcr0(&xs)) &&
	    (c->mask & FPL_XFEATURE_MASK_XTILE) && !fpl_amx_supported(&xs, &why))
		return fpl_diag_set(diag, -ENOTSUP, "RFBM 0x%" PRIx64 ": %s", c->mask,
				    why ? why : "no AMX on this CPU");
	if (matrix && s && (c->mask & ~fpl_xstate_xcr0(&xs)))
		return fpl_diag_set(diag, -ENOTSUP, "RFBM 0x%" PRIx64 " has components outside "
				    "this process's permitted mask 0x%" PRIx64 " (XCR0 0x%" PRIx64
				    ")", c->mask, fpl_xstate_permitted(&xs), xs.xcr0);
	if (s && fpl_xstate_names_widest(s))
		fpl_xstate_widest_note(fpl_xstate_xcr0(&xs), "XCR0", diag->msg, sizeof(diag->msg));
	return 0;
}

const struct fpl_bench fpl_bench_xsave = {
	.budget = { 7.5, 1.4 },
	.cfg_size = sizeof(struct xsave_cfg),
	.check = xsave_check,
	.name = "xsave",
	.summary = "XSAVE-family cost matrix: instruction x RFBM x state x method, the RFBM "
		   "experiment, LDMXCSR/STMXCSR/FNINIT/VZEROUPPER/XGETBV",
	.opts = xsave_opts,
	.supported = xsave_supported,
	.run = xsave_run,
};
