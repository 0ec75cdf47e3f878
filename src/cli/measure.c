// SPDX-License-Identifier: GPL-3.0-or-later
/* A measuring command: its common flags, the library session it opens, its output and teardown. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/kernelview.h"
#include "fpulab/session.h"
#include "report/views.h"
#include "cli.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

bool fpl_cli_amx_global;

void fpl_cli_init(struct fpl_cli *c, const char *cmd)
{
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->format = FPL_FMT_TABLE;
	c->cpu_id = -1;
	c->stop = &stop_flag;
	if (fpl_cli_amx_global) {
		c->amx = true;
		snprintf(c->amx_by, sizeof(c->amx_by), "--amx");
	}
}

bool fpl_cli_amx_global;

bool fpl_cli_names_amx(const char *value)
{
	static const char *const names[] = { "amx", "tilecfg", "tiledata", "amx_tilecfg",
					     "amx_tiledata" };
	const char *p = value;

	if (!p)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",+:/ ");

		for (unsigned i = 0; i < FPL_ARRAY_SIZE(names); i++)
			if (n == strlen(names[i]) && !strncasecmp(p, names[i], n))
				return true;
		p += n + (p[n] != 0);
	}
	return false;
}

void fpl_cli_amx_implied(struct fpl_cli *s, const char *bench, const char *name,
			     const char *value)
{
	if (s->amx || !fpl_cli_names_amx(value))
		return;
	s->amx = true;
	snprintf(s->amx_by, sizeof(s->amx_by), "%s%s--%.30s %.60s", bench ? bench : "",
		 bench ? " " : "", name, value);
}

void fpl_cli_common_help(FILE *f)
{
	fputs("Common options:\n"
	      "  --json            the result as JSON (schema " FPL_RESULT_SCHEMA ") on stdout\n"
	      "  -o FILE           also write the result to FILE (JSON unless --format), atomically\n"
	      "  --format F        table (default), json or csv\n"
	      "  --cpu N           pin to CPU N (default: the CPU the command starts on)\n"
	      "  --quick           short run: the benchmark's quick budget and settings (the\n"
	      "                    suite, fpulab run, may narrow its options further)\n"
	      "  --budget SECONDS  time budget for the measurement (default below)\n"
	      "  --units U         the table's times: cycles (core cycles, default), tsc, ns\n"
	      "                    or all; a benchmark without that unit shows what it measured\n"
	      "                    (amx: tsc, ns); JSON and CSV have every unit\n"
	      "  --kernel-trace    the kernel's own count of FPU saves and restores (tracefs\n"
	      "                    x86_fpu events of fpulab's tasks; root), model against kernel\n"
	      "  -q                no self-check lines or progress on stderr (stdout unchanged)\n"
	      "  --runs N          N runs, each a freshly executed process, into one result\n"
	      "                    (the unit fpulab compare tests); 1: this process only\n"
	      "  --no-aslr         run without address-space randomisation (as setarch -R)\n"
	      "  --amx             ask for AMX tile data (ARCH_REQ_XCOMP_PERM) first; implied\n"
	      "                    by naming amx, tilecfg or tiledata in an option's value.\n"
	      "                    Without it \"all\" means the permitted set (no tile data)\n", f);
}

/* Value of an option given as "--name value" or "--name=value". */
static const char *opt_value(int argc, char **argv, int *i, const char *eq)
{
	if (eq)
		return eq + 1;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int fpl_cli_common_opt(struct fpl_cli *s, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a, '='), *v;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	long long n;
	char *end;

#define IS(name) (len == strlen(name) && !strncmp(a, name, len))
	if (IS("--json") && !eq) {
		s->format = FPL_FMT_JSON;
		s->json_stdout = true;
	} else if (IS("-q") && !eq) {
		s->quiet = true;
	} else if (IS("--quick") && !eq) {
		s->quick = true;
	} else if (IS("--kernel-trace") && !eq) {
		s->kernel_trace = true;
	} else if (IS("-o") || IS("--output")) {
		v = opt_value(argc, argv, i, eq);
		if (!v || !*v)
			return -fpl_cli_usage_error(s->cmd, "%.*s needs a file name", (int)len, a);
		s->out_path = v;
	} else if (IS("--format")) {
		v = opt_value(argc, argv, i, eq);
		if (!v || fpl_format_by_name(v) < 0)
			return -fpl_cli_usage_error(s->cmd, "--format: '%s' is not table, json or csv",
						    v ? v : "");
		s->format = (enum fpl_format)fpl_format_by_name(v);
		s->format_given = true;
	} else if (IS("--units")) {
		v = opt_value(argc, argv, i, eq);
		if (!v || fpl_units_by_name(v) < 0)
			return -fpl_cli_usage_error(s->cmd, "--units: '%s' is not cycles, tsc, ns "
						    "or all", v ? v : "");
		s->units = (enum fpl_units)fpl_units_by_name(v);
	} else if (IS("--amx") && !eq) {
		s->amx = true;
		if (!s->amx_by[0])
			snprintf(s->amx_by, sizeof(s->amx_by), "--amx");
	} else if (IS("--cpu")) {
		v = opt_value(argc, argv, i, eq);
		if (!v || fpl_parse_int(v, &n) || n < 0 || n >= CPU_SETSIZE)
			return -fpl_cli_usage_error(s->cmd, "--cpu: '%s' is not a CPU number",
						    v ? v : "");
		s->cpu_id = (int)n;
	} else if (IS("--budget")) {
		v = opt_value(argc, argv, i, eq);
		s->budget_s = v ? strtod(v, &end) : 0;
		if (!v || !*v || *end || !(s->budget_s > 0 && s->budget_s <= 3600))
			return -fpl_cli_usage_error(s->cmd, "--budget: '%s' is not a number of "
						    "seconds in (0, 3600]", v ? v : "");
	} else {
		return 0;
	}
#undef IS
	return 1;
}

