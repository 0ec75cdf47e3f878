// SPDX-License-Identifier: GPL-3.0-or-later
/* --runs N: the command N times, each a freshly executed process, merged into one results file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fpulab/stats.h"
#include "fpulab/sysinfo.h"
#include "report/views.h"
#include "cli.h"
#include "runs.h"

static volatile sig_atomic_t runs_stop;

static void on_stop(int sig)
{
	(void)sig;
	runs_stop = 1;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void drop_arg(int *argc, char **argv, int i, int k)
{
	memmove(&argv[i], &argv[i + k], (size_t)(*argc - i - k + 1) * sizeof(*argv));
	*argc -= k;
}

int fpl_runs_take(const char *cmd, int *argc, char **argv, struct fpl_runs_opt *o)
{
	o->n = 1;
	o->no_aslr = false;
	for (int i = 1; i < *argc;) {
		const char *a = argv[i], *v = NULL;
		long long n;
		int k = 1;

		if (!strcmp(a, "--no-aslr")) {
			o->no_aslr = true;
			drop_arg(argc, argv, i, 1);
			continue;
		}
		if (!strncmp(a, "--runs=", 7)) {
			v = a + 7;
		} else if (!strcmp(a, "--runs")) {
			v = i + 1 < *argc ? argv[i + 1] : "";
			k = i + 1 < *argc ? 2 : 1;
		} else {
			i++;
			continue;
		}
		if (fpl_parse_int(v, &n) || n < 1 || n > FPL_RUNS_MAX)
			return fpl_cli_usage_error(cmd, "--runs: '%s' is not a number of runs in "
						   "[1, %d]", v, FPL_RUNS_MAX);
		o->n = (long)n;
		drop_arg(argc, argv, i, k);
	}
	if (o->no_aslr) {
		int p = personality(0xffffffff);

		if (p < 0)
			return fpl_cli_error(cmd, FPL_EXIT_FAIL, "--no-aslr: personality: %s",
					     strerror(errno));
		if (!(p & ADDR_NO_RANDOMIZE)) {
			/*
			 * The layout is chosen at exec: turn randomisation off, then
			 * start again as that process (what setarch -R does). The
			 * flag is inherited, so the new process does not come here.
			 */
			char **nargv = calloc((size_t)*argc + 5, sizeof(*nargv)), runs[32];
			int k = 1;

			if (!nargv || personality((unsigned long)p | ADDR_NO_RANDOMIZE) < 0)
				return fpl_cli_error(cmd, FPL_EXIT_FAIL, "--no-aslr: %s",
						     strerror(nargv ? errno : ENOMEM));
			nargv[0] = "fpulab";
			/* main() took the global --amx off the line: the new process needs it */
			if (fpl_cli_amx_global)
				nargv[k++] = "--amx";
			/* the command by name: argv[0] is a path when called through a link */
			nargv[k++] = (char *)cmd;
			for (int i = 1; i < *argc; i++)
				nargv[k++] = argv[i];
			snprintf(runs, sizeof(runs), "--runs=%ld", o->n);
			nargv[k++] = runs;
			nargv[k] = "--no-aslr";
			fflush(NULL);
			execv("/proc/self/exe", nargv);
			free(nargv);
			return fpl_cli_error(cmd, FPL_EXIT_FAIL, "--no-aslr: executing myself: %s",
					     strerror(errno));
		}
	}
	return FPL_EXIT_OK;
}

/* What the parent needs of the common flags, and the arguments each child gets. */
struct runs_ctx {
	const char *cmd;
	struct fpl_cli s;		/* the common flags only: parsed, never started */
	char **child_argv;
	const struct fpl_runs_opt *o;
	struct fpl_result *merged;
	double run_s_sum;		/* wall seconds of the completed runs */
	long done;
	double t0, t_run, shown_frac;
	bool progress, progress_shown;
};

/* The options that say where and how the result goes: the parent's, not the child's. */
static int output_opt(const char *a, bool *takes_value)
{
	static const char *const with_value[] = { "-o", "--output", "--format", "--units" };
	static const char *const flags[] = { "--json", "-q" };
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);

	for (size_t i = 0; i < FPL_ARRAY_SIZE(with_value); i++)
		if (len == strlen(with_value[i]) && !strncmp(a, with_value[i], len)) {
			*takes_value = !eq;
			return 1;
		}
	for (size_t i = 0; i < FPL_ARRAY_SIZE(flags); i++)
		if (!strcmp(a, flags[i])) {
			*takes_value = false;
			return 1;
		}
	return 0;
}

