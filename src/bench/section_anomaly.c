// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A section run's figure that cannot be true: a cost whose whole 95%
 * interval lies below zero, and not by chance among the many intervals
 * one section table holds.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "section_work.h"
#include "fpulab/stats.h"

static const char *const costs[] = { "section_cycles", "one_section_cycles" };

/* The 95% interval of cost i of run in lo, hi; false without one. */
static bool cost_ci(const struct fpl_run *run, size_t i, double *lo, double *hi)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, costs[i]);
	json_t *l = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_lo") : NULL;
	json_t *h = m && json_is_object(m->extra) ? json_object_get(m->extra, "ci95_hi") : NULL;

	if (!json_is_number(l) || !json_is_number(h))
		return false;
	*lo = json_number_value(l);
	*hi = json_number_value(h);
	return true;
}

static bool in_family(const struct fpl_run *run)
{
	return !run->skipped && !strcmp(run->bench, "section");
}

/*
 * The family: every cost interval of r's section runs (run itself when r
 * is NULL). For cost i of run, *adj gets its sign test's Holm-adjusted
 * p-value and *m the family's size. 0, or -ENOENT when run has no such
 * interval, -ENOMEM.
 */
static int family_p(const struct fpl_result *r, const struct fpl_run *run, size_t i,
		    double *adj, size_t *m)
{
	size_t cap = (r ? r->nruns : 1) * FPL_ARRAY_SIZE(costs), n = 0, at = SIZE_MAX;
	double *p = malloc(cap * sizeof(*p)), *a = malloc(cap * sizeof(*a)), lo, hi;
	int err = -ENOMEM;

	if (p && a) {
		for (size_t k = 0; k < (r ? r->nruns : 1); k++) {
			const struct fpl_run *x = r ? r->runs[k] : run;

			for (size_t j = 0; in_family(x) && j < FPL_ARRAY_SIZE(costs); j++) {
				const struct fpl_metric *c = fpl_run_find_metric(x, costs[j]);

				if (!c || !cost_ci(x, j, &lo, &hi))
					continue;
				if (x == run && j == i)
					at = n;
				p[n++] = fpl_sign_p_below(c->samples, c->n, 0);
			}
		}
		err = at == SIZE_MAX ? -ENOENT : fpl_holm(p, n, a);
		if (!err) {
			*adj = a[at];
			*m = n;
		}
	}
	free(p);
	free(a);
	return err;
}

/* |median inside - median outside| as a percentage of outside; NaN without both. */
static double call_diff_pct(const struct fpl_run *run)
{
	const struct fpl_metric *in = fpl_run_find_metric(run, "inside_cycles");
	const struct fpl_metric *out = fpl_run_find_metric(run, "outside_cycles");
	struct fpl_ci a, b;

	if (!in || !out || fpl_median_ci(in->samples, in->n, &a) ||
	    fpl_median_ci(out->samples, out->n, &b) || !(b.estimate > 0))
		return NAN;
	return fabs(a.estimate - b.estimate) / b.estimate * 100;
}

/*
 * Below zero beyond chance: the interval below zero and the sign test's
 * adjusted p under 2.5% (the one side of a two-sided 95%). A cost stored
 * without samples (NaN p, Holm's 1) has only its interval to go by.
 */
static bool beyond_chance(const struct fpl_result *r, const struct fpl_run *run, size_t i,
			  double *lo, double *hi, double *adj, size_t *m)
{
	const struct fpl_metric *c = fpl_run_find_metric(run, costs[i]);

	if (!in_family(run) || !cost_ci(run, i, lo, hi) || !(*hi < 0))
		return false;
	if (isnan(fpl_sign_p_below(c->samples, c->n, 0)) ||
	    (family_p(r, run, i, adj, m) && (!r || family_p(NULL, run, i, adj, m)))) {
		*adj = NAN;	/* no samples, or no memory for the test: the interval alone */
		return true;
	}
	return *adj < 0.025;
}

/* A hex string of run's observed key, in *v; false when absent. */
static bool obs_hex(const struct fpl_run *run, const char *key, uint64_t *v)
{
	const char *s = fpl_run_obs_get_str(run, key);
	char *end;

	if (!s)
		return false;
	*v = strtoull(s, &end, 0);
	return end != s && !*end;
}

