// SPDX-License-Identifier: GPL-3.0-or-later
/* The throwaway VM: /dev/kvm, memory, one vCPU in 64-bit mode at ring 0 or 3, its XSAVE state. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fpulab/kvmhost.h"
#include "fpulab/xstate.h"
#include "vm.h"

#define CPUID_MAX	512
#define CR0_PE_MP_ET_NE_WP_PG	0x80050033ull
#define CR4_PAE			(1ull << 5)
#define CR4_OSFXSR		(1ull << 9)
#define CR4_OSXMMEXCPT		(1ull << 10)
#define CR4_OSXSAVE		(1ull << 18)
#define EFER_LME_LMA		0x500ull
#define RFLAGS_IOPL3		(3ull << 12)
#define PTE_P_RW_US		7ull
#define PDE_2M			0x80ull

static void seg(struct kvm_segment *s, uint16_t sel, uint8_t type, uint8_t dpl, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->dpl = dpl;
	s->s = 1;
	s->l = code;
	s->db = !code;
	s->g = 1;
}

/* Page tables (one 2 MiB page at 0, user-accessible) and a GDT that matches the segments. */
static void layout(struct fpl_kvm_vm *v)
{
	uint64_t *pml4 = (uint64_t *)(v->mem + FPL_KVM_GPA_PML4);
	uint64_t *pdpt = (uint64_t *)(v->mem + FPL_KVM_GPA_PDPT);
	uint64_t *pd = (uint64_t *)(v->mem + FPL_KVM_GPA_PD);
	uint64_t *gdt = (uint64_t *)(v->mem + FPL_KVM_GPA_GDT);

	pml4[0] = FPL_KVM_GPA_PDPT | PTE_P_RW_US;
	pdpt[0] = FPL_KVM_GPA_PD | PTE_P_RW_US;
	pd[0] = PDE_2M | PTE_P_RW_US;
	gdt[1] = 0x00af9b000000ffffull;		/* 0x08: 64-bit code, DPL 0 */
	gdt[2] = 0x00cf93000000ffffull;		/* 0x10: data, DPL 0 */
	gdt[3] = 0x00affb000000ffffull;		/* 0x18: 64-bit code, DPL 3 */
	gdt[4] = 0x00cff3000000ffffull;		/* 0x20: data, DPL 3 */
	gdt[5] = 0x0000890000000067ull | (uint64_t)FPL_KVM_GPA_TSS << 16;	/* 0x28: TSS */
}

/* Long mode straight away: CR0/CR4/EFER, CS at the guest's ring, a busy 64-bit TSS. */
static int set_sregs(struct fpl_kvm_vm *v, unsigned ring, struct fpl_diag *diag)
{
	uint8_t dpl = ring ? 3 : 0;
	struct kvm_sregs s;

	if (ioctl(v->vcpu, KVM_GET_SREGS, &s))
		return fpl_diag_set(diag, -errno, "KVM_GET_SREGS: %s", strerror(errno));
	s.cr3 = FPL_KVM_GPA_PML4;
	s.cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_OSXSAVE;
	s.cr0 = CR0_PE_MP_ET_NE_WP_PG;
	s.efer = EFER_LME_LMA;
	seg(&s.cs, ring ? 0x1b : 0x08, 11, dpl, true);
	seg(&s.ds, ring ? 0x23 : 0x10, 3, dpl, false);
	s.es = s.fs = s.gs = s.ss = s.ds;
	memset(&s.tr, 0, sizeof(s.tr));
	s.tr.selector = 0x28;
	s.tr.base = FPL_KVM_GPA_TSS;
	s.tr.limit = 0x67;
	s.tr.type = 11;
	s.tr.present = 1;
	s.gdt.base = FPL_KVM_GPA_GDT;
	s.gdt.limit = 7 * 8 - 1;	/* the TSS descriptor takes two entries */
	if (ioctl(v->vcpu, KVM_SET_SREGS, &s))
		return fpl_diag_set(diag, -errno, "KVM_SET_SREGS (64-bit, ring %u): %s", ring,
				    strerror(errno));
	return 0;
}

