// SPDX-License-Identifier: GPL-3.0-or-later
/* kvm: what the guest's FPU state costs a VMM per KVM_RUN round trip, by state; A/B; kernel trace. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/bench.h"
#include "fpulab/harness.h"
#include "kvm/kvmbench.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_kvm;

static const char *const guests[] = { "set-once", "writes", NULL };
static const char *const rings[] = { "auto", "0", "3", NULL };

static const struct fpl_opt kvm_opts[] = {
	{ "state", FPL_OPT_STR, "init", 0, 0, NULL,
	  "the guest's state, set with KVM_SET_XSAVE: init, sse, avx, avx512, widest (the "
	  "widest of those KVM gives a guest here), all (every "
	  "component this host gives a guest), amx, or a mask (join components with '+')" },
	{ "ab", FPL_OPT_STR, NULL, 0, 0, NULL,
	  "STATE_A,STATE_B: two guest states in interleaved rounds, B - A per round with a 95% "
	  "interval" },
	{ "guest", FPL_OPT_STR, "set-once", 0, 0, guests,
	  "set-once: the state set once and left alone (an idle guest doing I/O); writes: the "
	  "guest XRSTORs its state before every exit" },
	{ "ring", FPL_OPT_STR, "auto", 0, 0, rings,
	  "the guest's privilege level; auto: 0, but 3 for --guest writes under PVM, whose "
	  "emulated ring 0 cannot run XRSTOR" },
	{ "cpuid", FPL_OPT_INT, "0", 0, 1000, NULL,
	  "CPUIDs the guest runs between exits to user space, each handled by KVM in the kernel "
	  "inside the one KVM_RUN" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

/* One state's name into its mask: init, all (resolved when the host is known), or components. */
static int one_state(const struct fpl_xstate *xs, struct fpl_kvm_cfg *c, unsigned i,
		     const char *s, size_t len, struct fpl_diag *diag)
{
	if (!len || len >= sizeof(c->names[i]))
		return fpl_diag_set(diag, -EINVAL, "'%.*s': not a state", (int)len, s);
	memcpy(c->names[i], s, len);
	c->names[i][len] = 0;
	c->mask[i] = 0;
	if (!strcmp(c->names[i], "init"))
		return 0;
	if (!strcmp(c->names[i], "all")) {
		c->all[i] = true;
		return 0;
	}
	if (!strcmp(c->names[i], "widest")) {
		c->widest[i] = true;
		return 0;
	}
	if (!strcmp(c->names[i], "none"))
		return fpl_diag_set(diag, -EINVAL, "'none': a guest always has a state; use init");
	return fpl_xstate_parse_mask(xs, c->names[i], &c->mask[i], diag);
}

static int parse_states(const struct fpl_bench_env *env, struct fpl_kvm_cfg *c,
			struct fpl_diag *diag)
{
	const char *ab = fpl_bench_opt(env, "ab"), *st = fpl_bench_opt(env, "state"), *comma;
	struct fpl_xstate xs;
	int err = fpl_xstate_init(&xs, env->cpu);

	if (err)
		return fpl_diag_set(diag, err, "xstate: CPUID leaf 0xD unreadable");
	if (!ab) {
		c->nstates = 1;
		return fpl_diag_prefix(diag, one_state(&xs, c, 0, st, strlen(st), diag), "--state");
	}
	comma = strchr(ab, ',');
	if (!comma || strchr(comma + 1, ','))
		return fpl_diag_set(diag, -EINVAL, "--ab '%s': give two states as A,B (join "
				    "components with '+')", ab);
	c->ab = true;
	c->nstates = 2;
	err = one_state(&xs, c, 0, ab, (size_t)(comma - ab), diag);
	if (!err)
		err = one_state(&xs, c, 1, comma + 1, strlen(comma + 1), diag);
	return fpl_diag_prefix(diag, err, "--ab");
}

static uint64_t guest_offered(const struct fpl_kvm_host *h, const struct fpl_xstate *xs);
static int resolve_states(struct fpl_kvm_cfg *c, const struct fpl_kvm_host *h,
			  const struct fpl_xstate *xs, char *why, size_t n);

/*
 * Before anything runs: every value no host accepts is a usage error now;
 * then, where /dev/kvm answers, a state this host cannot give a guest is
 * refused (-ENOTSUP, exit 77) and "widest" is said once. Without /dev/kvm
 * the run skips with the reason.
 */
static int kvm_parse(const struct fpl_bench_env *env, struct fpl_kvm_cfg *c,
		     struct fpl_diag *diag)
{
	const char *ring = fpl_bench_opt(env, "ring");

