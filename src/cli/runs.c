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
			for (int i = 0; i < *argc; i++)
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
	c->child_argv[k++] = argv[0];
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
	fprintf(stderr, "\r\033[Kfpulab %s: run %ld/%ld %3.0f%%", c->cmd, c->done + 1, c->o->n,
		frac * 100);
	if (isfinite(left))
		fprintf(stderr, ", about %.0f s left", left);
	else
		fprintf(stderr, ", %.0f s (first run)", now - c->t0);
	fflush(stderr);
	c->progress_shown = true;
}

static void clear_progress(struct runs_ctx *c)
{
	if (c->progress_shown)
		fputs("\r\033[K", stderr);
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

#define STEAL_CPUS 256

/*
 * Steal time from /proc/stat (USER_HZ ticks): the time the hypervisor gave
 * a vCPU's physical CPU to something else. [0]: all CPUs, [1 + n]: CPU n;
 * -1 where not read.
 */
static void read_steal(long long *steal)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];

	for (int i = 0; i < STEAL_CPUS + 1; i++)
		steal[i] = -1;
	while (f && fgets(line, sizeof(line), f) && !strncmp(line, "cpu", 3)) {
		long long v[8];
		int cpu = -1, off = 0;

		if (line[3] != ' ' && sscanf(line + 3, "%d%n", &cpu, &off) != 1)
			continue;
		if (line[3] == ' ')
			off = 0;
		if (sscanf(line + 3 + off, "%lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8 && cpu < STEAL_CPUS)
			steal[cpu + 1] = v[7];
	}
	if (f)
		fclose(f);
}

struct child {
	pid_t pid;
	int status;
	char *out, *err;
	size_t nout, nerr;
	bool interrupted;
	struct rusage ru;	/* of the child and its waited-for tasks (ctxsw's) */
	long long steal0[STEAL_CPUS + 1], steal1[STEAL_CPUS + 1];
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
	read_steal(ch->steal0);
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
	read_steal(ch->steal1);
	ch->interrupted |= runs_stop;
	return 0;
}

static const json_t *host_get(const struct fpl_result *r, const char *obj, const char *key)
{
	return json_object_get(obj ? json_object_get(r->host, obj) : r->host, key);
}

/* The per-process facts of a child's host object, on each of its runs. */
static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int stamp(struct fpl_run *run, const struct fpl_result *cr, long index, double wall_s,
		 const char *started, pid_t pid, const struct child *ch)
{
	const struct rusage *ru = &ch->ru;
	long long cpu = json_integer_value(host_get(cr, "clock", "cpu")), tick = sysconf(_SC_CLK_TCK);
	static const struct { const char *obs, *obj, *key; } facts[] = {
		{ "run_cpu", "clock", "cpu" },
		{ "run_tsc_hz", "clock", "tsc_hz" },
		{ "run_core_hz", "clock", "core_hz_start" },
		{ "run_core_hz_end", "clock", "core_hz_end" },
		{ "run_core_drift_pct", "clock", "drift_pct" },
		{ "run_loadavg_start", NULL, "loadavg_start" },
		{ "run_loadavg_end", NULL, "loadavg_end" },
		{ "run_aslr", "process", "aslr" },
		{ "run_addr_stack", "process", "addr_stack" },
		{ "run_addr_heap", "process", "addr_heap" },
		{ "run_addr_mmap", "process", "addr_mmap" },
		{ "run_cpus_allowed", "process", "cpus_allowed" },
	};
	int err = fpl_run_obs_int(run, "run_index", index);

	err = err ? err : fpl_run_obs_int(run, "run_pid", pid);
	err = err ? err : fpl_run_obs_str(run, "run_started", started);
	err = err ? err : fpl_run_obs_real(run, "run_wall_s", wall_s);
	/*
	 * Involuntary switches: how often other work preempted the run (its
	 * own waits, a ping-pong's, are the voluntary ones). The first thing
	 * to look at when one run's value stands out.
	 */
	err = err ? err : fpl_run_obs_int(run, "run_preempted", ru->ru_nivcsw);
	err = err ? err : fpl_run_obs_int(run, "run_waits", ru->ru_nvcsw);
	err = err ? err : fpl_run_obs_real(run, "run_user_s", tv_s(ru->ru_utime));
	err = err ? err : fpl_run_obs_real(run, "run_sys_s", tv_s(ru->ru_stime));
	/* in a VM: time the host ran something else on this vCPU's CPU */
	if (tick > 0 && ch->steal0[0] >= 0 && ch->steal1[0] >= 0)
		err = err ? err : fpl_run_obs_real(run, "run_steal_s_all",
						   (double)(ch->steal1[0] - ch->steal0[0]) /
						   (double)tick);
	if (tick > 0 && cpu >= 0 && cpu < STEAL_CPUS && ch->steal0[cpu + 1] >= 0 &&
	    ch->steal1[cpu + 1] >= 0)
		err = err ? err : fpl_run_obs_real(run, "run_steal_s",
						   (double)(ch->steal1[cpu + 1] -
							    ch->steal0[cpu + 1]) / (double)tick);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(facts) && !err; i++) {
		const json_t *v = host_get(cr, facts[i].obj, facts[i].key);

		if (v)
			err = fpl_run_obs_json(run, facts[i].obs, json_deep_copy(v));
	}
	return err;
}

