// SPDX-License-Identifier: GPL-3.0-or-later
/* signal --ab: the difference of two interleaved states per round, with its intervals. */
#include <errno.h>
#include <stdio.h>

#include "abdiff.h"
#include "signal_ab.h"

int fpl_signal_ab_record(struct fpl_run *run, const struct fpl_metric *a,
			 const struct fpl_metric *b, bool aa)
{
	size_t n = a->n < b->n ? a->n : b->n;
	struct fpl_abdiff w, p, y;
	struct fpl_metric *d;

	if (aa)
		fpl_run_obs_str(run, "aa_control", "both arms are one state: an A/A control, "
				"whose interval should hold 0 in about 95% of runs");
	if (fpl_abdiff_welch(a->samples, a->n, b->samples, b->n, 0.95, &w) ||
	    fpl_abdiff_paired(a->samples, b->samples, n, 0.95, &p))
		return fpl_run_warn(run, "too few rounds for a difference"), 0;
	d = fpl_abdiff_metric(run, a, b, "tsc", "B - A per round: round_trip_b - round_trip_a "
			      "of the same round (the rounds alternate A B, B A), TSC ticks per "
			      "signal; paired t, Welch and Yuen in extra");
	if (!d)
		return -ENOMEM;
	fpl_abdiff_note(run, d, "paired", "b_minus_a_paired", &p, "tsc");
	fpl_abdiff_note(run, d, "welch", "b_minus_a_welch", &w, "tsc");
	if (!fpl_abdiff_yuen(a->samples, a->n, b->samples, b->n, 20, 0.95, &y))
		fpl_abdiff_note(run, d, "yuen", "b_minus_a_yuen", &y, "tsc");
	return 0;
}
