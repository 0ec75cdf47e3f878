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
	json_t *extra;
	char text[600];

	if (aa)
		fpl_run_obs_str(run, "aa_control", "both arms are one state: an A/A control, "
				"whose interval should hold 0 in about 95% of runs");
	if (fpl_abdiff_welch(a->samples, a->n, b->samples, b->n, 0.95, &w) ||
	    fpl_abdiff_paired(a->samples, b->samples, n, 0.95, &p))
		return fpl_run_warn(run, "too few rounds for a difference"), 0;
	d = fpl_run_add_metric(run, "difference", "tsc", "B - A per round: round_trip_b - "
			       "round_trip_a of the same round (the rounds alternate A B, B A), "
			       "TSC ticks per signal; paired t, Welch and Yuen in extra");
	extra = json_object();
	if (!d || !extra) {
		json_decref(extra);
		return -ENOMEM;
	}
	fpl_metric_set_how(d, fpl_metric_how(a));
	fpl_metric_set_kind(d, FPL_KIND_DIFFERENCE);
	for (size_t i = 0; i < n; i++)
		if (fpl_metric_add(d, b->samples[i] - a->samples[i]))
			return -ENOMEM;
	json_object_set_new(extra, "paired", fpl_abdiff_json(&p, "tsc"));
	fpl_abdiff_verdict(&p, text, sizeof(text));
	fpl_run_obs_str(run, "b_minus_a_paired", text);
	json_object_set_new(extra, "welch", fpl_abdiff_json(&w, "tsc"));
	fpl_abdiff_verdict(&w, text, sizeof(text));
	fpl_run_obs_str(run, "b_minus_a_welch", text);
	if (!fpl_abdiff_yuen(a->samples, a->n, b->samples, b->n, 20, 0.95, &y)) {
		json_object_set_new(extra, "yuen", fpl_abdiff_json(&y, "tsc"));
		fpl_abdiff_verdict(&y, text, sizeof(text));
		fpl_run_obs_str(run, "b_minus_a_yuen", text);
	}
	d->extra = extra;
	return 0;
}