static int parse(struct runs_ctx *c, int argc, char **argv)
{
	size_t k = 0;

	c->child_argv = calloc((size_t)argc + 6, sizeof(*c->child_argv));
	if (!c->child_argv)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	c->child_argv[k++] = "fpulab";
	/* main() took the global --amx off the line: every run must ask again */
	if (fpl_cli_amx_global)
		c->child_argv[k++] = "--amx";
	/* the command by name: argv[0] is a path when fpulab was called through a link */
	c->child_argv[k++] = (char *)c->cmd;
	for (int i = 1; i < argc; i++) {
		bool value;
		int j = i, rc = fpl_cli_common_opt(&c->s, argc, argv, &j);

		if (rc < 0)
			return -rc;
		if (rc && output_opt(argv[i], &value)) {
			i = j;		/* the parent's: not passed on */
			continue;
		}
		for (; i <= j; i++)
			c->child_argv[k++] = argv[i];
		i--;
	}
	c->child_argv[k++] = "--json";	/* the document on stdout: the pipe */
	c->child_argv[k++] = "-q";
	c->child_argv[k] = NULL;
	return FPL_EXIT_OK;
}

/*
 * The output file can be written: before anything is measured, by the
 * rule a single run's has (a FIFO or device is written into, not replaced,
 * whatever its directory allows: /dev/full as a user).
 */
static int check_out_path(const struct runs_ctx *c)
{
	return c->s.out_path ? fpl_cli_check_out_path(c->cmd, c->s.out_path) : FPL_EXIT_OK;
}

static void show_progress(struct runs_ctx *c, bool force)
{
	double now = mono_s(), el = now - c->t_run, per, cur, frac, left;
	char head[96], tail[48];

	if (!c->progress || (!force && now - c->t0 < 2))
		return;
	/* Per run: the mean of those done; before the first, the budget's guess. */
	per = c->done ? c->run_s_sum / (double)c->done :
	      c->s.budget_s > 0 ? c->s.budget_s * 1.3 + 1 : 0;
	/* a run that takes longer than the others: its own time so far, and some */
	cur = per > 0 ? fmax(per, el * 1.1) : 0;
	frac = cur > 0 ? el / cur : 0;
	frac = ((double)c->done + frac) / (double)c->o->n;
	if (frac < c->shown_frac)
		frac = c->shown_frac;	/* never backwards */
	c->shown_frac = frac;
	left = per > 0 ? cur - el + per * (double)(c->o->n - c->done - 1) : NAN;
	snprintf(head, sizeof(head), "fpulab %s: run %ld/%ld", c->cmd, c->done + 1, c->o->n);
	if (isfinite(left))
		snprintf(tail, sizeof(tail), ", about %.0f s left", left);
	else
		snprintf(tail, sizeof(tail), ", %.0f s (first run)", now - c->t0);
	fpl_cli_progress_show(head, frac, tail);
	c->progress_shown = true;
}

static void clear_progress(struct runs_ctx *c)
{
	if (c->progress_shown)
		fpl_cli_progress_clear();
	c->progress_shown = false;
}

static void append(char **buf, size_t *n, size_t *cap, const char *p, size_t k)
{
	if (*n + k + 1 > *cap) {
		size_t nc = *cap ? *cap : 65536;
		char *b;

		while (nc < *n + k + 1)
			nc *= 2;
		b = realloc(*buf, nc);
		if (!b)
			return;		/* a truncated document fails to parse: reported */
		*buf = b;
		*cap = nc;
	}
	memcpy(*buf + *n, p, k);
	*n += k;
	(*buf)[*n] = 0;
}

struct child {
	pid_t pid;
	int status;
	char *out, *err;
	size_t nout, nerr;
	bool interrupted;
	struct rusage ru;	/* of the child and its waited-for tasks (ctxsw's) */
	long long steal0[FPL_STEAL_CPUS + 1], steal1[FPL_STEAL_CPUS + 1];
};

