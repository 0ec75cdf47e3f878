// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the XSAVE-family cost matrix as a command, with its own table (src/report). */
#include "fpulab/report.h"
#include "cli.h"

FPL_BENCH_CMD_WITH(xsave, "XSAVE-family cost matrix (instruction x RFBM x state x method)",
		   .table = fpl_table_xsave);
