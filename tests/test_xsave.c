// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for fpulab xsave: the state set-up gives the XINUSE it claims; the command's options and output. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/xstate.h"
#include "bench/xsave/internal.h"

static struct fpl_cpu cpu;
static struct fpl_xstate xs;
/* What this process may load: XCR0 without AMX tile data until permission (never asked here). */
static uint64_t perm;

static int setup(void **state)
{
	int err;

	fpl_cpu_read(&cpu);
	err = fpl_xstate_init(&xs, &cpu);
	perm = fpl_xstate_permitted(&xs);
	return err;
}

/* The masks of the default list (~0: every permitted one); each is made live, then init, and XINUSE must say so. */
static void test_state_setup_xinuse(void **state)
{
	static const uint64_t masks[] = {
		FPL_XFEATURE_MASK_FP, FPL_XFEATURE_MASK_SSE, FPL_XFEATURE_MASK_YMM,
		FPL_XFEATURE_MASK_OPMASK, FPL_XFEATURE_MASK_ZMM_Hi256, FPL_XFEATURE_MASK_Hi16_ZMM,
		FPL_XFEATURE_MASK_AVX512, ~0ull,
	};
	void *img;
	int tried = 0;

	if (!fpl_cpu_has(&cpu, FPL_FEAT_XGETBV1) || !xs.xsave)
		skip();
	img = fpl_xstate_alloc(xs.size_std_max);
	assert_non_null(img);
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		uint64_t m = masks[i] == ~0ull ? perm : masks[i], x;

		if (m & ~perm)
			continue;
		memset(img, 0, xs.size_std_max);
		fpl_xstate_pattern(&xs, m, 42 + i, img);
		x = fpl_xs_establish(img, perm, true, true);
		if ((x & perm) != m)
			fail_msg("live 0x%llx: XINUSE 0x%llx", (unsigned long long)m,
				 (unsigned long long)x);
		memset(img, 0, xs.size_std_max);
		fpl_xstate_pattern(&xs, 0, 0, img);
		x = fpl_xs_establish(img, perm, true, true);
		if (x & perm)
			fail_msg("init after 0x%llx: XINUSE 0x%llx", (unsigned long long)m,
				 (unsigned long long)x);
		tried++;
	}
	assert_true(tried >= 2);	/* x87 and SSE at least */
	free(img);
}

/* A cell checks XINUSE before every timed call and counts what did not match. */
static void test_cell_counts_mismatch(void **state)
{
	uint64_t live = FPL_XFEATURE_MASK_FPSSE & perm;
	void *img, *buf;
	struct fpl_xs_cell c;

	if (!fpl_cpu_has(&cpu, FPL_FEAT_XGETBV1) || !xs.xsave)
		skip();
	img = fpl_xstate_alloc(xs.size_std_max);
	buf = fpl_xstate_alloc(xs.size_std_max);
	fpl_xstate_pattern(&xs, live, 7, img);
	memset(&c, 0, sizeof(c));
	c.body = fpl_xs_tp[XS_XSAVE];
	c.setup_img = img;
	c.permitted = perm;
	c.xsave = true;
	c.xgetbv1 = true;
	c.expect = live;
	c.loop = (struct fpl_xs_loop){ .buf = buf, .state = img, .lo = (uint32_t)perm,
				    .hi = (uint32_t)(perm >> 32), .slo = (uint32_t)perm,
				    .shi = (uint32_t)(perm >> 32) };
	assert_true(fpl_xs_cell_timed(&c, 16) > 0);
	assert_int_equal(c.checks, 1);
	assert_int_equal(c.bad, 0);
	assert_int_equal(c.xinuse_seen & perm, live);
	/* XSAVE wrote XSTATE_BV = XINUSE & RFBM */
	assert_int_equal(*(uint64_t *)((char *)buf + FPL_XSAVE_HDR_OFFSET), live);
	c.expect = 0;	/* a claim that is false must be counted */
	fpl_xs_cell_timed(&c, 1);
	assert_int_equal(c.bad, 1);
	free(img);
	free(buf);
}

