// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/report/progress.c: the estimate on a simulated clock, and the progress lines fpulab run shows on a terminal. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/report.h"
#include "clitest.h"

/*
 * Progress on a terminal (script(1) gives one): only grows, its estimate
 * only falls, no internal names. What it shows holds on any machine, loaded
 * or not: the estimate itself is tested on a simulated clock
 * (test_progress_estimate).
 */
static void test_progress_monotonic(void **state)
{
	char *out = NULL, *dir;
	unsigned idx, n, pct, left, last_idx = 0, last_pct = 0, last_left = ~0u, seen = 0;
	char bench[32];
	int rc;

	if (sh(NULL, "command -v script >/dev/null")) {
		print_message("  no script(1) here: no terminal to show progress on\n");
		skip();
	}
	dir = tmpdir();
	rc = sh(&out, "cd %s && timeout 120 script -qec '%s run --budget 1 xsave signal -o p.json' "
		"/dev/null 2>&1", dir, cmd_fpl_bin());
	if (rc == 77) {
		print_unsupported("run xsave signal", out, NULL);
		free(out);
		tmpdir_done(dir);
		skip();
	}
	assert_int_equal(rc, 0);
	for (const char *p = out; (p = strstr(p, "\033[K[")); p++) {
		int got = sscanf(p + 4, "%u/%u] %31s %u%% about %u s left", &idx, &n, bench, &pct,
				 &left);
		const char *late = strstr(p, "% ");

		/* an estimate spent before the work is done says so, as 0 s left */
		if (got == 4 && late && !strncmp(late + 2, "taking longer than estimated", 28)) {
			left = 0;
			got = 5;
		}
		if (got != 5) {
			if (strstr(p, "] ") && strchr(p, '%'))
				fail_msg("progress line not as expected: %.80s", p + 3);
			continue;
		}
		if (idx == last_idx && pct < last_pct)
			fail_msg("progress ran backwards: %u%% after %u%% (%s)", pct, last_pct, bench);
		if (left > last_left)
			fail_msg("time left grew: %u s after %u s", left, last_left);
		last_idx = idx;
		last_pct = pct;
		last_left = left;
		seen++;
	}
	print_message("  %u progress lines\n", seen);
	assert_true(seen > 0);
	free(out);
	tmpdir_done(dir);
}

/*
 * A run of fpulab run on a simulated clock, for the progress estimate: n
 * steps expected to take est[i] s take est[i] * speed s, each reporting
 * its fraction `reports` times, evenly; with back, every third report goes
 * back to half (per-group figures). At every report: the fraction shown
 * only grows and never passes 1, the time left only falls and is never
 * negative, and its error against the true time left never grows. Returns
 * the largest error from the second step on.
 */
static double progress_sim(const double *est, size_t n, double speed, unsigned reports,
			   bool back)
{
	struct fpl_progress p = { 0 };
	double now = 100, total = 0, last_err = INFINITY, last_left = INFINITY;
	double worst_later = 0;

	for (size_t i = 0; i < n; i++)
		total += est[i] * speed;
	for (size_t i = 0; i < n; i++) {
		double t_step = now, last_frac = 0, rest = 0;

		for (size_t j = i + 1; j < n; j++)
			rest += est[j];
		fpl_progress_step(&p, est[i], rest, now);
		for (unsigned k = 0; k <= reports; k++) {
			double f = (double)k / reports, truth, err;

			now = t_step + est[i] * speed * f;
			truth = total - (now - 100);
			fpl_progress_at(&p, back && k % 3 == 2 ? f / 2 : f, now);
			if (p.frac < last_frac || p.frac > 1 || p.frac < (back && k % 3 == 2 ? f / 2 : f))
				fail_msg("step %zu at %g: fraction %g after %g", i, f, p.frac, last_frac);
			if (p.left > last_left + 1e-9 || p.left < 0)
				fail_msg("step %zu at %g: %g s left after %g", i, f, p.left, last_left);
			err = fabs(p.left - truth);
			if (err > last_err + 1e-9)
				fail_msg("speed %g, step %zu at %g: %g s left, truly %g: error grew from %g",
					 speed, i, f, p.left, truth, last_err);
			if (i > 0 && err > worst_later)
				worst_later = err;
			last_frac = p.frac;
			last_left = p.left;
			last_err = err;
		}
		fpl_progress_step_done(&p, now);
	}
	/* the end: nothing left, and it says so */
	assert_true(p.left == 0);
	return worst_later;
}

/*
 * The estimate fpulab run shows, on a simulated clock (what a loaded machine
 * does to the real one cannot change it): on schedule it is the truth;
 * faster, the truth once a step has shown the pace; slower (load), it
 * still only falls, its error never grows, and it ends at 0.
 */
static void test_progress_estimate(void **state)
{
	static const double est[] = { 3.3, 6.6, 1.1, 1.1, 4.4, 3.3 };
	static const double speeds[] = { 1, 0.5, 0.2, 2, 3, 10 };
	size_t n = sizeof(est) / sizeof(est[0]);

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		for (int back = 0; back < 2; back++) {
			double worst = progress_sim(est, n, speeds[i], 20, back);

			if (speeds[i] <= 1 && worst > 1e-9)
				fail_msg("speed %g%s: off by %g s after the first step", speeds[i],
					 back ? ", going back" : "", worst);
		}
	}
	/* one report only, at the end of each step: still falls to 0 */
	progress_sim(est, n, 3, 1, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_estimate),
		cmocka_unit_test(test_progress_monotonic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
