// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab amx: the AMX lifecycle benchmark as a command (generic table; exit 77 without AMX). */
#include "cli.h"

FPL_BENCH_CMD(amx, "AMX lifecycle: permission, first tile use (XFD trap), fork, release");
