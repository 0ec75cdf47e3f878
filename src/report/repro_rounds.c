// SPDX-License-Identifier: GPL-3.0-or-later
/* The rounds of repro rfbm: each round's figures from its runs, the cases they make, the kernel's lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kernelview.h"
#include "fpulab/repro.h"
#include "fpulab/xstate.h"

double fpl_repro_ctx_value(const struct fpl_run *run)
{
	return 1e9 / fpl_metric_median(fpl_run_find_metric(run, "switch"));
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

/* What the kernel's XSAVES covered for the measured tasks (--kernel-trace). */
void fpl_repro_kernel_lines(const struct fpl_result *traced, bool cet_s, bool amx, FILE *f)
{
	char line[512];
	bool any = false;

	if (cet_s && fpl_kview_xcomp_line(traced, FPL_XFEATURE_CET_KERNEL, "CET_S", line,
					       sizeof(line)) > 0) {
		fprintf(f, "%s\n", line);
		any = true;
	}
	if (amx && fpl_kview_xcomp_line(traced, FPL_XFEATURE_XTILE_DATA, "AMX_TILEDATA",
					     line, sizeof(line)) > 0) {
		fprintf(f, "%s\n", line);
		any = true;
	}
	if (!any && fpl_kview_xcomp_line(traced, FPL_XFEATURE_CET_KERNEL, "CET_S", line,
					 sizeof(line)) > 0)
		fprintf(f, "%s (CET_S is not enumerated on this CPU)\n", line);
	else if (!any)
		fprintf(f, "kernel xcomp_bv: not traced (%s)\n",
			traced->nruns ? "the traced runs saw no x86_fpu event" :
			"--kernel-trace found no tracefs or no x86_fpu events: see the run's "
			"observed.kernel");
}
