// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the benchmarks' helper tasks (src/bench/tasks.c): exit status, the ending signal, SIGINT ignored, the blocking reap. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bench/tasks.h"

static int body_returns(void *arg)
{
	return (int)(intptr_t)arg;
}

/* A SIGINT meant for the parent (a terminal's ^C reaches the group) does not end it. */
static int body_after_sigint(void *arg)
{
	raise(SIGINT);
	return (int)(intptr_t)arg;
}

static int body_killed(void *arg)
{
	(void)arg;
	raise(SIGKILL);
	return 0;
}

static int body_sleeps(void *arg)
{
	long ms = (long)(intptr_t)arg;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
	return 9;
}

/*
 * Start body as a process or a thread and reap it with timeout_ms: the reap
 * returns rc, the task ends with status and signo.
 */
static void expect(bool thread, int (*body)(void *), intptr_t arg, int timeout_ms, int rc,
		   int status, int signo)
{
	struct fpl_diag diag = { "" };
	struct fpl_task t;

	if (fpl_task_start(&t, thread, NULL, body, (void *)arg, &diag))
		fail_msg("%s", diag.msg);
	assert_int_equal(fpl_task_reap(&t, timeout_ms), rc);
	assert_int_equal(t.status, status);
	assert_int_equal(t.signo, signo);
}

static void test_process_status(void **state)
{
	(void)state;
	expect(false, body_returns, 7, -1, 0, 7, 0);
	expect(false, body_after_sigint, 5, -1, 0, 5, 0);
	expect(false, body_killed, 0, -1, 0, -1, SIGKILL);
	/* Polled with a timeout, ample for a loaded machine: the same status. */
	expect(false, body_returns, 3, 30000, 0, 3, 0);
}

/*
 * timeout_ms < 0 waits as long as it takes; a timeout kills the process
 * (SIGKILL). The killed one would sleep a minute: a loaded machine that
 * stretches the 20 ms of polling cannot let it end by itself first.
 */
static void test_blocking_reap(void **state)
{
	(void)state;
	expect(false, body_sleeps, 100, -1, 0, 9, 0);
	expect(false, body_sleeps, 60000, 20, -ETIMEDOUT, -1, SIGKILL);
	expect(true, body_sleeps, 50, -1, 0, 9, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_status),
		cmocka_unit_test(test_blocking_reap),
	};

	return cmocka_run_group_tests_name("tasks", tests, NULL, NULL);
}
