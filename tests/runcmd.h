/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests run commands one way: a time limit, stdin /dev/null, stdout and stderr captured, signals on cue. */
#ifndef FPL_TESTS_RUNCMD_H
#define FPL_TESTS_RUNCMD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmd_out {
	int status;		/* as from waitpid */
	bool timed_out;		/* killed by us after the limit */
	char *out, *err;	/* NUL-terminated, malloc'd */
	size_t nout, nerr;
};

static inline double cmd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void cmd_append(char **buf, size_t *n, const char *p, size_t k)
{
	char *b = realloc(*buf, *n + k + 1);

	if (!b)
		abort();
	memcpy(b + *n, p, k);
	*n += k;
	b[*n] = 0;
	*buf = b;
}

static inline void cmd_out_free(struct cmd_out *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

/* Exit code, or 128 + signal for a death by signal (as a shell reports it). */
static inline int cmd_code(const struct cmd_out *o)
{
	if (WIFEXITED(o->status))
		return WEXITSTATUS(o->status);
	if (WIFSIGNALED(o->status))
		return 128 + WTERMSIG(o->status);
	return -1;
}

/*
 * What cmd_run_watch asks on every turn, t seconds after the start: a
 * signal to send the child now (0: none); *next_s (preset to 0.05) how
 * many seconds it may wait before the next turn.
 */
typedef int (*cmd_watch_fn)(pid_t pid, double t, double *next_s, void *arg);

/* A command started by cmd_start: its pid, its stdout and stderr pipes, when it started. */
struct cmd_job {
	pid_t pid;
	int out, err;
	double t0;
};

/*
 * Start argv with stdin /dev/null, stdout and stderr to pipes that
 * cmd_finish reads. Until then a job that writes more than a pipe holds
 * (64 KiB) waits. Returns 0, or -errno when it could not start.
 */
static inline int cmd_start(const char *const argv[], struct cmd_job *j)
{
	int po[2], pe[2];

	*j = (struct cmd_job){ -1, -1, -1, cmd_now() };
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0)
		return -errno;
	if (!j->pid) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	j->out = po[0];
	j->err = pe[0];
	return 0;
}

/*
 * Read a started job's stdout and stderr to the end and reap it; every
 * turn watch (may be NULL) may signal it. Kill it with SIGKILL limit_s
 * after its start (o->timed_out). Returns 0.
 */
static inline int cmd_finish(struct cmd_job *j, double limit_s, cmd_watch_fn watch, void *arg,
			     struct cmd_out *o)
{
	int fd[2] = { j->out, j->err };
	int open_fds = 2;