/*
 * The parts of cost i as people read them ("save 1 x 98 + set-up 1 x 4 +
 * ... = 230 cycles") in buf, and their sum in *sum; false when the run has
 * no part arms (a file from before them).
 */
static bool parts_text(const struct fpl_run *run, size_t i, char *buf, size_t size, double *sum)
{
	static const char *const words[FPL_SECTION_NPARTS] = { "save", "set-up", "end",
								"restore" };
	double count[FPL_SECTION_NPARTS];
	size_t len = 0;
	char name[48], a[32];

	*sum = 0;
	if (fpl_section_part_counts(run, i == 1, count))
		return false;
	buf[0] = 0;
	for (size_t k = 0; k < FPL_SECTION_NPARTS; k++) {
		const struct fpl_metric *m;
		double each;

		snprintf(name, sizeof(name), "part_%s_cycles", fpl_section_parts[k]);
		m = fpl_run_find_metric(run, name);
		each = m ? fpl_metric_median(m) : NAN;
		if (!isfinite(each))
			return false;
		*sum += count[k] * each;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s %g x %s", k ? " + " : "",
						words[k], count[k], fpl_section_num(a, sizeof(a), each, 1));
	}
	if (len < size)
		snprintf(buf + len, size - len, " = %s cycles", fpl_section_num(a, sizeof(a), *sum, 0));
	return true;
}

/*
 * Which part of a section speeds the work that follows it, decided from the
 * parts (measured alone, none costs less than nothing) and from whether
 * the work ends with its upper halves dirty: an XRSTOR of init upper
 * state in the cost (eager: one per section; one section: its one) cleans
 * them, and on Intel the code after it runs faster (METHOD.md). Writes
 * the sentence of the cause into buf; false when the run has no part arms.
 */
static bool part_cause(const struct fpl_run *run, size_t i, char *buf, size_t size)
{
	double count[FPL_SECTION_NPARTS], sum, pct = call_diff_pct(run);
	uint64_t work = 0, owner = 0;
	bool know_work = obs_hex(run, "work_xinuse", &work), know_owner;
	char parts[320], why[200], place[120] = "";
	const char *own = fpl_run_param_get_str(run, "owner"), *order;

	if (!parts_text(run, i, parts, sizeof(parts), &sum) ||
	    fpl_section_part_counts(run, i == 1, count))
		return false;
	know_owner = obs_hex(run, "owner_xinuse", &owner);
	if (!know_owner)	/* the owner's upper state from its name: init or live */
		owner = own && !strcmp(own, "init") ? 0 : FPL_SECTION_UPPER;
	if (count[3] > 0 && know_work && (work & FPL_SECTION_UPPER) &&
	    !(owner & FPL_SECTION_UPPER)) {
		snprintf(buf, size, "Cause, from the parts: the restore. Its XRSTOR of the "
			 "owner's init state cleaned the upper halves, which the work leaves dirty "
			 "(XINUSE 0x%llx after a chunk), so the work that followed ran faster "
			 "(Intel's dirty-upper penalty, METHOD.md); the parts alone cost more than "
			 "nothing (%s), the speed-up of the work is not in them",
			 (unsigned long long)work, parts);
		return true;
	}
	if (count[3] <= 0)
		snprintf(why, sizeof(why), "this cost holds no restore (%s: one per call in "
			 "both loops), so no XRSTOR comes between the work's chunks",
			 fpl_run_param_get_str(run, "policy"));
	else if (owner & FPL_SECTION_UPPER)
		snprintf(why, sizeof(why), "the owner's upper halves are live (XINUSE 0x%llx), "
			 "so its restore leaves them dirty, not clean", (unsigned long long)owner);
	else if (know_work)
		snprintf(why, sizeof(why), "the work ends with its upper halves clean (XINUSE "
			 "0x%llx after a chunk), so the restore cleans nothing", 
			 (unsigned long long)work);
	else
		snprintf(why, sizeof(why), "whether the work ends dirty was not recorded (no "
			 "XINUSE here), so no restore can be named");
	if (isfinite(pct))
		snprintf(place, sizeof(place), " (inside and outside differ by %.2f%% of a call)",
			 pct);
	/*
	 * The modes run one loop (body(), the mode tested at run time): not
	 * code placement. In rounds of a fixed order each arm always follows
	 * the same one, and on a Zen 3 guest two copies of the outside arm
	 * differed by 100-1,700 cycles of an 85,000-cycle call that way.
	 */
	order = fpl_run_obs_get_str(run, "order");
	/* its length used: gcc -O1 checks unused snprintf results for truncation */
	return snprintf(buf, size, "Cause, from the parts: none of them. Each costs more than nothing "
		 "alone (%s), and %s. Likely cause%s: %s", parts, why, place,
		 order && !strcmp(order, "shuffled") ?
		 "interference that hit the modes unequally (the run's load and preemptions are "
		 "in its observations); the rounds' order was shuffled and the modes run one "
		 "loop, so neither the order nor code placement" :
		 "the rounds' fixed order: each arm always ran right after the same one, which "
		 "moves an arm's time (two copies of one arm differed by up to 2% of a call on "
		 "Zen 3); fpulab now shuffles each round") >= 0;
}

