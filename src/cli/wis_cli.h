/* SPDX-License-Identifier: GPL-3.0-or-later */
/* will-it-scale compatible front end shared by ctxsw --wis, signal --wis and the will-it-scale names. */
#ifndef FPULAB_CLI_WIS_H
#define FPULAB_CLI_WIS_H

#include "fpulab/wis.h"

/*
 * Parse will-it-scale's options (-s -t -m -n -v -h; also --wis, and
 * --mode processes|threads when threads < 0), run the test case and print
 * exactly what will-it-scale prints. threads: 1 or 0 fixes the kind (the
 * program names), -1 lets --mode choose (processes by default).
 * Returns the exit code; on an ending signal (INT, TERM, HUP, QUIT) it
 * ends every task and dies of that signal, as will-it-scale would, without
 * printing an average.
 */
int fpl_cli_wis_main(const char *cmd, enum fpl_wis_case tcase, int threads, int argc,
		     char **argv);
/* True when argv asks for will-it-scale mode (--wis). */
bool fpl_cli_wis_wanted(int argc, char **argv);
/* The help text for will-it-scale mode. */
void fpl_cli_wis_help(const char *prog, FILE *f);

#endif
