// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the RFBM experiment. A component in init state, in RFBM or not: does it cost? */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "fpulab/stats.h"
#include "bench.h"

/*
 * The user-space analogue of the RFBM[12] question in the CET series: the
 * kernel saves and restores every enabled component; does adding one that
 * sits in its init state change the cost? Others stay live, as in a task
 * that used them. Each pair (with, without) is interleaved in every round.
 */
static const struct {
	enum fpl_xs_op op;
	const char *name, *mnemonic;
	enum fpl_save_insn need;
	bool xfd_only;	/* only for components XFD can arm (AMX tile data: 8 KiB) */
} rfbm_ops[] = {
	{ XS_XSAVEC, "xsavec", "XSAVEC64", FPL_INSN_XSAVEC, false },
	{ XS_XSAVEOPT, "xsaveopt", "XSAVEOPT64", FPL_INSN_XSAVEOPT, false },
	{ XS_XRSTOR_C, "xrstor-c", "XRSTOR64 (compacted image)", FPL_INSN_XSAVEC, false },
	/* Standard format: XSAVE writes the init component's bytes (METHOD.md: +8 KiB of zeros). */
	{ XS_XSAVE, "xsave", "XSAVE64", FPL_INSN_XSAVE, true },
	{ XS_XRSTOR, "xrstor", "XRSTOR64 (standard image)", FPL_INSN_XSAVE, true },
};

/*
 * Two-sample t intervals at 95% for the difference of locations, with GSL's
 * t quantile (the stats layer's tests are another engineer's; these two are
 * all this experiment needs). trim 0: Welch on means. trim 0.2: Yuen on 20%
 * trimmed means with winsorised variances and Welch-type degrees of freedom,
 * which preemption outliers (a sample can read thousands of cycles on a
 * shared machine) do not blow up.
 */
struct tside {
	double loc, d;	/* location; squared standard error */
	double h;	/* effective size */
};

static int tside_of(const double *x, size_t n, double trim, struct tside *t)
{
	double *s = malloc(n * sizeof(*s)), sum = 0, ss = 0, mw;
	size_t g = (size_t)(trim * n), h = n - 2 * g;

	if (!s)
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	fpl_sort(s, n);
	t->loc = 0;
	for (size_t i = g; i < n - g; i++)
		t->loc += s[i];
	t->loc /= h;
	/* winsorise: the g lowest become s[g], the g highest s[n-g-1] */
	for (size_t i = 0; i < n; i++) {
		double w = i < g ? s[g] : i >= n - g ? s[n - g - 1] : s[i];

		sum += w;
		ss += w * w;
	}
	mw = sum / n;
	t->d = (ss - n * mw * mw) / (n - 1) * (n - 1) / ((double)h * (h - 1));
	t->h = (double)h;
	free(s);
	return 0;
}

static int t_interval(const double *a, size_t na, const double *b, size_t nb, double trim,
		      double *diff, double *lo, double *hi, double *df)
{
	struct tside ta, tb;
	double se2, t;

	if (na < 5 || nb < 5 || tside_of(a, na, trim, &ta) || tside_of(b, nb, trim, &tb))
		return -EINVAL;
	se2 = ta.d + tb.d;
	*diff = ta.loc - tb.loc;
	*df = se2 > 0 ? se2 * se2 / (ta.d * ta.d / (ta.h - 1) + tb.d * tb.d / (tb.h - 1)) :
			ta.h + tb.h - 2;
	t = gsl_cdf_tdist_Pinv(0.975, *df);
	*lo = *diff - t * sqrt(se2);
	*hi = *diff + t * sqrt(se2);
	return 0;
}