	memset(o, 0, sizeof(*o));
	cmd_append(&o->out, &o->nout, "", 0);
	cmd_append(&o->err, &o->nerr, "", 0);
	while (open_fds) {
		struct pollfd p[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
		double t = cmd_now() - j->t0;
		char buf[4096];
		double wait_s = 0.05;
		struct timespec ts;
		int sig = watch && !o->timed_out ? watch(j->pid, t, &wait_s, arg) : 0;

		if (sig)
			kill(j->pid, sig);
		/* a killed child's own children may keep the pipes open */
		if (o->timed_out && t > limit_s + 2)
			break;
		if (t > limit_s && !o->timed_out) {
			kill(j->pid, SIGKILL);
			o->timed_out = true;
		}
		if (wait_s < 0)
			wait_s = 0;
		ts.tv_sec = (time_t)wait_s;
		ts.tv_nsec = (long)((wait_s - (double)ts.tv_sec) * 1e9);
		if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t k;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(p[i].fd, buf, sizeof(buf));
			if (k > 0) {
				if (i)
					cmd_append(&o->err, &o->nerr, buf, k);
				else
					cmd_append(&o->out, &o->nout, buf, k);
			} else {
				close(p[i].fd);
				fd[i] = -1;
				open_fds--;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (watch) {
		double ignored = 0;
		int sig = watch(j->pid, -1, &ignored, arg);	/* t < 0: the last turn */

		if (sig)
			kill(j->pid, sig);	/* it finished before; harmless on a zombie */
	}
	while (waitpid(j->pid, &o->status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/*
 * Start argv with stdin /dev/null, stdout and stderr captured; every turn
 * watch (may be NULL) may signal it. Kill it with SIGKILL after limit_s
 * (o->timed_out). Returns 0, or -errno when it could not start.
 */
static inline int cmd_run_watch(const char *const argv[], double limit_s, cmd_watch_fn watch,
				void *arg, struct cmd_out *o)
{
	struct cmd_job j;
	int rc = cmd_start(argv, &j);

	if (rc) {
		memset(o, 0, sizeof(*o));
		return rc;
	}
	return cmd_finish(&j, limit_s, watch, arg, o);
}

static inline bool cmd_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/*
 * When cmd_sig_at_watch sends its signal: after_s seconds after the
 * command is ready (ready_s). Ready: its stderr so far (in *o) holds
 * err_has, or the file path exists; with neither given, at its start.
 */
struct cmd_sig_at {
	int sig;
	double after_s;
	bool sent;
	const char *err_has, *path;	/* NULL: not this condition */
	const struct cmd_out *o;	/* what cmd_finish has read so far */
	double ready_s, sent_s;		/* seconds after the start; < 0: not yet */
};

static inline bool cmd_sig_ready(const struct cmd_sig_at *a)
{
	if (!a->err_has && !a->path)
		return true;
	return (a->err_has && a->o && a->o->err && strstr(a->o->err, a->err_has)) ||
	       (a->path && cmd_exists(a->path));
}

static inline int cmd_sig_at_watch(pid_t pid, double t, double *next_s, void *arg)
{
	struct cmd_sig_at *a = arg;

	(void)pid;
	/* t < 0: it has ended; a signal now would reach only the zombie */
	if (a->sent || t < 0)
		return 0;
	if (a->ready_s < 0 && cmd_sig_ready(a))
		a->ready_s = t;
	if (a->ready_s >= 0 && t >= a->ready_s + a->after_s) {
		a->sent = true;
		a->sent_s = t;
		return a->sig;
	}
	if (a->ready_s >= 0 && a->ready_s + a->after_s - t < *next_s)
		*next_s = a->ready_s + a->after_s - t;
	else if (a->ready_s < 0 && *next_s > 0.02)
		*next_s = 0.02;
	return 0;
}

/*
 * cmd_run_watch sending sig sig_after_s seconds after the start (sig_after_s
 * < 0: never); one that ends before gets none.
 */
static inline int cmd_run_sig(const char *const argv[], double limit_s, int sig,
			      double sig_after_s, struct cmd_out *o)
{
	struct cmd_sig_at a = { sig, sig_after_s, false, NULL, NULL, o, 0, -1 };

	return cmd_run_watch(argv, limit_s, sig_after_s >= 0 ? cmd_sig_at_watch : NULL, &a, o);
}

/*
 * cmd_run_watch sending sig after_s seconds after the command is ready: once
 * its stderr holds err_has, or once the file path exists (either may be
 * NULL). What takes a loaded machine long takes it long: nothing but limit_s
 * bounds the wait, and a command never ready is killed then (o->timed_out).
 * *sent_s: when the signal went, seconds after the start; < 0 when it never
 * did (the command ended first). Returns 0, or -errno when it could not start.
 */
static inline int cmd_run_sig_ready(const char *const argv[], double limit_s, int sig,
				    const char *err_has, const char *path, double after_s,
				    struct cmd_out *o, double *sent_s)
{
	struct cmd_sig_at a = { sig, after_s, false, err_has, path, o, -1, -1 };
	int rc = cmd_run_watch(argv, limit_s, cmd_sig_at_watch, &a, o);

	*sent_s = a.sent_s;
	return rc;
}

static inline int cmd_run(const char *const argv[], double limit_s, struct cmd_out *o)
{
	return cmd_run_sig(argv, limit_s, 0, -1, o);
}

/* The processes whose parent is pid (from /proc), at most max of them into out (may be NULL); their count. */
static inline size_t cmd_children(pid_t pid, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && (!out || n < max)) {
		char p[300], buf[512], *rp;
		int ppid = 0;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/stat", e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) &&
		    sscanf(rp + 2, "%*c %d", &ppid) == 1 && ppid == pid) {
			if (out)
				out[n] = (pid_t)atoi(e->d_name);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

static inline bool cmd_has_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	/* WNOWAIT: it stays a zombie for cmd_finish to reap */
	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid;
}

/*
 * How long cmd_run_interrupt waits for the tasks, then for the end after
 * the signal: a command does either in well under a second, but a loaded
 * 2-CPU guest can hold it many times that, and only a hang should fail.
 */
#define CMD_INTR_WAIT_S 60.0

/* What cmd_run_interrupt's watch keeps; why[] says what went wrong, "" when nothing did. */
struct cmd_intr {
	int sig, want_children;
	double ready_s, sent_s, exit_s;	/* < 0: not yet */
	char why[96];
};

static inline int cmd_intr_watch(pid_t pid, double t, double *next_s, void *arg)
{
	struct cmd_intr *a = arg;

	*next_s = 0.02;
	if (t < 0)
		return 0;
	if (a->exit_s < 0 && cmd_has_exited(pid))
		a->exit_s = t;
	/* ended, but its pipes are still open: a task of it outlived it, and is our child now */
	if (a->exit_s >= 0 && t > a->exit_s + 2) {
		pid_t orphan[64];
		size_t n = cmd_children(getpid(), orphan, 64);

		for (size_t i = 0; i < n; i++)
			if (orphan[i] != pid)
				kill(orphan[i], SIGKILL);
	}
	if (a->exit_s >= 0 || a->why[0])
		return 0;
	if (a->sent_s < 0) {
		if (a->ready_s < 0 && (int)cmd_children(pid, NULL, 0) >= a->want_children)
			a->ready_s = t;
		if (a->ready_s >= 0 && t >= a->ready_s + 0.3) {
			a->sent_s = t;
			return a->sig;
		}
		if (a->ready_s < 0 && t > CMD_INTR_WAIT_S) {
			snprintf(a->why, sizeof(a->why), "started no tasks within %.0f s",
				 CMD_INTR_WAIT_S);
			return SIGKILL;
		}
		return 0;
	}
	if (t > a->sent_s + CMD_INTR_WAIT_S) {
		snprintf(a->why, sizeof(a->why), "did not end within %.0f s of signal %d",
			 CMD_INTR_WAIT_S, a->sig);
		return SIGKILL;
	}
	return 0;
}

/*
 * Interrupt a running command with sig 0.3 s after it has want_children
 * children, and prove that none of its descendants survives: this process
 * is their subreaper while it runs, so an orphan would become our child.
 * The command's status and output in *o. Returns 0, or -1 with why[] (size
 * n) saying what went wrong.
 */
static inline int cmd_run_interrupt(const char *const argv[], int sig, int want_children,
				    struct cmd_out *o, char *why, size_t n)
{
	struct cmd_intr a = { sig, want_children, -1, -1, -1, "" };
	int rc;

	*why = 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		snprintf(why, n, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
		return -1;
	}
	rc = cmd_run_watch(argv, 2 * CMD_INTR_WAIT_S + 30, cmd_intr_watch, &a, o);
	if (rc)
		snprintf(why, n, "did not start: %s", strerror(-rc));
	else if (a.why[0])
		snprintf(why, n, "%s", a.why);
	/* Orphans would be reparented to us: reap them, or time out. */
	for (int waited = 0;; waited++) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r < 0 && errno == ECHILD)
			break;
		if (r > 0 && !*why)
			snprintf(why, n, "a task (pid %d) outlived it", (int)r);
		if (waited > 100) {
			if (!*why)
				snprintf(why, n, "a task outlived it");
			break;
		}
		if (r <= 0)
			nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	return *why ? -1 : 0;
}

/* rm -rf dir, run the same way as everything else. 0 when it went. */
static inline int cmd_rm_rf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };
	struct cmd_out o;
	int rc = cmd_run(argv, 60, &o);

	if (!rc)
		rc = cmd_code(&o) ? -1 : 0;
	cmd_out_free(&o);
	return rc;
}

/* The fpulab under test: $FPL_BIN (set by make test), else build/fpulab; absolute where it exists. */
static inline const char *cmd_fpl_bin(void)
{
	static char *path;	/* malloc'd once, kept for the process */
	const char *b = getenv("FPL_BIN");

	b = b && *b ? b : "build/fpulab";
	if (!path)
		path = realpath(b, NULL);
	return path ? path : b;
}

/* A shell command line (sh -c) the same way, with the same limit. */
static inline int cmd_sh(const char *line, double limit_s, struct cmd_out *o)
{
	const char *argv[] = { "/bin/sh", "-c", line, NULL };

	return cmd_run(argv, limit_s, o);
}

/*
 * Whether fpulab plot finds a gnuplot, as it looks: $FPL_GNUPLOT when set,
 * else one on $PATH. gnuplot is optional (scripts/deps.sh): plot looks for
 * it before it reads its inputs, so without it no input is reached.
 */
static inline bool cmd_have_gnuplot(void)
{
	struct cmd_out o;
	bool yes = !cmd_sh("if [ -n \"$FPL_GNUPLOT\" ]; then [ -x \"$FPL_GNUPLOT\" ]; "
			   "else command -v gnuplot >/dev/null; fi", 60, &o) && cmd_code(&o) == 0;

	cmd_out_free(&o);
	return yes;
}

/* What a test allows one fpulab command at the most: far above any test budget. */
#define FPLRUN_LIMIT_S 600.0

/*
 * All of the file at path, NUL-terminated (malloc'd), its length in *len
 * (may be NULL); NULL when it cannot be read.
 */
static inline char *cmd_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, got;
	char *s = f ? malloc(cap) : NULL;

	while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2) {
			char *t = realloc(s, cap * 2);

			if (!t) {
				free(s);
				s = NULL;
				break;
			}
			s = t;
			cap *= 2;
		}
	}
	if (f)
		fclose(f);
	if (s)
		s[n] = 0;
	if (s && len)
		*len = n;
	return s;
}

