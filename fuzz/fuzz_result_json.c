// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the results JSON reader, and the writers and views (fpulab show) on whatever it accepts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "report/repro.h"
#include "report/summary.h"
#include "report/views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fpl_result *r = NULL, *again = NULL;
	struct fpl_diag diag = { "" };
	json_error_t e;
	json_t *doc, *out;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	doc = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
	if (!doc)
		return 0;
	if (fpl_result_from_json(doc, &r, &diag)) {
		if (!diag.msg[0] || r)
			abort();	/* rejected without a reason, or with a half result */
		json_decref(doc);
		return 0;
	}
	/* What the reader accepts, every writer handles, and the JSON writer's output reads back. */
	for (int f = FPL_FMT_TABLE; f <= FPL_FMT_CSV; f++)
		(void)fpl_emit(r, f, devnull, &diag);
	/* and every view fpulab show may choose for a document, whatever it says it is */
	for (int u = FPL_UNITS_CYCLES; u <= FPL_UNITS_ALL; u++) {
		struct fpl_table_opts o = { .units = (enum fpl_units)u, .warnings = true };

		(void)fpl_view_document(r, &o, devnull, &diag);
		(void)fpl_view_table(r, &o, devnull);
		(void)fpl_view_generic_table(r, &o, devnull);
		(void)fpl_view_series(r, &o, (long)r->nruns, (long)r->nruns + 1, devnull);
	}
	(void)fpl_summary_write(r, devnull);
	(void)fpl_repro_write(r, FPL_REPRO_ALL, NULL, false, false, devnull, &diag);
	out = fpl_report_json(r);
	if (!out)
		abort();
	if (fpl_result_from_json(out, &again, &diag))
		abort();
	if (again->nruns != r->nruns)
		abort();
	for (size_t i = 0; i < r->nruns; i++)
		if (again->runs[i]->nmetrics != r->runs[i]->nmetrics)
			abort();
	fpl_result_free(again);
	json_decref(out);
	fpl_result_free(r);
	json_decref(doc);
	return 0;
}
