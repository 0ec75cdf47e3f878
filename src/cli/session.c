// SPDX-License-Identifier: GPL-3.0-or-later
/* A session of benchmark runs: common flags, clock, host, self-checks, and its one teardown. */
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

#include "fpulab/amx.h"
#include "fpulab/host.h"
#include "fpulab/kernelview.h"
#include "fpulab/ktrace.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"
#include "cli.h"
#include "fpl_version.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/*
 * The tracefs instance is removed by fpl_session_end(), which SIGINT and
 * SIGTERM reach too (they only set stop_flag). An exit() on another path
 * still removes it here.
 */
static struct fpl_ktrace *ktrace_open;

static void ktrace_atexit(void)
{
	fpl_ktrace_remove_instance(ktrace_open);
}

static void ktrace_start(struct fpl_session *s)
{
	static bool hooked;
	struct fpl_diag diag = { "" };

	if (!s->kernel_trace)
		return;
	if (fpl_ktrace_open(&s->ktrace, &diag)) {
		snprintf(s->ktrace_skip, sizeof(s->ktrace_skip), "%s", diag.msg);
		if (!s->quiet)
			fprintf(stderr, "fpulab %s: --kernel-trace skipped: %s\n", s->cmd, diag.msg);
		return;
	}
	ktrace_open = s->ktrace;
	if (!hooked && !atexit(ktrace_atexit))
		hooked = true;
	if (!s->quiet)
		fprintf(stderr, "fpulab %s: kernel trace: %s (trace_clock %s)\n", s->cmd,
			fpl_ktrace_instance(s->ktrace), fpl_ktrace_clock(s->ktrace));
}

void fpl_session_ktrace_end(struct fpl_session *s)
{
	fpl_ktrace_close(s->ktrace);
	s->ktrace = NULL;
	ktrace_open = NULL;
}

/* Every run this benchmark added gets a kernel object: the pass it traced, or why not. */
static void ktrace_mark_runs(struct fpl_session *s, size_t first)
{
	for (size_t i = first; s->kernel_trace && i < s->result->nruns; i++) {
		struct fpl_run *run = s->result->runs[i];

		if (run->skipped || fpl_run_obs_get(run, "kernel"))
			continue;
		fpl_run_obs_json(run, "kernel", json_pack("{s:s, s:s}", "status", "skipped",
							  "reason", s->ktrace ? "this benchmark has no "
							  "traced pass" : s->ktrace_skip));
	}
}

/* /proc/loadavg's three figures as a JSON array; NULL where it cannot be read. */
static json_t *loadavg_json(double *one)
{
	double a[3];
	FILE *f = fopen("/proc/loadavg", "r");
	int n = f ? fscanf(f, "%lf %lf %lf", &a[0], &a[1], &a[2]) : 0;

	if (f)
		fclose(f);
	if (n != 3)
		return NULL;
	*one = a[0];
	return json_pack("[f,f,f]", a[0], a[1], a[2]);
}

/*
 * Other work on the machine changes what is measured (the sibling SMT
 * thread shares the microcode sequencer and the ports): record the load and
 * say so when it is high.
 */
static void note_load(struct fpl_session *s, const char *key)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double one = 0;
	json_t *l = loadavg_json(&one);

	if (!l)
		return;
	json_object_set_new(s->result->host, key, l);
	if (ncpu > 0 && one >= ncpu)
		fpl_result_warn(s->result, "machine loaded (%s load average %.2f on %ld CPUs): "
				"figures may include contention from other work", key, one, ncpu);
}

bool fpl_cli_amx_global;

/* The CPUs this process may run on, as a list ("0-1"), before the clock pins it. */
static void cpus_allowed(char *buf, size_t n)
{
	cpu_set_t set;
	size_t len = 0;

	buf[0] = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && len < n; c++) {
		int e = c;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		len += (size_t)snprintf(buf + len, n - len, e > c ? "%s%d-%d" : "%s%d",
					len ? "," : "", c, e);
		c = e;
	}
}

/*
 * What this process was, for telling runs apart: its id, whether its
 * address space is randomised, and where its stack, heap and a fresh
 * mapping landed (buffers allocated the same way land relative to these, so
 * two runs whose values differ can be checked for a layout effect).
 */