/* One run: start the child, collect stdout (the document) and stderr, wait. 0 or -errno. */
static int run_child(struct runs_ctx *c, struct child *ch)
{
	int po[2], pe[2], open_fds = 2;
	size_t cout = 0, cerr = 0;

	memset(ch, 0, sizeof(*ch));
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	fpl_sysinfo_steal(ch->steal0);
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		int e = errno;

		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return -e;
	}
	if (!ch->pid) {
		fpl_cli_default_end();
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execv("/proc/self/exe", c->child_argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	while (open_fds) {
		struct pollfd p[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		char buf[65536];

		if (runs_stop && !ch->interrupted) {
			kill(ch->pid, SIGINT);	/* it writes what it has; we drop it */
			ch->interrupted = true;
		}
		if (poll(p, 2, 500) < 0 && errno != EINTR)
			break;
		show_progress(c, false);
		for (int i = 0; i < 2; i++) {
			ssize_t k;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(p[i].fd, buf, sizeof(buf));
			if (k > 0 && i == 0)
				append(&ch->out, &ch->nout, &cout, buf, (size_t)k);
			else if (k > 0)
				append(&ch->err, &ch->nerr, &cerr, buf, (size_t)k);
			else if (k == 0 || errno != EINTR) {
				close(p[i].fd);
				*(i ? &pe[0] : &po[0]) = -1;
				open_fds--;
			}
		}
	}
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	while (wait4(ch->pid, &ch->status, 0, &ch->ru) < 0 && errno == EINTR)
		;
	fpl_sysinfo_steal(ch->steal1);
	ch->interrupted |= runs_stop;
	return 0;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The child's document merged as run index of the series (fpl_result_merge_process). */
static int merge(struct runs_ctx *c, struct child *ch, long index, double wall_s,
		 const char *started)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *cr = NULL;
	struct fpl_process_run pr = {
		.index = index, .pid = ch->pid, .started = started, .wall_s = wall_s,
		.preempted = ch->ru.ru_nivcsw, .waits = ch->ru.ru_nvcsw,
		.user_s = tv_s(ch->ru.ru_utime), .sys_s = tv_s(ch->ru.ru_stime),
		.steal0 = ch->steal0, .steal1 = ch->steal1, .nsteal = FPL_STEAL_CPUS + 1,
		.tick_hz = sysconf(_SC_CLK_TCK),
	};
	int err = fpl_result_load_buf(ch->out ? ch->out : "", ch->nout, "the run's output", &cr,
				      &diag);

	if (err)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "run %ld: %s%s%s", index,
				     ch->out ? diag.msg : "no results document (no output)",
				     ch->nerr ? ":\n" : "", ch->nerr ? ch->err : "");
	err = fpl_result_merge_process(c->merged, cr, &pr);
	fpl_result_free(cr);
	return err ? fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory") : FPL_EXIT_OK;
}

static int emit(struct runs_ctx *c)
{
	struct fpl_diag diag = { "" };
	const struct fpl_cli *s = &c->s;
	char alt[4096];
	/* An interrupted series never replaces a good file: it goes beside it. */
	const char *path = fpl_session_out_file(s->out_path, runs_stop, alt, sizeof(alt));
	/* A file that cannot be written: the runs go to stdout, as nowhere else has them. */
	int saved = FPL_EXIT_OK;

	if (path && fpl_emit_file(c->merged, s->format_given ? s->format : FPL_FMT_JSON, path,
				  &diag))
		saved = fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "%s; the report goes to stdout only",
				      diag.msg);
	else if (path && path != s->out_path)
		fprintf(stderr, "fpulab %s: interrupted: %s kept; the completed runs are in %s\n",
			c->cmd, s->out_path, path);
	if (s->json_stdout || (s->format_given && s->format != FPL_FMT_TABLE)) {
		if (fpl_emit(c->merged, s->json_stdout ? FPL_FMT_JSON : s->format, stdout, &diag))
			return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
		return saved;
	}
	if (s->format_given) {
		struct fpl_table_opts to = { .units = s->units, .warnings = true };

		if (fpl_view_generic_table(c->merged, &to, stdout))
			return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "writing the table failed");
		fputc('\n', stdout);
	}
	if (fpl_view_series(c->merged, &(struct fpl_table_opts){ .units = s->units }, c->done,
			    c->o->n, stdout) || fflush(stdout))
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "writing the report failed");
	return saved;
}

/* The time now, UTC, as 2024-01-31T12:34:56.789Z. */
static void utc_now(char *buf, size_t n)
{
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now.tv_sec, &tm));
	snprintf(buf + strlen(buf), n - strlen(buf), ".%03ldZ", now.tv_nsec / 1000000);
}

/*
 * Run k of the series: the child, then its runs merged (*skipped counts the
 * runs that exited 77). FPL_EXIT_OK to go on, else the series' exit status.
 */
