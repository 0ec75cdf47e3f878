// SPDX-License-Identifier: GPL-3.0-or-later
/* The in-run anchor of the ping-pong (issue 35): its figures, its ratio, the rounds that waited. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "anchor.h"

size_t fpl_anchor_flag(const struct fpl_anchor_round *r, size_t n, bool *flag)
{
	double *w = malloc((n ? n : 1) * sizeof(*w)), med = NAN;
	size_t k = 0, nflag = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(r[i].wait) && w)
			w[k++] = r[i].wait;
	if (k) {
		fpl_sort(w, k);
		med = fpl_quantile_sorted(w, k, 0.5);
	}
	for (size_t i = 0; i < n; i++) {
		flag[i] = isfinite(med) && isfinite(r[i].wait) &&
			  r[i].wait > FPL_ANCHOR_WAIT_X * med + FPL_ANCHOR_WAIT_NS;
		nflag += flag[i];
	}
	free(w);
	return nflag;
}

static const struct fpl_metric_how per_round = {
	.reps = 1, .clock = FPL_MCLOCK_MONOTONIC_RAW, .overhead = FPL_OVERHEAD_NONE,
	.conv = FPL_CONV_NONE,
};

static struct fpl_metric *metric(struct fpl_run *run, const char *name, const char *unit,
				 const char *method)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, method);

	if (m)
		fpl_metric_set_how(m, &per_round);
	return m;
}

static int ratios(struct fpl_run *run, const struct fpl_anchor_round *r, size_t n, unsigned nst,
		  const bool *flag)
{
	for (unsigned st = 0; st < nst; st++) {
		char name[40];
		struct fpl_metric *m;

		snprintf(name, sizeof(name), "round_trip_per_anchor%s", nst > 1 ? (st ? "_b" : "_a")
									 : "");
		m = metric(run, name, "ratio", "the round's batch mean ns per round trip over the "
			   "same round's anchor (ns per self-pipe write+read), rounds whose tasks "
			   "waited for the CPU left out (observed anchor)");
		if (!m)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			if (!flag[i] && r[i].anchor > 0 && isfinite(r[i].rt[st]) &&
			    fpl_metric_add(m, r[i].rt[st] / r[i].anchor))
				return -ENOMEM;
	}
	return 0;
}

int fpl_anchor_record(struct fpl_run *run, const struct fpl_anchor_round *r, size_t n,
		      unsigned nst)
{
	bool *flag = calloc(n ? n : 1, sizeof(*flag));
	struct fpl_metric *a, *w;
	size_t nflag;
	json_t *o;
	int err = 0;

	if (!flag)
		return -ENOMEM;
	nflag = fpl_anchor_flag(r, n, flag);
	a = metric(run, "anchor_ns", "ns", "the anchor: in the initiator alone, one byte written "
		   "to its own pipe and read back, as many times as a batch has round trips, "
		   "once per round beside the batches; ns per write+read");
	w = metric(run, "run_delay_ns", "ns", "the run delay of both tasks over the round "
		   "(/proc/PID/task/TID/schedstat, second field: runnable while another task "
		   "ran), ns per round trip; the ping-pong's own hand-offs are in it");
	if (!a || !w)
		err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		if (isfinite(r[i].anchor))
			err = fpl_metric_add(a, r[i].anchor);
		if (!err && isfinite(r[i].wait))
			err = fpl_metric_add(w, r[i].wait);
	}
	if (!err)
		err = ratios(run, r, n, nst, flag);
	o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}",
		      "what", "self-pipe write+read in the initiator, no context switch",
		      "cancels", "host slowdowns common to system calls, pipes and the switch "
		      "(the ratio to it moved 7x less than the raw round trip across runs)",
		      "cannot", "a kernel change to system calls or pipes moves both: the raw "
		      "figure shows it, the ratio hides it; contention by another task on the "
		      "CPU slows the switch alone (rounds that waited are left out)",
		      "rounds", (json_int_t)n, "flagged_rounds", (json_int_t)nflag,
		      "rule", "a round is flagged when its run delay per round trip exceeds 3 x "
		      "the run's median plus 50 ns");
	if (!err && (!o || fpl_run_obs_json(run, "anchor", o)))
		err = -ENOMEM;
	free(flag);
	return err;
}
