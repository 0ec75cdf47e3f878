// SPDX-License-Identifier: GPL-3.0-or-later
/* A series of runs: each process's result merged into one, its process facts on its runs. */
#include <errno.h>
#include <string.h>

#include "fpulab/result.h"

static const json_t *host_get(const struct fpl_result *r, const char *obj, const char *key)
{
	return json_object_get(obj ? json_object_get(r->host, obj) : r->host, key);
}

/* Steal seconds between two readings of slot k (-1: not read), NaN when unknown. */
static int steal_obs(struct fpl_run *run, const char *key, const struct fpl_process_run *pr,
		     long long k)
{
	if (pr->tick_hz <= 0 || k < 0 || (size_t)k >= pr->nsteal || !pr->steal0 || !pr->steal1 ||
	    pr->steal0[k] < 0 || pr->steal1[k] < 0)
		return 0;
	return fpl_run_obs_real(run, key, (double)(pr->steal1[k] - pr->steal0[k]) /
				(double)pr->tick_hz);
}

/* The per-process facts of a child's host object, and of its process, on one of its runs. */
static int stamp(struct fpl_run *run, const struct fpl_result *cr,
		 const struct fpl_process_run *pr, long long pid)
{
	const json_t *jc = host_get(cr, "clock", "cpu");
	/* no CPU recorded: no per-CPU steal time, not CPU 0's */
	long long cpu = json_is_integer(jc) ? json_integer_value(jc) : -1;
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
	int err = fpl_run_obs_int(run, "run_index", pr->index);

	err = err ? err : fpl_run_obs_int(run, "run_pid", pid);
	err = err ? err : fpl_run_obs_str(run, "run_started", pr->started ? pr->started : "");
	err = err ? err : fpl_run_obs_real(run, "run_wall_s", pr->wall_s);
	/*
	 * Involuntary switches: how often other work preempted the run (its
	 * own waits, a ping-pong's, are the voluntary ones). The first thing
	 * to look at when one run's value stands out.
	 */
	err = err ? err : fpl_run_obs_int(run, "run_preempted", pr->preempted);
	err = err ? err : fpl_run_obs_int(run, "run_waits", pr->waits);
	err = err ? err : fpl_run_obs_real(run, "run_user_s", pr->user_s);
	err = err ? err : fpl_run_obs_real(run, "run_sys_s", pr->sys_s);
	/* in a VM: time the host ran something else on this vCPU's CPU */
	err = err ? err : steal_obs(run, "run_steal_s_all", pr, 0);
	err = err ? err : steal_obs(run, "run_steal_s", pr, cpu >= 0 ? cpu + 1 : -1);
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
	static const char *const per_run[] = { "clock", "loadavg_start", "loadavg_end", "process",
					       "ran" };

	for (size_t i = 0; i < FPL_ARRAY_SIZE(per_run); i++)
		json_object_del(host, per_run[i]);
}

int fpl_result_merge_process(struct fpl_result *dst, struct fpl_result *src,
			     const struct fpl_process_run *pr)
{
	long long pid = json_integer_value(host_get(src, "process", "pid"));
	size_t i;
	json_t *w;

	if (!dst->nruns && !json_object_size(dst->host)) {
		if (json_object_update(dst->host, src->host))
			return -ENOMEM;
		host_once(dst->host);
	}
	for (i = 0; i < src->nruns; i++)
		if (stamp(src->runs[i], src, pr, pid ? pid : pr->pid))
			return -ENOMEM;
	json_array_foreach(src->warnings, i, w)
		if (fpl_result_warn(dst, "run %ld: %s", pr->index, json_string_value(w)))
			return -ENOMEM;
	return fpl_result_move_runs(dst, src, 0);
}

int fpl_result_series_note(struct fpl_result *r, long requested, long completed,
			   bool interrupted, bool no_aslr)
{
	json_t *info = json_pack("{s:I, s:I, s:b, s:s, s:b}", "requested", (json_int_t)requested,
				 "completed", (json_int_t)completed, "interrupted", interrupted,
				 "order", "the same in every run", "no_aslr", no_aslr);

	return !info || json_object_set_new(r->host, "runs", info) ? -ENOMEM : 0;
}

int fpl_result_adopt(struct fpl_result *dst, const struct fpl_result *src)
{
	return json_array_extend(dst->warnings, src->warnings) ||
	       json_object_update(dst->host, src->host) ? -ENOMEM : 0;
}
