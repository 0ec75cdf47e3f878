/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line: one file per command (src/cli/cmd_<name>.c), shared helpers. */
#ifndef FPULAB_CLI_H
#define FPULAB_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/bench.h"
#include "fpulab/cpu.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/session.h"

struct fpl_cmd {
	const char *name;
	const char *summary;	/* one line for `fpulab --help` */
	const char *usage;	/* the whole --help text of the command */
	void (*help)(FILE *f);	/* instead of usage, when the text is built (benchmarks) */
	/* argv[0] is the command name. Returns an exit code (enum fpl_exit). */
	int (*main)(int argc, char **argv);
};

/* Every command (generated from src/cli/cmd_*.c). */
extern const struct fpl_cmd *const fpl_cmds[];
const struct fpl_cmd *fpl_cli_find(const char *name);

/* "fpulab CMD: message" and the --help hint on stderr; returns FPL_EXIT_USAGE. */
int fpl_cli_usage_error(const char *cmd, const char *fmt, ...) FPL_PRINTF(2, 3);
/* "fpulab CMD: message" on stderr; returns code. */
int fpl_cli_error(const char *cmd, int code, const char *fmt, ...) FPL_PRINTF(3, 4);
/*
 * s to f with control bytes, DEL, C1 controls and bytes that are not UTF-8
 * written as \xNN: what came from an input cannot drive the terminal.
 */
void fpl_cli_put_escaped(const char *s, FILE *f);
/* Print a command's usage text to f. */
void fpl_cli_help(const struct fpl_cmd *cmd, FILE *f);
/* True if argv holds -h or --help before any "--". */
bool fpl_cli_wants_help(int argc, char **argv);
/*
 * getopt_long returned c (':' or '?'; optstring starts with ':', opterr = 0):
 * the usage error naming the option. Returns FPL_EXIT_USAGE.
 */
int fpl_cli_getopt_error(const char *cmd, int c, int argc, char **argv);
/*
 * Write buf to path atomically (fpl_write_file_atomic) with the ending
 * signals held off: no file or a whole one, never the temporary. Exit code:
 * OK; USAGE when the path cannot be written (naming it); FAIL otherwise.
 */
int fpl_cli_write_file(const char *cmd, const char *path, const void *buf, size_t len);
/* The signals that end a command (INT, TERM, HUP, QUIT): handled alike, held off while writing. */
#define FPL_CLI_NEND_SIGS 4
extern const int fpl_cli_end_sigs[FPL_CLI_NEND_SIGS];
void fpl_cli_hold_signals(sigset_t *old);
void fpl_cli_release_signals(const sigset_t *old);
/*
 * Catch every ending signal with handler (no SA_RESTART, so a blocking call
 * returns EINTR), the old actions into old; fpl_cli_uncatch_end puts them
 * back. fpl_cli_default_end: every caught ending signal to SIG_DFL (a forked
 * child). A signal ignored when fpulab started (nohup, a background job)
 * stays ignored in both, as the shell meant.
 */
void fpl_cli_catch_end(void (*handler)(int), struct sigaction old[FPL_CLI_NEND_SIGS]);
void fpl_cli_uncatch_end(const struct sigaction old[FPL_CLI_NEND_SIGS]);
void fpl_cli_default_end(void);
/*
 * Before any measurement: can -o path be written (a temporary file beside it
 * is created and removed)? Exit code: OK, or USAGE after naming the path.
 */
int fpl_cli_check_out_path(const char *cmd, const char *path);
/*
 * The one progress line on stderr, redrawn in place: what, then " NN%" when
 * frac >= 0, then tail (", about 12 s left") when given. Callers show it
 * only when stderr is a terminal; fpl_cli_progress_clear wipes it.
 */
void fpl_cli_progress_show(const char *what, double frac, const char *tail);
void fpl_cli_progress_clear(void);

/* msg without a leading "CMD: " (library messages name the benchmark; the prefix already does). */
const char *fpl_cli_unprefix(const char *cmd, const char *msg);

