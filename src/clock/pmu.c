// SPDX-License-Identifier: GPL-3.0-or-later
/* Core cycles counted by rdpmc, where perf_event_open offers a user-readable counter. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock_internal.h"

static long perf_open(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

/*
 * Open a core-cycle counter for this thread and map its page; usable only
 * when the kernel lets user space read it (cap_user_rdpmc and an index).
 * Anything else is a clean "no PMU" with the reason kept for the result.
 */
void fpl_pmu_open(struct fpl_clock *c)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	long fd;
	void *p;

	c->pmu = false;
	c->perf_fd = -1;
	c->perf_page = NULL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perf_open(&attr);
	if (fd < 0) {
		snprintf(c->pmu_why, sizeof(c->pmu_why), "perf_event_open(cycles): %s",
			 strerror(errno));
		return;
	}
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, (int)fd, 0);
	if (p == MAP_FAILED) {
		snprintf(c->pmu_why, sizeof(c->pmu_why), "mmap of the perf page: %s",
			 strerror(errno));
		close((int)fd);
		return;
	}
	pg = p;
	if (!pg->cap_user_rdpmc || !pg->index) {
		snprintf(c->pmu_why, sizeof(c->pmu_why),
			 "perf counter open but rdpmc not allowed (cap_user_rdpmc %u, index %u)",
			 (unsigned)pg->cap_user_rdpmc, pg->index);
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
		close((int)fd);
		return;
	}
	c->perf_fd = (int)fd;
	c->perf_page = p;
	c->pmu = true;
	snprintf(c->pmu_why, sizeof(c->pmu_why), "rdpmc on perf counter %u", pg->index - 1);
}

void fpl_pmu_close(struct fpl_clock *c)
{
	if (c->perf_page)
		munmap(c->perf_page, (size_t)sysconf(_SC_PAGESIZE));
	if (c->perf_fd >= 0)
		close(c->perf_fd);
	c->perf_page = NULL;
	c->perf_fd = -1;
	c->pmu = false;
}

static inline uint64_t rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

/* The self-monitoring read the perf ABI documents: seqlock around index and offset. */
uint64_t fpl_pmu_read(const struct fpl_clock *c)
{
	volatile struct perf_event_mmap_page *pg = c->perf_page;
	uint64_t count;
	uint32_t seq, idx;
	int64_t pmc;

	do {
		seq = pg->lock;
		__asm__ volatile("" ::: "memory");
		idx = pg->index;
		count = (uint64_t)pg->offset;
		if (idx) {
			pmc = (int64_t)rdpmc(idx - 1);
			pmc <<= 64 - pg->pmc_width;
			pmc >>= 64 - pg->pmc_width;
			count += (uint64_t)pmc;
		}
		__asm__ volatile("" ::: "memory");
	} while (pg->lock != seq);
	return count;
}
