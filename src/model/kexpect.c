// SPDX-License-Identifier: GPL-3.0-or-later
/* The x86_fpu events the kernel source says each fpulab operation causes, and from which release. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/kexpect.h"
#include "fpulab/xstate.h"

#define NONE(w)		{ true, 0, 0, false, w, NULL }
#define EXACT(n, w)	{ true, n, n, false, w, NULL }
#define RANGE(a, b, w)	{ true, a, b, false, w, NULL }
#define SWITCHES(w)	{ true, 0, 0, true, w, NULL }
#define PER_PARAM(p, w)	{ true, 0, 0, false, w, p }

/*
 * The whys name the functions of arch/x86/kernel/fpu/ (core.c, signal.c,
 * context.h, xstate.c) and arch/x86/include/asm/fpu/sched.h that emit each
 * event (arch/x86/include/asm/trace/fpu.h: every event records "load" =
 * TIF_NEED_FPU_LOAD of the current task at that moment, since 5.2).
 */
#define SWITCH_SAVE "the kernel saves a task's registers (XSAVES into its fpstate) only " \
	"when it switches the task out: switch_fpu() emits regs_deactivated"
#define SWITCH_RESTORE "and restores them (XRSTORS) only on the way back to user space " \
	"after such a switch: switch_fpu_return() -> fpregs_restore_userregs() emits " \
	"regs_activated, load 1"
#define NO_MARK "no signal, sigreturn or exec: nothing calls fpregs_mark_activate()"
#define NO_LIFE "no fork (fpu_clone(): copy_dst), exit or exec (fpu__drop(): dropped)"
#define NO_OTHER "before_save/after_save come from fpu_sync_fpstate() (ptrace, core " \
	"dumps), xstate_check_failed from a bad signal frame: neither runs"
/* KVM's swap of the task's fpstate (arch/x86/kernel/fpu/core.c, arch/x86/kvm/x86.c). */
#define KVM_ACTIVATE "fpu_swap_kvm_fpstate() XSAVES the outgoing fpstate (no event: " \
	"save_fpregs_to_fpstate() has no tracepoint), XRSTORS the incoming one and ends in " \
	"fpregs_mark_activate(): regs_activated for the guest fpstate on entry and for the " \
	"host task's on exit, load 0 (the registers were the task's)"
#define KVM_RESTORE "only after a switch of the vCPU thread: TIF_NEED_FPU_LOAD is then " \
	"set, the swap skips its save and reports load 1, or vcpu_enter_guest() calls " \
	"switch_fpu_return()"
#define KVM_GUEST_ONLY "Linux 6.17 made CET supervisor state guest-only " \
	"(XFEATURE_MASK_GUEST_SUPERVISOR): a guest fpstate gets guest_default_cfg (the host's " \
	"default features plus it) whatever the guest's CPUID says, a host task " \
	"fpu_kernel_cfg.default_features without it; the XSAVES of each fpstate uses its own " \
	"features as RFBM, which its xcomp_bv shows"
#define KVM_RESTORE_RFBM "restore_fpregs_from_fpstate() XRSTORS with RFBM " \
	"fpu_kernel_cfg.max_features & XFEATURE_MASK_FPSTATE in both directions, not with " \
	"the fpstate's own features: on a host with CET_S the host task's restore has " \
	"RFBM[12] = 1 while its image's XCOMP_BV[12] = 0, so CET_S goes to its init state on " \
	"every exit to user space"

/* The classes of an operation that neither signals, forks, exits nor execs. */
#define NOTHING_ELSE \
	[FPL_KT_C_ACTIVATE] = NONE(NO_MARK), [FPL_KT_C_DROP] = NONE(NO_LIFE), \
	[FPL_KT_C_COPY] = NONE(NO_LIFE), [FPL_KT_C_OTHER] = NONE(NO_OTHER)
