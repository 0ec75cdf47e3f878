// SPDX-License-Identifier: GPL-3.0-or-later
/* /dev/kvm as a host fact: the module behind it, what it offers guests (XCR0, XSS, XSAVE2 size). */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fpulab/kvmhost.h"

/* Linux's asm/prctl.h and asm/kvm.h, for older headers. */
#define ARCH_GET_XCOMP_GUEST_PERM	0x1024
#define ARCH_REQ_XCOMP_GUEST_PERM	0x1025
#define GRP_SYSTEM			0	/* KVM_X86_GRP_SYSTEM */
#define XCOMP_GUEST_SUPP		0	/* KVM_X86_XCOMP_GUEST_SUPP */

#define CPUID_MAX	512

const char *fpl_kvm_dev_path(void)
{
	const char *p = getenv("FPL_KVM_DEV");

	return p && *p ? p : "/dev/kvm";
}

enum fpl_kvm_backend fpl_kvm_backend_of(bool dev, unsigned modules, bool vmx, bool svm)
{
	unsigned vendor = modules & (FPL_KVM_MOD_INTEL | FPL_KVM_MOD_AMD);

	if (!dev)
		return FPL_KVM_NONE;
	/* kvm_pvm next to a vendor module is the vendor's /dev/kvm when the CPU has VMX/SVM. */
	if ((modules & FPL_KVM_MOD_PVM) && (!vendor || (!vmx && !svm)))
		return FPL_KVM_PVM;
	if (vendor == FPL_KVM_MOD_INTEL)
		return FPL_KVM_VMX;
	if (vendor == FPL_KVM_MOD_AMD)
		return FPL_KVM_SVM;
	return FPL_KVM_UNKNOWN;
}

const char *fpl_kvm_backend_name(enum fpl_kvm_backend b)
{
	switch (b) {
	case FPL_KVM_VMX: return "kvm_intel (VMX)";
	case FPL_KVM_SVM: return "kvm_amd (SVM)";
	case FPL_KVM_PVM: return "kvm_pvm (PVM)";
	case FPL_KVM_UNKNOWN: return "unknown";
	default: return "none";
	}
}

const char *fpl_kvm_backend_label(enum fpl_kvm_backend b)
{
	if (b == FPL_KVM_PVM)
		return "PVM: guest ring 0 emulated, XCR0 not switched";
	if (b == FPL_KVM_UNKNOWN)
		return "unknown KVM backend: guest ring 0 and XCR0 handling not known";
	return "";
}

int fpl_arch_req_xcomp_guest_perm(unsigned feature)
{
	return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_GUEST_PERM, (unsigned long)feature) ?
	       -errno : 0;
}

static bool has_module(const char *root, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void read_cpu(struct fpl_kvm_host *k)
{
	unsigned a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d)) {
		k->vmx = c >> 5 & 1;
		k->nested = c >> 31 & 1;
	}
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		k->svm = c >> 2 & 1;
}

/* Leaf 0xD of KVM_GET_SUPPORTED_CPUID: what a guest may enable. 0 or -errno. */
static int read_supported(struct fpl_kvm_host *k, int fd)
{
	size_t size = sizeof(struct kvm_cpuid2) + CPUID_MAX * sizeof(struct kvm_cpuid_entry2);
	struct kvm_cpuid2 *c = calloc(1, size);
	int err = 0;

	if (!c)
		return -ENOMEM;
	c->nent = CPUID_MAX;
	if (ioctl(fd, KVM_GET_SUPPORTED_CPUID, c)) {
		err = -errno;
		free(c);
		return err;
	}
	for (unsigned i = 0; i < c->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function != 0xd)
			continue;
		if (e->index == 0)
			k->supported_xcr0 = (uint64_t)e->edx << 32 | e->eax;
		if (e->index == 1) {
			k->supported_xss = (uint64_t)e->edx << 32 | e->ecx;
			k->d1_eax = e->eax;
		}
	}
	k->cpuid_read = true;
	free(c);
	return 0;
}

static void read_guest_masks(struct fpl_kvm_host *k, int fd)
{
	unsigned long perm = 0;
	uint64_t supp = 0;
	struct kvm_device_attr attr = {
		.group = GRP_SYSTEM, .attr = XCOMP_GUEST_SUPP, .addr = (uintptr_t)&supp,
	};

	k->guest_supp_err = ioctl(fd, KVM_GET_DEVICE_ATTR, &attr) ? -errno : 0;
	if (!k->guest_supp_err)
		k->guest_supp = supp;
	k->guest_perm_err = syscall(SYS_arch_prctl, ARCH_GET_XCOMP_GUEST_PERM, &perm) ? -errno : 0;
	if (!k->guest_perm_err)
		k->guest_perm = perm;
}

/* The queries of an open /dev/kvm. 0 or -errno with k->why. */
static int query(struct fpl_kvm_host *k, int fd)
{
	int r, err;

	k->api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (k->api != KVM_API_VERSION) {
		snprintf(k->why, sizeof(k->why), "%s: KVM_GET_API_VERSION gave %d, not %d (not "
			 "KVM?)", fpl_kvm_dev_path(), k->api, KVM_API_VERSION);
		return -ENOTSUP;
	}
	k->cap_xsave = ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_XSAVE) > 0;
	k->cap_xcrs = ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_XCRS) > 0;
	r = ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_XSAVE2);
	k->xsave2_size = r > 0 ? r : 0;
	read_guest_masks(k, fd);
	err = read_supported(k, fd);
	if (err)
		snprintf(k->why, sizeof(k->why), "%s: KVM_GET_SUPPORTED_CPUID: %s",
			 fpl_kvm_dev_path(), strerror(-err));
	else if (!k->cap_xsave)
		snprintf(k->why, sizeof(k->why), "%s: no KVM_CAP_XSAVE (guest state cannot be "
			 "set or read)", fpl_kvm_dev_path());
	return err ? err : k->cap_xsave ? 0 : -ENOTSUP;
}

int fpl_kvm_host_read(struct fpl_kvm_host *k)
{
	const char *root = getenv("FPL_KVM_SYSMODULE");
	struct stat st;
	int fd, err;

	memset(k, 0, sizeof(*k));
	if (!root || !*root)
		root = "/sys/module";
	read_cpu(k);
	k->modules = (has_module(root, "kvm_intel") ? FPL_KVM_MOD_INTEL : 0) |
		     (has_module(root, "kvm_amd") ? FPL_KVM_MOD_AMD : 0) |
		     (has_module(root, "kvm_pvm") ? FPL_KVM_MOD_PVM : 0);
	k->dev = !stat(fpl_kvm_dev_path(), &st);
	k->backend = fpl_kvm_backend_of(k->dev, k->modules, k->vmx, k->svm);
	if (!k->dev) {
		snprintf(k->why, sizeof(k->why), "no %s (KVM not built in or not loaded, or no "
			 "device node in this container)", fpl_kvm_dev_path());
		return k->open_err = -ENOENT;
	}
	fd = open(fpl_kvm_dev_path(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		k->open_err = -errno;
		snprintf(k->why, sizeof(k->why), "%s: %s%s", fpl_kvm_dev_path(), strerror(errno),
			 errno == EACCES || errno == EPERM ? " (not root and not in its group)" : "");
		return k->open_err;
	}
	err = query(k, fd);
	close(fd);
	return err;
}
