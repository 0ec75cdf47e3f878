// SPDX-License-Identifier: GPL-3.0-or-later
/* section's table for people, like the 2018 report (percent speedup of outside over inside). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/section_work.h"
#include "fpulab/report.h"
#include "table_internal.h"

static void print_ci(FILE *f, const struct fpl_metric *m, const char *fmt_est,
		     const char *fmt_ci, int width)
{
	double est, lo, hi;
	char buf[96];

	if (!fpl_tbl_metric_ci(m, &est, &lo, &hi)) {
		fprintf(f, " %*s", width, "-");
		return;
	}
	snprintf(buf, sizeof(buf), fmt_est, est);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), fmt_ci, lo, hi);
	fprintf(f, " %*s", width, buf);
}

void fpl_table_section(const struct fpl_result *r, FILE *f)
{
	bool header = false;
	size_t anomalies = 0;
	char why[512];

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		if (!header) {
			fprintf(f, "%-8s %-14s %-8s %6s %-5s %-9s %-8s %-6s %10s %10s %24s %22s %16s "
				"%s\n", "workload", "impl", "ISA", "chunk", "policy", "mask",
				"insn", "owner", "inside", "outside", "speedup % [95% CI]",
				"cycles/section [CI]", "one section", "saves/restores per call");
			fprintf(f, "%-8s %-14s %-8s %6s %-5s %-9s %-8s %-6s %10s %10s %24s %22s %16s "
				"%s\n", "", "", "", "bytes", "", "", "", "", "us/call",
				"us/call", "outside over inside", "inside-outside",
				"cycles", "inside, outside");
			header = true;
		}
		fprintf(f, "%-8s %-14s %-8s %6lld %-5s %-9s %-8s %-6s",
			fpl_tbl_param_str(run, "workload"), fpl_tbl_param_str(run, "impl"),
			fpl_tbl_param_str(run, "isa"), fpl_run_param_get_int(run, "chunk", 0),
			fpl_tbl_param_str(run, "policy"), fpl_tbl_param_str(run, "mask"),
			fpl_tbl_param_str(run, "insn"), fpl_tbl_param_str(run, "owner"));
		if (run->skipped) {
			fprintf(f, " skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		fprintf(f, " %10.3f %10.3f",
			fpl_metric_median(fpl_run_find_metric(run, "inside_ns")) / 1000,
			fpl_metric_median(fpl_run_find_metric(run, "outside_ns")) / 1000);
		if (fpl_section_anomaly(run, why, sizeof(why))) {
			fprintf(f, " %24s", "anomaly (see below)");
			anomalies++;
		} else {
			print_ci(f, fpl_run_find_metric(run, "speedup_pct"), "%+.1f",
				 " [%+.1f, %+.1f]", 24);
		}
		print_ci(f, fpl_run_find_metric(run, "section_cycles"), "%.0f", " [%.0f, %.0f]", 22);
		print_ci(f, fpl_run_find_metric(run, "one_section_cycles"), "%.0f", "", 16);
		fprintf(f, " %lld/%lld, %lld/%lld\n", fpl_run_obs_get_int(run, "inside_saves", 0),
			fpl_run_obs_get_int(run, "inside_restores", 0),
			fpl_run_obs_get_int(run, "outside_saves", 0),
			fpl_run_obs_get_int(run, "outside_restores", 0));
	}
	fprintf(f, "\nTimes: median per modelled system call (N vs 2N difference, interleaved "
		   "inside/outside/bare rounds). Speedup: median of per-round inside/outside - 1 with a "
		   "distribution-free 95%% interval (order statistics) (the 2018 report's \"percent "
		   "speedup\"). Cycles: core cycles estimated from the TSC; cycles/section = median "
		   "per round of (inside - outside) / (sections - 1); one section = outside - bare (one "
		   "begin/end around all work plus the return to user). --json keeps every sample.\n");
	if (!anomalies)
		return;
	fprintf(f, "\nAnomalies: no speedup is shown for %zu row%s, whose section cost lies below "
		"zero, which cannot be true:\n", anomalies, anomalies == 1 ? "" : "s");
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && fpl_section_anomaly(r->runs[i], why, sizeof(why)))
			fprintf(f, "  %s/%s %lld bytes %s: %s.\n",
				fpl_tbl_param_str(r->runs[i], "workload"),
				fpl_tbl_param_str(r->runs[i], "impl"),
				fpl_run_param_get_int(r->runs[i], "chunk", 0),
				fpl_tbl_param_str(r->runs[i], "policy"), why);
}
