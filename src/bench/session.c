// SPDX-License-Identifier: GPL-3.0-or-later
/* The measuring session: CPU, pinned clock, self-checks, host facts, skips, AMX, kernel trace. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpulab/amx.h"
#include "fpulab/clock.h"
#include "fpulab/host.h"
#include "fpulab/ktrace.h"
#include "fpulab/session.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"

/*
 * The tracefs instance is removed by fpl_session_finish(), which an ending
 * signal reaches too (it only sets cfg.stop). An exit() on another path
 * still removes it here: an instance left behind keeps tracing.
 */
static struct fpl_ktrace *ktrace_live;

static void ktrace_atexit(void)
{
	fpl_ktrace_remove_instance(ktrace_live);
}

static void ktrace_start(struct fpl_session *s)
{
	static bool hooked;
	struct fpl_diag diag = { "" };

	if (!s->cfg.kernel_trace)
		return;
	if (fpl_ktrace_open(&s->ktrace, &diag)) {
		snprintf(s->ktrace_skip, sizeof(s->ktrace_skip), "%s", diag.msg);
		return;
	}
	ktrace_live = s->ktrace;
	if (*fpl_ktrace_stale(s->ktrace))
		fpl_result_warn(s->result, "removed tracefs instances left by fpulab processes that "
				"are gone (killed before they could remove them): %s",
				fpl_ktrace_stale(s->ktrace));
	if (!hooked && !atexit(ktrace_atexit))
		hooked = true;
}

static void ktrace_end(struct fpl_session *s)
{
	fpl_ktrace_close(s->ktrace);
	s->ktrace = NULL;
	ktrace_live = NULL;
}

void fpl_session_ktrace_line(const struct fpl_session *s, char *buf, size_t n)
{
	if (!s->cfg.kernel_trace)
		snprintf(buf, n, "%s", "");
	else if (!s->ktrace)
		snprintf(buf, n, "--kernel-trace skipped: %s", s->ktrace_skip);
	else
		snprintf(buf, n, "kernel trace: %s (trace_clock %s)", fpl_ktrace_instance(s->ktrace),
			 fpl_ktrace_clock(s->ktrace));
}

/* Every run this benchmark added gets a kernel object: the pass it traced, or why not. */
static void ktrace_mark_runs(struct fpl_session *s, size_t first)
{
	for (size_t i = first; s->cfg.kernel_trace && i < s->result->nruns; i++) {
		struct fpl_run *run = s->result->runs[i];

		if (run->skipped || fpl_run_obs_get(run, "kernel"))
			continue;
		fpl_run_obs_json(run, "kernel", json_pack("{s:s, s:s}", "status", "skipped",
							  "reason", s->ktrace ? "this benchmark has no "
							  "traced pass" : s->ktrace_skip));
	}
}

int fpl_session_new(struct fpl_session **out, const struct fpl_session_cfg *cfg)
{
	struct fpl_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->cpu = malloc(sizeof(*s->cpu));
	s->result = fpl_result_new();
	if (!s->cpu || !s->result) {
		fpl_session_free(s);
		return -ENOMEM;
	}
	fpl_cpu_read(s->cpu);
	s->have_cpus_start = !sched_getaffinity(0, sizeof(s->cpus_start), &s->cpus_start);
	*out = s;
	return 0;
}

void fpl_session_free(struct fpl_session *s)
{
	if (!s)
		return;
	ktrace_end(s);
	fpl_result_free(s->result);
	fpl_clock_free(s->clock);
	free(s->cpu);
	free(s);
}

/* What was asked about AMX, for the host object: who, the answer, permitted before and after. */
static json_t *amx_json(const struct fpl_session_amx *a)
{
	char b[24], af[24];

	if (!a->asked)
		return json_pack("{s:b}", "requested", 0);
	snprintf(b, sizeof(b), "0x%" PRIx64, a->before);
	snprintf(af, sizeof(af), "0x%" PRIx64, a->after);
	return json_pack("{s:b, s:s, s:b, s:s, s:s, s:s}", "requested", 1, "by", a->by,
			 "granted", !a->err, "result", a->msg, "permitted_before", b,
			 "permitted_after", af);
}