/* Per-process keys of the host object: they go to each run's observed instead. */
static void host_once(json_t *host)
{
	static const char *const per_run[] = { "clock", "loadavg_start", "loadavg_end", "process" };

	for (size_t i = 0; i < FPL_ARRAY_SIZE(per_run); i++)
		json_object_del(host, per_run[i]);
}

static int merge(struct runs_ctx *c, struct child *ch, long index, double wall_s,
		 const char *started)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *cr = NULL;
	json_error_t je;
	json_t *doc = ch->out ? json_loadb(ch->out, ch->nout, 0, &je) : NULL;
	struct fpl_run **nr;
	size_t i;
	json_t *w;
	int err;

	if (!doc)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "run %ld: no results document (%s)%s%s",
				     index, ch->out ? je.text : "no output",
				     ch->nerr ? ":\n" : "", ch->nerr ? ch->err : "");
	err = fpl_result_from_json(doc, &cr, &diag);
	json_decref(doc);
	if (err)
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "run %ld: %s", index, diag.msg);
	if (!c->merged->nruns && !json_object_size(c->merged->host)) {
		json_object_update(c->merged->host, cr->host);
		host_once(c->merged->host);
	}
	for (i = 0; i < cr->nruns; i++)
		if (stamp(cr->runs[i], cr, index, wall_s, started,
			  (pid_t)json_integer_value(host_get(cr, "process", "pid")) ?
			  (pid_t)json_integer_value(host_get(cr, "process", "pid")) : ch->pid,
			  ch)) {
			fpl_result_free(cr);
			return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
		}
	nr = realloc(c->merged->runs, (c->merged->nruns + cr->nruns + 1) * sizeof(*nr));
	if (!nr) {
		fpl_result_free(cr);
		return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "out of memory");
	}
	c->merged->runs = nr;
	memcpy(nr + c->merged->nruns, cr->runs, cr->nruns * sizeof(*nr));
	c->merged->nruns += cr->nruns;
	cr->nruns = 0;
	json_array_foreach(cr->warnings, i, w)
		fpl_result_warn(c->merged, "run %ld: %s", index, json_string_value(w));
	fpl_result_free(cr);
	return FPL_EXIT_OK;
}

/* Group key of a run's metric: bench, params (sorted, compact), metric name. */
static char *group_key(const struct fpl_run *run, const struct fpl_metric *m)
{
	char *p = json_dumps(run->params, JSON_SORT_KEYS | JSON_COMPACT), *k = NULL;

	if (p && asprintf(&k, "%s %s %s", run->bench, p, m->name) < 0)
		k = NULL;
	free(p);
	return k;
}

/* A params key whose value is not the same in every run of this benchmark. */
static bool varies(const struct fpl_result *r, const char *bench, const char *key)
{
	const json_t *first = NULL;
	bool any = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const json_t *v;

		if (strcmp(r->runs[i]->bench, bench))
			continue;
		v = json_object_get(r->runs[i]->params, key);
		if (any && !(v && first ? json_equal(v, first) : v == first))
			return true;
		first = v;
		any = true;
	}
	return false;
}