/* Interrupted: a signal came, and not every benchmark finished. */
static bool interrupted(const struct fpl_cli *c, int rc)
{
	return *c->stop && rc != FPL_EXIT_OK && rc != FPL_EXIT_UNSUPPORTED;
}

/* The library session, made when first needed: AMX is asked for before any check. */
static int ensure_session(struct fpl_cli *c)
{
	struct fpl_session_cfg cfg = FPL_SESSION_CFG_INIT;

	if (c->ls)
		return FPL_EXIT_OK;
	cfg.cpu = c->cpu_id;
	cfg.quick = c->quick;
	cfg.budget_s = c->budget_s;
	cfg.kernel_trace = c->kernel_trace;
	cfg.stop = c->stop;
	cfg.argv = fpl_cli_argv;
	if (fpl_session_new(&c->ls, &cfg))
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	return FPL_EXIT_OK;
}

int fpl_cli_amx(struct fpl_cli *c)
{
	int rc = ensure_session(c);

	if (!rc && c->amx)
		fpl_session_ask_amx(c->ls, c->amx_by);
	return rc;
}

int fpl_cli_prepare(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
		    size_t nopts, struct fpl_bench_call *call)
{
	struct fpl_diag diag = { "" };
	int rc = fpl_cli_amx(c), err;

	if (rc)
		return rc;
	c->skip_why[0] = 0;
	err = fpl_session_prepare(c->ls, bench, opts, nopts, call, &diag);
	if (err == -EINVAL || err == -ENOENT)
		return fpl_cli_usage_error(c->cmd, "%s", fpl_cli_unprefix(c->cmd, diag.msg));
	if (err == -ENOTSUP) {
		snprintf(c->skip_why, sizeof(c->skip_why), "%s", diag.msg[0] ? diag.msg :
			 "not supported on this CPU");
		return FPL_EXIT_UNSUPPORTED;
	}
	if (err)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	if (diag.msg[0])
		fprintf(stderr, "fpulab %s: %s%s%s\n", c->cmd, strcmp(c->cmd, bench) ? bench : "",
			strcmp(c->cmd, bench) ? ": " : "", diag.msg);
	return FPL_EXIT_OK;
}

int fpl_cli_skip_unmeasured(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
			    size_t nopts)
{
	struct fpl_diag diag = { "" };
	int rc;

	if (c->skip_why[0] && (c->json_stdout || c->format_given || c->quiet))
		fprintf(stderr, "fpulab %s: skipped: %s\n", c->cmd, c->skip_why);
	if (c->out_path) {
		rc = fpl_cli_check_out_path(c->cmd, c->out_path);
		if (rc)
			return rc;
	}
	if (fpl_session_start_unmeasured(c->ls, &diag))
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	if (bench && fpl_session_skip(c->ls, bench, opts, nopts, c->skip_why) != -ENOTSUP)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	return FPL_EXIT_UNSUPPORTED;
}