static int run_cmd(const char *args, char **out)
{
	const char *bin = getenv("FPL_BIN");
	char cmd[1024], buf[4096];
	size_t len = 0, n;
	FILE *p;
	int st;

	if (!bin)
		bin = "build/fpulab";
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	*out = NULL;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		*out = realloc(*out, len + n + 1);
		memcpy(*out + len, buf, n);
		len += n;
		(*out)[len] = 0;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_bad_options_exit_2(void **state)
{
	static const char *const bad[] = {
		"xsave --mask bogus", "xsave --samples 5", "xsave --method sideways",
		"xsave --state warm", "xsave --cpu 100000", "xsave --budget -1", "xsave extra",
		"xsave --format xml", "xsave --mask", "xsave --nonsense 1", "xsave -o",
	};
	char *out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = run_cmd(bad[i], &out);

		if (rc != 2)
			fail_msg("'%s' exited %d, not 2", bad[i], rc);
		/* nothing half-written on stdout */
		assert_true(!out || !*out);
		free(out);
	}
}

/* A small real run: JSON on stdout reads back through the schema with the cells asked for. */
static void test_json_output(void **state)
{
	struct fpl_result *r = NULL;
	struct fpl_diag d = { "" };
	json_t *doc;
	char *out;
	int rc = run_cmd("xsave --part matrix --insn fxsave --method throughput --budget 0.05 "
			 "--json -q", &out);

	assert_int_equal(rc, 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(fpl_result_from_json(doc, &r, &d), 0);
	assert_int_equal(r->nruns, 2);	/* init and live */
	for (size_t i = 0; i < r->nruns; i++) {
		struct fpl_metric *m = fpl_run_find_metric(r->runs[i], "cycles");

		assert_non_null(m);
		/* 11 rounds is the aim; on a loaded machine the hard stop allows 3 */
		assert_true(m->n >= 3);
		assert_non_null(strstr(m->method, "throughput"));
		assert_non_null(fpl_run_find_metric(r->runs[i], "tsc"));
		assert_non_null(fpl_run_find_metric(r->runs[i], "ns"));
	}
	assert_non_null(json_object_get(r->host, "clock"));
	assert_non_null(json_object_get(json_object_get(r->host, "clock"), "selfcheck"));
	json_decref(doc);
	fpl_result_free(r);
	free(out);
}

/*
 * Wait for pid at most limit_s seconds; then kill it and fail: a child that
 * ignores SIGINT must not hang the suite.
 */
static void wait_bounded(pid_t pid, int *st, double limit_s)
{
	for (double t = 0; t < limit_s; t += 0.01) {
		pid_t r = waitpid(pid, st, WNOHANG);

		assert_true(r >= 0);
		if (r == pid)
			return;
		usleep(10 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, st, 0);
	fail_msg("fpulab xsave still running %.0f s after SIGINT", limit_s);
}

/* SIGINT during a run: exit 1, and -o FILE is either absent or a whole, loadable document. */
static void test_sigint(void **state)
{
	const char *bin = getenv("FPL_BIN");
	char dir[] = "/tmp/fpl-sigint-XXXXXX", path[128];
	struct fpl_result *r = NULL;
	struct fpl_diag d = { "" };
	int st = 0;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	/*
	 * The handler is installed once the clock is calibrated; a slow machine
	 * may not get there in 0.7 s, and then SIGINT's default action ends the
	 * child. Wait longer and try again; a missing handler fails every time.
	 */
	for (int attempt = 0; attempt < 5; attempt++) {
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			freopen("/dev/null", "w", stdout);
			freopen("/dev/null", "w", stderr);
			execl(bin ? bin : "build/fpulab", "fpulab", "xsave", "--budget", "30", "-q",
			      "-o", path, (char *)NULL);
			_exit(127);
		}
		usleep((700u << attempt) * 1000);
		kill(pid, SIGINT);
		wait_bounded(pid, &st, 60);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGINT)
			break;
		print_message("attempt %d: SIGINT came before the handler\n", attempt);
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	if (access(path, F_OK) == 0) {
		assert_int_equal(fpl_result_load(path, &r, &d), 0);
		assert_true(json_array_size(r->warnings) >= 1);
		fpl_result_free(r);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);	/* no temporary file left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_setup_xinuse),
		cmocka_unit_test(test_cell_counts_mismatch),
		cmocka_unit_test(test_bad_options_exit_2),
		cmocka_unit_test(test_json_output),
		cmocka_unit_test(test_sigint),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