/*
 * A measuring command: its common flags and the library session it opens
 * (fpulab/session.h: the one way to run a benchmark). Only argv, output
 * destinations, terminal progress, signals and exit codes are handled here:
 *
 *	fpl_cli_init(&c, "run");
 *	for each arg: fpl_cli_common_opt(&c, argc, argv, &i) ...
 *	rc = fpl_cli_prepare(&c, bench, opts, n, &call);  AMX asked, options checked
 *	rc = fpl_cli_start(&c);			  pin, clock, self-checks (said on stderr)
 *	rc = fpl_cli_call(&c, &call);		  as often as needed
 *	rc = fpl_cli_end(&c, rc);		  clock end, emit, free
 */
struct fpl_cli {
	const char *cmd;		/* for messages: "xsave" */
	/* common flags */
	enum fpl_format format;		/* --format, --json */
	bool format_given;		/* --format given */
	bool json_stdout;		/* --json */
	const char *out_path;		/* -o FILE (written atomically) */
	int cpu_id;			/* --cpu N, -1: the current CPU */
	bool quick;			/* --quick */
	double budget_s;		/* --budget SECONDS, 0: the benchmark's default */
	bool quiet;			/* -q: no self-check lines, no progress */
	enum fpl_units units;		/* --units: what the table shows of cycles/tsc/ns */
	/* --amx, or implied by naming amx/tilecfg/tiledata in an option value */
	bool amx;
	char amx_by[96];		/* "--amx" or "--mask tiledata" */
	bool kernel_trace;		/* --kernel-trace: the kernel's x86_fpu events per run */
	/* state */
	struct fpl_session *ls;		/* the library session: CPU, clock, result */
	bool progress_tty;
	volatile sig_atomic_t *stop;	/* set by an ending signal */
	/*
	 * fpl_cli_end_own prints the result's warnings on stderr too: a report
	 * without a warnings section of its own (repro), quiet or not.
	 */
	bool warn_stderr;
	/* Optional, set before fpl_cli_start: progress on a terminal (fpulab run). */
	void (*progress)(void *arg, const char *bench, double frac, const char *what);
	void *progress_arg;
	/* Why the last fpl_cli_prepare found nothing this CPU can measure (it returned 77). */
	char skip_why[512];
};

void fpl_cli_init(struct fpl_cli *c, const char *cmd);
/* `fpulab --amx COMMAND ...`: main() saw it before the command. */
extern bool fpl_cli_amx_global;
/* The command line as typed (main's argv, copied first; NULL-terminated), for host.command. */
extern char **fpl_cli_argv;
/* A value naming AMX state: a token amx, tilecfg, tiledata (or AMX_TILECFG...) split on , + : / space. */
bool fpl_cli_names_amx(const char *value);
/*
 * A benchmark option --name value that names tile state implies --amx:
 * c->amx_by becomes "--name value", "BENCH --name value" when bench is
 * given (fpulab run). Nothing when --amx is already given or implied.
 */
void fpl_cli_amx_implied(struct fpl_cli *c, const char *bench, const char *name,
			 const char *value);
/*
 * The library session made (the CPU read) and, if --amx was given or
 * implied, ARCH_REQ_XCOMP_PERM asked once, now: before any benchmark
 * installs a sigaltstack. A refusal is a warning, not an error: cells
 * needing tiles then skip. Exit code.
 */
int fpl_cli_amx(struct fpl_cli *c);
/*
 * If argv[*i] is a common flag, consume it (and its value: *i advances) and
 * return 1; 0 if it is not one; -FPL_EXIT_USAGE after printing the error.
 */
int fpl_cli_common_opt(struct fpl_cli *c, int argc, char **argv, int *i);
/*
 * A benchmark's options checked and parsed before anything is measured
 * (fpl_session_prepare): the usage error naming the option, from c->cmd.
 * Nothing asked for measurable on this CPU: FPL_EXIT_UNSUPPORTED, the
 * reason in c->skip_why, not printed (the caller says it). A notice of the
 * check (what "widest" is here) goes to stderr, once. Exit code;
 * fpl_bench_call_free(call) after FPL_EXIT_OK.
 */
/*
 * After fpl_cli_prepare gave FPL_EXIT_UNSUPPORTED for every benchmark:
 * the session started without a clock and bench recorded as skipped with
 * c->skip_why (the others, if any, by fpl_session_skip), so that the
 * output (table, JSON, -o) still says why, with nothing measured. The
 * reason also goes to stderr where stdout shows no table. Exit code.
 */
