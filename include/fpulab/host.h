/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The "host" object of every results document and of `fpulab info --json`. */
#ifndef FPULAB_HOST_H
#define FPULAB_HOST_H

#include <jansson.h>

#include "fpulab/cpu.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"

/*
 * Build the host object: tool version and build flags, CPU identity, VM or not, XCR0, XINUSE (read now,
 * live CPU only, else null), XSAVE sizes, save instructions, the component
 * table ("components": id, name, supervisor, enabled, size, offset,
 * compacted_offset, align64, xfd) and, when si is given, the kernel's facts
 * ("kernel"), what /dev/kvm offers guests ("kvm", fpl_host_kvm_json), the
 * three masks ("masks", fpl_host_masks_json) and the AMX palette ("amx").
 * For a dump, "cpuid_source" names it and "microcode" is null.
 * Returns 0 and a new reference in *out, or -ENOMEM.
 */
int fpl_host_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		  const struct fpl_sysinfo *si, json_t **out);

/*
 * The three masks (fpl_xstate_masks()) as an object: xcr0, permitted,
 * active (hex) with where they came from, xfd, size_standard and
 * size_compacted of each, signal_frame_xstate_size (what the kernel writes
 * for this task now) and signal_frame_xstate_size_all_used (after
 * permission and first use of every XFD component), signal_frame_seen when
 * a frame was read, and a note when AMX tile data is not permitted. The
 * host object carries it as "masks". NULL on -ENOMEM.
 */
json_t *fpl_host_masks_json(const struct fpl_xstate *xs, const struct fpl_xstate_masks *m);
/* The AMX palette as the host object's "amx": supported, why, tiles, rows, bytes_per_row, ... */
json_t *fpl_host_amx_json(const struct fpl_xstate *xs);

struct fpl_clock;

/*
 * The host object of a measuring run: fpl_host_json() with the kernel's
 * facts read now, plus "clock" (fpl_clock_json). 0 and a new reference in
 * *out; -ENOMEM.
 */
int fpl_host_measured_json(const struct fpl_cpu *cpu, const struct fpl_clock *clock,
			   json_t **out);
/*
 * What this process is, for telling runs apart (host.process): its pid,
 * whether its address space is randomised, where its stack, heap and a
 * fresh mapping landed, the CPUs it may run on. NULL on -ENOMEM.
 */
json_t *fpl_host_process_json(void);

struct fpl_kvm_host;
/*
 * What /dev/kvm offers guests (fpl_kvm_host_read(), err its result) as the
 * host object's "kvm": the backend and its label, the modules seen, VMX/SVM
 * on the CPU, nested, the capabilities, the supported XCR0 and XSS (hex and
 * component names), KVM_CAP_XSAVE2's size, KVM_X86_XCOMP_GUEST_SUPP, this
 * process's guest permission, and why it is not usable. NULL on -ENOMEM.
 */
json_t *fpl_host_kvm_json(const struct fpl_kvm_host *k, int err);

/* The hypervisor's CPUID 0x40000000 signature, trailing blanks removed; false when not a VM. */
bool fpl_host_hypervisor(const struct fpl_cpu *cpu, char name[13]);

#endif
