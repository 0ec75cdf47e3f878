/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What /dev/kvm offers guests on this host, and which module serves it (VMX, SVM, PVM). */
#ifndef FPULAB_KVMHOST_H
#define FPULAB_KVMHOST_H

#include <stdbool.h>
#include <stdint.h>

#include "fpulab/base.h"

/* The module behind /dev/kvm, and so how a guest's ring 0 and XCR0 are handled. */
enum fpl_kvm_backend {
	FPL_KVM_NONE,		/* no /dev/kvm, or no vendor module found */
	FPL_KVM_VMX,		/* kvm_intel: guest ring 0 native, XCR0/XSS loaded around entry */
	FPL_KVM_SVM,		/* kvm_amd: the same on AMD */
	FPL_KVM_PVM,		/* kvm_pvm: no VMX/SVM; guest ring 0 emulated, XCR0 not switched */
	FPL_KVM_UNKNOWN,	/* /dev/kvm works, but the module is none of these, or several */
};

/* Modules seen under /sys/module, as bits for fpl_kvm_backend_of(). */
#define FPL_KVM_MOD_INTEL	1u
#define FPL_KVM_MOD_AMD		2u
#define FPL_KVM_MOD_PVM		4u

struct fpl_kvm_host {
	bool dev;			/* /dev/kvm exists */
	int open_err;			/* open(O_RDWR): 0 or -errno (-EACCES: no permission) */
	int api;			/* KVM_GET_API_VERSION, 0 unread */
	unsigned modules;		/* FPL_KVM_MOD_* found under /sys/module */
	enum fpl_kvm_backend backend;
	bool vmx, svm;			/* CPUID: this CPU offers VMX (1.ECX[5]) / SVM (0x80000001.ECX[2]) */
	bool nested;			/* this host is itself a guest (CPUID.1:ECX[31]) */
	bool cap_xsave, cap_xcrs;	/* KVM_CAP_XSAVE, KVM_CAP_XCRS */
	int xsave2_size;		/* KVM_CHECK_EXTENSION(KVM_CAP_XSAVE2): bytes, 0 without */
	bool cpuid_read;		/* KVM_GET_SUPPORTED_CPUID worked */
	uint64_t supported_xcr0;	/* its leaf 0xD.0 EDX:EAX: the XCR0 a guest may set */
	uint64_t supported_xss;		/* its leaf 0xD.1 EDX:ECX: the IA32_XSS a guest may set */
	uint32_t d1_eax;		/* its leaf 0xD.1 EAX: XSAVEOPT, XSAVEC, XGETBV1, XSAVES */
	int guest_supp_err;		/* KVM_GET_DEVICE_ATTR KVM_X86_XCOMP_GUEST_SUPP: 0 or -errno */
	uint64_t guest_supp;		/* what a guest fpstate may hold, dynamic (AMX) included */
	int guest_perm_err;		/* ARCH_GET_XCOMP_GUEST_PERM: 0 or -errno */
	uint64_t guest_perm;		/* what this process's guests may hold now */
	char why[200];			/* when it cannot be used: why, naming /dev/kvm */
};

/* "/dev/kvm", or the path in FPL_KVM_DEV (tests: a missing device, a file that is not KVM). */
const char *fpl_kvm_dev_path(void);

/*
 * Read the facts: /dev/kvm opened and queried (no VM is created), the
 * modules under /sys/module (FPL_KVM_SYSMODULE names another folder, for
 * tests), CPUID. 0 when /dev/kvm can be used; -ENOENT (absent), -EACCES,
 * -EPERM or another -errno of open or of the queries, with k->why set.
 * Everything that could be read is in k either way.
 */
int fpl_kvm_host_read(struct fpl_kvm_host *k);

/*
 * The backend from the modules found and the CPU: one vendor module is it;
 * kvm_pvm alone, or kvm_pvm where the CPU has neither VMX nor SVM, is PVM.
 * dev false: FPL_KVM_NONE. Pure.
 */
enum fpl_kvm_backend fpl_kvm_backend_of(bool dev, unsigned modules, bool vmx, bool svm);

/* "kvm_intel (VMX)", "kvm_amd (SVM)", "kvm_pvm (PVM)", "none", "unknown". */
const char *fpl_kvm_backend_name(enum fpl_kvm_backend b);
/*
 * What a figure measured on this backend must say with it: under PVM
 * "PVM: guest ring 0 emulated, XCR0 not switched"; "" for VMX and SVM
 * ("nested: this host is itself a guest" is added by the caller).
 */
const char *fpl_kvm_backend_label(enum fpl_kvm_backend b);

/* ARCH_REQ_XCOMP_GUEST_PERM for one component (18: AMX tile data): 0 or -errno. */
int fpl_arch_req_xcomp_guest_perm(unsigned feature);

#endif
