// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's xor calibration lines, byte for byte, for LKP-style parsers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "xorlines.h"

static int FPL_PRINTF(3, 4) line(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < size ? n : -ENOSPC;
}

static int bad(enum fpl_xor_era era, const char *name)
{
	return (unsigned)era >= FPL_XOR_ERA_NR || !name;
}

int fpl_xor_line_measuring(char *buf, size_t size, enum fpl_xor_era era)
{
	if (bad(era, ""))
		return -EINVAL;
	return line(buf, size, "xor: measuring software checksum speed");
}

int fpl_xor_line_template(char *buf, size_t size, enum fpl_xor_era era, const char *name,
			  int speed)
{
	if (bad(era, name))
		return -EINVAL;
	if (era == FPL_XOR_ERA_PRE_5_10)
		return line(buf, size, "   %-10s: %5d.%03d MB/sec", name, speed / 1000,
			    speed % 1000);
	return line(buf, size, "   %-16s: %5d MB/sec", name, speed);
}

int fpl_xor_line_using(char *buf, size_t size, enum fpl_xor_era era, const char *name,
		       int speed)
{
	if (bad(era, name))
		return -EINVAL;
	if (era == FPL_XOR_ERA_PRE_5_10)
		return line(buf, size, "xor: using function: %s (%d.%03d MB/sec)", name,
			    speed / 1000, speed % 1000);
	return line(buf, size, "xor: using function: %s (%d MB/sec)", name, speed);
}

int fpl_xor_line_forced(char *buf, size_t size, enum fpl_xor_era era, const char *name)
{
	if (bad(era, name))
		return -EINVAL;
	return line(buf, size, "xor: automatically using best checksumming function   %-10s",
		    name);
}