static json_t *process_json(void)
{
	int pers = personality(0xffffffff), local = 0;
	long long rva = -1;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	void *heap = malloc(4096), *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char st[24], hp[24], mp[24], cpus[256];
	json_t *o;

	if (f) {
		if (fscanf(f, "%lld", &rva) != 1)
			rva = -1;
		fclose(f);
	}
	snprintf(st, sizeof(st), "0x%" PRIxPTR, (uintptr_t)&local);
	snprintf(hp, sizeof(hp), "0x%" PRIxPTR, (uintptr_t)heap);
	snprintf(mp, sizeof(mp), "0x%" PRIxPTR, map == MAP_FAILED ? (uintptr_t)0 : (uintptr_t)map);
	cpus_allowed(cpus, sizeof(cpus));
	o = json_pack("{s:I, s:b, s:I, s:b, s:s, s:s, s:s, s:s}", "pid", (json_int_t)getpid(),
		      "aslr", pers >= 0 && !(pers & ADDR_NO_RANDOMIZE) && rva != 0,
		      "randomize_va_space", (json_int_t)rva,
		      "addr_no_randomize", pers >= 0 && (pers & ADDR_NO_RANDOMIZE),
		      "addr_stack", st, "addr_heap", hp, "addr_mmap", mp, "cpus_allowed", cpus);
	free(heap);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	return o;
}

void fpl_session_init(struct fpl_session *s, const char *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->format = FPL_FMT_TABLE;
	s->cpu_id = -1;
	s->stop = &stop_flag;
	if (fpl_cli_amx_global) {
		s->amx = true;
		snprintf(s->amx_by, sizeof(s->amx_by), "--amx");
	}
}

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

void fpl_session_amx_implied(struct fpl_session *s, const char *bench, const char *name,
			     const char *value)
{
	if (s->amx || !fpl_cli_names_amx(value))
		return;
	s->amx = true;
	snprintf(s->amx_by, sizeof(s->amx_by), "%s%s--%.30s %.60s", bench ? bench : "",
		 bench ? " " : "", name, value);
}

void fpl_session_amx(struct fpl_session *s)
{
	struct fpl_cpu *cpu;
	struct fpl_xstate *xs;
	struct fpl_diag diag = { "" };

	if (!s->amx || s->amx_asked)
		return;
	s->amx_asked = true;
	cpu = malloc(sizeof(*cpu));
	xs = malloc(sizeof(*xs));
	if (!cpu || !xs) {
		s->amx_err = -ENOMEM;
		snprintf(s->amx_msg, sizeof(s->amx_msg), "out of memory");
	} else {
		fpl_cpu_read(cpu);
		fpl_xstate_init(xs, cpu);
		s->amx_err = fpl_amx_request_perm(xs, &s->amx_perm_before, &s->amx_perm_after,
						  &diag);
		snprintf(s->amx_msg, sizeof(s->amx_msg), "%s", s->amx_err ? diag.msg : "granted");
	}
	free(cpu);
	free(xs);
}

/* What --amx did, for the host object: who asked, the answer, permitted before and after. */
static json_t *amx_json(const struct fpl_session *s)
{
	char b[24], a[24];

	if (!s->amx_asked)
		return json_pack("{s:b}", "requested", 0);
	snprintf(b, sizeof(b), "0x%" PRIx64, s->amx_perm_before);
	snprintf(a, sizeof(a), "0x%" PRIx64, s->amx_perm_after);
	return json_pack("{s:b, s:s, s:b, s:s, s:s, s:s}", "requested", 1, "by", s->amx_by,
			 "granted", !s->amx_err, "result", s->amx_msg, "permitted_before", b,
			 "permitted_after", a);
}

/*
 * A benchmark that asked for AMX permission by itself, where the command
 * line named no tile state (xsave --mask 0x40000, section --owner all), or
 * asked again: host.amx_permission says so, with the last answer.
 */
static void amx_note_bench(struct fpl_session *s, const struct fpl_bench *b, unsigned calls)
{
	struct fpl_amx_perm_log log;

	fpl_amx_perm_log(&log);
	if (log.calls == calls)
		return;
	if (!s->amx_asked) {
		s->amx_asked = true;
		snprintf(s->amx_by, sizeof(s->amx_by), "%s (the benchmark itself)", b->name);
		s->amx_perm_before = log.before;
	}
	s->amx_err = log.err;
	snprintf(s->amx_msg, sizeof(s->amx_msg), "%s", log.msg);
	s->amx_perm_after = log.after;
	json_object_set_new(s->result->host, "amx_permission", amx_json(s));
}

