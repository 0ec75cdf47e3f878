// SPDX-License-Identifier: GPL-3.0-or-later
/* The signal benchmark's views: its block of the suite summary. */
#include <stdio.h>
#include <string.h>

#include "pick.h"
#include "table_internal.h"
#include "views.h"

/* Its block of the suite summary: the round trip per state, in ns and TSC ticks. */
void fpl_summary_signal(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		struct fpl_summary ns, tsc;
		char b1[32], x[64], y[64];

		if (run->skipped || strcmp(run->bench, "signal") ||
		    !fpl_pick_stat(run, "round_trip_ns", &ns))
			continue;
		if (!head)
			fprintf(f, "\nSignal round trip (tgkill to self, empty handler, through "
				"sigreturn):\n");
		head = true;
		fprintf(f, "  state %-8s %s ns", fpl_pick_param(run, "state", b1, sizeof(b1)),
			fpl_tbl_mq(x, sizeof(x), &ns));
		if (fpl_pick_stat(run, "round_trip", &tsc))
			fprintf(f, " = %s TSC ticks", fpl_tbl_mq(y, sizeof(y), &tsc));
		fputc('\n', f);
	}
}

