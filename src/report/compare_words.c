// SPDX-License-Identifier: GPL-3.0-or-later
/* compare's shared words: notes, the tests' names, percentages of the baseline. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fpulab/result.h"
#include "compare_internal.h"

double fpl_cmp_pct_of_base(const struct fpl_cmp_metric *m, double v)
{
	double base = m->s[0].center;

	return base > 0 && m->kind != FPL_KIND_DIFFERENCE ? 100 * v / base : NAN;
}

const char *fpl_cmp_unpaired_name(const struct fpl_cmp *c)
{
	return c->opts.trim > 0 ? "Yuen" : "Welch";
}

const char *fpl_cmp_test_name(const struct fpl_cmp *c)
{
	if (c->pairing != FPL_CMP_UNPAIRED)
		return c->opts.trim > 0 ? "paired Yuen" : "paired t";
	return fpl_cmp_unpaired_name(c);
}

int fpl_cmp_note(struct fpl_cmp *c, const char *fmt, ...)
{
	char **n = realloc(c->notes, (c->nnotes + 1) * sizeof(*n));
	va_list ap;
	int len;

	if (!n)
		return -ENOMEM;
	c->notes = n;
	va_start(ap, fmt);
	len = vasprintf(&c->notes[c->nnotes], fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	c->nnotes++;
	return 0;
}