/* The three masks now, for the host object (start and end of the session). */
static json_t *masks_now(const struct fpl_cpu *cpu)
{
	struct fpl_xstate *xs = malloc(sizeof(*xs));
	struct fpl_xstate_masks m;
	json_t *o = NULL;

	if (xs && !fpl_xstate_init(xs, cpu) && !fpl_xstate_masks(xs, &m))
		o = fpl_host_masks_json(xs, &m);
	free(xs);
	return o;
}

void fpl_cli_common_help(FILE *f)
{
	fputs("Common options:\n"
	      "  --json            the result as JSON (schema " FPL_RESULT_SCHEMA ") on stdout\n"
	      "  -o FILE           also write the result to FILE (JSON unless --format), atomically\n"
	      "  --format F        table (default), json or csv\n"
	      "  --cpu N           pin to CPU N (default: the CPU the command starts on)\n"
	      "  --quick           short run (the suite's setting)\n"
	      "  --budget SECONDS  time budget for the measurement\n"
	      "  --units U         the table's times: cycles (core cycles, default), tsc, ns\n"
	      "                    or all; a benchmark without that unit shows what it measured\n"
	      "                    (amx: tsc, ns); JSON and CSV have every unit\n"
	      "  --kernel-trace    the kernel's own count of FPU saves and restores (tracefs\n"
	      "                    x86_fpu events of fpulab's tasks; root), model against kernel\n"
	      "  -q                no self-check lines or progress on stderr\n"
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

int fpl_session_common_opt(struct fpl_session *s, int argc, char **argv, int *i)
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

/* The `fpulab info` host object, plus what only a measuring run knows: the tool and the clock. */
int fpl_cli_host_json(const struct fpl_cpu *cpu, const struct fpl_clock *clock, json_t **out)
{
	struct fpl_xstate *xs = malloc(sizeof(*xs));
	struct fpl_sysinfo *si = malloc(sizeof(*si));
	json_t *h = NULL;
	int err = -ENOMEM;

	if (!xs || !si)
		goto out;
	fpl_sysinfo_read(si);
	err = fpl_xstate_init(xs, cpu);
	if (!err)
		err = fpl_host_json(cpu, xs, si, &h);
	if (err)
		goto out;
	if (json_object_set_new(h, "tool", json_pack("{s:s, s:s, s:s, s:s}", "name", "fpulab",
						     "version", FPL_VERSION, "git", FPL_GIT_REV,
						     "cflags", FPL_CFLAGS)) ||
	    json_object_set_new(h, "clock", fpl_clock_json(clock))) {
		err = -ENOMEM;
		goto out;
	}
	*out = h;
	h = NULL;
out:
	json_decref(h);
	free(xs);
	free(si);
	return err;
}

const char *fpl_session_out_file(const struct fpl_session *s, bool interrupted, char *buf,
				 size_t n)
{
	struct stat st;

	if (!s->out_path)
		return NULL;
	/* A good file from an earlier run is kept: the partial one goes beside it. */
	if (interrupted && !stat(s->out_path, &st) && S_ISREG(st.st_mode) &&
	    snprintf(buf, n, "%s.interrupted", s->out_path) < (int)n)
		return buf;
	return s->out_path;
}

/* Interrupted: a signal came, and not every benchmark finished. */
static bool interrupted(const struct fpl_session *s, int rc)
{
	return *s->stop && rc != FPL_EXIT_OK && rc != FPL_EXIT_UNSUPPORTED;
}

int fpl_session_start(struct fpl_session *s)
{
	struct sigaction old[FPL_CLI_NEND_SIGS];
	struct fpl_diag diag = { "" };
	json_t *host = NULL;
	int err;

	/* Before anything else: no sigaltstack may be installed yet (ENOSPC otherwise). */
	fpl_session_amx(s);
	/* A path that cannot be written is found now, not after the measurement. */
	if (s->out_path) {
		int rc = fpl_cli_check_out_path(s->cmd, s->out_path);

		if (rc)
			return rc;
	}
	/* From here an ending signal stops the measurement and keeps what was taken. */
	stop_flag = 0;
	fpl_cli_catch_end(on_signal, old);

	s->cpu = malloc(sizeof(*s->cpu));
	s->result = fpl_result_new();
	if (!s->cpu || !s->result)
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "out of memory");
	json_object_set_new(s->result->host, "process", process_json());
	fpl_cpu_read(s->cpu);
	s->have_cpus_start = !sched_getaffinity(0, sizeof(s->cpus_start), &s->cpus_start);
	err = fpl_clock_create(&s->clock, s->cpu_id, &diag);
	/* A CPU the user named that cannot be had is bad input; the one it started on is not. */
	if (err)
		return fpl_cli_error(s->cmd, err == -EINVAL && s->cpu_id >= 0 ? FPL_EXIT_USAGE :
				     FPL_EXIT_FAIL, "%s", diag.msg);
	if (fpl_selfcheck_run(s->clock, &s->selfcheck))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "self-check could not run");
	if (fpl_cli_host_json(s->cpu, s->clock, &host) ||
	    json_object_update_missing(s->result->host, host)) {
		json_decref(host);
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "out of memory");
	}
	json_decref(host);
	json_object_set_new(s->result->host, "amx_permission", amx_json(s));
	if (s->amx_asked && s->amx_err) {
		fpl_result_warn(s->result, "%s: AMX permission not given: %s", s->amx_by,
				s->amx_msg);
		if (!s->quiet)
			fprintf(stderr, "fpulab %s: %s: AMX permission not given: %s\n", s->cmd,
				s->amx_by, s->amx_msg);
	}
	note_load(s, "loadavg_start");
	if (!s->selfcheck.ok)
		fpl_result_warn(s->result, "%s", s->selfcheck.text);
	if (s->clock->warning[0])
		fpl_result_warn(s->result, "%s", s->clock->warning);
	if (!s->quiet) {
		fprintf(stderr, "fpulab %s: pinned to CPU %d; TSC %.4f GHz (%s); timer floor %.0f, "
			"step %.0f TSC ticks; core clock %.3f GHz, %s\n", s->cmd, s->clock->cpu,
			s->clock->tsc_hz / 1e9, s->clock->tsc_source == FPL_TSC_CALIBRATED ?
			"vs CLOCK_MONOTONIC_RAW" : "CPUID", s->clock->floor_tsc,
			s->clock->step_tsc, s->clock->core_hz_start / 1e9,
			fpl_clock_core_method(s->clock));
		fprintf(stderr, "fpulab %s: %s\n", s->cmd, s->selfcheck.text);
	}
	s->progress_tty = !s->quiet && isatty(STDERR_FILENO);
	ktrace_start(s);
	return FPL_EXIT_OK;
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
	fprintf(stderr, "\r\033[K%s %3.0f%%", bench, frac * 100);
}