bool fpl_section_cost_anomalous(const struct fpl_result *r, const struct fpl_run *run, bool one)
{
	double lo, hi, adj = NAN;
	size_t m = 0;

	return run && beyond_chance(r, run, one ? 1 : 0, &lo, &hi, &adj, &m);
}

const char *fpl_section_anomaly(const struct fpl_result *r, const struct fpl_run *run, char *buf,
				size_t size)
{
	double lo, hi, adj = NAN, pct;
	size_t m = 0;
	char test[160] = "", a[32], b[32], cause[900];

	for (size_t i = 0; run && i < FPL_ARRAY_SIZE(costs); i++) {
		if (!beyond_chance(r, run, i, &lo, &hi, &adj, &m))
			continue;
		if (m && isfinite(adj))
			snprintf(test, sizeof(test), " (sign test, Holm-adjusted over the %zu cost "
				 "intervals of this result: p = %.2g)", m, adj);
		/* digits enough that a tiny interval below zero does not read [0, 0] */
		fpl_section_num(a, sizeof(a), lo, fabs(hi) >= 10 ? 0 : fabs(hi) >= 1 ? 1 : 2);
		fpl_section_num(b, sizeof(b), hi, fabs(hi) >= 10 ? 0 : fabs(hi) >= 1 ? 1 : 2);
		pct = call_diff_pct(run);
		if (part_cause(run, i, cause, sizeof(cause)))
			snprintf(buf, size, "%s [%s, %s] cycles lies below zero%s: a section "
				 "cannot cost less than none. %s. A fault of the measurement, not "
				 "a speedup", costs[i], a, b, test, cause);
		else if (isfinite(pct) && pct < 1)
			snprintf(buf, size, "%s [%s, %s] cycles lies below zero%s: a section "
				 "cannot cost less than none. Likely cause: inside and outside "
				 "differ by %.2f%% of a call, less than the rounds' fixed order, "
				 "code placement and interference move them; the method does not resolve this "
				 "cost here. A fault of the measurement, not a speedup",
				 costs[i], a, b, test, pct);
		else
			snprintf(buf, size, "%s [%s, %s] cycles lies below zero%s: a section "
				 "cannot cost less than none. Likely cause: interference that hit "
				 "the modes unequally (the run's load and preemptions are in its "
				 "observations); in a file from an fpulab whose workloads did not end "
				 "with VZEROUPPER, Intel's dirty-upper penalty: each section's XRSTOR "
				 "of init owner state cleaned the upper state, so the code around the "
				 "work ran faster (METHOD.md). A fault of the measurement, not a "
				 "speedup", costs[i], a, b, test);
		return buf;
	}
	return NULL;
}

size_t fpl_section_below_zero(const struct fpl_result *r, const struct fpl_run *run,
			      size_t *family)
{
	size_t below = 0, n = 0;
	double lo, hi;

	for (size_t k = 0; k < r->nruns; k++)
		for (size_t j = 0; in_family(r->runs[k]) && j < FPL_ARRAY_SIZE(costs); j++)
			if (cost_ci(r->runs[k], j, &lo, &hi)) {
				n++;
				below += hi < 0 && (!run || run == r->runs[k]);
			}
	*family = n;
	return below;
}

bool fpl_section_warning_stale(const struct fpl_result *r, const struct fpl_run *run,
			       const char *text)
{
	const char *stored = fpl_run_obs_get_str(run, "anomaly");
	char buf[1200];

	return stored && text && !strcmp(stored, text) &&
	       !fpl_section_anomaly(r, run, buf, sizeof(buf));
}
