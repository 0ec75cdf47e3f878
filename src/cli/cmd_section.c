// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab section: the lazy-restore experiment, printed like the 2018 report (percent speedup of outside over inside). */
#include "cli.h"

FPL_BENCH_CMD(section, "FPU sections around each chunk vs around all: eager vs lazy restore (2018)");