/*
 * Run "fpulab ARGS" (args as the shell reads them; env a "VAR=value " prefix
 * or "") through cmd_sh. *out and *err get stdout and stderr (malloc'd,
 * the caller frees). Returns the exit status, or -1 when it did not exit
 * (a signal, the time limit, no start).
 */
static inline int fplrun(const char *env, const char *args, char **out, char **err)
{
	struct cmd_out o;
	char *line = NULL;
	int rc;

	*out = *err = NULL;
	if (asprintf(&line, "%s'%s' %s", env ? env : "", cmd_fpl_bin(), args) < 0)
		return -1;
	rc = cmd_sh(line, FPLRUN_LIMIT_S, &o);
	free(line);
	if (rc)
		return -1;
	*out = o.out;
	*err = o.err;
	return WIFEXITED(o.status) && !o.timed_out ? WEXITSTATUS(o.status) : -1;
}

/*
 * Whether `fpulab ARGS` is refused as a usage error (exit 2) whose message
 * names `names`, before the clock is calibrated or self-checks run. On false,
 * *why holds stderr (caller frees).
 */
static inline int fplrun_rejected_early(const char *args, const char *names, char **why)
{
	char *out = NULL, *err = NULL;
	int rc = fplrun("", args, &out, &err), ok;

	ok = rc == 2 && err && strstr(err, names) && !strstr(err, "pinned to CPU") &&
	     !strstr(err, "self-check");
	free(out);
	if (ok)
		free(err);
	*why = ok ? NULL : err;
	return ok;
}