/* An operation without a system call: only a switch of the task saves and restores. */
#define SWITCHES_ONLY \
	[FPL_KT_C_SAVE] = SWITCHES(SWITCH_SAVE), [FPL_KT_C_RESTORE] = SWITCHES(SWITCH_RESTORE), \
	NOTHING_ELSE

static const struct fpl_kexpect table[] = {
	{
		.bench = "signal", .op = "signal",
		.what = "delivery XSAVEs the live registers straight into the signal frame and "
			"sigreturn XRSTORs them from it: the task's fpstate is neither saved nor "
			"loaded, and each half ends in fpregs_mark_activate() while the registers "
			"are the task's own",
		.since = FPL_KVER(5, 8), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 KVM guest (kernel stacks of each event)",
		.c = {
			[FPL_KT_C_SAVE] = SWITCHES("copy_fpstate_to_sigframe() writes the live "
				"registers to the user frame (xsave_to_user_sigframe()), not to the "
				"fpstate; only a switch-out (switch_fpu()) saves"),
			[FPL_KT_C_RESTORE] = SWITCHES("sigreturn XRSTORs from the user frame "
				"(__fpu_restore_sig() -> restore_fpregs_from_user()), not from the "
				"fpstate; copy_fpstate_to_sigframe() calls fpregs_restore_userregs() "
				"only when TIF_NEED_FPU_LOAD is set, after a switch"),
			[FPL_KT_C_ACTIVATE] = EXACT(2, "one at delivery: handle_signal() -> "
				"fpu__clear_user_states() loads the init state for the handler, then "
				"fpregs_mark_activate(); one at sigreturn: restore_fpregs_from_user() "
				"-> fpregs_mark_activate() after the XRSTOR; load 0: "
				"TIF_NEED_FPU_LOAD is clear, the registers were the task's. Before "
				"5.8 delivery went through fpu__clear(), which also dropped"),
			[FPL_KT_C_DROP] = NONE("fpu__drop() runs at exit and exec only"),
			[FPL_KT_C_COPY] = NONE("fpu_clone() runs at fork only"),
			[FPL_KT_C_OTHER] = NONE("xstate_check_failed only for a frame whose magic "
				"words are wrong: fpulab's handler leaves the frame alone"),
		},
		.xcomp_bit = -1,
	},
	{
		.bench = "ctxsw", .op = "round trip", .param = "placement", .values = "same",
		.what = "both tasks on one CPU: each is switched out once and comes back to user "
			"space once per round trip, and the other task's registers were loaded "
			"in between",
		.since = FPL_KVER(5, 2), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 and Intel Sapphire Rapids KVM guests",
		.c = {
			[FPL_KT_C_SAVE] = EXACT(2, "each task's switch-out: switch_fpu() "
				"(switch_fpu_prepare() in older kernels) XSAVES its registers into "
				"its fpstate and emits regs_deactivated"),
			[FPL_KT_C_RESTORE] = EXACT(2, "each task's return to user space: "
				"switch_fpu_return() -> fpregs_restore_userregs() finds the CPU's "
				"registers another task's (fpregs_state_valid() false), XRSTORS the "
				"fpstate and emits regs_activated with TIF_NEED_FPU_LOAD still set: "
				"load 1"),
			NOTHING_ELSE,
		},
		.xcomp_bit = -1,
	},
	{
		.bench = "ctxsw", .op = "round trip", .param = "placement", .values = "cross,free",
		.what = "each task is switched out once per round trip; whether it restores on "
			"the way back depends on what ran on its CPU meanwhile",
		.since = FPL_KVER(5, 2), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 KVM guest (cross: 2 saves, 1 restore)",
		.c = {
			[FPL_KT_C_SAVE] = EXACT(2, "each task's switch-out: switch_fpu() XSAVES "
				"its registers and emits regs_deactivated"),
			[FPL_KT_C_RESTORE] = RANGE(0, 2, "fpregs_restore_userregs() restores only "
				"when the CPU's registers are no longer the task's "
				"(fpregs_state_valid()): a task whose CPU ran only the idle task or "
				"kernel threads meanwhile returns without a restore and without an "
				"event"),
			NOTHING_ELSE,
		},
		.xcomp_bit = -1,
	},
	{
		.bench = "section", .op = "call",
		.what = "fpulab's model of kernel_fpu_begin()/end() and the return to user space "
			"runs in user space: its saves and restores are XSAVE/XRSTOR instructions "
			"of the task, which no tracepoint sees, and a call makes no system call",
		.since = FPL_KVER(5, 2), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 KVM guest",
		.c = {
			SWITCHES_ONLY,
		},
		.xcomp_bit = -1,
	},
	{
		.bench = NULL, .op = "operation",
		.what = "the harness's body makes no system call: the kernel touches the task's "
			"registers only when it switches the task out and back",
		.since = FPL_KVER(5, 2), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 KVM guest",
		.c = {
			SWITCHES_ONLY,
		},
		.xcomp_bit = -1,
	},
	{
		.bench = "kvm", .op = "round trip",
		.what = "one KVM_RUN ioctl that ends in an exit to user space: "
			"kvm_arch_vcpu_ioctl_run() swaps the task's fpstate for the guest's once on "
			"the way in (kvm_load_guest_fpu()) and back once on the way out "
			"(kvm_put_guest_fpu()), however many exits KVM handles in the kernel between",
		.since = FPL_KVER(5, 16), .checked = FPL_KVER(6, 18),
		.tested = "Linux 6.18.44, AMD Zen 4 KVM guest, /dev/kvm from kvm_pvm",
		.c = {
			[FPL_KT_C_SAVE] = SWITCHES("no switch-out of the vCPU thread, no save "
				"event: the swap's XSAVES emits none; a switch adds switch_fpu()'s "
				"regs_deactivated"),
			[FPL_KT_C_RESTORE] = SWITCHES(KVM_RESTORE),
			[FPL_KT_C_ACTIVATE] = EXACT(2, KVM_ACTIVATE),
			[FPL_KT_C_DROP] = NONE(NO_LIFE),
			[FPL_KT_C_COPY] = NONE(NO_LIFE),
			[FPL_KT_C_OTHER] = NONE(NO_OTHER),
		},
		.xcomp_bit = -1,
		.kvm = {
			[FPL_KT_KVM_FPU_LOAD] = EXACT(1, "kvm_load_guest_fpu(): trace_kvm_fpu(1) "
				"right after the swap to the guest fpstate"),
			[FPL_KT_KVM_FPU_UNLOAD] = EXACT(1, "kvm_put_guest_fpu(): trace_kvm_fpu(0) "
				"right after the swap back"),
			[FPL_KT_KVM_USERSPACE_EXIT] = EXACT(1, "kvm_vcpu_ioctl() emits "
				"kvm_userspace_exit when KVM_RUN returns"),
			[FPL_KT_KVM_PIO] = EXACT(1, "the guest's one OUT per round trip: "
				"emulator_pio_in_out() emits kvm_pio, then KVM exits to user space "
				"(KVM_EXIT_IO)"),
			[FPL_KT_KVM_CPUID] = PER_PARAM("cpuid", "each guest CPUID: kvm_cpuid() "
				"emits kvm_cpuid (a VM exit on VMX/SVM, an emulated instruction in "
				"PVM's guest ring 0), handled in the kernel inside the one KVM_RUN"),
		},
		.guest_only = FPL_XFEATURE_MASK(CET_KERNEL),
		.guest_only_since = FPL_KVER(6, 17),
		.guest_only_why = KVM_GUEST_ONLY,
		.restore_rfbm = KVM_RESTORE_RFBM,
	},
	{
		.bench = "amx", .op = "child",
		.what = "one child's AMX lifecycle (permission, first tile use, a forked "
			"grandchild, exit) seen from fpulab's thread and the child; the counts "
			"depend on how often both wait, so most are bounds",
		.since = FPL_KVER(5, 16), .checked = FPL_KVER(6, 18),
		.tested = NULL,
		.c = {
			[FPL_KT_C_SAVE] = RANGE(1, INFINITY, "at least one switch-out "
				"(switch_fpu()) while fpulab waits for the child and the child for "
				"its grandchild; the child's exit adds fpu__drop() -> "
				"fpregs_deactivate() and a last switch_fpu()"),
			[FPL_KT_C_RESTORE] = RANGE(1, INFINITY, "the child's first return to user "
				"space: fpu_clone() set TIF_NEED_FPU_LOAD, ret_from_fork -> "
				"switch_fpu_return() restores; one more per switch back"),
			[FPL_KT_C_ACTIVATE] = NONE("no signal, sigreturn or exec; "
				"ARCH_REQ_XCOMP_PERM only records the permission, and the XFD trap "
				"of the first tile use (handle_xfd_event() -> xfd_enable_feature() "
				"-> fpstate_realloc()) emits nothing while the registers are live"),
			[FPL_KT_C_DROP] = RANGE(0, 1, "the child's exit: fpu__drop() emits dropped "
				"while its registers are live (6.18 returns early when "
				"TIF_NEED_FPU_LOAD is set)"),
			[FPL_KT_C_COPY] = RANGE(2, 4, "fpu_clone() emits copy_dst in the forking "
				"task: fpulab forking the child, the child forking its grandchild; "
				"kernels that still have x86_fpu_copy_src (6.18 has not) add one "
				"per fork"),
			[FPL_KT_C_OTHER] = NONE(NO_OTHER),
		},
		.xcomp_bit = 18,
		.xcomp_why = "the child's first events (its first return to user space) carry the "
			"default xcomp_bv, without TILEDATA (bit 18: XFD-armed until first use); "
			"fpstate_realloc() gives it an fpstate whose xcomp_bv has bit 18, which "
			"its later events carry",
	},
};