/* Paired differences (same round) as a metric; Yuen's and Welch's intervals in its extra. */
static int add_diff(struct fpl_run *run, const struct fpl_variant *with,
		    const struct fpl_variant *without)
{
	const struct fpl_metric *a = with->m_cycles, *b = without->m_cycles;
	size_t n = a->n < b->n ? a->n : b->n;
	double diff, lo, hi, df, wdiff, wlo, whi, wdf, base;
	struct fpl_metric *d;
	struct fpl_metric_how how = *fpl_metric_how(a);
	struct fpl_summary s;

	d = fpl_run_add_metric(run, "diff_cycles", "cycles", NULL);
	if (!d || fpl_metric_set_family(d, "diff") ||
	    fpl_metric_set_method(d, "with minus without, per round (the two were timed back to "
				  "back in each round); ci95: Yuen's interval for the difference "
				  "of 20% trimmed means of all samples (Welch-type df, GSL t "
				  "quantile), welch_ci95 the same on plain means", NULL,
				  "core cycles as in with_cycles"))
		return -ENOMEM;
	how.reps = 0;	/* each variant has its own N */
	fpl_metric_set_how(d, &how);
	fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(d, a->samples[i] - b->samples[i]))
			return -ENOMEM;
	if (t_interval(a->samples, a->n, b->samples, b->n, 0.2, &diff, &lo, &hi, &df) ||
	    t_interval(a->samples, a->n, b->samples, b->n, 0, &wdiff, &wlo, &whi, &wdf))
		return 0;
	base = !fpl_summarize(b->samples, b->n, 20, &s) ? s.trimmed_mean : NAN;
	/* JSON has no NaN (json_real refuses it): no finite interval, no extra */
	if (!isfinite(diff) || !isfinite(lo) || !isfinite(hi) || !isfinite(df) ||
	    !isfinite(base) || !isfinite(wdiff) || !isfinite(wlo) || !isfinite(whi))
		return 0;
	d->extra = json_pack("{s:f, s:[f,f], s:f, s:s, s:f, s:f, s:[f,f], s:f}",
			     "trimmed_mean_diff", diff, "ci95", lo, hi, "df", df,
			     "test", "Yuen 20% trimmed, Welch df", "without_trimmed_mean", base,
			     "diff_pct", isfinite(base) && base ? diff / base * 100 : 0.0,
			     "welch_ci95", wlo, whi, "welch_mean_diff", wdiff);
	return d->extra ? 0 : -ENOMEM;
}

static int rfbm_cell(struct fpl_xs_bench *x, struct fpl_xs_cell *c, struct fpl_variant *v,
		     enum fpl_xs_op op, uint64_t rfbm, uint64_t live, void *img, void *cimg,
		     struct fpl_run *run, const char *prefix, const char *method)
{
	uint64_t permitted = x->permitted;

	memset(c, 0, sizeof(*c));
	c->permitted = permitted;
	c->xsave = true;
	c->xgetbv1 = x->xgetbv1;
	c->expect = live;
	c->setup_img = img;
	c->body = fpl_xs_tp[op];
	c->loop = (struct fpl_xs_loop){ .buf = op == XS_XRSTOR_C ? cimg : fpl_xs_alloc(x), .state = img,
				    .lo = (uint32_t)rfbm, .hi = (uint32_t)(rfbm >> 32),
				    .slo = (uint32_t)permitted, .shi = (uint32_t)(permitted >> 32) };
	if (!c->loop.buf)
		return -ENOMEM;
	if (op == XS_XRSTOR)
		memcpy(c->loop.buf, img, x->size);
	*v = (struct fpl_variant){ .name = prefix, .timed = fpl_xs_cell_timed, .arg = c,
				   .ops_per_rep = 1, .run = run, .prefix = prefix, .method = method };
	return 0;
}

int fpl_xs_plan_rfbm(const struct fpl_xs_bench *x, fpl_xs_rfbm_fn fn, void *arg)
{
	uint64_t permitted = x->permitted;
	int err = 0;

	for (size_t k = 0; k < FPL_ARRAY_SIZE(rfbm_ops) && !err; k++) {
		if (!fpl_save_insn_supported(x->env->cpu, rfbm_ops[k].need, NULL))
			continue;
		for (unsigned id = 0; id < FPL_XFEATURE_MAX && !err; id++) {
			uint64_t bit = 1ull << id;
			struct fpl_xs_rfbm_row row = {
				rfbm_ops[k].op, rfbm_ops[k].name, rfbm_ops[k].mnemonic, id,
				permitted, permitted & ~bit, permitted & ~bit,
			};

			if (!(permitted & bit))
				continue;
			if (rfbm_ops[k].xfd_only && !(fpl_xstate_xfd_mask(&x->xs) & bit))
				continue;
			/* TILECFG init: tile data too (data without a configuration is no program's state). */
			if (id == FPL_XFEATURE_XTILE_CFG)
				row.live &= ~FPL_XFEATURE_MASK_XTILE_DATA;
			err = fn(arg, &row);
		}
	}
	return err;
}

struct rows {
	struct fpl_xs_rfbm_row *r;
	size_t n, cap;
};