	c->writes = !strcmp(fpl_bench_opt(env, "guest"), "writes");
	c->ring = !strcmp(ring, "auto") ? -1 : atoi(ring);
	c->cpuids = (unsigned)fpl_bench_opt_int(env, "cpuid", 0);
	return parse_states(env, c, diag);
}

static int kvm_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	struct fpl_kvm_cfg *c = cfg, probe;
	struct fpl_kvm_host host;
	struct fpl_xstate xs;
	bool widest = false;
	int err = kvm_parse(env, c, diag);

	/* /dev/kvm is this machine's: asked only about the CPU running here, never a dump */
	if (err || !env->cpu || !env->cpu->live)
		return err;
	for (unsigned i = 0; i < c->nstates; i++)
		widest |= c->widest[i];
	if (fpl_xstate_init(&xs, env->cpu) || fpl_kvm_host_read(&host))
		return 0;
	probe = *c;
	if (resolve_states(&probe, &host, &xs, diag->msg, sizeof(diag->msg)))
		return -ENOTSUP;
	diag->msg[0] = 0;
	if (widest)
		fpl_xstate_widest_note(guest_offered(&host, &xs) & ~FPL_XFEATURE_MASK_XTILE,
				       "KVM's guest XCR0", diag->msg,
				       sizeof(diag->msg));
	return 0;
}

static int read_cfg(const struct fpl_bench_env *env, struct fpl_kvm_cfg *c, struct fpl_run *run)
{
	struct fpl_diag diag = { "" };
	double def = fpl_bench_budget(&fpl_bench_kvm, env, fpl_bench_opt(env, "ab") != NULL);
	int err = 0;

	if (env->cfg)
		*c = *(const struct fpl_kvm_cfg *)env->cfg;
	else
		err = kvm_parse(env, c, &diag);	/* what the host cannot give: skipped below */
	if (err) {
		if (env->diag)
			fpl_diag_set(env->diag, err, "%s", diag.msg);
		return err;
	}
	c->budget_s = env->budget_s > 0 ? env->budget_s : def;
	if (c->ab) {
		fpl_run_param_str(run, "state_a", c->names[0]);
		fpl_run_param_str(run, "state_b", c->names[1]);
	} else {
		fpl_run_param_str(run, "state", c->names[0]);
	}
	fpl_run_param_str(run, "guest", c->writes ? "writes" : "set-once");
	fpl_run_param_str(run, "ring", fpl_bench_opt(env, "ring"));
	fpl_run_param_int(run, "cpuid", c->cpuids);
	fpl_run_param_real(run, "budget_s", c->budget_s);
	return 0;
}

/*
 * What a guest here can hold: the XCR0 KVM offers guests, in this host's
 * XCR0, less PKRU (KVM keeps it apart) and APX; AMX only with the guest
 * permission, asked when a state names it.
 */
static uint64_t guest_offered(const struct fpl_kvm_host *h, const struct fpl_xstate *xs)
{
	uint64_t m = h->supported_xcr0 & xs->xcr0 & ~FPL_XFEATURE_MASK_PKRU &
		     ~FPL_XFEATURE_MASK(APX);

	/* Tile data appears in KVM's XCR0 only after the permission: count it as offered. */
	if ((h->guest_supp & xs->xcr0 & FPL_XFEATURE_MASK_XTILE) == FPL_XFEATURE_MASK_XTILE)
		m |= FPL_XFEATURE_MASK_XTILE;
	return m | FPL_XFEATURE_MASK_FP;
}

/*
 * The states against what the host gives a guest: "all" and "widest"
 * resolved (widest renamed to what it is here), -ENOTSUP with why.
 */
static int resolve_states(struct fpl_kvm_cfg *c, const struct fpl_kvm_host *h,
			  const struct fpl_xstate *xs, char *why, size_t n)
{
	uint64_t offered = guest_offered(h, xs);
	char names[200];

	for (unsigned i = 0; i < c->nstates; i++) {
		uint64_t lack;

		if (c->all[i])
			c->mask[i] = offered & ~FPL_XFEATURE_MASK_XTILE;
		if (c->widest[i])
			snprintf(c->names[i], sizeof(c->names[i]), "%s",
				 fpl_xstate_widest(offered & ~FPL_XFEATURE_MASK_XTILE,
						   &c->mask[i]));
		lack = c->mask[i] & ~offered;
		if (!lack)
			continue;
		fpl_xfeature_mask_names(lack, names, sizeof(names));
		snprintf(why, n, "state '%s': this host cannot give a guest %s (KVM offers guests "
			 "XCR0 0x%" PRIx64 " here, this host's XCR0 is 0x%" PRIx64 "%s)",
			 c->names[i], names, h->supported_xcr0, xs->xcr0,
			 lack & FPL_XFEATURE_MASK_XTILE ? "; AMX needs tiles on the CPU and "
			 "ARCH_REQ_XCOMP_GUEST_PERM" : "");
		return -ENOTSUP;
	}
	return 0;
}