void fpl_session_ask_amx(struct fpl_session *s, const char *by)
{
	struct fpl_xstate *xs;
	struct fpl_diag diag = { "" };

	if (s->amx.asked)
		return;
	s->amx.asked = true;
	snprintf(s->amx.by, sizeof(s->amx.by), "%s", by);
	xs = malloc(sizeof(*xs));
	if (!xs) {
		s->amx.err = -ENOMEM;
		snprintf(s->amx.msg, sizeof(s->amx.msg), "out of memory");
		return;
	}
	fpl_xstate_init(xs, s->cpu);
	s->amx.err = fpl_amx_request_perm(xs, &s->amx.before, &s->amx.after, &diag);
	snprintf(s->amx.msg, sizeof(s->amx.msg), "%s", s->amx.err ? diag.msg : "granted");
	free(xs);
	/* Asked between benchmarks (the default suite's tile rows): the host says so now. */
	if (!s->started)
		return;
	json_object_set_new(s->result->host, "amx_permission", amx_json(&s->amx));
	if (s->amx.err)
		fpl_result_warn(s->result, "%s: AMX permission not given: %s", s->amx.by,
				s->amx.msg);
}

/*
 * A benchmark that asked for AMX permission by itself, where nothing named
 * tile state (xsave --mask 0x40000, section --owner all), or asked again:
 * host.amx_permission says so, with the last answer.
 */
