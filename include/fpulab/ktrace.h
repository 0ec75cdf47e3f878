/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The running kernel's view: tracefs x86_fpu events of fpulab's own tasks, dmesg xstate lines. */
#ifndef FPULAB_KTRACE_H
#define FPULAB_KTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/result.h"

/* The x86_fpu trace events (include/trace/events/fpu.h), plus the trace_marker lines. */
enum fpl_kt_type {
	FPL_KT_REGS_ACTIVATED,		/* x86_fpu_regs_activated: on the way to user space */
	FPL_KT_REGS_DEACTIVATED,	/* x86_fpu_regs_deactivated: the task's registers saved */
	FPL_KT_DROPPED,			/* x86_fpu_dropped */
	FPL_KT_COPY_DST,		/* x86_fpu_copy_dst: fork's copy */
	FPL_KT_COPY_SRC,		/* x86_fpu_copy_src (older kernels) */
	FPL_KT_BEFORE_SAVE,
	FPL_KT_AFTER_SAVE,
	FPL_KT_BEFORE_RESTORE,		/* older kernels */
	FPL_KT_AFTER_RESTORE,
	FPL_KT_INIT_STATE,
	FPL_KT_XSTATE_CHECK_FAILED,
	FPL_KT_OTHER,			/* an x86_fpu_* event this list does not know */
	FPL_KT_NEVENTS,
	FPL_KT_MARKER = FPL_KT_NEVENTS,	/* tracing_mark_write: text */
	FPL_KT_KVM,			/* a kvm:* event, which one in kvm (fpl_kt_kvm) */
};

/*
 * The kvm events fpulab counts (include/trace/events/kvm.h and
 * arch/x86/kvm/trace.h), when fpl_ktrace_kvm() enabled them: what a
 * KVM_RUN round trip does with the guest's FPU state and its exits.
 */
enum fpl_kt_kvm {
	FPL_KT_KVM_FPU_LOAD,		/* kvm_fpu: load (kvm_load_guest_fpu) */
	FPL_KT_KVM_FPU_UNLOAD,		/* kvm_fpu: unload (kvm_put_guest_fpu) */
	FPL_KT_KVM_USERSPACE_EXIT,	/* kvm_userspace_exit: KVM_RUN returns */
	FPL_KT_KVM_PIO,			/* kvm_pio: a port access */
	FPL_KT_KVM_CPUID,		/* kvm_cpuid: a CPUID KVM answered */
	FPL_KT_KVM_EXIT,		/* kvm_exit: a VM exit (VMX/SVM) */
	FPL_KT_KVM_ENTRY,		/* kvm_entry: a VM entry (VMX/SVM) */
	FPL_KT_KVM_EMULATE_INSN,	/* kvm_emulate_insn: KVM's emulator ran a guest instruction */
	FPL_KT_KVM_OTHER,		/* another kvm event */
	FPL_KT_KVM_NEVENTS
};

/* The event's name ("kvm_fpu load", "kvm_exit") and its key in a pass object ("fpu_loads"). */
const char *fpl_kt_kvm_name(enum fpl_kt_kvm k);
const char *fpl_kt_kvm_key(enum fpl_kt_kvm k);

/* The event's name without the x86_fpu_ prefix ("regs_activated"). */
const char *fpl_kt_type_name(enum fpl_kt_type t);

/* One line of a tracefs `trace` file. */
struct fpl_kt_event {
	enum fpl_kt_type type;
	char comm[32];
	pid_t tid;
	int cpu;
	uint64_t ts;			/* trace_clock units: TSC ticks with x86-tsc */
	/* x86_fpu events */
	bool load;			/* "load: 1": the registers were restored (activated) */
	uint64_t xfeatures;		/* the fpstate's XSTATE_BV */
	uint64_t xcomp_bv;		/* its XCOMP_BV: bit 63 compacted, the rest the RFBM */
	/* markers */
	char text[96];
	/* kvm events */
	enum fpl_kt_kvm kvm;
};

/*
 * Parse one line (without the newline). 1: an event or marker in *ev;
 * 0: a line that carries none (empty, a '#' header, another subsystem's
 * event, the stacktrace option's "<stack trace>" line and its "=> fn"
 * frames); -EINVAL: not a trace line (malformed).
 */
int fpl_kt_parse_line(const char *line, struct fpl_kt_event *ev);

#define FPL_KT_MAX_TASKS	16
#define FPL_KT_MAX_MASKS	8

/* What one task's events said. */
struct fpl_kt_task {
	pid_t tid;
	char comm[32];
	uint64_t count[FPL_KT_NEVENTS];
	uint64_t restores;		/* regs_activated with load 1 */
	uint64_t no_load;		/* regs_activated with load 0 */
	uint64_t xfeatures[FPL_KT_MAX_MASKS], xcomp_bv[FPL_KT_MAX_MASKS];
	unsigned nxfeatures, nxcomp_bv;
	uint64_t first_ts, last_ts;
	/* its last x86_fpu event's masks: kvm_fpu load/unload follow the swap's regs_activated */
	uint64_t last_xcomp_bv, last_xfeatures;
	bool last_fpu;
};

