/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the running kernel tells user space about FPU state: release, signal stack, XCOMP permissions. */
#ifndef FPULAB_SYSINFO_H
#define FPULAB_SYSINFO_H

#include <stdbool.h>
#include <stdint.h>

struct fpl_sysinfo {
	char release[128];		/* uname -r */
	char machine[65];		/* uname -m */
	char microcode[32];		/* /proc/cpuinfo "microcode", "" when absent (VMs) */
	unsigned long minsigstksz;	/* getauxval(AT_MINSIGSTKSZ), 0 when not given */
	/* arch_prctl(ARCH_GET_XCOMP_SUPP / ARCH_GET_XCOMP_PERM); *_err 0 or -errno */
	uint64_t xcomp_supp, xcomp_perm;
	int xcomp_supp_err, xcomp_perm_err;
	/* /proc/self/arch_status, as the kernel wrote it; "" when absent */
	char arch_status[1024];
};

/* Gather the facts; never fails (a fact that cannot be read stays empty or carries its error). */
int fpl_sysinfo_read(struct fpl_sysinfo *si);

/*
 * The raw arch_prctl calls for XSAVE component permissions, each one system
 * call and nothing else (no cache: what fpulab amx times). The getters: 0
 * and *mask, or -errno with *mask untouched. ARCH_REQ_XCOMP_PERM for one
 * feature (18: AMX tile data): 0 or -errno (-ENOSPC: a sigaltstack smaller
 * than the frame with it is installed). fpl_amx_request_perm() (amx.h) is
 * the cached request the library and the commands use.
 */
int fpl_arch_get_xcomp_supp(uint64_t *mask);
int fpl_arch_get_xcomp_perm(uint64_t *mask);
int fpl_arch_req_xcomp_perm(unsigned feature);

/*
 * Steal time from /proc/stat (USER_HZ ticks): the time the hypervisor gave
 * a vCPU's physical CPU to something else. steal[0]: all CPUs, steal[1 + n]:
 * CPU n (n < FPL_STEAL_CPUS); -1 where not read.
 */
#define FPL_STEAL_CPUS 256
void fpl_sysinfo_steal(long long steal[FPL_STEAL_CPUS + 1]);

/*
 * A task's scheduler statistics (/proc/PID/task/TID/schedstat: three
 * numbers, ns on the CPU, ns waiting on a runqueue, timeslices): the second,
 * the run delay, is the time the task was runnable but another ran.
 * fpl_schedstat_parse() reads the text; fpl_schedstat_read() the file of
 * task tid of process pid (0: this process). 0, -errno, -EINVAL.
 */
struct fpl_schedstat {
	uint64_t run_ns, wait_ns, slices;
};
int fpl_schedstat_parse(const char *text, struct fpl_schedstat *out);
int fpl_schedstat_read(int pid, int tid, struct fpl_schedstat *out);

#endif
