// SPDX-License-Identifier: GPL-3.0-or-later
/* Error detail for the caller to print: the library itself never prints. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "fpulab/base.h"

int fpl_diag_set(struct fpl_diag *diag, int err, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return err;
	va_start(ap, fmt);
	vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
	va_end(ap);
	return err;
}

int fpl_diag_prefix(struct fpl_diag *diag, int err, const char *what)
{
	char why[sizeof(diag->msg)];

	if (!diag || err != -EINVAL)
		return err;
	/* diag->msg cannot be its own argument */
	snprintf(why, sizeof(why), "%s", diag->msg);
	return fpl_diag_set(diag, err, "%s: %s", what, why);
}
