/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel's xor calibration lines (dmesg), per era, formatted into a buffer. */
#ifndef FPULAB_XORLINES_H
#define FPULAB_XORLINES_H

#include <stddef.h>

#include "fpulab/xor.h"

/*
 * Each writes one line without the trailing newline, as snprintf does, and
 * returns its length, or -EINVAL (bad era, NULL name) or -ENOSPC (truncated).
 */
/* "xor: measuring software checksum speed" */
int fpl_xor_line_measuring(char *buf, size_t size, enum fpl_xor_era era);
/* current, 5.10: "   %-16s: %5d MB/sec"; pre-5.10: "   %-10s: %5d.%03d MB/sec" */
int fpl_xor_line_template(char *buf, size_t size, enum fpl_xor_era era, const char *name,
			  int speed);
/* current, 5.10: "xor: using function: %s (%d MB/sec)"; pre-5.10: "(%d.%03d MB/sec)" */
int fpl_xor_line_using(char *buf, size_t size, enum fpl_xor_era era, const char *name,
		       int speed);
/* What a kernel that skips calibration (AVX present) prints instead. */
int fpl_xor_line_forced(char *buf, size_t size, enum fpl_xor_era era, const char *name);

#endif