/* The fraction only grows (benchmarks report per group or cell); no internal variant names. */
static void progress(void *arg, const char *bench, double frac, const char *what)
{
	static const char *last;
	static double shown;

	(void)arg;
	(void)what;
	if (bench != last)
		shown = 0;
	last = bench;
	if (frac < shown)
		frac = shown;
	shown = frac;
	fpl_cli_progress_show(bench, frac, NULL);
}

/* What the session says at start, on stderr unless -q. */
static void start_lines(const struct fpl_cli *c)
{
	char line[1024];

	if (c->ls->amx.asked && c->ls->amx.err && !c->quiet)
		fprintf(stderr, "fpulab %s: %s: AMX permission not given: %s\n", c->cmd,
			c->ls->amx.by, c->ls->amx.msg);
	if (c->quiet)
		return;
	fpl_session_clock_line(c->ls, line, sizeof(line));
	fprintf(stderr, "fpulab %s: %s\n", c->cmd, line);
	fprintf(stderr, "fpulab %s: %s\n", c->cmd, c->ls->selfcheck.text);
	fpl_session_ktrace_line(c->ls, line, sizeof(line));
	if (line[0])
		fprintf(stderr, "fpulab %s: %s\n", c->cmd, line);
}

int fpl_cli_start(struct fpl_cli *c)
{
	struct sigaction old[FPL_CLI_NEND_SIGS];
	struct fpl_diag diag = { "" };
	int rc, err;

	/* Before anything else: no sigaltstack may be installed yet (ENOSPC otherwise). */
	rc = fpl_cli_amx(c);
	if (rc)
		return rc;
	/* the flags as they stand now (fpulab run sets --quick for its suite after parsing) */
	c->ls->cfg.cpu = c->cpu_id;
	c->ls->cfg.quick = c->quick;
	c->ls->cfg.budget_s = c->budget_s;
	c->ls->cfg.kernel_trace = c->kernel_trace;
	/* A path that cannot be written is found now, not after the measurement. */
	if (c->out_path) {
		rc = fpl_cli_check_out_path(c->cmd, c->out_path);
		if (rc)
			return rc;
	}
	/* From here an ending signal stops the measurement and keeps what was taken. */
	stop_flag = 0;
	fpl_cli_catch_end(on_signal, old);
	c->progress_tty = !c->quiet && isatty(STDERR_FILENO);
	err = fpl_session_start(c->ls, &diag);
	/* A CPU the user named that cannot be had is bad input; the one it started on is not. */
	if (err)
		return fpl_cli_error(c->cmd, err == -EINVAL && c->cpu_id >= 0 ? FPL_EXIT_USAGE :
				     FPL_EXIT_FAIL, "%s", diag.msg);
	start_lines(c);
	return FPL_EXIT_OK;
}

/* A library error as the command's exit code, said on stderr. */
static int exit_code(const struct fpl_cli *c, int err, const struct fpl_diag *diag)
{
	switch (err) {
	case 0:
		return FPL_EXIT_OK;
	case -ENOTSUP:
		return FPL_EXIT_UNSUPPORTED;
	case -EINTR:
		return FPL_EXIT_FAIL;
	case -EINVAL:
	case -ENOENT:
		return fpl_cli_usage_error(c->cmd, "%s", fpl_cli_unprefix(c->cmd, diag->msg));
	default:
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "%s", diag->msg);
	}
}

int fpl_cli_call(struct fpl_cli *c, const struct fpl_bench_call *call)
{
	struct fpl_diag diag = { "" };
	int err;

	c->ls->cfg.budget_s = c->budget_s;
	c->ls->cfg.progress = !c->progress_tty ? NULL : c->progress ? c->progress : progress;
	c->ls->cfg.progress_arg = c->progress_arg;
	err = fpl_session_call(c->ls, call, &diag);
	if (c->progress_tty)
		fpl_cli_progress_clear();
	return exit_code(c, err, &diag);
}