int fpl_session_run(struct fpl_session *s, const struct fpl_bench *b,
		    const struct fpl_optval *opts, size_t nopts)
{
	struct fpl_diag diag = { "" };
	struct fpl_bench_env env = {
		.bench = b, .cpu = s->cpu, .clock = s->clock, .quick = s->quick,
		.budget_s = s->budget_s, .pin_cpu = s->clock->cpu, .opts = opts, .nopts = nopts,
		.cpus_start = s->have_cpus_start ? &s->cpus_start : NULL,
		.progress = !s->progress_tty ? NULL : s->progress ? s->progress : progress,
		.progress_arg = s->progress_arg, .stop = s->stop, .ktrace = s->ktrace,
	};
	struct fpl_amx_perm_log amx_log;
	const char *why = NULL;
	struct fpl_run *run;
	size_t nruns;
	int err, rc;

	if (fpl_bench_check_opts(b, opts, nopts, &diag))
		return fpl_cli_usage_error(s->cmd, "%s", fpl_cli_unprefix(s->cmd, diag.msg));
	if (b->supported && !b->supported(s->cpu, &why)) {
		run = fpl_result_add_run(s->result, b->name);
		if (!run || fpl_run_skip(run, "%s", why ? why : "not supported on this CPU"))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "out of memory");
		return FPL_EXIT_UNSUPPORTED;
	}
	nruns = s->result->nruns;
	fpl_amx_perm_log(&amx_log);
	err = b->run(&env, s->result);
	amx_note_bench(s, b, amx_log.calls);
	ktrace_mark_runs(s, nruns);
	if (s->progress_tty)
		fputs("\r\033[K", stderr);
	if (err == -EINTR || *s->stop) {
		fpl_result_warn(s->result, "interrupted: %s has only the samples taken so far",
				b->name);
		return FPL_EXIT_FAIL;
	}
	if (err == -EINVAL) {
		/*
		 * A benchmark that refuses its parameters says why in its last
		 * warning: of the run it added (ctxsw, signal), else of the result.
		 * The session's own warnings (machine loaded) are the result's.
		 */
		json_t *w = s->result->warnings;
		size_t n;
		const char *reason;

		if (s->result->nruns > nruns &&
		    json_array_size(s->result->runs[s->result->nruns - 1]->warnings))
			w = s->result->runs[s->result->nruns - 1]->warnings;
		n = json_array_size(w);
		reason = n ? json_string_value(json_array_get(w, n - 1)) : NULL;
		rc = fpl_cli_usage_error(s->cmd, "%s", reason ? reason : "bad parameters");
		if (n)
			json_array_remove(w, n - 1);
		return rc;
	}
	if (err)
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s: %s", b->name, strerror(-err));
	/* Every run it added skipped (a state or mask this CPU lacks): nothing could run. */
	for (size_t i = nruns; i < s->result->nruns; i++)
		if (!s->result->runs[i]->skipped)
			return FPL_EXIT_OK;
	return s->result->nruns > nruns ? FPL_EXIT_UNSUPPORTED : FPL_EXIT_OK;
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

