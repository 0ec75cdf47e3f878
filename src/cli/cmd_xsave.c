// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: the XSAVE-family cost matrix as a command, with its own table (src/report). */
#include "cli.h"

FPL_BENCH_CMD(xsave, "XSAVE-family cost matrix (instruction x RFBM x state x method)");