/* value is the default of the benchmark's option key. */
static bool is_default(const char *bench, const char *key, const char *value)
{
	const struct fpl_bench *b = fpl_bench_find(bench);
	const struct fpl_opt *o = b ? fpl_bench_find_opt(b, key) : NULL;

	return o && o->def && !strcmp(o->def, value);
}

/* The configuration in a few words: the params that tell this benchmark's runs apart, as k=v. */
static void config_str(const struct fpl_result *r, const struct fpl_run *run, char *buf, size_t n)
{
	const char *key;
	json_t *v;
	size_t len = 0;
	bool all = true;

	json_object_foreach(run->params, key, v)
		all &= !varies(r, run->bench, key);
	buf[0] = 0;
	json_object_foreach(run->params, key, v) {
		char *s;

		if (!all && !varies(r, run->bench, key))
			continue;
		s = json_is_string(v) ? strdup(json_string_value(v)) :
		    json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6));
		if (all && s && is_default(run->bench, key, s)) {
			free(s);
			continue;	/* the same in every run and the default: says nothing */
		}
		if (s && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "",
						key, s);
		free(s);
	}
}

#define SPREAD_ROWS 48
#define SPREAD_ROWS_BENCH 8

/* One line per run: its process, CPU, clock, load, time and preemptions. */
static void print_run_lines(const struct runs_ctx *c, FILE *f)
{
	const struct fpl_result *r = c->merged;
	long last = 0;

	fprintf(f, "%ld of %ld runs, each a fresh process, benchmarks in the same order in each:\n",
		c->done, c->o->n);
	fprintf(f, "%4s %8s %4s %9s %9s %-16s %7s %10s\n", "run", "pid", "CPU", "core GHz",
		"drift %", "load 1/5/15 min", "wall s", "preempted");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const json_t *l = fpl_run_obs_get(run, "run_loadavg_start");
		long idx = fpl_run_obs_get_int(run, "run_index", 0);

		if (idx == last)
			continue;
		last = idx;
		fprintf(f, "%4ld %8lld %4lld %9.3f %+9.2f %5.2f/%4.2f/%4.2f %7.1f %10lld\n", idx,
			fpl_run_obs_get_int(run, "run_pid", 0), fpl_run_obs_get_int(run, "run_cpu", -1),
			json_number_value(fpl_run_obs_get(run, "run_core_hz")) / 1e9,
			json_number_value(fpl_run_obs_get(run, "run_core_drift_pct")),
			json_number_value(json_array_get(l, 0)), json_number_value(json_array_get(l, 1)),
			json_number_value(json_array_get(l, 2)),
			json_number_value(fpl_run_obs_get(run, "run_wall_s")),
			fpl_run_obs_get_int(run, "run_preempted", 0));
	}
}

/*
 * The medians of metric name in the runs [from, nruns) of r whose
 * configuration key is key: the same metric of the same configuration in
 * every run. Their count, at most FPL_RUNS_MAX into v.
 */
static size_t run_medians(const struct fpl_result *r, size_t from, const char *name,
			  const char *key, double *v)
{
	struct fpl_summary s;
	size_t n = 0;

	for (size_t j = from; j < r->nruns && n < FPL_RUNS_MAX; j++) {
		const struct fpl_metric *mm = fpl_run_find_metric(r->runs[j], name);
		char *k2 = mm ? group_key(r->runs[j], mm) : NULL;

		if (k2 && !strcmp(k2, key) && mm->n && !fpl_summarize(mm->samples, mm->n, 0, &s))
			v[n++] = s.median;
		free(k2);
	}
	return n;
}

/* The metric column's width: the longest name (cut names were ambiguous: _cycles, _tsc). */
static int metric_width(const struct fpl_result *r)
{
	size_t w = 20;

	for (size_t i = 0; i < r->nruns; i++)
		for (size_t m = 0; m < r->runs[i]->nmetrics; m++)
			if (strlen(r->runs[i]->metrics[m]->name) > w)
				w = strlen(r->runs[i]->metrics[m]->name);
	return w > 64 ? 64 : (int)w;
}

