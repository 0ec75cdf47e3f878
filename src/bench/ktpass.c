// SPDX-License-Identifier: GPL-3.0-or-later
/* Traced passes of the benchmarks: markers around one batch, the tally into the run's observed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/xstate.h"
#include "ktpass.h"

bool fpl_ktpass_begin(const struct fpl_bench_env *env, struct fpl_ktpass *p, struct fpl_run *run,
		      const char *tag)
{
	int err;

	memset(p, 0, sizeof(*p));
	if (!env->ktrace)
		return false;
	snprintf(p->tag, sizeof(p->tag), "%s", tag);
	p->tids[p->ntids++] = fpl_ktrace_gettid();
	err = fpl_ktrace_begin(env->ktrace, p->tag);
	if (err) {
		fpl_run_obs_json(run, "kernel", json_pack("{s:s, s:s}", "status", "failed",
							  "reason", strerror(-err)));
		return false;
	}
	p->on = true;
	return true;
}

void fpl_ktpass_add_tid(struct fpl_ktpass *p, pid_t tid)
{
	for (size_t i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid)
			return;
	if (tid > 0 && p->ntids < FPL_KT_MAX_TASKS)
		p->tids[p->ntids++] = tid;
}

static json_t *model_json(const struct fpl_kt_model *m)
{
	if (!m || (isnan(m->saves) && isnan(m->restores)))
		return NULL;
	return json_pack("{s:f, s:f, s:s}", "saves_per_op", m->saves,
			 "restores_per_op", m->restores, "why", m->why ? m->why : "");
}

int fpl_ktpass_end(const struct fpl_bench_env *env, struct fpl_ktpass *p, struct fpl_run *run,
		   const char *name, double ops, const char *op, const struct fpl_kt_model *model)
{
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	json_t *o, *m, *kernel, *variants;
	int err;

	if (!p->on)
		return 0;
	p->on = false;
	err = fpl_ktrace_end(env->ktrace, p->tag, p->tids, p->ntids, &t, &diag);
	o = err ? json_pack("{s:s, s:s}", "status", "failed", "reason", diag.msg) :
		  fpl_kt_tally_json(&t, ops, op, fpl_xfeature_mask_names);
	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "trace_clock", json_string(fpl_ktrace_clock(env->ktrace)));
	m = model_json(model);
	if (m)
		json_object_set_new(o, "model", m);
	kernel = (json_t *)fpl_run_obs_get(run, "kernel");
	if (!json_is_object(kernel))
		return fpl_run_obs_json(run, "kernel", o);
	variants = json_object_get(kernel, "variants");
	if (!variants) {
		variants = json_object();
		if (!variants || json_object_set_new(kernel, "variants", variants)) {
			json_decref(o);
			return -ENOMEM;
		}
	}
	return json_object_set_new(variants, name, o) ? -ENOMEM : 0;
}
