// SPDX-License-Identifier: GPL-3.0-or-later
/* Progress through a sequence of steps as people see it: how far, and about how long is left. */
#include "fpulab/report.h"

void fpl_progress_step(struct fpl_progress *p, double est_s, double rest_s, double now)
{
	p->est_s = est_s;
	p->rest_s = rest_s;
	p->t_step = now;
	p->frac = 0;
}

void fpl_progress_step_done(struct fpl_progress *p, double now)
{
	p->done_est += p->est_s;
	p->done_took += now - p->t_step;
}

void fpl_progress_at(struct fpl_progress *p, double frac, double now)
{
	/* The steps done say how fast this machine is against the estimates. */
	double scale = p->done_est > 0 ? p->done_took / p->done_est : 1;
	double el = now - p->t_step, left;

	/* Steps report per group or per cell: the largest so far is where it is. */
	if (frac > 1)
		frac = 1;
	if (frac > p->frac)
		p->frac = frac;
	frac = p->frac;
	left = p->est_s * scale * (1 - frac);
	/* This step's own pace, once it has gone far enough to have one. */
	if (frac > 0.05 && el / frac * (1 - frac) > left)
		left = el / frac * (1 - frac);
	left += p->rest_s * scale;
	/* Converging: never more than was said, less the time since. */
	if (p->shown && left > p->left - (now - p->at))
		left = p->left - (now - p->at);
	p->left = left > 0 ? left : 0;
	p->at = now;
	p->shown = true;
}