const struct fpl_kexpect *fpl_kexpect_table(size_t *n)
{
	*n = FPL_ARRAY_SIZE(table);
	return table;
}

/* value is one of the comma-separated values. */
static bool one_of(const char *value, const char *values)
{
	size_t n = strlen(value);

	for (const char *p = values; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, value, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

const struct fpl_kexpect *fpl_kexpect_find(const struct fpl_run *run, const char *op)
{
	for (size_t i = 0; i < FPL_ARRAY_SIZE(table); i++) {
		const struct fpl_kexpect *e = &table[i];
		const char *v;

		if (strcmp(e->op, op) || (e->bench && strcmp(e->bench, run->bench)))
			continue;
		v = e->param ? fpl_run_param_get_str(run, e->param) : NULL;
		if (e->param && (!v || !one_of(v, e->values)))
			continue;
		return e;
	}
	return NULL;
}

unsigned fpl_kexpect_version(const char *release)
{
	unsigned long maj, min;
	const char *m;
	char *e;

	if (!release)
		return 0;
	maj = strtoul(release, &e, 10);
	if (e == release || *e != '.')
		return 0;
	m = e + 1;
	min = strtoul(m, &e, 10);
	if (e == m || maj == 0 || maj > 100 || min > 999 ||
	    (*e && *e != '.' && *e != '-' && *e != '+'))
		return 0;
	return FPL_KVER((unsigned)maj, (unsigned)min);
}

enum fpl_kx_applies fpl_kexpect_applies(const struct fpl_kexpect *e, unsigned version)
{
	if (!version || version < e->since)
		return FPL_KX_UNKNOWN;
	return version > e->checked ? FPL_KX_NEWER : FPL_KX_APPLIES;
}

void fpl_kexpect_scope(const struct fpl_kexpect *e, char *buf, size_t len)
{
	snprintf(buf, len, "Linux %u.%u and later (source read up to %u.%u, functions named as "
		 "there); %s%s",
		 e->since / 1000, e->since % 1000, e->checked / 1000, e->checked % 1000,
		 e->tested ? "observed on " : "untested: written from the kernel source only",
		 e->tested ? e->tested : "");
}

static double slack(double bound)
{
	return FPL_KX_TOL * (bound > 1 ? bound : 1);
}

bool fpl_kexpect_agrees(const struct fpl_kx_count *c, double kernel, double switches_per_op)
{
	double extra = c->plus_switches && isfinite(switches_per_op) && switches_per_op > 0 ?
		       switches_per_op : 0;

	if (!c->set || isnan(kernel))
		return false;
	if (kernel < c->min - slack(c->min))
		return false;
	return isinf(c->max) || kernel <= c->max + slack(c->max) + extra;
}

void fpl_kexpect_range(const struct fpl_kx_count *c, char *buf, size_t len)
{
	if (!c->set)
		snprintf(buf, len, "-");
	else if (isinf(c->max))
		snprintf(buf, len, ">=%g", c->min);
	else if (c->min == c->max)
		snprintf(buf, len, "%g%s", c->min, c->plus_switches ? "+sw" : "");
	else
		snprintf(buf, len, "%g-%g%s", c->min, c->max, c->plus_switches ? "+sw" : "");
}

unsigned fpl_kexpect_judge(const struct fpl_kexpect *e, const double per_op[FPL_KT_NCLASSES],
			   double switches_per_op)
{
	unsigned differ = 0;

	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++)
		if (e->c[i].set && !isnan(per_op[i]) &&
		    !fpl_kexpect_agrees(&e->c[i], per_op[i], switches_per_op))
			differ |= 1u << i;
	return differ;
}

struct fpl_kx_count fpl_kexpect_count_for(const struct fpl_kx_count *c, const struct fpl_run *run)
{
	struct fpl_kx_count r = *c;

	if (c->per_param) {
		long long v = run ? fpl_run_param_get_int(run, c->per_param, 0) : 0;

		r.min = r.max = (double)(v > 0 ? v : 0);
	}
	return r;
}

int fpl_kexpect_guest_only(const struct fpl_kexpect *e, unsigned version, uint64_t cpu_supervisor,
			   const uint64_t *guest, size_t nguest, const uint64_t *host, size_t nhost)
{
	uint64_t want = e->guest_only & cpu_supervisor;
	bool ok = true;

	if (!want || !version || version < e->guest_only_since || !nguest || !nhost)
		return -1;
	for (size_t i = 0; i < nguest; i++)
		ok = ok && (guest[i] & want) == want;
	for (size_t i = 0; i < nhost; i++)
		ok = ok && !(host[i] & want);
	return ok;
}

uint64_t fpl_kexpect_restore_floor(const uint64_t *xcomp_bv, size_t n)
{
	uint64_t rfbm = 0;

	for (size_t i = 0; i < n; i++)
		rfbm |= xcomp_bv[i] & ~FPL_XCOMP_BV_COMPACTED;
	return rfbm;
}

int fpl_kexpect_xcomp(const struct fpl_kexpect *e, const uint64_t *xcomp_bv, size_t n)
{
	bool with = false, without = false;

	if (e->xcomp_bit < 0 || !n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (xcomp_bv[i] >> e->xcomp_bit & 1)
			with = true;
		else
			without = true;
	}
	return with && without;
}

int fpl_kexpect_section_model(const char *policy, long long sections, struct fpl_kx_section *out)
{
	bool eager = policy && !strcmp(policy, "eager");

	if (!policy || (!eager && strcmp(policy, "lazy")) || sections < 1)
		return -EINVAL;
	out->sections = (double)sections;
	out->saves = eager ? (double)sections : 1;
	out->restores = out->saves;
	return 0;
}
