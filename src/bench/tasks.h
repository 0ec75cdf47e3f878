/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helper tasks for the multi-task benchmarks: processes or threads, pinned, always reaped. */
#ifndef FPULAB_BENCH_TASKS_H
#define FPULAB_BENCH_TASKS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fpulab/base.h"

/*
 * One task. A process is started with fork(), dies with its parent
 * (PR_SET_PDEATHSIG) and ignores SIGINT/SIGTERM so that only the parent
 * decides when it ends; a thread blocks them for the same reason. The body
 * returns a small exit status; it must not print or call exit().
 */
struct fpl_task {
	bool thread;
	bool started;
	pid_t pid;
	pthread_t tid;
	int (*fn)(void *arg);
	void *arg;
	int status;		/* the body's return value once reaped, or -1 */
	int signo;		/* the signal that ended a process task once reaped, or 0 */
};

/*
 * Start fn(arg) as a process or a thread, bound to cpus when not NULL.
 * 0, or -errno with diag naming the call ("fork: Resource temporarily
 * unavailable").
 */
int fpl_task_start(struct fpl_task *t, bool thread, const cpu_set_t *cpus,
		   int (*fn)(void *arg), void *arg, struct fpl_diag *diag);
/*
 * Wait for the task to end by itself, at most timeout_ms; a process still
 * running then is killed (SIGKILL) and reaped. A thread cannot be killed:
 * its body must watch the flag the caller set. 0, or -ETIMEDOUT when a
 * process had to be killed. timeout_ms < 0: as long as it takes (blocking
 * waitpid or pthread_join, no polling), 0.
 */
int fpl_task_reap(struct fpl_task *t, int timeout_ms);
/* Kill a process task at once (SIGKILL) and reap it; threads: as fpl_task_reap. */
void fpl_task_kill(struct fpl_task *t);

/* Zeroed memory shared with tasks of either kind (MAP_SHARED). NULL on failure. */
void *fpl_shared_alloc(size_t size);
void fpl_shared_free(void *p, size_t size);

/*
 * The mask for "unbound": every CPU the system has that within holds
 * (NULL: all); the kernel keeps only allowed ones.
 */
void fpl_cpuset_start(const cpu_set_t *within, cpu_set_t *set);
/*
 * Two CPUs for a pair of tasks: preferred (the pinned CPU) if hwloc allows
 * it, else the first allowed one that within holds (NULL: any), and the
 * next such after it (b = a when there is only one). -ENODEV if none.
 */
int fpl_cpu_pair(int preferred, const cpu_set_t *within, int *a, int *b);

/* Raw system calls: no libc code (and so no vector registers) between the caller and the kernel. */
static inline long fpl_sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