static void skip_reason(struct fpl_run *run, int err, const char *why)
{
	if (err == -ENOENT || err == -EACCES || err == -EPERM || err == -ENOTSUP)
		fpl_run_skip(run, "%s", why);
	else
		fpl_run_warn(run, "%s", why);
}

/* The ring the guest runs at: PVM emulates ring 0, which cannot XRSTOR, so writes go to 3. */
static unsigned pick_ring(const struct fpl_kvm_cfg *c, const struct fpl_kvm_host *h)
{
	if (c->ring >= 0)
		return (unsigned)c->ring;
	return c->writes && h->backend == FPL_KVM_PVM ? 3 : 0;
}

/* The images: one per state, the host's all-init one, the read-back buffer. -ENOMEM. */
static int make_images(struct fpl_kvm_ctx *k, const struct fpl_xstate *xs, void **host_init)
{
	size_t size = k->vm->xsave_size > xs->size_std_max ? k->vm->xsave_size : xs->size_std_max;
	uint64_t host = xs->xcr0 & ~FPL_XFEATURE_MASK_PKRU & ~FPL_XFEATURE_MASK_XTILE &
			~FPL_XFEATURE_MASK(APX);

	*host_init = xs->xsave ? fpl_xstate_alloc(size) : NULL;
	if (xs->xsave && !*host_init)
		return -ENOMEM;
	/* Every component init, MXCSR and FCW at their defaults. */
	if (*host_init)
		fpl_xstate_pattern(xs, 0, 0, *host_init);
	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		struct fpl_kvm_arm *a = &k->arm[i];

		a->img = fpl_xstate_alloc(size);
		a->back = fpl_xstate_alloc(size);
		if (!a->img || !a->back)
			return -ENOMEM;
		fpl_xstate_pattern(xs, k->cfg->mask[i], 0x6b766d00u + i, a->img);
		a->vm = k->vm;
		a->xs = xs;
		a->mask = k->cfg->mask[i];
		a->rfbm = k->rfbm;
		a->host_init = *host_init;
		a->host_rfbm = host;
		a->writes = k->cfg->writes;
	}
	return 0;
}

/* The ring was chosen for the backend: a writing guest under PVM runs at 3. */
static bool ring_why(const struct fpl_kvm_ctx *k)
{
	return k->cfg->ring < 0 && k->cfg->writes && k->ring == 3 &&
	       k->host->backend == FPL_KVM_PVM;
}

/* The words every figure of state i carries: the guest's loop, its state, the backend. */
static void make_method(struct fpl_kvm_ctx *k, unsigned i)
{
	const struct fpl_kvm_host *h = k->host;
	const char *label = fpl_kvm_backend_label(h->backend);
	char cpuids[96] = "";

	if (k->cfg->cpuids)
		snprintf(cpuids, sizeof(cpuids), "%u CPUIDs (exits KVM handles in the kernel), then ",
			 k->cfg->cpuids);
	snprintf(k->method[i], sizeof(k->method[i]),
		 "KVM_RUN round trip (one ioctl, back with KVM_EXIT_IO): a 64-bit guest at ring %u%s "
		 "runs %s%sOUT to port 0x%x and jumps back; guest state %s (XSTATE_BV 0x%" PRIx64
		 ") set with KVM_SET_XSAVE before each batch%s; the host task's registers init; "
		 "/dev/kvm from %s%s%s%s", k->ring, ring_why(k) ? " (PVM's ring 0, KVM's "
		 "instruction emulator, cannot run its XRSTOR)" : "", cpuids,
		 k->cfg->writes ? "an XRSTOR of its state, " : "", FPL_KVM_PORT, k->cfg->names[i],
		 k->cfg->mask[i], k->cfg->writes ? ", and the guest XRSTORs it before every exit" :
		 ", left alone by the guest", fpl_kvm_backend_name(h->backend), *label ? "; " : "",
		 label, h->nested ? "; nested: this host is itself a guest" : "");
}

