/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --runs N for run and the benchmark commands: N freshly executed processes, one results file. */
#ifndef FPULAB_CLI_RUNS_H
#define FPULAB_CLI_RUNS_H

#include <stdbool.h>

struct fpl_runs_opt {
	long n;			/* --runs N; 1 when absent */
	bool no_aslr;		/* --no-aslr */
};

/*
 * Take --runs N (--runs=N) and --no-aslr out of argv (argc adjusted, argv
 * stays NULL-terminated). With --no-aslr, a process whose address space is
 * still randomised turns that off (personality ADDR_NO_RANDOMIZE) and
 * executes itself again with the same arguments, so this call may not
 * return. Exit code: FPL_EXIT_OK, or FPL_EXIT_USAGE after the message.
 */
int fpl_runs_take(const char *cmd, int *argc, char **argv, struct fpl_runs_opt *o);

/*
 * Run `fpulab CMD ARGS` o->n times, each a fresh process (/proc/self/exe)
 * writing its results document to a pipe, one after another; merge them
 * into one result whose runs carry observed.run_index and the process's own
 * clock, CPU, load and address-space facts; emit it as the common flags say.
 * The first process refuses bad input before it measures (exit 2, nothing
 * written). An ending signal (INT, TERM, HUP, QUIT) stops the current run
 * (its partial samples are dropped) and writes the completed runs, marked
 * interrupted. Returns the exit code.
 */
int fpl_runs_main(const char *cmd, int argc, char **argv, const struct fpl_runs_opt *o);

#endif
