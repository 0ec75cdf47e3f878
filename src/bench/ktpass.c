// SPDX-License-Identifier: GPL-3.0-or-later
/* Traced passes of the benchmarks: markers around one batch, the tally into the run's observed. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "fpulab/kexpect.h"
#include "fpulab/xstate.h"
#include "ktpass.h"

/* The calling thread's context switches so far, voluntary and not; -1 when unknown. */
static long thread_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw + ru.ru_nivcsw;
}

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
		/* An earlier pass of this run that worked is kept (section traces two). */
		if (!fpl_run_obs_get(run, "kernel"))
			fpl_run_obs_json(run, "kernel", json_pack("{s:s, s:s}", "status",
								  "failed", "reason",
								  strerror(-err)));
		return false;
	}
	p->on = true;
	p->switches = thread_switches();
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

static const char *const applies_names[] = {
	[FPL_KX_APPLIES] = "yes", [FPL_KX_NEWER] = "newer kernel", [FPL_KX_UNKNOWN] = "unknown",
};

/* Whether e says anything about kvm events or fpstates (KVM_RUN). */
static bool kvm_rules(const struct fpl_kexpect *e)
{
	for (unsigned i = 0; i < FPL_KT_KVM_NEVENTS; i++)
		if (e->kvm[i].set)
			return true;
	return e->guest_only || e->restore_rfbm;
}

static json_t *count_json(const struct fpl_kx_count *c)
{
	return json_pack("{s:f, s:o, s:b}", "min", c->min, "max", isinf(c->max) ? json_null() :
			 json_real(c->max), "plus_switches", c->plus_switches);
}

/* The kvm events' counts and the guest-only and restore-RFBM rules (KVM_RUN), judged. */
static void kvm_expected(json_t *o, json_t *differs, const struct fpl_kexpect *e,
			 const struct fpl_run *run, const struct fpl_kt_tally *t, double sw,
			 const struct fpl_cpu *cpu, unsigned version, double ops, bool judge)
{
	json_t *counts = json_object(), *g;
	uint64_t floor;
	char names[160], buf[24];
	int rule;

	for (unsigned i = 0; counts && i < FPL_KT_KVM_NEVENTS; i++) {
		struct fpl_kx_count c = fpl_kexpect_count_for(&e->kvm[i], run);
		double k = ops > 0 ? (double)t->kvm[i] / ops : NAN;

		if (!c.set)
			continue;
		json_object_set_new(counts, fpl_kt_kvm_key(i), count_json(&c));
		if (judge && t->kvm_seen && !fpl_kexpect_agrees(&c, k, sw))
			json_array_append_new(differs, json_sprintf("kvm.%s", fpl_kt_kvm_key(i)));
	}
	json_object_set_new(o, "kvm_per_op", counts);
	if (e->guest_only) {
		rule = fpl_kexpect_guest_only(e, version, cpu ? fpl_cpu_xfeatures_supervisor(cpu) : 0,
					      t->guest_xcomp_bv, t->nguest_xcomp_bv,
					      t->host_xcomp_bv, t->nhost_xcomp_bv);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, e->guest_only);
		g = json_pack("{s:s, s:s, s:o, s:o, s:s}", "mask", buf, "components",
			      fpl_xfeature_mask_names(e->guest_only, names, sizeof(names)), "since",
			      json_sprintf("%u.%u", e->guest_only_since / 1000,
					   e->guest_only_since % 1000),
			      "holds", rule < 0 ? json_null() : json_boolean(rule), "why",
			      e->guest_only_why);
		json_object_set_new(o, "guest_only", g);
		if (judge && rule == 0)
			json_array_append_new(differs, json_string("guest_only"));
	}
	if (e->restore_rfbm && (t->nguest_xcomp_bv || t->nhost_xcomp_bv)) {
		uint64_t all[2 * FPL_KT_MAX_MASKS];
		size_t n = 0;

		for (unsigned i = 0; i < t->nguest_xcomp_bv; i++)
			all[n++] = t->guest_xcomp_bv[i];
		for (unsigned i = 0; i < t->nhost_xcomp_bv; i++)
			all[n++] = t->host_xcomp_bv[i];
		floor = fpl_kexpect_restore_floor(all, n);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, floor);
		g = json_pack("{s:s, s:s, s:s}", "rfbm_at_least", buf, "components",
			      fpl_xfeature_mask_names(floor, names, sizeof(names)), "why",
			      e->restore_rfbm);
		/* What the host task's restore puts in init: in RFBM, not in its image. */
		if (g && t->nhost_xcomp_bv) {
			uint64_t init = floor & ~fpl_kexpect_restore_floor(t->host_xcomp_bv,
									    t->nhost_xcomp_bv);

			snprintf(buf, sizeof(buf), "0x%" PRIx64, init);
			json_object_set_new(g, "host_restore_inits", json_string(buf));
			json_object_set_new(g, "host_restore_inits_components", json_string(
				fpl_xfeature_mask_names(init, names, sizeof(names))));
		}
		json_object_set_new(o, "restore_rfbm", g);
	}
}