static int measure(struct fpl_kvm_ctx *k)
{
	struct fpl_harness_cfg hc;
	static const char *const pfx[2][2] = { { "round_trip_", NULL },
					       { "round_trip_a_", "round_trip_b_" } };
	int err;

	fpl_harness_defaults(k->env, &hc);
	hc.budget_s = k->cfg->budget_s;
	hc.warmup_s = fmin(0.2, hc.budget_s * 0.05);
	hc.settle_s = fmin(1.0, hc.budget_s * 0.1);
	hc.max_samples = 1000000;
	/* Whole rounds, so that A and B keep the same ones and stay paired. */
	hc.drop_disturbed = true;
	hc.drop_rounds = true;
	hc.kernel_trace = false;	/* its own passes, op "round trip" (fpl_kvm_trace) */
	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		make_method(k, i);
		k->v[i] = (struct fpl_variant){
			.name = k->cfg->ab ? (i ? "state B" : "state A") : "round trip",
			.timed = fpl_kvm_arm_timed, .arg = &k->arm[i], .run = k->run,
			.prefix = pfx[k->cfg->ab][i], .method = k->method[i],
		};
	}
	if (ring_why(k))
		fpl_run_obs_str(k->run, "guest_ring_why", "PVM: the guest's ring 0 runs in KVM's "
				"instruction emulator, which cannot run XRSTOR; the writing guest runs "
				"at ring 3, on the hardware's ring 3");
	err = fpl_harness_run(k->env, &hc, k->v, k->cfg->nstates);
	for (unsigned i = 0; i < k->cfg->nstates && !err; i++)
		err = k->arm[i].err;
	return err;
}

/* One round trip before anything is timed: the guest runs here, or why not. */
static int first_run(struct fpl_kvm_ctx *k)
{
	char what[160];
	int err = fpl_kvm_arm_set(&k->arm[0]);

	if (!err)
		err = fpl_kvm_vm_run(k->vm);
	if (!err)
		return 0;
	if (err == -EIO && fpl_kvm_vm_emulation_failed(k->vm) && k->ring == 0 &&
	    k->host->backend == FPL_KVM_PVM) {
		fpl_run_skip(k->run, "the guest's ring 0 runs in KVM's instruction emulator under "
			     "PVM, which cannot run %s (%s): use --ring 3",
			     k->cfg->writes ? "its XRSTOR" : "its loop",
			     fpl_kvm_vm_exit_text(k->vm, what, sizeof(what)));
		return -ENOTSUP;
	}
	fpl_run_warn(k->run, "the first KVM_RUN: %s", err == -EIO ?
		     fpl_kvm_vm_exit_text(k->vm, what, sizeof(what)) : strerror(-err));
	return err == -EIO ? -EIO : err;
}

/* Every state set and read back before the first batch: observed, and refused where KVM says no. */
static int set_states(struct fpl_kvm_ctx *k, uint64_t *bv_set)
{
	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		int err = fpl_kvm_arm_set(&k->arm[i]);

		if (err) {
			fpl_run_skip(k->run, "KVM_SET_XSAVE of state '%s' (XSTATE_BV 0x%" PRIx64 "): "
				     "%s: KVM does not give a guest this state here", k->cfg->names[i],
				     k->cfg->mask[i], strerror(-err));
			return -ENOTSUP;
		}
		err = fpl_kvm_arm_compare(&k->arm[i], &bv_set[i]);
		if (err < 0)
			return fpl_run_warn(k->run, "KVM_GET_XSAVE: %s", strerror(-err)), err;
		/* The checks that count are those after round trips. */
		k->arm[i].checks = k->arm[i].data_bad = 0;
		k->arm[i].bv_and = k->arm[i].bv_or = 0;
		if (err)
			fpl_run_warn(k->run, "state '%s' read back right after KVM_SET_XSAVE differs "
				     "from what was set (XSTATE_BV 0x%" PRIx64 ")", k->cfg->names[i],
				     bv_set[i]);
	}
	return 0;
}