/*
 * The events of the listed tasks between two markers, as read from one
 * `trace` file. Pure data: filled by fpl_kt_tally() from text.
 */
struct fpl_kt_tally {
	struct fpl_kt_task task[FPL_KT_MAX_TASKS];
	unsigned ntasks;
	uint64_t saves, restores, no_load, drops, copies;	/* all listed tasks */
	uint64_t count[FPL_KT_NEVENTS];
	uint64_t others;		/* x86_fpu events of tasks not listed, inside the window */
	uint64_t begin_ts, end_ts;	/* the markers' timestamps (0 if not seen) */
	bool begin_seen, end_seen;
	long long entries, written;	/* the header's entries-in-buffer/entries-written, -1 */
	uint64_t lines;
	/*
	 * kvm events of the listed tasks. fpu_swap_kvm_fpstate() ends in
	 * fpregs_mark_activate() (regs_activated) for the fpstate it loaded,
	 * and KVM emits kvm_fpu right after: the task's x86_fpu event before
	 * a kvm_fpu load is the guest fpstate's, before an unload the host
	 * task's. kvm_unpaired: kvm_fpu events with no x86_fpu event before.
	 */
	uint64_t kvm[FPL_KT_KVM_NEVENTS];
	bool kvm_seen;
	uint64_t guest_xcomp_bv[FPL_KT_MAX_MASKS], host_xcomp_bv[FPL_KT_MAX_MASKS];
	uint64_t guest_xfeatures[FPL_KT_MAX_MASKS];
	unsigned nguest_xcomp_bv, nhost_xcomp_bv, nguest_xfeatures;
	uint64_t kvm_unpaired;
};

/*
 * Count the x86_fpu events of tasks tids[0..ntids) (every task when ntids is
 * 0) in text: after the marker whose text starts with begin (from the start
 * when NULL) up to the marker starting with end (to the end when NULL).
 * -EINVAL with diag naming the line number of a malformed line; -E2BIG when
 * more than FPL_KT_MAX_TASKS tasks are seen.
 */
int fpl_kt_tally(const char *text, size_t len, const pid_t *tids, size_t ntids,
		 const char *begin, const char *end, struct fpl_kt_tally *t,
		 struct fpl_diag *diag);

/*
 * What fpulab compares with the model: the x86_fpu events in six classes.
 * Each class is a key of the `kernel` object (a count), so a pass read
 * back from JSON gives the same figures as the tally it was made from.
 */
enum fpl_kt_class {
	FPL_KT_C_SAVE,		/* regs_deactivated: "saves" */
	FPL_KT_C_RESTORE,	/* regs_activated, load 1: "restores" */
	FPL_KT_C_ACTIVATE,	/* regs_activated, load 0: "restores_without_load" */
	FPL_KT_C_DROP,		/* dropped: "drops" */
	FPL_KT_C_COPY,		/* copy_dst, copy_src: "copies" */
	FPL_KT_C_OTHER,		/* every other x86_fpu event: "other" */
	FPL_KT_NCLASSES
};

/* The class's key in the kernel object ("saves"). */
const char *fpl_kt_class_key(enum fpl_kt_class c);
/*
 * A traced pass's counts per operation, by class, from its kernel object
 * (fpl_kt_tally_json); NAN where the object lacks the count or has no
 * operations.
 */
void fpl_kt_class_per_op(const json_t *pass, double per_op[FPL_KT_NCLASSES]);

/* Names of the components of a mask ("x87,SSE,AVX"), as fpl_xfeature_mask_names. */
typedef char *(*fpl_kt_namer)(uint64_t mask, char *buf, size_t len);

/*
 * The `kernel` object of a run (docs/results-schema.md): counts over ops
 * operations, per-op figures, the masks each task had with their component
 * names (namer may be NULL), the timestamps; where kvm events were seen,
 * "kvm" (each event's count and per-op figure) and the guest fpstates' and
 * host task's xcomp_bv ("kvm_guest_xcomp_bv", "kvm_host_xcomp_bv",
 * "kvm_guest_xfeatures"). NULL on ENOMEM.
 */
json_t *fpl_kt_tally_json(const struct fpl_kt_tally *t, double ops, const char *op,
			  fpl_kt_namer namer);

