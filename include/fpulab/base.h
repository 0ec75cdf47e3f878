/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Lowest layer: error detail, exit codes and small helpers shared by every module. */
#ifndef FPULAB_BASE_H
#define FPULAB_BASE_H

#include <stddef.h>

#define FPL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes of the command (stress-ng style: skip is not failure). */
enum fpl_exit {
	FPL_EXIT_OK = 0,
	FPL_EXIT_FAIL = 1,
	FPL_EXIT_USAGE = 2,	/* bad option or bad input */
	FPL_EXIT_UNSUPPORTED = 77,
};

/*
 * The library never prints. A function that can fail for a reason a person
 * must read (a file name and line, a rule that was broken) fills one of these
 * and returns -errno; the command prints msg.
 */
struct fpl_diag {
	char msg[512];
};

#if defined(__GNUC__)
#define FPL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FPL_PRINTF(a, b)
#endif

/* Format into diag (NULL is allowed and ignored); returns err unchanged. */
int fpl_diag_set(struct fpl_diag *diag, int err, const char *fmt, ...) FPL_PRINTF(3, 4);
/*
 * "what: " before the message diag holds (an option's name before a parse
 * error), when err is -EINVAL; returns err unchanged.
 */
int fpl_diag_prefix(struct fpl_diag *diag, int err, const char *what);

#endif
