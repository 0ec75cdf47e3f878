// SPDX-License-Identifier: GPL-3.0-or-later
/* Forwarders to result.h for the tables of section and xor (to go with those tables to src/report/). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/stats.h"
#include "fpucmd.h"

const struct fpl_metric *fpl_fpucmd_metric(const struct fpl_run *run, const char *name)
{
	return fpl_run_find_metric(run, name);
}

double fpl_fpucmd_median(const struct fpl_metric *m)
{
	return fpl_metric_median(m);
}

bool fpl_fpucmd_ci(const struct fpl_metric *m, double *est, double *lo, double *hi)
{
	if (!m || !json_is_object(m->extra))
		return false;
	*est = json_real_value(json_object_get(m->extra, "estimate"));
	*lo = json_real_value(json_object_get(m->extra, "ci95_lo"));
	*hi = json_real_value(json_object_get(m->extra, "ci95_hi"));
	return json_object_get(m->extra, "estimate") != NULL;
}

const char *fpl_fpucmd_param_str(const struct fpl_run *run, const char *key)
{
	const char *v = json_string_value(json_object_get(run->params, key));

	return v ? v : "";
}

long long fpl_fpucmd_param_int(const struct fpl_run *run, const char *key)
{
	return (long long)json_integer_value(json_object_get(run->params, key));
}