static void print_warnings(const struct fpl_session *s)
{
	print_result_warnings(s->cmd, s->result);
}

/* stdout and stderr are one file (2>&1, a terminal): the warnings are printed once, on stderr. */
static bool same_sink(void)
{
	struct stat a, b;

	return !fstat(STDOUT_FILENO, &a) && !fstat(STDERR_FILENO, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

struct table_arg {
	const struct fpl_session *s;
	struct fpl_table_opts o;
};

static int table_cb(FILE *f, void *arg, struct fpl_diag *diag)
{
	const struct table_arg *a = arg;
	int err = a->s->table ? a->s->table(a->s->result, &a->o, f) :
				fpl_emit_table(a->s->result, &a->o, f);

	return err ? fpl_diag_set(diag, err, "writing the table: %s", strerror(-err)) : 0;
}

/*
 * The -o file (or, interrupted, the file beside it), written atomically with
 * the signals held: r in fmt, or the table through ta. Says on stderr when
 * the interrupted run went beside. FPL_EXIT_OK or the error's exit code;
 * then the caller prints its report on stdout all the same, as what was
 * measured is nowhere else.
 */
static int save(const struct fpl_session *s, const char *path, const struct fpl_result *r,
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
static int print_stdout(struct fpl_session *s, struct table_arg *ta)
{
	struct fpl_diag diag = { "" };

	if (s->print_table && !s->json_stdout && s->format == FPL_FMT_TABLE) {
		s->print_table(s->result, stdout);
		return fflush(stdout) ? fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "writing the table "
						      "failed") : FPL_EXIT_OK;
	}
	if (!s->json_stdout && s->format == FPL_FMT_TABLE) {
		ta->o.warnings = !isatty(STDOUT_FILENO) && !same_sink();
		if (table_cb(stdout, ta, &diag) || fflush(stdout))
			return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg[0] ? diag.msg :
					     "writing the table failed");
		return FPL_EXIT_OK;
	}
	if (fpl_emit(s->result, s->json_stdout ? FPL_FMT_JSON : s->format, stdout, &diag))
		return fpl_cli_error(s->cmd, FPL_EXIT_FAIL, "%s", diag.msg);
	return FPL_EXIT_OK;
}

static int emit_all(struct fpl_session *s, bool intr)
{
	char alt[4096];
	const char *path = fpl_session_out_file(s, intr, alt, sizeof(alt));
	enum fpl_format file_fmt = s->format_given ? s->format : FPL_FMT_JSON;
	/*
	 * Warnings always go to stderr (print_warnings); the table repeats them
	 * in full only where stdout is not that terminal (a file, a pager),
	 * and gives their count where it is.
	 */
	struct table_arg ta = { s, { .units = s->units, .warnings = true } };
	int saved = FPL_EXIT_OK, rc;

	if (path)
		saved = save(s, path, s->result, file_fmt,
			     file_fmt == FPL_FMT_TABLE && !s->print_table ? &ta : NULL);
	/* -q -o: nothing on stdout, unless the file could not be written */
	if (!saved && s->out_path && !s->json_stdout && !s->format_given && s->quiet)
		return FPL_EXIT_OK;
	rc = print_stdout(s, &ta);
	return saved ? saved : rc;
}

void fpl_session_clock_end(struct fpl_session *s)
{
	struct fpl_selfcheck end;
	json_t *cj;
	bool have_end;

	fpl_clock_finish(s->clock);
	if (s->clock->suspect)
		fpl_result_warn(s->result, "suspect run: core clock drifted %+.2f%% "
				"(%.3f -> %.3f GHz, limit %.0f%%)", s->clock->drift_pct,
				s->clock->core_hz_start / 1e9, s->clock->core_hz_end / 1e9,
				FPL_CLOCK_DRIFT_MAX_PCT);
	cj = fpl_clock_json(s->clock);
	/* Again at the end: contention that came during the run shows here. */
	have_end = !fpl_selfcheck_run(s->clock, &end);
	if (have_end && !end.ok)
		fpl_result_warn(s->result, "at the end: %s", end.text);
	note_load(s, "loadavg_end");
	if (cj) {
		json_object_set_new(cj, "selfcheck", fpl_selfcheck_json(&s->selfcheck));
		if (have_end)
			json_object_set_new(cj, "selfcheck_end", fpl_selfcheck_json(&end));
	}
	json_object_set_new(s->result->host, "clock", cj);
}

/*
 * The one teardown of a session: the kernel trace first (its instance must
 * not outlive a failure to write the output, SIGPIPE), then, when the
 * session started, the clock's end and out(s, rc, arg) for what is written
 * and printed; then everything freed. Returns out's exit code, or rc.
 */
static int teardown(struct fpl_session *s, int rc, int (*out)(struct fpl_session *s, int rc,
							      void *arg), void *arg)
{
	fpl_session_ktrace_end(s);
	if (s->clock && s->result) {
		fpl_session_clock_end(s);
		/* Permitted and active again: a benchmark may have used tiles (active grows). */
		json_object_set_new(s->result->host, "masks_end", masks_now(s->cpu));
		rc = out(s, rc, arg);
	}
	fpl_result_free(s->result);
	fpl_clock_free(s->clock);
	free(s->cpu);
	s->result = NULL;
	s->clock = NULL;
	s->cpu = NULL;
	return rc;
}

/* The generic end: the results emitted (table, JSON, CSV, -o), the kernel table, warnings. */
static int end_generic(struct fpl_session *s, int rc, void *arg)
{
	if (rc == FPL_EXIT_OK || rc == FPL_EXIT_UNSUPPORTED || *s->stop) {
		int e = emit_all(s, interrupted(s, rc));

		if (e)
			rc = e;
		else if (s->kernel_trace && !s->json_stdout && s->format == FPL_FMT_TABLE &&
			 !(s->out_path && s->quiet && !s->format_given))
			fpl_table_kernel(s->result, stdout);
	}
	print_warnings(s);
	return rc;
}

int fpl_session_end(struct fpl_session *s, int rc)
{
	return teardown(s, rc, end_generic, NULL);
}

/* A command's own report of r on stdout: in the format asked, or print()'s. */
static int own_print(struct fpl_session *s, struct fpl_result *r, fpl_cli_print_fn print,
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

		if (fpl_emit_table(r, &o, stdout))
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

static int own_output(struct fpl_session *s, int rc, struct fpl_result *r,
		      fpl_cli_print_fn print, void *arg)
{
	char alt[4096];
	const char *path = fpl_session_out_file(s, *s->stop && rc != FPL_EXIT_OK &&
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
static int end_own(struct fpl_session *s, int rc, void *arg)
{
	const struct own_end *e = arg;
	struct fpl_result *r = e->print_result ? e->print_result : s->result;

	if (e->print_result) {
		/* Clock, self-check and warnings belong to the derived result too. */
		json_array_extend(r->warnings, s->result->warnings);
		json_object_update(r->host, s->result->host);
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

int fpl_cli_end_own(struct fpl_session *s, int rc, struct fpl_result *print_result,
		    fpl_cli_print_fn print, void *arg)
{
	struct own_end e = { print_result, print, arg };

	return teardown(s, rc, end_own, &e);
}
