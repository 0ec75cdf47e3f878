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
 * ("kernel"). For a dump, "cpuid_source" names it and "microcode" is null.
 * Returns 0 and a new reference in *out, or -ENOMEM.
 */
int fpl_host_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		  const struct fpl_sysinfo *si, json_t **out);

/* The hypervisor's CPUID 0x40000000 signature, trailing blanks removed; false when not a VM. */
bool fpl_host_hypervisor(const struct fpl_cpu *cpu, char name[13]);

#endif