int fpl_cli_run(struct fpl_cli *c, const char *bench, const struct fpl_optval *opts,
		size_t nopts)
{
	struct fpl_bench_call call;
	int rc = fpl_cli_prepare(c, bench, opts, nopts, &call);

	if (rc)
		return rc;
	rc = fpl_cli_call(c, &call);
	fpl_bench_call_free(&call);
	return rc;
}

static void print_result_warnings(const char *cmd, const struct fpl_result *res)
{
	size_t i;
	json_t *w;

	json_array_foreach(res->warnings, i, w) {
		fprintf(stderr, "fpulab %s: warning: ", cmd);
		fpl_cli_put_escaped(json_string_value(w), stderr);
		fputc('\n', stderr);
	}
	for (size_t r = 0; r < res->nruns; r++) {
		const struct fpl_run *run = res->runs[r];

		json_array_foreach(run->warnings, i, w) {
			fprintf(stderr, "fpulab %s: warning (%s): ", cmd, run->bench);
			fpl_cli_put_escaped(json_string_value(w), stderr);
			fputc('\n', stderr);
		}
	}
}

static void print_warnings(const struct fpl_cli *s)
{
	print_result_warnings(s->cmd, s->ls->result);
}

/* stdout and stderr are one file (2>&1, a terminal): the warnings are printed once, on stderr. */
static bool same_sink(void)
{
	struct stat a, b;

	return !fstat(STDOUT_FILENO, &a) && !fstat(STDERR_FILENO, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

struct table_arg {
	const struct fpl_cli *s;
	struct fpl_table_opts o;
};

static int table_cb(FILE *f, void *arg, struct fpl_diag *diag)
{
	const struct table_arg *a = arg;
	int err = fpl_view_table(a->s->ls->result, &a->o, f);

	return err ? fpl_diag_set(diag, err, "writing the table: %s", strerror(-err)) : 0;
}

/*
 * The -o file (or, interrupted, the file beside it), written atomically with
 * the signals held: r in fmt, or the table through ta. Says on stderr when
 * the interrupted run went beside. FPL_EXIT_OK or the error's exit code;
 * then the caller prints its report on stdout all the same, as what was
 * measured is nowhere else.
 */
static int save(const struct fpl_cli *s, const char *path, const struct fpl_result *r,
		enum fpl_format fmt, struct table_arg *ta)
{
	struct fpl_diag diag = { "" };
	sigset_t old;
	int err;

	fpl_cli_hold_signals(&old);
	err = ta ? fpl_write_file_atomic(path, table_cb, ta, &diag) :
		   fpl_emit_file(r, fmt, path, &diag);
	fpl_cli_release_signals(&old);
	if (err)
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s; the report goes to stdout only",
				     diag.msg);
	if (path != s->out_path)
		fprintf(stderr, "fpulab %s: interrupted: %s kept; what was measured is in %s\n",
			s->cmd, s->out_path, path);
	return FPL_EXIT_OK;
}

/* What goes to stdout: the command's own table, the generic one, or the result in the format asked. */
static int print_stdout(struct fpl_cli *s, struct table_arg *ta)
{
	struct fpl_diag diag = { "" };

	if (!s->json_stdout && s->format == FPL_FMT_TABLE) {
		ta->o.warnings = !isatty(STDOUT_FILENO) && !same_sink();
		if (table_cb(stdout, ta, &diag) || fflush(stdout))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg[0] ? diag.msg :
					     "writing the table failed");
		return FPL_EXIT_OK;
	}
	if (fpl_emit(s->ls->result, s->json_stdout ? FPL_FMT_JSON : s->format, stdout, &diag))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	return FPL_EXIT_OK;
}

static int emit_all(struct fpl_cli *s, bool intr)
{
	char alt[4096];
	const char *path = fpl_session_out_file(s->out_path, intr, alt, sizeof(alt));
	enum fpl_format file_fmt = s->format_given ? s->format : FPL_FMT_JSON;
	/*
	 * Warnings always go to stderr (print_warnings); the table repeats them
	 * in full only where stdout is not that terminal (a file, a pager),
	 * and gives their count where it is.
	 */
	struct table_arg ta = { s, { .units = s->units, .warnings = true } };
	int saved = FPL_EXIT_OK, rc;

	if (path)
		saved = save(s, path, s->ls->result, file_fmt,
			     file_fmt == FPL_FMT_TABLE ? &ta : NULL);
	rc = print_stdout(s, &ta);
	return saved ? saved : rc;
}