/* observed.kernel.expected: the kernel source's counts for op, judged against this pass. */
static json_t *expected_json(const struct fpl_bench_env *env, const struct fpl_run *run,
			     const char *op, const json_t *pass, const struct fpl_kt_tally *t)
{
	const struct fpl_kexpect *e = fpl_kexpect_find(run, op);
	const json_t *swj = json_object_get(pass, "switches_per_op");
	double per_op[FPL_KT_NCLASSES], sw = json_is_number(swj) ? json_number_value(swj) : NAN;
	json_t *o, *counts, *differs;
	struct utsname u;
	enum fpl_kx_applies a;
	unsigned bad;

	if (!e)
		return NULL;
	a = fpl_kexpect_applies(e, uname(&u) ? 0 : fpl_kexpect_version(u.release));
	o = json_pack("{s:s, s:o, s:o, s:s?}", "applies", applies_names[a],
		      "since", json_sprintf("%u.%u", e->since / 1000, e->since % 1000),
		      "checked", json_sprintf("%u.%u", e->checked / 1000, e->checked % 1000),
		      "tested", e->tested);
	counts = json_object();
	differs = json_array();
	if (!o || !counts || !differs) {
		json_decref(o);
		json_decref(counts);
		json_decref(differs);
		return NULL;
	}
	fpl_kt_class_per_op(pass, per_op);
	bad = fpl_kexpect_judge(e, per_op, sw);
	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++) {
		const struct fpl_kx_count *c = &e->c[i];

		if (!c->set)
			continue;
		json_object_set_new(counts, fpl_kt_class_key(i), count_json(c));
		if (bad >> i & 1 && a != FPL_KX_UNKNOWN)
			json_array_append_new(differs, json_string(fpl_kt_class_key(i)));
	}
	/* The xcomp_bv rule (AMX: TILEDATA before and after first use) holds for some task. */
	if (e->xcomp_bit >= 0) {
		int rule = -1;

		for (unsigned i = 0; i < t->ntasks; i++) {
			int r = fpl_kexpect_xcomp(e, t->task[i].xcomp_bv, t->task[i].nxcomp_bv);

			rule = r > rule ? r : rule;
		}
		json_object_set_new(o, "xcomp_bit", json_integer(e->xcomp_bit));
		if (!rule && a != FPL_KX_UNKNOWN)
			json_array_append_new(differs, json_string("xcomp_bv"));
	}
	json_object_set_new(o, "per_op", counts);
	if (kvm_rules(e))
		kvm_expected(o, differs, e, run, t, sw, env->cpu, uname(&u) ? 0 :
			     fpl_kexpect_version(u.release), json_number_value(json_object_get(
			     pass, "ops")), a != FPL_KX_UNKNOWN);
	json_object_set_new(o, "differs", differs);
	return o;
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
	long sw;
	int err;

	if (!p->on)
		return 0;
	p->on = false;
	sw = thread_switches();
	err = fpl_ktrace_end(env->ktrace, p->tag, p->tids, p->ntids, &t, &diag);
	o = err ? json_pack("{s:s, s:s}", "status", "failed", "reason", diag.msg) :
		  fpl_kt_tally_json(&t, ops, op, fpl_xfeature_mask_names);
	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "trace_clock", json_string(fpl_ktrace_clock(env->ktrace)));
	if (!err && sw >= 0 && p->switches >= 0) {
		json_object_set_new(o, "switches", json_integer(sw - p->switches));
		json_object_set_new(o, "switches_per_op", ops > 0 ?
				    json_real((double)(sw - p->switches) / ops) : json_null());
	}
	m = err ? NULL : expected_json(env, run, op, o, &t);
	if (m)
		json_object_set_new(o, "expected", m);
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