static void amx_note_bench(struct fpl_session *s, const char *bench, unsigned calls)
{
	struct fpl_amx_perm_log log;

	fpl_amx_perm_log(&log);
	if (log.calls == calls)
		return;
	if (!s->amx.asked) {
		s->amx.asked = true;
		snprintf(s->amx.by, sizeof(s->amx.by), "%s (the benchmark itself)", bench);
		s->amx.before = log.before;
	}
	s->amx.err = log.err;
	snprintf(s->amx.msg, sizeof(s->amx.msg), "%s", log.msg);
	s->amx.after = log.after;
	json_object_set_new(s->result->host, "amx_permission", amx_json(&s->amx));
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
static void note_load(struct fpl_session *s, const char *key, bool warn)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double one = 0;
	json_t *l = loadavg_json(&one);

	if (!l)
		return;
	json_object_set_new(s->result->host, key, l);
	if (warn && ncpu > 0 && one >= ncpu)
		fpl_result_warn(s->result, "machine loaded (%s load average %.2f on %ld CPUs): "
				"figures may include contention from other work", key, one, ncpu);
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

/* The host object of the result: fpl_host_measured_json() plus the process and AMX facts. */
static int host_start(struct fpl_session *s, struct fpl_diag *diag)
{
	json_t *host = NULL;

	if ((s->cfg.argv && fpl_result_set_command(s->result, s->cfg.argv)) ||
	    json_object_set_new(s->result->host, "process", fpl_host_process_json()) ||
	    fpl_host_measured_json(s->cpu, s->clock, &host) ||
	    json_object_update_missing(s->result->host, host) ||
	    json_object_set_new(s->result->host, "amx_permission", amx_json(&s->amx))) {
		json_decref(host);
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	}
	json_decref(host);
	return 0;
}

int fpl_session_start(struct fpl_session *s, struct fpl_diag *diag)
{
	int err;

	if (s->started)
		return 0;
	err = fpl_clock_create(&s->clock, s->cfg.cpu, diag);
	if (err)
		return err;
	if (fpl_selfcheck_run(s->clock, &s->selfcheck))
		return fpl_diag_set(diag, -EIO, "self-check could not run");
	err = host_start(s, diag);
	if (err)
		return err;
	if (s->amx.asked && s->amx.err)
		fpl_result_warn(s->result, "%s: AMX permission not given: %s", s->amx.by,
				s->amx.msg);
	note_load(s, "loadavg_start", true);
	if (!s->selfcheck.ok)
		fpl_result_warn(s->result, "%s", s->selfcheck.text);
	if (s->clock->warning[0])
		fpl_result_warn(s->result, "%s", s->clock->warning);
	ktrace_start(s);
	s->started = true;
	return 0;
}

int fpl_session_start_unmeasured(struct fpl_session *s, struct fpl_diag *diag)
{
	int err;

	if (s->started)
		return 0;
	err = host_start(s, diag);
	if (err)
		return err;
	s->started = true;
	return 0;
}

void fpl_session_clock_line(const struct fpl_session *s, char *buf, size_t n)
{
	const struct fpl_clock *c = s->clock;

	if (!c) {
		snprintf(buf, n, "no clock yet");
		return;
	}
	snprintf(buf, n, "pinned to CPU %d; TSC %.4f GHz (%s); timer floor %.0f, step %.0f TSC "
		 "ticks; core clock %.3f GHz, %s", c->cpu, c->tsc_hz / 1e9,
		 c->tsc_source == FPL_TSC_CALIBRATED ? "vs CLOCK_MONOTONIC_RAW" : "CPUID",
		 c->floor_tsc, c->step_tsc, c->core_hz_start / 1e9, fpl_clock_core_method(c));
}

int fpl_session_prepare(const struct fpl_session *s, const char *bench,
			const struct fpl_optval *opts, size_t nopts, struct fpl_bench_call *call,
			struct fpl_diag *diag)
{
	const struct fpl_bench *b = fpl_bench_find(bench);
	int err;

	memset(call, 0, sizeof(*call));
	if (!b)
		return fpl_diag_set(diag, -ENOENT, "'%s' is not a benchmark", bench);
	call->bench = b;
	call->opts = opts;
	call->nopts = nopts;
	if (b->cfg_size && !(call->cfg = calloc(1, b->cfg_size)))
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	err = fpl_bench_prepare(b, s->cpu, opts, nopts, call->cfg, diag);
	if (err)
		fpl_bench_call_free(call);
	return err;
}

void fpl_bench_call_free(struct fpl_bench_call *call)
{
	free(call->cfg);
	call->cfg = NULL;
}

/* A benchmark this CPU cannot run: one skipped run with the reason. */
static int skip_whole(struct fpl_session *s, const char *bench, const char *why)
{
	struct fpl_run *run = fpl_result_add_run(s->result, bench);

	if (!run || fpl_run_skip(run, "%s", why ? why : "not supported on this CPU"))
		return -ENOMEM;
	return -ENOTSUP;
}

int fpl_session_skip(struct fpl_session *s, const char *bench, const struct fpl_optval *opts,
		      size_t nopts, const char *why)
{
	struct fpl_run *run;
	int err = skip_whole(s, bench, why);

	/* the options as given, so that the skip says which configuration it was */
	run = s->result->nruns ? s->result->runs[s->result->nruns - 1] : NULL;
	for (size_t i = 0; err == -ENOTSUP && run && i < nopts; i++)
		if (fpl_run_param_str(run, opts[i].name, opts[i].value ? opts[i].value : "yes"))
			return -ENOMEM;
	return err;
}

/* Every run it added skipped (a state or mask this CPU lacks): nothing could run. */
static int outcome(const struct fpl_session *s, size_t from)
{
	for (size_t i = from; i < s->result->nruns; i++)
		if (!s->result->runs[i]->skipped)
			return 0;
	return s->result->nruns > from ? -ENOTSUP : 0;
}

int fpl_session_call(struct fpl_session *s, const struct fpl_bench_call *call,
		     struct fpl_diag *diag)
{
	const struct fpl_bench *b = call->bench;
	struct fpl_bench_env env = {
		.bench = b, .cpu = s->cpu, .clock = s->clock, .quick = s->cfg.quick,
		.budget_s = s->cfg.budget_s, .pin_cpu = s->clock ? s->clock->cpu : -1,
		.opts = call->opts, .nopts = call->nopts,
		.cpus_start = s->have_cpus_start ? &s->cpus_start : NULL,
		.progress = s->cfg.progress, .progress_arg = s->cfg.progress_arg,
		.stop = s->cfg.stop, .ktrace = s->ktrace, .cfg = call->cfg, .diag = diag,
	};
	struct fpl_amx_perm_log amx_log;
	const char *why = NULL;
	size_t from = s->result->nruns;
	int err;

	if (!s->started)
		return fpl_diag_set(diag, -EINVAL, "%s: the session has not started", b->name);
	if (b->supported && !b->supported(s->cpu, &why))
		return skip_whole(s, b->name, why);
	fpl_amx_perm_log(&amx_log);
	err = b->run(&env, s->result);
	amx_note_bench(s, b->name, amx_log.calls);
	ktrace_mark_runs(s, from);
	if (err == -EINTR || (s->cfg.stop && *s->cfg.stop)) {
		fpl_result_warn(s->result, "interrupted: %s has only the samples taken so far",
				b->name);
		return -EINTR;
	}
	if (err == -EINVAL && !diag->msg[0])
		fpl_diag_set(diag, -EINVAL, "%s: bad parameters", b->name);
	if (err && err != -EINVAL && !diag->msg[0])
		fpl_diag_set(diag, err, "%s: %s", b->name, strerror(-err));
	return err ? err : outcome(s, from);
}

int fpl_session_run(struct fpl_session *s, const char *bench, const struct fpl_optval *opts,
		    size_t nopts, struct fpl_diag *diag)
{
	struct fpl_bench_call call;
	int err = fpl_session_prepare(s, bench, opts, nopts, &call, diag);

	/* Nothing it was asked for can run here: recorded as the skip it is. */
	if (err == -ENOTSUP) {
		err = fpl_session_skip(s, bench, opts, nopts, diag->msg[0] ? diag->msg : NULL);
		diag->msg[0] = 0;
		return err;
	}
	if (err)
		return err;
	diag->msg[0] = 0;
	err = fpl_session_call(s, &call, diag);
	fpl_bench_call_free(&call);
	return err;
}

/* Some run holds a figure: the verdicts on the clock and the load are about figures. */
static bool measured_any(const struct fpl_result *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!r->runs[i]->skipped && r->runs[i]->nmetrics)
			return true;
	return false;
}