/*
 * A session on the running kernel's tracefs. Opening finds tracefs in
 * /proc/mounts, or mounts it in a private mount namespace: the calling
 * thread then leaves the parent's mount namespace for the rest of its life
 * (unshare(CLONE_NEWNS), / made private; nothing changes outside the
 * process). The environment variable FPL_TRACEFS names a tracefs root to
 * use instead (tests point it at a directory without tracefs). An instance
 * instances/fpulab-PID of its own is created with trace_clock x86-tsc
 * where offered, a 16 MiB buffer (smaller per CPU on large machines) and
 * the x86_fpu events enabled, tracing off until fpl_ktrace_begin().
 *
 * The library installs no signal handler: the caller must call
 * fpl_ktrace_close() on every exit path (fpulab's CLI does it from its
 * session end, which SIGINT/SIGTERM reach, and from atexit()).
 */
struct fpl_ktrace;

/* 0, or -EPERM (not root), -ENODEV (no tracefs), -ENOENT (no x86_fpu events) ... with diag. */
int fpl_ktrace_open(struct fpl_ktrace **out, struct fpl_diag *diag);
/* Remove the instance (tracing off first), unmap, free. NULL is allowed. */
void fpl_ktrace_close(struct fpl_ktrace *kt);
/* Async-signal-safe and idempotent: just the rmdir of the instance (for a last-resort hook). */
void fpl_ktrace_remove_instance(struct fpl_ktrace *kt);
/* The tracefs root and instance path in use. */
const char *fpl_ktrace_root(const struct fpl_ktrace *kt);
const char *fpl_ktrace_instance(const struct fpl_ktrace *kt);
/* The trace_clock in use ("x86-tsc", else the kernel's default). */
const char *fpl_ktrace_clock(const struct fpl_ktrace *kt);

/*
 * Enable (on) or disable the kvm events fpulab counts (fpl_kt_kvm) in the
 * instance: only around a KVM benchmark's traced passes, since an enabled
 * event costs its probe even while tracing is off. 0; -ENOENT (no kvm
 * events: KVM not in this kernel) or -errno with diag.
 */
int fpl_ktrace_kvm(struct fpl_ktrace *kt, bool on, struct fpl_diag *diag);

/* Clear the buffer, tracing on, write the marker "fpulab-begin TAG". 0 or -errno. */
int fpl_ktrace_begin(struct fpl_ktrace *kt, const char *tag);
/*
 * Marker "fpulab-end TAG", tracing off, read the buffer and tally the events
 * of tids between the two markers. 0 or -errno with diag.
 */
int fpl_ktrace_end(struct fpl_ktrace *kt, const char *tag, const pid_t *tids, size_t ntids,
		   struct fpl_kt_tally *t, struct fpl_diag *diag);

/*
 * The calling task's own events over a few short sleeps (each one a
 * switch out and back): what the kernel keeps for it (xcomp_bv). 0 or -errno.
 */
int fpl_ktrace_probe_self(struct fpl_ktrace *kt, struct fpl_kt_tally *t, struct fpl_diag *diag);

/*
 * The names of the instances under root/instances starting with prefix
 * ("fpulab-"), comma-separated into buf. Count found, or -errno.
 */
int fpl_ktrace_list_instances(const char *root, const char *prefix, char *buf, size_t len);

/*
 * Remove the instances root/instances/fpulab-<pid> whose process is gone (a
 * run killed with SIGKILL cannot remove its own: 32 MiB of trace buffer
 * each). fpl_ktrace_open does it first; fpl_ktrace_stale() names those it
 * removed ("" when none). Returns how many were removed, or -errno for the
 * directory; names ("fpulab-123, fpulab-456") into names.
 */
int fpl_ktrace_remove_stale(const char *root, char *names, size_t len);
const char *fpl_ktrace_stale(const struct fpl_ktrace *kt);

/* The calling thread's id. */
pid_t fpl_ktrace_gettid(void);

/* ---- dmesg: the kernel's own "x86/fpu:" lines ---- */

#define FPL_KT_DMESG_MAX	64

struct fpl_kt_dmesg {
	uint64_t features;			/* "Supporting XSAVE feature 0x..." lines, ORed */
	unsigned nfeatures;
	int offset[FPL_KT_DMESG_MAX];		/* xstate_offset[i], -1 if not printed */
	int size[FPL_KT_DMESG_MAX];		/* xstate_sizes[i], -1 if not printed */
	uint64_t enabled;			/* "Enabled xstate features 0x..." */
	long context_size;			/* "context size is N bytes", -1 */
	char format[16];			/* "compacted" or "standard" */
	unsigned lines;				/* x86/fpu lines read */
};

/*
 * Parse dmesg text (any lines; only "x86/fpu:" ones are read). 0, or
 * -EINVAL with diag naming the line number of an x86/fpu line that does not
 * parse, or -ENOENT when there is none.
 */
int fpl_kt_dmesg_parse(const char *text, size_t len, struct fpl_kt_dmesg *d,
		       struct fpl_diag *diag);
/*
 * The kernel log (klogctl SYSLOG_ACTION_READ_ALL) into a malloc'ed buffer.
 * 0 or -errno (-EPERM without the right).
 */
int fpl_kt_dmesg_read(char **text, size_t *len);

#endif
