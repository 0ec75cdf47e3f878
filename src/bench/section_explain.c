// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A section's measured cost by its parts (issue 34): the model's saves,
 * set-ups, begin/end pairs and restores per section, each costed by its
 * arm timed alone in the same rounds, against the measured cost.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kexpect.h"
#include "fpulab/stats.h"
#include "section_work.h"

const char *const fpl_section_parts[FPL_SECTION_NPARTS] = { "save", "setup", "end", "restore" };

static const char *const part_source[FPL_SECTION_NPARTS] = {
	"the model's expected saves (src/model/kexpect.c: eager one per section, lazy one per "
	"call)",
	"one per begin whose mask sets MXCSR or x87 (kernel_fpu_begin_mask), none for mask none",
	"one begin/end pair per section",
	"the model's expected restores (src/model/kexpect.c: eager one per section at its end, "
	"lazy one per call at return to user)",
};

const char *fpl_section_num(char *buf, size_t size, double v, int prec)
{
	const char *p;

	snprintf(buf, size, "%.*f", prec, v);
	if (buf[0] != '-')
		return buf;
	for (p = buf + 1; *p == '0' || *p == '.'; p++)
		;
	if (!*p)
		memmove(buf, buf + 1, strlen(buf));	/* "-0", "-0.0": all zeros */
	return buf;
}

int fpl_section_part_counts(const struct fpl_run *run, bool one, double count[FPL_SECTION_NPARTS])
{
	const char *pol = fpl_run_param_get_str(run, "policy");
	const char *mask = fpl_run_param_get_str(run, "mask");
	long long n = fpl_run_param_get_int(run, "sections_inside", 0);
	struct fpl_kx_section in, out;

	if (!mask || fpl_kexpect_section_model(pol, n, &in) ||
	    fpl_kexpect_section_model(pol, 1, &out) || (!one && n < 2))
		return -EINVAL;
	if (one) {
		/* outside against bare: one section and the return to user, against none */
		count[0] = out.saves;
		count[3] = out.restores;
	} else {
		count[0] = (in.saves - out.saves) / (double)(n - 1);
		count[3] = (in.restores - out.restores) / (double)(n - 1);
	}
	count[1] = strcmp(mask, "none") ? 1 : 0;
	count[2] = 1;
	return 0;
}

static json_t *interval(const struct fpl_ci *ci)
{
	return json_pack("{s:f, s:f, s:f}", "value", ci->estimate, "ci_lo", ci->lo, "ci_hi",
			 ci->hi);
}

int fpl_section_explain(const struct fpl_run *run, json_t **out)
{
	const struct fpl_metric *sc = fpl_run_find_metric(run, "section_cycles");
	const struct fpl_metric *pm[FPL_SECTION_NPARTS];
	double count[FPL_SECTION_NPARTS], each[FPL_SECTION_NPARTS], predicted = 0, *res = NULL;
	struct fpl_ci meas, rci, pci;
	json_t *o = NULL, *parts;
	size_t n;
	char name[48];
	bool unexplained;

	*out = NULL;
	if (!sc || fpl_section_part_counts(run, false, count))
		return 0;
	n = sc->n;
	for (size_t k = 0; k < FPL_SECTION_NPARTS; k++) {
		snprintf(name, sizeof(name), "part_%s_cycles", fpl_section_parts[k]);
		pm[k] = fpl_run_find_metric(run, name);
		if (!pm[k])
			return 0;
		n = pm[k]->n < n ? pm[k]->n : n;
	}
	if (fpl_median_ci(sc->samples, n, &meas))
		return 0;
	for (size_t k = 0; k < FPL_SECTION_NPARTS; k++) {
		if (fpl_median_ci(pm[k]->samples, n, &pci))
			return 0;
		each[k] = pci.estimate;
		predicted += count[k] * each[k];
	}
	/* per round: the parts were timed in the same rounds as inside and outside */
	res = malloc(n * sizeof(*res));
	if (!res)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		res[i] = sc->samples[i];
		for (size_t k = 0; k < FPL_SECTION_NPARTS; k++)
			res[i] -= count[k] * pm[k]->samples[i];
	}
	if (fpl_median_ci(res, n, &rci)) {
		free(res);
		return 0;
	}
	free(res);
	unexplained = (rci.lo > 0 || rci.hi < 0) &&
		      fabs(rci.estimate) > FPL_SECTION_UNEXPLAINED * fabs(meas.estimate);
	parts = json_array();
	o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:o, s:b, s:I, s:s}",
		      "cost", "section_cycles", "unit", "cycles", "per", "extra section",
		      "measured_cycles", interval(&meas), "parts", parts ? parts : json_null(),
		      "predicted", predicted, "residual", interval(&rci), "unexplained",
		      unexplained, "n", (json_int_t)n, "rule",
		      "residual = per-round section cost - sum of count x per-round part cost, "
		      "median with a distribution-free 95% interval; unexplained when that "
		      "interval excludes zero and |residual| > 20% of |measured|");
	if (!o || !parts) {
		json_decref(o);
		return -ENOMEM;
	}
	for (size_t k = 0; k < FPL_SECTION_NPARTS; k++) {
		json_t *p;

		snprintf(name, sizeof(name), "part_%s_cycles", fpl_section_parts[k]);
		p = json_pack("{s:s, s:f, s:f, s:f, s:s, s:s}", "name", fpl_section_parts[k],
			      "count_per_op", count[k], "each", each[k], "total",
			      count[k] * each[k], "source", part_source[k], "metric", name);
		if (!p || json_array_append_new(parts, p)) {
			json_decref(o);
			return -ENOMEM;
		}
	}
	*out = o;
	return 0;
}