int fpl_cli_skip_unmeasured(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
			    size_t nopts);
int fpl_cli_prepare(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
		    size_t nopts, struct fpl_bench_call *call);
/* Exit code: FPL_EXIT_OK, or an error after printing it. Installs the ending-signal handler. */
int fpl_cli_start(struct fpl_cli *c);
/*
 * Run a prepared benchmark into the session's result with c->budget_s.
 * Exit code: OK, FAIL, UNSUPPORTED (skipped); USAGE when it refused its
 * options while running (said on stderr).
 */
int fpl_cli_call(struct fpl_cli *c, const struct fpl_bench_call *call);
/* prepare, call, free. */
int fpl_cli_run(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
		size_t nopts);
/*
 * The session finished (clock drift, self-check again), the result emitted
 * unless interrupted (then what was measured so far, marked), warnings
 * printed, everything freed. Returns the final exit code (rc unless
 * emitting failed).
 */
int fpl_cli_end(struct fpl_cli *c, int rc);

/* Prints the command's report of r to f. 0 or -errno. */
typedef int (*fpl_cli_print_fn)(const struct fpl_result *r, FILE *f, void *arg);

/*
 * The other end of a session (the same teardown as fpl_cli_end),
 * except for what goes to stdout: --json and --format json|csv emit r;
 * --format table emits the generic table then print(); otherwise print()
 * alone. The -o file is written atomically (JSON unless --format) before
 * anything is printed; when it cannot be, the report still comes on stdout
 * (what was measured is nowhere else). With print_result given, that
 * result is what is emitted and saved instead of s->result (which still
 * gives the clock and its warnings). Nothing is written or printed when rc
 * is FPL_EXIT_USAGE. Frees the session. Returns rc, or FPL_EXIT_FAIL when
 * writing failed.
 */
int fpl_cli_end_own(struct fpl_cli *c, int rc, struct fpl_result *print_result,
		    fpl_cli_print_fn print, void *arg);


/* A whole benchmark command: its options (--name value), the common flags, run, emit. */
int fpl_cli_bench_main(const char *bench, int argc, char **argv);
/* Its --help: the benchmark's options (defaults, ranges, choices) and the common flags. */
void fpl_cli_bench_help(const char *bench, FILE *f);
/* The common flags' help lines. */
void fpl_cli_common_help(FILE *f);

/*
 * argv[*i], "--name[=value]", as an option of benchmark b into *opt (its
 * name allocated, the caller frees it; its value after '=', else the next
 * argument when it takes one: *i advances). Naming tile state implies
 * --amx. Exit code: OK; USAGE after the message from c->cmd, which names
 * the benchmark when named (fpulab run's line holds several).
 */
int fpl_cli_bench_opt(struct fpl_cli *c, const struct fpl_bench *b, bool named, int argc,
		      char **argv, int *i, struct fpl_optval *opt);

/* A benchmark command: its table for people is its view's (src/report/views.c). */
struct fpl_bench_cmd {
	const char *bench;
};

/* Parse, check, run the benchmark once (or --runs N times), print or emit. Returns the exit code. */
int fpl_bench_cmd_main(const struct fpl_bench_cmd *cmd, int argc, char **argv);

/* The command fpulab NAME for benchmark NAME: the one line of CLI wiring a benchmark needs. */
#define FPL_BENCH_CMD(n, sum)							\
	static const struct fpl_bench_cmd fpl_bench_cmd_##n = { .bench = #n };	\
	static int fpl_cmd_main_##n(int argc, char **argv)			\
	{									\
		return fpl_bench_cmd_main(&fpl_bench_cmd_##n, argc, argv);	\
	}									\
	static void fpl_cmd_help_##n(FILE *f)					\
	{									\
		fpl_cli_bench_help(#n, f);					\
	}									\
	const struct fpl_cmd fpl_cmd_##n = {					\
		.name = #n, .summary = sum, .usage = "",			\
		.help = fpl_cmd_help_##n, .main = fpl_cmd_main_##n,		\
	}

#endif
