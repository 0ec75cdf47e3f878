// SPDX-License-Identifier: GPL-3.0-or-later
/* The signal benchmark's views: its block of the suite summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "table_internal.h"
#include "views.h"

/* Its block of the suite summary: the round trip per state, in ns and TSC ticks. */
/* A --ab run's two states and its paired verdict; false when run is no A/B run. */
static bool summary_ab(const struct fpl_run *run, bool *head, FILE *f)
{
	static const char *const side[2][3] = { { "round_trip_a_ns", "round_trip_a", "state_a" },
						{ "round_trip_b_ns", "round_trip_b", "state_b" } };
	const char *v = fpl_run_obs_get_str(run, "b_minus_a_paired");
	struct fpl_summary ns, tsc;
	char b1[32], x[64], y[64];

	if (!fpl_pick_stat(run, "round_trip_a_ns", &ns))
		return false;
	if (!*head)
		fprintf(f, "\nSignal round trip (tgkill to self, empty handler, through "
			"sigreturn):\n");
	*head = true;
	for (int k = 0; k < 2; k++) {
		if (!fpl_pick_stat(run, side[k][0], &ns))
			continue;
		fprintf(f, "  state %-8s %s ns", fpl_pick_param(run, side[k][2], b1, sizeof(b1)),
			fpl_tbl_mq(x, sizeof(x), &ns));
		if (fpl_pick_stat(run, side[k][1], &tsc))
			fprintf(f, " = %s TSC ticks", fpl_tbl_mq(y, sizeof(y), &tsc));
		fputc('\n', f);
	}
	if (v)
		fprintf(f, "    B minus A: %s (paired per round, interleaved, this run only)\n", v);
	return true;
}

void fpl_summary_signal(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		struct fpl_summary ns, tsc;
		char b1[32], x[64], y[64];

		if (!run->skipped && !strcmp(run->bench, "signal") && summary_ab(run, &head, f))
			continue;
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


void fpl_run_lines_signal(const struct fpl_run *run, FILE *f)
{
	static const char *const keys[][2] = {
		{ "b_minus_a_paired", "B - A, per round (paired; the figure to quote)" },
		{ "b_minus_a_welch", "B - A, all batches (Welch)" },
		{ "b_minus_a_yuen", "B - A, 20% trimmed (Yuen)" },
	};
	bool any = false;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(keys); i++) {
		const char *v = fpl_run_obs_get_str(run, keys[i][0]);
		char *line;

		if (!v || asprintf(&line, "%s: %s", keys[i][1], v) < 0)
			continue;
		fpl_tbl_wrap_labelled(f, "", 4, line);
		free(line);
		any = true;
	}
	if (any) {
		fprintf(f, "    (TSC ticks per signal; these intervals cover this run's rounds only)\n");
		fpl_tbl_aa_line(run, 4, f);
	}
}