static int one_run(struct runs_ctx *c, long k, long *skipped)
{
	struct child ch;
	char started[40];
	double wall;
	int code, rc, worst = FPL_EXIT_OK;

	utc_now(started, sizeof(started));
	c->t_run = mono_s();
	show_progress(c, false);
	rc = run_child(c, &ch);
	wall = mono_s() - c->t_run;
	clear_progress(c);
	if (rc)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "run %ld: cannot start: %s", k,
				     strerror(-rc));
	code = WIFEXITED(ch.status) ? WEXITSTATUS(ch.status) : -1;
	if (ch.interrupted) {
		fpl_result_warn(c->merged, "interrupted: run %ld of %ld stopped; its partial "
				"samples are not kept", k, c->o->n);
	} else if (code == FPL_EXIT_USAGE) {
		/* the first run refuses what every run would: before measuring */
		fputs(ch.err ? ch.err : "", stderr);
		worst = FPL_EXIT_USAGE;
	} else if (code == FPL_EXIT_UNSUPPORTED && !ch.nout) {
		/* nothing asked for measurable here: refused before measuring, as every run would be */
		fputs(ch.err ? ch.err : "", stderr);
		worst = FPL_EXIT_UNSUPPORTED;
	} else if (code == FPL_EXIT_OK || code == FPL_EXIT_UNSUPPORTED || code == FPL_EXIT_FAIL) {
		rc = merge(c, &ch, k, wall, started);
		if (rc || code == FPL_EXIT_FAIL) {
			if (!rc && ch.nerr)
				fputs(ch.err, stderr);
			worst = FPL_EXIT_FAIL;
		} else {
			c->done++;
			c->run_s_sum += wall;
			*skipped += code == FPL_EXIT_UNSUPPORTED;
		}
	} else {
		fputs(ch.err ? ch.err : "", stderr);
		worst = fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "run %ld: %s %d", k,
				      WIFSIGNALED(ch.status) ? "killed by signal" : "exit",
				      WIFSIGNALED(ch.status) ? WTERMSIG(ch.status) : code);
	}
	free(ch.out);
	free(ch.err);
	return worst;
}

int fpl_runs_main(const char *cmd, int argc, char **argv, const struct fpl_runs_opt *o)
{
	struct sigaction old[FPL_CLI_NEND_SIGS];
	struct runs_ctx c = { .cmd = cmd, .o = o };
	int rc, worst = FPL_EXIT_OK;
	long skipped = 0;

	fpl_cli_init(&c.s, cmd);
	rc = parse(&c, argc, argv);
	if (!rc)
		rc = check_out_path(&c);
	if (rc) {
		free(c.child_argv);
		return rc;
	}
	c.merged = fpl_result_new();
	if (!c.merged) {
		free(c.child_argv);
		return fpl_cli_error(cmd, FPL_EXIT_FAIL, "out of memory");
	}
	c.progress = !c.s.quiet && isatty(STDERR_FILENO);
	runs_stop = 0;
	fpl_cli_catch_end(on_stop, old);	/* no SA_RESTART: poll returns */
	c.t0 = mono_s();
	/*
	 * Run k is the whole command line again, benchmarks in the order given:
	 * drift over the series (clock, load, thermal) then hits every
	 * benchmark alike, and each benchmark keeps its place in the run, so
	 * its value does not move with what ran before it.
	 */
	for (long k = 1; k <= o->n && !runs_stop && !worst; k++)
		worst = one_run(&c, k, &skipped);
	clear_progress(&c);
	if (fpl_result_series_note(c.merged, o->n, c.done, runs_stop, o->no_aslr) ||
	    (fpl_cli_argv && fpl_result_set_command(c.merged, fpl_cli_argv)))
		worst = fpl_cli_error(cmd, FPL_EXIT_FAIL, "out of memory");
	if (runs_stop)
		worst = FPL_EXIT_FAIL;
	/* Stopped before a run completed: no file of no runs, nothing replaced. */
	if (runs_stop && !c.done)
		fprintf(stderr, "fpulab %s: interrupted before run 1 of %ld completed: no run "
			"to report%s%s%s\n", cmd, o->n, c.s.out_path ? ", " : "",
			c.s.out_path ? c.s.out_path : "", c.s.out_path ? " not written" : "");
	else if (worst != FPL_EXIT_USAGE && (c.done || runs_stop) &&
		 !(worst == FPL_EXIT_UNSUPPORTED && !c.done)) {
		rc = emit(&c);
		fpl_table_runs_warnings(c.merged, cmd, c.done, stderr);
		if (rc)
			worst = rc;
	}
	if (!worst && c.done && skipped == c.done)
		worst = FPL_EXIT_UNSUPPORTED;
	fpl_cli_uncatch_end(old);
	fpl_result_free(c.merged);
	free(c.child_argv);
	return worst;
}
