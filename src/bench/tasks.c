// SPDX-License-Identifier: GPL-3.0-or-later
/* Helper tasks for the multi-task benchmarks: start pinned, end and reap on every path. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "tasks.h"

static void *thread_body(void *p)
{
	struct fpl_task *t = p;

	return (void *)(intptr_t)t->fn(t->arg);
}

static int start_thread(struct fpl_task *t, const cpu_set_t *cpus, struct fpl_diag *diag)
{
	pthread_attr_t attr;
	sigset_t block, old;
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		return fpl_diag_set(diag, -err, "pthread_attr_init: %s", strerror(err));
	if (cpus) {
		err = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
		if (err) {
			pthread_attr_destroy(&attr);
			return fpl_diag_set(diag, -err, "pthread_attr_setaffinity_np: %s",
					    strerror(err));
		}
	}
	/* The new thread inherits the mask: SIGINT/SIGTERM go to the caller's thread. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = pthread_create(&t->tid, &attr, thread_body, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return fpl_diag_set(diag, -err, "pthread_create: %s", strerror(err));
	return 0;
}

static int start_process(struct fpl_task *t, const cpu_set_t *cpus, struct fpl_diag *diag)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return fpl_diag_set(diag, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* Never outlive the parent, whatever kills it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(125);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus))
			_exit(126);
		_exit(t->fn(t->arg) & 0x7f);
	}
	t->pid = pid;
	return 0;
}

int fpl_task_start(struct fpl_task *t, bool thread, const cpu_set_t *cpus,
		   int (*fn)(void *arg), void *arg, struct fpl_diag *diag)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->thread = thread;
	t->fn = fn;
	t->arg = arg;
	t->status = -1;
	err = thread ? start_thread(t, cpus, diag) : start_process(t, cpus, diag);
	t->started = !err;
	return err;
}

/* A process's wait status into status and signo; -1 and 0 when waitpid failed. */
static void set_status(struct fpl_task *t, bool waited, int st)
{
	t->status = waited && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	t->signo = waited && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void reap_blocking(struct fpl_task *t)
{
	pid_t r;
	int st = 0;

	while ((r = waitpid(t->pid, &st, 0)) < 0 && errno == EINTR)
		;
	set_status(t, r == t->pid, st);
}

static void deadline_after(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

int fpl_task_reap(struct fpl_task *t, int timeout_ms)
{
	struct timespec ts = { 0, 1000000 };
	void *ret;
	int st;

	if (!t->started)
		return 0;
	t->started = false;
	if (t->thread) {
		if (timeout_ms >= 0)
			deadline_after(&ts, timeout_ms);
		if (timeout_ms < 0 ? pthread_join(t->tid, &ret) :
				     pthread_timedjoin_np(t->tid, &ret, &ts))
			return -ETIMEDOUT;	/* it dies with the process */
		t->status = (int)(intptr_t)ret;
		return 0;
	}
	if (timeout_ms < 0) {
		reap_blocking(t);
		return 0;
	}
	for (int waited = 0; waited <= timeout_ms; waited++) {
		pid_t r = waitpid(t->pid, &st, WNOHANG);

		if (r == t->pid || (r < 0 && errno != EINTR)) {
			set_status(t, r == t->pid, st);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	kill(t->pid, SIGKILL);
	reap_blocking(t);
	return -ETIMEDOUT;
}

void fpl_task_kill(struct fpl_task *t)
{
	if (!t->started)
		return;
	if (t->thread) {
		fpl_task_reap(t, 1000);
		return;
	}
	t->started = false;
	kill(t->pid, SIGKILL);
	reap_blocking(t);
}

void *fpl_shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void fpl_shared_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

void fpl_cpuset_start(const cpu_set_t *within, cpu_set_t *set)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	CPU_ZERO(set);
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		if (!within || CPU_ISSET(i, within))
			CPU_SET(i, set);
}

/* The next CPU after prev (-1: the first) that hwloc allows and within holds; -1 when none. */
static int next_cpu(hwloc_const_cpuset_t allowed, const cpu_set_t *within, int prev)
{
	int c = prev;

	while ((c = hwloc_bitmap_next(allowed, c)) >= 0)
		if (!within || (c < CPU_SETSIZE && CPU_ISSET(c, within)))
			return c;
	return -1;
}

/* The first CPU of within (NULL or empty: -1). */
static int first_within(const cpu_set_t *within)
{
	for (int c = 0; within && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, within))
			return c;
	return -1;
}

int fpl_cpu_pair(int preferred, const cpu_set_t *within, int *a, int *b)
{
	hwloc_topology_t topo;
	hwloc_const_cpuset_t allowed;
	int first, next;

	if (hwloc_topology_init(&topo))
		return -ENOMEM;
	if (hwloc_topology_load(topo)) {
		hwloc_topology_destroy(topo);
		return -ENODEV;
	}
	allowed = hwloc_topology_get_allowed_cpuset(topo);
	/* The pinned CPU is where this process runs: it is usable whatever hwloc says. */
	first = preferred >= 0 ? preferred : next_cpu(allowed, within, -1);
	if (first < 0)		/* hwloc's set and the start mask share nothing */
		first = within ? first_within(within) : -1;
	if (first < 0)
		first = hwloc_bitmap_first(allowed);
	next = next_cpu(allowed, within, first);
	if (next < 0)
		next = next_cpu(allowed, within, -1);
	if (next < 0)
		next = first;
	hwloc_topology_destroy(topo);
	if (first < 0)
		return -ENODEV;
	*a = first;
	*b = next;
	return 0;
}
