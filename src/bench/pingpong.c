// SPDX-License-Identifier: GPL-3.0-or-later
/* The ping-pong behind ctxsw: raw system calls, live state set right before each write. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fpulab/clock.h"
#include "pingpong.h"

#define PP_NONE		0xfe	/* the echo task has set no state yet */

/* Integer nanoseconds: doubles would live in XMM registers between the state and the syscalls. */
uint64_t fpl_pp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpulist(const cpu_set_t *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, s))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, s))
			e++;
		used += snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		if (e > c)
			used += snprintf(buf + used, len - used, "-%d", e);
		c = e;
	}
}

void fpl_pp_seen_start(struct fpl_pp_seen *s)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		cpulist(&set, s->cpus, sizeof(s->cpus));
		s->ncpus = CPU_COUNT(&set);
	}
	for (unsigned i = 0; i < FPL_LIVE_MAX; i++)
		s->xin_and[i] = ~0ull;
}

/* XGETBV(1) only: no libc, so the registers the caller set stay as they are. */
static inline void seen_xinuse(struct fpl_pp_seen *s, unsigned st)
{
	uint64_t x = fpl_xgetbv(1);

	s->xin_and[st] &= x;
	s->xin_or[st] |= x;
	s->checks[st]++;
}

static inline long sys_rw(long nr, int fd, unsigned char *c)
{
	long r;

	do
		r = fpl_sys3(nr, fd, (long)c, 1);
	while (r == -EINTR);
	return r;
}

int fpl_pp_echo(void *arg)
{
	struct fpl_pp *pp = arg;
	struct fpl_pp_seen *s = &pp->sh->seen[1];
	unsigned long it[FPL_LIVE_MAX] = { 0 };
	unsigned prev = PP_NONE;
	unsigned char c;

	if (!pp->threads) {
		close(pp->p1[1]);
		close(pp->p2[0]);
	}
	fpl_pp_seen_start(s);
	s->tid = (int)syscall(SYS_gettid);
	/* A new task: XFD is armed again, so the tile trap happens here, before the first byte. */
	s->amx_first_use = pp->live.amx ? fpl_live_first_use(&pp->live, NULL) : 1;
	for (;;) {
		if (sys_rw(SYS_read, pp->p1[0], &c) != 1 || c == FPL_PP_QUIT)
			break;
		/* What the kernel gave back after the last switch: the state set before the last write. */
		if (prev < pp->nstates && pp->live.xinuse && !(++it[prev] & 63))
			seen_xinuse(s, prev);
		if (c < pp->nstates && (pp->each || c != prev))
			fpl_live_set(&pp->live, c);
		prev = c;
		if (sys_rw(SYS_write, pp->p2[1], &c) != 1)
			break;
	}
	s->cpu_end = sched_getcpu();
	/* After the last round trip: what the kernel keeps for this task (tiles once used). */
	if (pp->nstates && fpl_xstate_sigframe_probe(&s->frame_xfeatures, &s->frame_xstate_size))
		s->frame_xstate_size = 0;
	return 0;
}

int fpl_pp_batch(struct fpl_pp *pp, unsigned st, unsigned long n, double *ns, uint32_t *ticks)
{
	unsigned char c = pp->nstates ? (unsigned char)st : 0, d;
	bool set = pp->nstates > 0;
	uint64_t t0 = fpl_pp_now_ns(), prev, now;
	long r;

	if (set && !pp->each)
		fpl_live_set(&pp->live, st);
	prev = fpl_tsc_begin();
	for (unsigned long i = 0; i < n; i++) {
		if (set && pp->each)
			fpl_live_set(&pp->live, st);
		r = sys_rw(SYS_write, pp->p1[1], &c);
		if (r == 1)
			r = sys_rw(SYS_read, pp->p2[0], &d);
		if (r != 1)
			return r < 0 ? (int)r : -EPIPE;
		/* Each round trip on its own: a preemption spoils one, not the whole batch. */
		now = fpl_tsc_begin();
		if (ticks)
			ticks[i] = (uint32_t)(now - prev);
		prev = now;
	}
	if (set && pp->live.xinuse)
		seen_xinuse(&pp->sh->seen[0], st);
	*ns = (double)(fpl_pp_now_ns() - t0) / n;
	return 0;
}

int fpl_pp_anchor(struct fpl_pp *pp, unsigned long n, double *ns)
{
	unsigned char c = 0, d;
	uint64_t t0;
	long r;

	if (pp->p3[0] < 0 && pipe(pp->p3))
		return -errno;
	t0 = fpl_pp_now_ns();
	for (unsigned long i = 0; i < n; i++) {
		r = sys_rw(SYS_write, pp->p3[1], &c);
		if (r == 1)
			r = sys_rw(SYS_read, pp->p3[0], &d);
		if (r != 1)
			return r < 0 ? (int)r : -EPIPE;
	}
	*ns = (double)(fpl_pp_now_ns() - t0) / n;
	return 0;
}

double fpl_pp_set_cost(struct fpl_pp *pp, unsigned st, unsigned long n)
{
	uint64_t t0 = fpl_pp_now_ns();

	for (unsigned long i = 0; i < 2 * n; i++)
		fpl_live_set(&pp->live, st);
	return (double)(fpl_pp_now_ns() - t0) / n;
}

void fpl_pp_stop_echo(struct fpl_pp *pp)
{
	unsigned char q = FPL_PP_QUIT;

	if (!pp->echo.started)
		return;
	/* The echo task ends on the quit byte; a process that does not is killed. */
	sys_rw(SYS_write, pp->p1[1], &q);
	fpl_task_reap(&pp->echo, 1000);
}

void fpl_pp_free(struct fpl_pp *pp)
{
	for (int i = 0; i < 2; i++) {
		if (pp->p1[i] >= 0)
			close(pp->p1[i]);
		if (pp->p2[i] >= 0)
			close(pp->p2[i]);
		if (pp->p3[i] >= 0)
			close(pp->p3[i]);
	}
	fpl_live_free(&pp->live);
	fpl_shared_free(pp->sh, sizeof(*pp->sh));
}
