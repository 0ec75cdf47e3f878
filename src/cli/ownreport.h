/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Ending a session whose report for people is the command's own (run, repro). */
#ifndef FPULAB_CLI_OWNREPORT_H
#define FPULAB_CLI_OWNREPORT_H

#include <stdio.h>

#include "cli.h"

/* Prints the command's report of r to f. 0 or -errno. */
typedef int (*fpl_cli_print_fn)(const struct fpl_result *r, FILE *f, void *arg);

/*
 * fpl_session_end(), except for what goes to stdout: --json and --format
 * json|csv emit r; --format table emits the generic table then print();
 * otherwise print() alone. The -o file is written atomically (JSON unless
 * --format) before anything is printed. With print_result given, that
 * result is what is emitted and saved instead of s->result (which still
 * gives the clock and its warnings). Nothing is written or printed when rc
 * is FPL_EXIT_USAGE. Frees the session. Returns rc, or FPL_EXIT_FAIL when
 * writing failed.
 */
int fpl_cli_end_own(struct fpl_session *s, int rc, struct fpl_result *print_result,
		    fpl_cli_print_fn print, void *arg);

#endif