/* One metric's row: its n run medians v, their median, CV, min and max. */
static void spread_row(const struct fpl_result *r, const struct fpl_run *run,
		       const struct fpl_metric *m, const double *v, size_t n, FILE *f)
{
	int mw = metric_width(r);
	double mean = 0, sd = 0;
	struct fpl_summary s;
	char cfg[256], cv[16];

	for (size_t k = 0; k < n; k++)
		mean += v[k] / (double)n;
	for (size_t k = 0; k < n && n > 1; k++)
		sd += (v[k] - mean) * (v[k] - mean) / (double)(n - 1);
	fpl_summarize(v, n, 0, &s);
	config_str(r, run, cfg, sizeof(cfg));
	if (n > 1 && mean)
		snprintf(cv, sizeof(cv), "%.2f", 100 * sqrt(sd) / fabs(mean));
	else
		snprintf(cv, sizeof(cv), "-");
	fprintf(f, "%-8s %-52.52s %-*.*s %4zu %12.4g %7s %12.4g %12.4g %s\n", run->bench, cfg,
		mw, mw, m->name, n, s.median, cv, s.min, s.max, m->unit);
}

/* A metric that is the point of its benchmark's runs: an A/B difference. */
static bool headline(const char *name)
{
	return !strncmp(name, "difference", 10) || !strncmp(name, "b_minus_a", 9);
}

/* The mean over the runs of A's round trip in the unit of m (its run medians); 0 when none. */
static double a_mean(const struct fpl_result *r, const struct fpl_run *run,
		     const struct fpl_metric *m)
{
	const struct fpl_metric *a = fpl_run_find_metric(run, "round_trip_a");
	double v[FPL_RUNS_MAX], sum = 0;
	char *key;
	size_t n = 0;

	if (!a || strcmp(a->unit, m->unit) || !(key = group_key(run, a)))
		return 0;
	for (size_t i = 0; i < r->nruns && !n; i++)
		if (r->runs[i] == run)
			n = run_medians(r, i, a->name, key, v);
	free(key);
	for (size_t k = 0; k < n; k++)
		sum += v[k];
	return n ? sum / (double)n : 0;
}

/* One A/B difference over the runs: its t interval and what it shows. */
static void ab_line(const struct fpl_result *r, const struct fpl_run *run,
		    const struct fpl_metric *m, const double *v, size_t n, FILE *f)
{
	struct fpl_ci ci;
	char cfg[256];
	double a;

	config_str(r, run, cfg, sizeof(cfg));
	fprintf(f, "  %s %s: %s, %zu run%s\n    ", run->bench, cfg, m->name, n, n == 1 ? "" : "s");
	if (n < FPL_MIN_RUNS || fpl_mean_t_ci(v, n, 95, &ci)) {
		fprintf(f, "no interval from fewer than %d runs\n", FPL_MIN_RUNS);
		return;
	}
	fprintf(f, "%+.4g %s [%+.4g, %+.4g]", ci.estimate, m->unit, ci.lo, ci.hi);
	a = a_mean(r, run, m);
	if (a > 0)
		fprintf(f, " = %+.3f%% [%+.3f, %+.3f] of A's round trip", 100 * ci.estimate / a,
			100 * ci.lo / a, 100 * ci.hi / a);
	fprintf(f, ": %s\n", ci.lo > 0 ? "B costs more, proven" :
		ci.hi < 0 ? "B costs less, proven" : "not proven (the interval holds 0)");
}

/*
 * The A/B differences (ctxsw --ab) across the runs: each run is one
 * replicate, its median one value, and the interval is Student's t over
 * them, so that drift between runs is in it and the interval says what
 * another series of runs would find.
 */
static int print_ab(const struct fpl_result *r, FILE *f)
{
	size_t nkeys = 0;
	char **keys = calloc(r->nruns + 1, sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < r->nruns; i++)
		for (size_t m = 0; m < r->runs[i]->nmetrics; m++) {
			const struct fpl_metric *mm = r->runs[i]->metrics[m];
			char *key;
			double v[FPL_RUNS_MAX];
			bool dup = false;

			if (strcmp(mm->name, "difference") || !(key = group_key(r->runs[i], mm)))
				continue;
			for (size_t k = 0; k < nkeys && !dup; k++)
				dup = !strcmp(keys[k], key);
			if (dup || nkeys == r->nruns) {
				free(key);
				continue;
			}
			if (!nkeys)
				fprintf(f, "\nB - A over the runs (the mean of the run medians; 95%% interval, "
					   "Student's t over the runs, each run one replicate):\n");
			keys[nkeys++] = key;
			ab_line(r, r->runs[i], mm, v, run_medians(r, i, mm->name, key, v), f);
		}
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(keys);
	return 0;
}

