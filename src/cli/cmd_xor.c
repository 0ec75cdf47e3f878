// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xor: the kernel's calibration lines and the FNINIT/MXCSR table (2021), or a size sweep. */
#include "cli.h"

FPL_BENCH_CMD(xor, "the kernel's xor templates: calibration lines, FNINIT/MXCSR sections, sweep");
