// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel facts about extended state visible from user space (uname, auxv, arch_prctl, /proc). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "fpulab/sysinfo.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ		51
#endif
/* arch_prctl codes for the XSAVE component permissions (Linux's asm/prctl.h). */
#define ARCH_GET_XCOMP_SUPP	0x1021
#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023

static int xcomp_get(int code, uint64_t *mask)
{
	unsigned long m = 0;

	if (syscall(SYS_arch_prctl, code, &m))
		return -errno;
	*mask = m;
	return 0;
}

int fpl_arch_get_xcomp_supp(uint64_t *mask)
{
	return xcomp_get(ARCH_GET_XCOMP_SUPP, mask);
}

int fpl_arch_get_xcomp_perm(uint64_t *mask)
{
	return xcomp_get(ARCH_GET_XCOMP_PERM, mask);
}

int fpl_arch_req_xcomp_perm(unsigned feature)
{
	return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, (unsigned long)feature) ? -errno : 0;
}

static void read_microcode(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "microcode", 9) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, n, "%s", colon);
		break;
	}
	fclose(f);
}

static void read_arch_status(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/arch_status", "r");
	size_t len = 0;

	out[0] = 0;
	if (!f)
		return;
	len = fread(out, 1, n - 1, f);
	out[len] = 0;
	fclose(f);
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = 0;
}

int fpl_sysinfo_read(struct fpl_sysinfo *si)
{
	struct utsname u;

	memset(si, 0, sizeof(*si));
	if (!uname(&u)) {
		snprintf(si->release, sizeof(si->release), "%s", u.release);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
	}
	read_microcode(si->microcode, sizeof(si->microcode));
	si->minsigstksz = getauxval(AT_MINSIGSTKSZ);
	si->xcomp_supp_err = fpl_arch_get_xcomp_supp(&si->xcomp_supp);
	si->xcomp_perm_err = fpl_arch_get_xcomp_perm(&si->xcomp_perm);
	read_arch_status(si->arch_status, sizeof(si->arch_status));
	return 0;
}

int fpl_schedstat_parse(const char *text, struct fpl_schedstat *out)
{
	unsigned long long r, w, s;
	int end = 0;

	if (sscanf(text, "%llu %llu %llu%n", &r, &w, &s, &end) != 3 ||
	    (text[end] && text[end] != '\n'))
		return -EINVAL;
	out->run_ns = r;
	out->wait_ns = w;
	out->slices = s;
	return 0;
}

int fpl_schedstat_read(int pid, int tid, struct fpl_schedstat *out)
{
	char path[96], buf[128];
	ssize_t n;
	int fd, err = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	buf[n] = 0;
	return fpl_schedstat_parse(buf, out);
}

void fpl_sysinfo_steal(long long steal[FPL_STEAL_CPUS + 1])
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];

	for (int i = 0; i < FPL_STEAL_CPUS + 1; i++)
		steal[i] = -1;
	while (f && fgets(line, sizeof(line), f) && !strncmp(line, "cpu", 3)) {
		long long v[8];
		int cpu = -1, off = 0;

		if (line[3] != ' ' && sscanf(line + 3, "%d%n", &cpu, &off) != 1)
			continue;
		if (line[3] == ' ')
			off = 0;
		if (sscanf(line + 3 + off, "%lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8 && cpu < FPL_STEAL_CPUS)
			steal[cpu + 1] = v[7];
	}
	if (f)
		fclose(f);
}