static int kvm_go(struct fpl_kvm_ctx *k, const struct fpl_xstate *xs)
{
	struct fpl_kvm_vm_cfg vc = { .guest = { .ring = k->ring, .cpuids = k->cfg->cpuids,
						.writes = k->cfg->writes } };
	struct fpl_diag diag = { "" };
	uint64_t bv_set[FPL_KVM_STATES] = { 0 };
	void *host_init = NULL;
	int err;

	for (unsigned i = 0; i < k->cfg->nstates; i++)
		vc.amx |= !!(k->cfg->mask[i] & FPL_XFEATURE_MASK_XTILE);
	k->rfbm = guest_offered(k->host, xs) & (vc.amx ? ~0ull : ~FPL_XFEATURE_MASK_XTILE);
	vc.guest.rfbm = k->rfbm;
	err = fpl_kvm_vm_open(k->vm, &vc, &diag);
	if (err)
		return skip_reason(k->run, err, diag.msg), err;
	err = make_images(k, xs, &host_init);
	if (!err)
		err = set_states(k, bv_set);
	if (!err)
		err = first_run(k);
	if (!err) {
		err = measure(k);
		if (err == -EIO)
			fpl_run_warn(k->run, "KVM_RUN: %s", fpl_kvm_vm_exit_text(k->vm, diag.msg,
										 sizeof(diag.msg)));
		if (err == -EINTR)
			fpl_run_warn(k->run, "interrupted: the samples so far are kept");
	}
	if (!err || err == -EINTR) {
		int e2 = k->cfg->ab ? fpl_kvm_record_ab(k) : 0;

		fpl_kvm_record_states(k, bv_set);
		if (!e2 && !err)
			e2 = fpl_kvm_trace(k);
		err = err ? err : e2;
	}
	fpl_kvm_record_observed(k);
	for (unsigned i = 0; i < k->cfg->nstates; i++) {
		free(k->arm[i].img);
		free(k->arm[i].back);
	}
	free(host_init);
	fpl_kvm_vm_close(k->vm);
	return err;
}

static int kvm_run(const struct fpl_bench_env *env, struct fpl_result *res)
{
	struct fpl_run *run = fpl_result_add_run(res, "kvm");
	struct fpl_kvm_cfg c;
	struct fpl_kvm_host host;
	struct fpl_kvm_vm vm;
	struct fpl_kvm_ctx k;
	struct fpl_xstate xs;
	char why[400];
	int err;

	if (!run)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	err = read_cfg(env, &c, run);
	if (err)
		return err;
	memset(&vm, 0, sizeof(vm));
	vm.kvm = vm.vm = vm.vcpu = -1;
	k = (struct fpl_kvm_ctx){ .env = env, .cfg = &c, .host = &host, .vm = &vm, .run = run };
	err = fpl_kvm_host_read(&host);
	if (!err)
		err = fpl_xstate_init(&xs, env->cpu);
	if (err) {
		fpl_kvm_record_observed(&k);
		fpl_run_skip(run, "%s", host.why[0] ? host.why : "CPUID leaf 0xD unreadable");
		return 0;
	}
	if (resolve_states(&c, &host, &xs, why, sizeof(why))) {
		fpl_run_skip(run, "%s", why);
		fpl_kvm_record_observed(&k);
		return 0;
	}
	/* "widest" in params as what it is here (read_cfg recorded the name given) */
	for (unsigned i = 0; i < c.nstates; i++)
		if (c.widest[i])
			fpl_run_param_str(run, c.ab ? (i ? "state_b" : "state_a") : "state",
					  c.names[i]);
	k.ring = pick_ring(&c, &host);
	if (host.backend == FPL_KVM_PVM && k.ring == 3 && c.cpuids)
		fpl_run_warn(run, "PVM runs the guest's ring 3 on the hardware's ring 3: its CPUIDs "
			     "do not reach KVM (no kvm_cpuid; the CPU, or the hypervisor under this "
			     "host, answers them), unlike VMX/SVM, where every CPUID exits: --ring 0 "
			     "shows exits KVM handles in the kernel");
	err = kvm_go(&k, &xs);
	/*
	 * Options were checked before anything ran: an -EINVAL now is the
	 * kernel refusing a KVM call (its words are in the run's warnings),
	 * not bad input, which the session would call it.
	 */
	if (err == -EINVAL && !run->skipped) {
		err = -EIO;
		if (env->diag)
			fpl_diag_set(env->diag, err, "kvm: the kernel refused a KVM call: %s",
				     json_string_value(json_array_get(run->warnings,
								      json_array_size(run->warnings) -
								      1)) ?: "no reason given");
	}
	return run->skipped ? 0 : err;
}

const struct fpl_bench fpl_bench_kvm = {
	.name = "kvm",
	.budget = { 3, 1 },
	.budget_ab = { 10, 3 },
	.summary = "KVM_RUN round trips of a throwaway VM: the guest's FPU state by state, A/B",
	.opts = kvm_opts,
	.cfg_size = sizeof(struct fpl_kvm_cfg),
	.check = kvm_check,
	.run = kvm_run,
};