static int collect(void *arg, const struct fpl_xs_rfbm_row *row)
{
	struct rows *rs = arg;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 32;
		struct fpl_xs_rfbm_row *r = realloc(rs->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n++] = *row;
	return 0;
}

struct fpl_run *fpl_xs_rfbm_run(struct fpl_xs_bench *x, const struct fpl_xs_rfbm_row *row)
{
	struct fpl_run *run = fpl_result_add_run(x->result, "xsave");
	char with[24], without[24];

	snprintf(with, sizeof(with), "0x%" PRIx64, row->with);
	snprintf(without, sizeof(without), "0x%" PRIx64, row->without);
	if (!run || fpl_run_param_str(run, "experiment", "rfbm") ||
	    fpl_run_param_str(run, "insn", row->insn) ||
	    fpl_run_param_str(run, "component", fpl_xfeature_name(row->id)) ||
	    fpl_run_param_str(run, "rfbm_with", with) ||
	    fpl_run_param_str(run, "rfbm_without", without) ||
	    fpl_run_param_str(run, "state", "component init, others in XCR0 live") ||
	    fpl_run_param_str(run, "method", "throughput"))
		return NULL;
	return run;
}

int fpl_xs_rfbm(struct fpl_xs_bench *x, double share_end)
{
	struct rows rs = { NULL, 0, 0 };
	struct fpl_xs_cell *cells = NULL;
	struct fpl_variant *v = NULL;
	char (*methods)[256] = NULL;	/* [2k] with, [2k + 1] without; then the same generic */
	size_t n = 0;
	int err = fpl_xs_plan_rfbm(x, collect, &rs);

	if (!err && rs.n) {
		cells = calloc(2 * rs.n, sizeof(*cells));
		v = calloc(2 * rs.n, sizeof(*v));
		methods = calloc(4 * rs.n, sizeof(*methods));
		if (!cells || !v || !methods)
			err = -ENOMEM;
	}
	for (size_t i = 0; i < rs.n && !err; i++) {
		const struct fpl_xs_rfbm_row *row = &rs.r[i];
		const char *comp = fpl_xfeature_name(row->id);
		struct fpl_run *run;
		void *img, *cimg = NULL;

		run = fpl_xs_rfbm_run(x, row);
		img = run ? fpl_xs_alloc(x) : NULL;
		if (!img) {
			err = -ENOMEM;
			break;
		}
		fpl_xstate_pattern(&x->xs, row->live, 0xb17 + row->id, img);
		if (row->op == XS_XRSTOR_C) {
			cimg = fpl_xs_alloc(x);
			if (!cimg) {
				err = -ENOMEM;
				break;
			}
			fpl_xs_make_compacted(x, img, cimg);
		}
		for (size_t g = 0; g < 2; g++) {
			char (*mt)[256] = methods + g * 2 * rs.n;

			snprintf(mt[n], sizeof(mt[0]), "throughput: back-to-back %s, RFBM = "
				 "permitted with %s (init); state set by XRSTOR from another image "
				 "before timing, checked with XINUSE", g ? "INSN" : row->mnemonic,
				 g ? "COMP" : comp);
			snprintf(mt[n + 1], sizeof(mt[0]), "throughput: back-to-back %s, RFBM = "
				 "permitted without %s (init); otherwise as with_",
				 g ? "INSN" : row->mnemonic, g ? "COMP" : comp);
		}
		err = rfbm_cell(x, &cells[n], &v[n], row->op, row->with, row->live, img, cimg, run,
				"with_", methods[n]);
		if (!err)
			err = rfbm_cell(x, &cells[n + 1], &v[n + 1], row->op, row->without, row->live,
					img, cimg, run, "without_", methods[n + 1]);
		v[n].method_generic = methods[2 * rs.n + n];
		v[n + 1].method_generic = methods[2 * rs.n + n + 1];
		n += 2;
	}
	if (!err)
		/* paired: diff_cycles subtracts the two samples of each round */
		err = fpl_xs_group_run(x, cells, v, n, fpl_xs_left(x, share_end), true);
	for (size_t i = 0; i + 1 < n && (!err || err == -EINTR); i += 2) {
		int e = add_diff(v[i].run, &v[i], &v[i + 1]);

		if (e)
			err = e;
	}
	free(rs.r);
	free(cells);
	free(v);
	free(methods);
	return err;
}