/* For people: one line per run, then each metric's run medians (their spread is what compare tests). */
static int print_runs(const struct runs_ctx *c, FILE *f)
{
	const struct fpl_result *r = c->merged;
	size_t rows = 0, groups = 0, bench_rows = 0;
	const char *bench_now = "";
	size_t nseen = 0, cap = 1;
	char **seen;

	for (size_t i = 0; i < r->nruns; i++)
		cap += r->runs[i]->nmetrics;
	seen = calloc(cap, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	print_run_lines(c, f);
	fprintf(f, "\nEach metric over the runs (one value per run: its median; CV: the spread "
		   "between runs):\n%-8s %-52s %-*s %4s %12s %7s %12s %12s %s\n", "bench",
		"configuration", metric_width(r), "metric", "runs", "median", "CV %", "min", "max",
		"unit");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		/* An A/B's difference first: it is the figure the runs are for. */
		for (size_t k2 = 0; k2 < 2 * run->nmetrics; k2++) {
			size_t m = k2 % run->nmetrics;	/* two passes: headline metrics first */
			char *key;
			double v[FPL_RUNS_MAX];
			size_t n;
			bool dup = false;

			if (headline(run->metrics[m]->name) != (k2 < run->nmetrics))
				continue;
			key = group_key(run, run->metrics[m]);
			for (size_t k = 0; key && k < nseen && !dup; k++)
				dup = !strcmp(seen[k], key);
			if (!key || dup || nseen == cap) {
				free(key);
				continue;
			}
			seen[nseen++] = key;
			groups++;
			if (strcmp(run->bench, bench_now)) {
				bench_now = run->bench;
				bench_rows = 0;
			}
			if (rows >= SPREAD_ROWS || bench_rows >= SPREAD_ROWS_BENCH)
				continue;
			n = run_medians(r, i, run->metrics[m]->name, key, v);
			if (!n)
				continue;
			spread_row(r, run, run->metrics[m], v, n, f);
			rows++;
			bench_rows++;
		}
	}
	if (groups > rows)
		fprintf(f, "(%zu of %zu metrics shown, the first of each benchmark; all are in the "
			   "file (-o) or --json)\n", rows, groups);
	if (print_ab(r, f) || fpl_table_repeatability(r, FPL_REPEAT_TOL_PCT, f) == -ENOMEM) {
		for (size_t k = 0; k < nseen; k++)
			free(seen[k]);
		free(seen);
		return -ENOMEM;
	}
	fprintf(f, "\n'fpulab compare A.json B.json' tests two such files run by run.\n");
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	return ferror(f) ? -EIO : 0;
}

/* Warnings once each, with how many runs had them. */
/* The text after "run K: ", and K (0 when there is no such prefix). */
static const char *warn_body(const char *t, long *k)
{
	const char *colon = strstr(t, ": ");

	*k = 0;
	if (strncmp(t, "run ", 4) || !colon)
		return t;
	*k = strtol(t + 4, NULL, 10);
	return colon + 2;
}

