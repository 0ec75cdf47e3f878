// SPDX-License-Identifier: GPL-3.0-or-later
/* The one progress line a command redraws on stderr (a terminal): what, how far, what is left. */
#include <stdio.h>

#include "cli.h"

void fpl_cli_progress_show(const char *what, double frac, const char *tail)
{
	fprintf(stderr, "\r\033[K%s", what);
	if (frac >= 0)
		fprintf(stderr, " %3.0f%%", frac * 100);
	if (tail)
		fputs(tail, stderr);
	fflush(stderr);
}

void fpl_cli_progress_clear(void)
{
	fputs("\r\033[K", stderr);
	fflush(stderr);
}