/* The host's supported CPUID as the guest's: XSAVE, the XCR0 bits, OSXSAVE allowed. */
static int set_cpuid(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	size_t size = sizeof(struct kvm_cpuid2) + CPUID_MAX * sizeof(struct kvm_cpuid_entry2);
	struct kvm_cpuid2 *c = calloc(1, size);
	int err = 0;

	if (!c)
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	c->nent = CPUID_MAX;
	if (ioctl(v->kvm, KVM_GET_SUPPORTED_CPUID, c))
		err = fpl_diag_set(diag, -errno, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
	for (unsigned i = 0; !err && i < c->nent; i++)
		if (c->entries[i].function == 0xd && c->entries[i].index == 0)
			v->supported_xcr0 = (uint64_t)c->entries[i].edx << 32 | c->entries[i].eax;
	if (!err && ioctl(v->vcpu, KVM_SET_CPUID2, c))
		err = fpl_diag_set(diag, -errno, "KVM_SET_CPUID2: %s", strerror(errno));
	free(c);
	return err;
}

/* XCR0: everything the guest may enable (the XRSTOR of a "writes" guest needs its bits). */
static int set_xcr0(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	struct kvm_xcrs x = { .nr_xcrs = 1 };

	x.xcrs[0].xcr = 0;
	x.xcrs[0].value = v->supported_xcr0 | FPL_XFEATURE_MASK_FP;
	if (ioctl(v->vcpu, KVM_SET_XCRS, &x))
		return fpl_diag_set(diag, -errno, "KVM_SET_XCRS (XCR0 0x%llx): %s",
				    (unsigned long long)x.xcrs[0].value, strerror(errno));
	v->xcr0 = x.xcrs[0].value;
	return 0;
}

static int set_regs(struct fpl_kvm_vm *v, unsigned ring, struct fpl_diag *diag)
{
	struct kvm_regs r = { 0 };

	r.rip = FPL_KVM_GPA_CODE;
	r.rsp = FPL_KVM_GPA_STACK;
	r.rflags = 2 | (ring ? RFLAGS_IOPL3 : 0);
	if (ioctl(v->vcpu, KVM_SET_REGS, &r))
		return fpl_diag_set(diag, -errno, "KVM_SET_REGS: %s", strerror(errno));
	return 0;
}

static int open_dev(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	v->kvm = open(fpl_kvm_dev_path(), O_RDWR | O_CLOEXEC);
	if (v->kvm < 0)
		return fpl_diag_set(diag, -errno, "%s: %s", fpl_kvm_dev_path(), strerror(errno));
	v->vm = ioctl(v->kvm, KVM_CREATE_VM, 0);
	if (v->vm < 0)
		return fpl_diag_set(diag, -errno, "KVM_CREATE_VM: %s", strerror(errno));
	return 0;
}

static int add_memory(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	struct kvm_userspace_memory_region r = { .slot = 0, .memory_size = FPL_KVM_MEM_SIZE };
	void *m = mmap(NULL, FPL_KVM_MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED)
		return fpl_diag_set(diag, -errno, "guest memory: %s", strerror(errno));
	v->mem = m;
	r.userspace_addr = (uintptr_t)m;
	if (ioctl(v->vm, KVM_SET_USER_MEMORY_REGION, &r))
		return fpl_diag_set(diag, -errno, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	return 0;
}

/* Tile data for the guest: asked before the first vCPU, or the guest fpstate cannot grow. */
static int amx_perm(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	int err = fpl_arch_req_xcomp_guest_perm(FPL_XFEATURE_XTILE_DATA);

	if (err)
		return fpl_diag_set(diag, -ENOTSUP, "ARCH_REQ_XCOMP_GUEST_PERM (AMX tile data): %s",
				    strerror(-err));
	v->amx_perm = true;
	return 0;
}

static int add_vcpu(struct fpl_kvm_vm *v, struct fpl_diag *diag)
{
	int r;

	v->vcpu = ioctl(v->vm, KVM_CREATE_VCPU, 0);
	if (v->vcpu < 0)
		return fpl_diag_set(diag, -errno, "KVM_CREATE_VCPU: %s", strerror(errno));
	r = ioctl(v->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (r <= 0)
		return fpl_diag_set(diag, -EIO, "KVM_GET_VCPU_MMAP_SIZE: %d", r);
	v->run_size = (size_t)r;
	v->run = mmap(NULL, v->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		return fpl_diag_set(diag, -errno, "mmap of the vCPU's kvm_run: %s", strerror(errno));
	}
	/* On the VM: its size follows the guest permission (AMX) asked before. */
	r = ioctl(v->vm, KVM_CHECK_EXTENSION, KVM_CAP_XSAVE2);
	v->xsave2 = r > 0;
	v->xsave_size = r > (int)sizeof(struct kvm_xsave) ? (size_t)r : sizeof(struct kvm_xsave);
	return 0;
}

int fpl_kvm_vm_open(struct fpl_kvm_vm *v, const struct fpl_kvm_vm_cfg *cfg, struct fpl_diag *diag)
{
	size_t n;
	int err;

	memset(v, 0, sizeof(*v));
	v->kvm = v->vm = v->vcpu = -1;
	err = open_dev(v, diag);
	if (!err)
		err = add_memory(v, diag);
	if (!err && cfg->amx)
		err = amx_perm(v, diag);
	if (!err)
		err = add_vcpu(v, diag);
	if (!err) {
		layout(v);
		n = fpl_kvm_guest_code(&cfg->guest, FPL_KVM_GPA_IMAGE, false,
				       v->mem + FPL_KVM_GPA_CODE, FPL_KVM_CODE_MAX);
		if (!n)
			err = fpl_diag_set(diag, -EINVAL, "the guest's loop (%u CPUIDs) does not fit "
					   "in %u bytes", cfg->guest.cpuids, FPL_KVM_CODE_MAX);
	}
	/* CPUID before SREGS: KVM allows CR4.OSXSAVE only when the guest's CPUID has XSAVE. */
	if (!err)
		err = set_cpuid(v, diag);
	if (!err)
		err = set_sregs(v, cfg->guest.ring, diag);
	if (!err)
		err = set_regs(v, cfg->guest.ring, diag);
	if (!err)
		err = set_xcr0(v, diag);
	if (err)
		fpl_kvm_vm_close(v);
	return err;
}

void fpl_kvm_vm_close(struct fpl_kvm_vm *v)
{
	if (v->run)
		munmap(v->run, v->run_size);
	if (v->mem)
		munmap(v->mem, FPL_KVM_MEM_SIZE);
	if (v->vcpu >= 0)
		close(v->vcpu);
	if (v->vm >= 0)
		close(v->vm);
	if (v->kvm >= 0)
		close(v->kvm);
	memset(v, 0, sizeof(*v));
	v->kvm = v->vm = v->vcpu = -1;
}

int fpl_kvm_vm_set_xsave(struct fpl_kvm_vm *v, const void *img)
{
	return ioctl(v->vcpu, KVM_SET_XSAVE, img) ? -errno : 0;
}

int fpl_kvm_vm_get_xsave(struct fpl_kvm_vm *v, void *img)
{
	return ioctl(v->vcpu, v->xsave2 ? KVM_GET_XSAVE2 : KVM_GET_XSAVE, img) ? -errno : 0;
}

bool fpl_kvm_vm_emulation_failed(const struct fpl_kvm_vm *v)
{
	return v->run && v->run->exit_reason == KVM_EXIT_INTERNAL_ERROR &&
	       v->run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION;
}

const char *fpl_kvm_vm_exit_text(const struct fpl_kvm_vm *v, char *buf, size_t len)
{
	const struct kvm_run *r = v->run;

	if (!r)
		snprintf(buf, len, "no vCPU");
	else if (r->exit_reason == KVM_EXIT_IO)
		snprintf(buf, len, "KVM_EXIT_IO on port 0x%x, not 0x%x", r->io.port, FPL_KVM_PORT);
	else if (r->exit_reason == KVM_EXIT_INTERNAL_ERROR)
		snprintf(buf, len, "KVM_EXIT_INTERNAL_ERROR, %s (suberror %u)",
			 r->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
			 "KVM's instruction emulator failed" : "internal error",
			 r->internal.suberror);
	else if (r->exit_reason == KVM_EXIT_SHUTDOWN)
		snprintf(buf, len, "KVM_EXIT_SHUTDOWN (the guest faulted: a triple fault)");
	else if (r->exit_reason == KVM_EXIT_FAIL_ENTRY)
		snprintf(buf, len, "KVM_EXIT_FAIL_ENTRY (hardware entry failure 0x%llx)",
			 (unsigned long long)r->fail_entry.hardware_entry_failure_reason);
	else
		snprintf(buf, len, "exit reason %u", r->exit_reason);
	return buf;
}