/* Equal but for the figures in them ("load average 5.48" and "5.68"). */
static bool same_but_numbers(const char *a, const char *b)
{
	while (*a && *b) {
		bool da = (*a >= '0' && *a <= '9') || *a == '.', db = (*b >= '0' && *b <= '9') || *b == '.';

		if (da && db) {
			while ((*a >= '0' && *a <= '9') || *a == '.')
				a++;
			while ((*b >= '0' && *b <= '9') || *b == '.')
				b++;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return !*a && !*b;
}

/* Append run k to a list of runs as ranges: "1-4,7". */
static void add_run(char *buf, size_t n, long *last, long *start, long k, bool flush)
{
	size_t len = strlen(buf);

	if (!flush && *last && k == *last + 1) {
		*last = k;
		return;
	}
	if (*last && len < n)
		len += (size_t)snprintf(buf + len, n - len, *start == *last ? "%s%ld" : "%s%ld-%ld",
					len ? "," : "", *start, *last);
	*start = *last = k;
}

static void print_warnings(const struct runs_ctx *c)
{
	const struct fpl_result *r = c->merged;
	size_t i, shown = 0, more = 0;
	json_t *w;

	/* Result-wide warnings of the runs ("run K: text"): once per text, with its runs. */
	json_array_foreach(r->warnings, i, w) {
		long k0, k2, last = 0, start = 0, nk = 0;
		const char *body = warn_body(json_string_value(w), &k0);
		char runs[160] = "";
		bool before = false, differ = false;
		size_t k;
		json_t *w2;

		json_array_foreach(r->warnings, k, w2) {
			const char *b2 = warn_body(json_string_value(w2), &k2);

			if (!same_but_numbers(b2, body) || !k0 != !k2)
				continue;
			if (k < i) {
				before = true;
				break;
			}
			if (k2 && k2 != last) {
				add_run(runs, sizeof(runs), &last, &start, k2, false);
				nk++;
			}
			differ |= strcmp(b2, body) != 0;
		}
		if (before)
			continue;
		add_run(runs, sizeof(runs), &last, &start, 0, true);
		if (shown++ >= 8) {
			more++;
			continue;
		}
		/* merged texts that differ in their figures: say whose these are */
		fprintf(stderr, "fpulab %s: warning: %s%s%s%s", c->cmd,
			k0 ? (nk > 1 ? "runs " : "run ") : "", runs, k0 ? ": " : "", body);
		if (differ)
			fprintf(stderr, " (the figures are run %ld's; the JSON has each run's)", k0);
		fputc('\n', stderr);
	}
	if (more)
		fprintf(stderr, "fpulab %s: and %zu more warnings (in the results)\n", c->cmd, more);
	for (size_t a = 0; a < r->nruns; a++) {
		json_array_foreach(r->runs[a]->warnings, i, w) {
			const char *t = json_string_value(w);
			size_t times = 0, k;
			bool before = false;
			json_t *w2;

			for (size_t b = 0; b < r->nruns && !before; b++)
				json_array_foreach(r->runs[b]->warnings, k, w2)
					if (!strcmp(t, json_string_value(w2)) &&
					    !strcmp(r->runs[a]->bench, r->runs[b]->bench)) {
						before |= b < a || (b == a && k < i);
						times++;
					}
			if (!before)
				fprintf(stderr, "fpulab %s: warning (%s, %zu of %ld runs): %s\n", c->cmd,
					r->runs[a]->bench, times, c->done, t);
		}
	}
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
	if (s->out_path && s->quiet && !s->format_given && saved == FPL_EXIT_OK)
		return FPL_EXIT_OK;
	if (s->format_given) {
		struct fpl_table_opts to = { .units = s->units, .warnings = true };

		if (fpl_emit_table(c->merged, &to, stdout))
			return fpl_cli_error(c->cmd, FPL_EXIT_FAIL, "writing the table failed");
		fputc('\n', stdout);
	}
	if (print_runs(c, stdout) || fflush(stdout))
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
	json_t *info;

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
	info = json_pack("{s:I, s:I, s:b, s:s, s:b}", "requested", (json_int_t)o->n,
			 "completed", (json_int_t)c.done, "interrupted", (bool)runs_stop,
			 "order", "the same in every run", "no_aslr", o->no_aslr);
	if (info)
		json_object_set_new(c.merged->host, "runs", info);
	if (runs_stop)
		worst = FPL_EXIT_FAIL;
	/* Stopped before a run completed: no file of no runs, nothing replaced. */
	if (runs_stop && !c.done)
		fprintf(stderr, "fpulab %s: interrupted before run 1 of %ld completed: no run "
			"to report%s%s%s\n", cmd, o->n, c.s.out_path ? ", " : "",
			c.s.out_path ? c.s.out_path : "", c.s.out_path ? " not written" : "");
	else if (worst != FPL_EXIT_USAGE && (c.done || runs_stop)) {
		rc = emit(&c);
		print_warnings(&c);
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