/*
 * The one teardown of a command's session: when it started, the library
 * session's finish (the kernel trace closed first: its instance must not
 * outlive a failure to write the output, SIGPIPE; the clock's end), then
 * out(s, rc, arg) for what is written and printed; then everything freed.
 * Returns out's exit code, or rc.
 */
static int teardown(struct fpl_cli *s, int rc, int (*out)(struct fpl_cli *s, int rc,
							  void *arg), void *arg)
{
	if (s->ls && s->ls->started) {
		fpl_session_finish(s->ls);
		rc = out(s, rc, arg);
	}
	fpl_session_free(s->ls);
	s->ls = NULL;
	return rc;
}

/* The generic end: the results emitted (table, JSON, CSV, -o), the kernel table, warnings. */
static int end_generic(struct fpl_cli *s, int rc, void *arg)
{
	if (rc == FPL_EXIT_OK || rc == FPL_EXIT_UNSUPPORTED || *s->stop) {
		int e = emit_all(s, interrupted(s, rc));

		if (e)
			rc = e;
		else if (s->kernel_trace && !s->json_stdout && s->format == FPL_FMT_TABLE)
			fpl_table_kernel(s->ls->result, stdout);
	}
	print_warnings(s);
	return rc;
}

int fpl_cli_end(struct fpl_cli *s, int rc)
{
	return teardown(s, rc, end_generic, NULL);
}

/* A command's own report of r on stdout: in the format asked, or print()'s. */
static int own_print(struct fpl_cli *s, struct fpl_result *r, fpl_cli_print_fn print,
		     void *arg)
{
	struct fpl_diag diag = { "" };
	int err;

	if (s->json_stdout || (s->format_given && s->format != FPL_FMT_TABLE)) {
		if (fpl_emit(r, s->json_stdout ? FPL_FMT_JSON : s->format, stdout, &diag))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
		return FPL_EXIT_OK;
	}
	if (s->format_given) {
		struct fpl_table_opts o = { .units = s->units, .warnings = true };

		if (fpl_view_generic_table(r, &o, stdout))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "writing the table failed");
	}
	if (s->format_given)
		fputc('\n', stdout);
	err = print(r, stdout, arg);
	if (!err && s->kernel_trace)
		err = fpl_table_kernel(r, stdout) < 0 ? -EIO : 0;
	if (err || fflush(stdout))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "writing the report: %s",
				     strerror(err ? -err : EIO));
	return FPL_EXIT_OK;
}

static int own_output(struct fpl_cli *s, int rc, struct fpl_result *r,
		      fpl_cli_print_fn print, void *arg)
{
	char alt[4096];
	const char *path = fpl_session_out_file(s->out_path, *s->stop && rc != FPL_EXIT_OK &&
						rc != FPL_EXIT_UNSUPPORTED, alt, sizeof(alt));
	int saved = path ? save(s, path, r, s->format_given ? s->format : FPL_FMT_JSON, NULL) :
			   FPL_EXIT_OK;

	rc = own_print(s, r, print, arg);
	return saved ? saved : rc;
}

struct own_end {
	struct fpl_result *print_result;
	fpl_cli_print_fn print;
	void *arg;
};

/* The end of a command whose report is its own (run, repro). */
static int end_own(struct fpl_cli *s, int rc, void *arg)
{
	const struct own_end *e = arg;
	struct fpl_result *r = e->print_result ? e->print_result : s->ls->result;

	if (e->print_result) {
		/* Clock, self-check and warnings belong to the derived result too. */
		if (fpl_result_adopt(r, s->ls->result))
			rc = fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "out of memory");
	}
	if (rc != FPL_EXIT_USAGE) {
		int err = own_output(s, rc, r, e->print, e->arg);

		if (err)
			rc = err;
		if (s->warn_stderr)
			print_result_warnings(s->cmd, r);
	}
	return rc;
}

int fpl_cli_end_own(struct fpl_cli *s, int rc, struct fpl_result *print_result,
		    fpl_cli_print_fn print, void *arg)
{
	struct own_end e = { print_result, print, arg };

	return teardown(s, rc, end_own, &e);
}
