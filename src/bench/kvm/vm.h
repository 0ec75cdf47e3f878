/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A throwaway VM for fpulab kvm: one vCPU, 2 MiB of memory, a 64-bit guest that exits in a loop. */
#ifndef FPULAB_BENCH_KVM_VM_H
#define FPULAB_BENCH_KVM_VM_H

#include <errno.h>
#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "fpulab/base.h"

/* The port the guest writes to: every round trip is one KVM_EXIT_IO on it. */
#define FPL_KVM_PORT		0x10
/* Guest-physical layout (identity-mapped by one 2 MiB page, user-accessible). */
#define FPL_KVM_MEM_SIZE	(2u << 20)
#define FPL_KVM_GPA_PML4	0x1000u
#define FPL_KVM_GPA_PDPT	0x2000u
#define FPL_KVM_GPA_PD		0x3000u
#define FPL_KVM_GPA_GDT		0x4000u
#define FPL_KVM_GPA_TSS		0x5000u
#define FPL_KVM_GPA_CODE	0x8000u
#define FPL_KVM_CODE_MAX	0x8000u
#define FPL_KVM_GPA_IMAGE	0x10000u	/* the XRSTOR image of the "writes" guest */
#define FPL_KVM_IMAGE_MAX	0x20000u
#define FPL_KVM_GPA_STACK	0x40000u

/* What the guest does between two exits to user space. */
struct fpl_kvm_guest {
	unsigned ring;		/* 0, or 3 (IOPL 3, so that OUT is allowed there) */
	unsigned cpuids;	/* CPUID (leaf 0) instructions before the OUT: exits KVM handles itself */
	bool writes;		/* XRSTOR of the image at FPL_KVM_GPA_IMAGE right before the OUT */
	uint64_t rfbm;		/* that XRSTOR's RFBM */
};

/*
 * The loop's machine code at code (at most len bytes), for a guest at
 * FPL_KVM_GPA_CODE: [CPUID x cpuids] [XRSTOR64 [image] with EDX:EAX = rfbm]
 * OUT FPL_KVM_PORT, AL; JMP back. image is the XRSTOR image's address.
 * host_call: instead of OUT and the jump, return (RBX saved around it), so
 * that a test can run the same bytes as a function in this process. The
 * length, or 0 when len is too small.
 */
size_t fpl_kvm_guest_code(const struct fpl_kvm_guest *g, uint32_t image, bool host_call,
			  uint8_t *code, size_t len);

struct fpl_kvm_vm {
	int kvm, vm, vcpu;
	struct kvm_run *run;
	size_t run_size;
	uint8_t *mem;			/* guest memory, FPL_KVM_MEM_SIZE bytes at GPA 0 */
	size_t xsave_size;		/* bytes KVM_GET_XSAVE2/KVM_SET_XSAVE move (>= 4096) */
	bool xsave2;			/* KVM_GET_XSAVE2 is there */
	uint64_t xcr0;			/* the guest's XCR0 (KVM_SET_XCRS) */
	uint64_t supported_xcr0;	/* KVM_GET_SUPPORTED_CPUID 0xD.0 */
	bool amx_perm;			/* ARCH_REQ_XCOMP_GUEST_PERM granted tile data */
};

/* What to ask of the VM besides the guest. */
struct fpl_kvm_vm_cfg {
	struct fpl_kvm_guest guest;
	bool amx;			/* ask guest permission for AMX tile data first */
};

/*
 * Create the VM, its memory, one vCPU with the host's supported CPUID, a
 * 64-bit guest at ring g->ring running fpl_kvm_guest_code(), XCR0 the
 * guest's whole supported mask. Every fd is closed again on failure.
 * 0; -ENOENT/-EACCES for /dev/kvm; -ENOTSUP for what this host cannot give
 * a guest (AMX permission refused); -errno of an ioctl; all with diag.
 */
int fpl_kvm_vm_open(struct fpl_kvm_vm *v, const struct fpl_kvm_vm_cfg *cfg,
		    struct fpl_diag *diag);
/* Every fd and mapping released; v zeroed with fds -1. Idempotent. */
void fpl_kvm_vm_close(struct fpl_kvm_vm *v);

/* The guest's state from a standard-format image of v->xsave_size bytes. 0 or -errno. */
int fpl_kvm_vm_set_xsave(struct fpl_kvm_vm *v, const void *img);
/* The guest's state into img (v->xsave_size bytes). 0 or -errno. */
int fpl_kvm_vm_get_xsave(struct fpl_kvm_vm *v, void *img);

/*
 * One KVM_RUN. 0 when it came back with the loop's exit (KVM_EXIT_IO, port
 * FPL_KVM_PORT); -EINTR when a signal cut it short (KVM_EXIT_INTR or
 * EINTR); -EIO for any other exit (fpl_kvm_vm_exit_text() says which);
 * -errno of the ioctl.
 */
static inline int fpl_kvm_vm_run(struct fpl_kvm_vm *v)
{
	if (ioctl(v->vcpu, KVM_RUN, 0) < 0)
		return -errno;
	if (v->run->exit_reason == KVM_EXIT_IO && v->run->io.port == FPL_KVM_PORT)
		return 0;
	return v->run->exit_reason == KVM_EXIT_INTR ? -EINTR : -EIO;
}

/*
 * The last exit in words ("KVM_EXIT_INTERNAL_ERROR, emulation failure",
 * "KVM_EXIT_SHUTDOWN (triple fault)") into buf. Returns buf.
 */
const char *fpl_kvm_vm_exit_text(const struct fpl_kvm_vm *v, char *buf, size_t len);
/* The last exit was KVM's instruction emulator failing (KVM_INTERNAL_ERROR_EMULATION). */
bool fpl_kvm_vm_emulation_failed(const struct fpl_kvm_vm *v);

#endif