/* The command names `fpulab --help` lists under "Commands:". */
struct fplrun_cmds {
	char name[64][32];
	size_t n;
	int code;		/* the exit code of fpulab --help */
};

/*
 * Read them into *c; with_wis, will-it-scale's names too (the second
 * "Commands:" list). Returns 0, or -1 when fpulab did not run.
 */
static inline int fplrun_commands(struct fplrun_cmds *c, bool with_wis)
{
	const char *argv[] = { cmd_fpl_bin(), "--help", NULL };
	struct cmd_out o;
	bool in = false;
	unsigned lists = 0;

	c->n = 0;
	if (cmd_run(argv, FPLRUN_LIMIT_S, &o))
		return -1;
	c->code = cmd_code(&o);
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strncmp(l, "Commands:", 9))
			in = lists++ == 0 || with_wis;
		else if (in && l[0] == ' ' && c->n < sizeof(c->name) / sizeof(c->name[0]))
			sscanf(l, " %31s", c->name[c->n++]);
		else if (l[0] != ' ')
			in = false;
	}
	cmd_out_free(&o);
	return 0;
}

static inline bool fplrun_has_command(const struct fplrun_cmds *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return true;
	return false;
}

/*
 * A temporary directory for one test binary: name[] (a template under
 * /tmp), created by cmd_tmp_setup and removed with all in it by
 * cmd_tmp_teardown (the group setup and teardown of cmocka).
 */
#define CMD_TMPDIR(name, prefix)							\
	static char name[] = "/tmp/" prefix "-XXXXXX";					\
	static int cmd_tmp_setup(void **state)						\
	{										\
		(void)state;								\
		return mkdtemp(name) ? 0 : -1;						\
	}										\
	static int cmd_tmp_teardown(void **state)					\
	{										\
		(void)state;								\
		return cmd_rm_rf(name);							\
	}

#endif
