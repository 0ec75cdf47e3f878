// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: tracefs x86_fpu trace lines and their tally, dmesg x86/fpu lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/ktrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const pid_t tids[2] = { 6087, 6088 };
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	struct fpl_kt_dmesg d;
	const char *text = (const char *)data;
	json_t *j;
	int err;

	err = fpl_kt_tally(text, size, NULL, 0, NULL, NULL, &t, &diag);
	if (err && !diag.msg[0])
		abort();	/* a rejected trace must say why */
	if (!err) {
		if (t.saves > t.count[FPL_KT_REGS_DEACTIVATED] ||
		    t.restores + t.no_load != t.count[FPL_KT_REGS_ACTIVATED])
			abort();
		j = fpl_kt_tally_json(&t, 1, "op", NULL);
		json_decref(j);
	}
	diag.msg[0] = 0;
	if (fpl_kt_tally(text, size, tids, 2, "start", "end", &t, &diag) && !diag.msg[0])
		abort();
	diag.msg[0] = 0;
	err = fpl_kt_dmesg_parse(text, size, &d, &diag);
	if (err && !diag.msg[0])
		abort();
	return 0;
}