/* Nothing measured: the start's load warning is about no figure; it goes. */
static void drop_load_warnings(struct fpl_result *r)
{
	for (size_t i = json_array_size(r->warnings); i-- > 0;) {
		const char *t = json_string_value(json_array_get(r->warnings, i));

		if (t && !strncmp(t, "machine loaded (loadavg_", 24))
			json_array_remove(r->warnings, i);
	}
}

void fpl_session_finish(struct fpl_session *s)
{
	struct fpl_selfcheck end;
	json_t *cj;
	bool have_end, any;

	ktrace_end(s);
	if (!s->started || s->finished)
		return;
	s->finished = true;
	if (!s->clock) {	/* fpl_session_start_unmeasured: nothing was timed */
		json_object_set_new(s->result->host, "masks_end", masks_now(s->cpu));
		return;
	}
	fpl_clock_finish(s->clock);
	any = measured_any(s->result);
	if (!any)
		drop_load_warnings(s->result);
	if (any && s->clock->suspect)
		fpl_result_warn(s->result, "suspect run: core clock drifted %+.2f%% "
				"(%.3f -> %.3f GHz, limit %.0f%%)", s->clock->drift_pct,
				s->clock->core_hz_start / 1e9, s->clock->core_hz_end / 1e9,
				FPL_CLOCK_DRIFT_MAX_PCT);
	cj = fpl_clock_json(s->clock);
	/* Again at the end: contention that came during the run shows here. */
	have_end = !fpl_selfcheck_run(s->clock, &end);
	if (any && have_end && !end.ok)
		fpl_result_warn(s->result, "at the end: %s", end.text);
	note_load(s, "loadavg_end", any);
	if (cj) {
		json_object_set_new(cj, "selfcheck", fpl_selfcheck_json(&s->selfcheck));
		if (have_end)
			json_object_set_new(cj, "selfcheck_end", fpl_selfcheck_json(&end));
	}
	json_object_set_new(s->result->host, "clock", cj);
	/* Permitted and active again: a benchmark may have used tiles (active grows). */
	json_object_set_new(s->result->host, "masks_end", masks_now(s->cpu));
}

int fpl_session_open(struct fpl_session **out, const struct fpl_session_cfg *cfg,
		     struct fpl_diag *diag)
{
	struct fpl_session *s;
	int err = fpl_session_new(&s, cfg);

	if (err)
		return fpl_diag_set(diag, err, "out of memory");
	if (cfg->amx_by)
		fpl_session_ask_amx(s, cfg->amx_by);
	err = fpl_session_start(s, diag);
	if (err) {
		fpl_session_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int fpl_session_close(struct fpl_session *s, struct fpl_result **out)
{
	fpl_session_finish(s);
	*out = s->result;
	s->result = NULL;
	fpl_session_free(s);
	return 0;
}

const char *fpl_session_out_file(const char *path, bool interrupted, char *buf, size_t n)
{
	struct stat st;

	if (!path)
		return NULL;
	if (interrupted && !stat(path, &st) && S_ISREG(st.st_mode) &&
	    snprintf(buf, n, "%s.interrupted", path) < (int)n)
		return buf;
	return path;
}
