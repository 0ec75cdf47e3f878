// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for ctxsw: will-it-scale output, placement, live state in both tasks, A/B, interrupts, errors. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "fpulab/xstate.h"
#include "report/views.h"
#include "taskstest.h"
#include "runcmd.h"
#include "clitest.h"

/* fpulab ctxsw --wis and the will-it-scale name, side by side to keep the test short. */
static void test_wis_output_parses(void **state)
{
	const char *a[] = { cmd_fpl_bin(), "ctxsw", "--wis", "-s", "1", "-t", "2", NULL };
	const char *b[] = { "-s", "1", "-n", NULL };

	tt_wis_pair(a, "context_switch1_threads", b, "Context switch via pipes");
}

static void test_wis_usage(void **state)
{
	const char *a[] = { cmd_fpl_bin(), "ctxsw", "--wis", "-m", "-n", NULL };
	const char *b[] = { cmd_fpl_bin(), "ctxsw", "--wis", "-t", "0", NULL };
	struct cmd_out oa, ob;

	assert_int_equal(cmd_run(a, 30, &oa), 0);
	assert_int_equal(cmd_run(b, 30, &ob), 0);
	assert_true(WIFEXITED(oa.status) && WEXITSTATUS(oa.status) == 2);
	assert_true(WIFEXITED(ob.status) && WEXITSTATUS(ob.status) == 2);
	cmd_out_free(&oa);
	cmd_out_free(&ob);
}

/* Each task reads its own affinity back (sched_getaffinity) and reports it. */
static void placement(const char *mode)
{
	struct fpl_result *r;
	const char *ci, *ce;
	int rc;

	r = tt_run("ctxsw", 0.1, &rc, "mode", mode, "placement", "same", NULL);
	assert_int_equal(rc, 0);
	ci = tt_obs(r->runs[0], "cpus_initiator");
	ce = tt_obs(r->runs[0], "cpus_echo");
	assert_non_null(ci);
	assert_non_null(ce);
	assert_null(strpbrk(ci, ",-"));		/* one CPU */
	assert_string_equal(ci, ce);
	assert_true(r->runs[0]->nmetrics >= 3);
	assert_true(r->runs[0]->metrics[0]->n >= 3);
	fpl_result_free(r);

	r = tt_run("ctxsw", 0.1, &rc, "mode", mode, "placement", "cross", NULL);
	assert_int_equal(rc, 0);
	ci = tt_obs(r->runs[0], "cpus_initiator");
	ce = tt_obs(r->runs[0], "cpus_echo");
	assert_null(strpbrk(ci, ",-"));
	assert_null(strpbrk(ce, ",-"));
	if (tt_warned(r->runs[0], "only one CPU"))
		assert_string_equal(ci, ce);
	else
		assert_string_not_equal(ci, ce);
	/* Where each task was when it stopped: inside its set. */
	assert_int_equal(tt_obs_int(r->runs[0], "cpu_end_initiator"), atoi(ci));
	assert_int_equal(tt_obs_int(r->runs[0], "cpu_end_echo"), atoi(ce));
	fpl_result_free(r);
}

static void test_placement_processes(void **state)
{
	placement("processes");
}

static void test_placement_threads(void **state)
{
	placement("threads");
}

/*
 * fpulab ARGV (-q --json) started with affinity set, as from taskset (the
 * command inherits it; this process's own is back to old after): its result.
 */
static struct fpl_result *run_on(const cpu_set_t *set, const cpu_set_t *old,
				 const char *const *argv)
{
	struct fpl_diag diag = { "" };
	struct fpl_result *r = NULL;
	struct cmd_out o;
	int rc;

	assert_int_equal(sched_setaffinity(0, sizeof(*set), set), 0);
	rc = cmd_run(argv, 120, &o);
	assert_int_equal(sched_setaffinity(0, sizeof(*old), old), 0);
	assert_int_equal(rc, 0);
	if (!WIFEXITED(o.status) || WEXITSTATUS(o.status))
		fail_msg("fpulab %s %s %s %s on CPUs of one mask: status 0x%x\n%s", argv[1], argv[2],
			 argv[3], argv[4], o.status, o.err);
	assert_int_equal(fpl_result_load_buf(o.out, o.nout, "stdout", &r, &diag), 0);
	cmd_out_free(&o);
	return r;
}

/*
 * Placements choose among the CPUs fpulab started with (taskset, or CPUs
 * set aside with isolcpus): started on the last CPU alone, cross has no
 * second CPU and says so, and both tasks stay on that one. (Before, hwloc's
 * whole allowed set was used and the echo task went to another CPU.)
 */
static void test_placement_within_start_mask(void **state)
{
	const char *argv[] = { cmd_fpl_bin(), "ctxsw", "--placement", "cross", "--budget", "0.1",
			       "-q", "--json", NULL };
	char cpu0[16];
	const char *free_argv[] = { cmd_fpl_bin(), "ctxsw", "--cpu", cpu0, "--placement", "free",
				    "--budget", "0.1", "-q", "--json", NULL };
	cpu_set_t old, one;
	struct fpl_result *r;
	char want[16];
	int first = -1, last = -1;

	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &old)) {
			first = first < 0 ? c : first;
			last = c;
		}
	if (CPU_COUNT(&old) < 2) {
		print_message("  one CPU here: cross never has a second one, nothing to restrict\n");
		skip();
	}
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	r = run_on(&one, &old, argv);
	snprintf(want, sizeof(want), "%d", last);
	assert_true(tt_warned(r->runs[0], "only one CPU usable"));
	assert_string_equal(tt_obs(r->runs[0], "cpus_initiator"), want);
	assert_string_equal(tt_obs(r->runs[0], "cpus_echo"), want);
	fpl_result_free(r);
	/* free: those CPUs and the one --cpu names, here the first allowed beside the last */
	snprintf(cpu0, sizeof(cpu0), "%d", first);
	snprintf(want, sizeof(want), last == first + 1 ? "%d-%d" : "%d,%d", first, last);
	r = run_on(&one, &old, free_argv);
	assert_string_equal(tt_obs(r->runs[0], "cpus_initiator"), want);
	assert_string_equal(tt_obs(r->runs[0], "cpus_echo"), want);
	fpl_result_free(r);
}

/* The widest state this CPU can make live, and its mask. */
static const char *widest(uint64_t *mask)
{
	fpl_cpu_read(&tt_cpu);
	if (fpl_cpu_has(&tt_cpu, FPL_FEAT_AVX512F)) {
		*mask = FPL_XFEATURE_MASK_AVX512;
		return "avx512";
	}
	if (fpl_cpu_has(&tt_cpu, FPL_FEAT_AVX)) {
		*mask = FPL_XFEATURE_MASK_YMM;
		return "avx";
	}
	*mask = FPL_XFEATURE_MASK_SSE;
	return "sse";
}

static void state_live(const char *mode, const char *refresh)
{
	struct fpl_result *r;
	const char *x;
	uint64_t mask, and, or;
	int rc;
	const char *st = widest(&mask);

	if (!fpl_cpu_has(&tt_cpu, FPL_FEAT_XGETBV1) || !fpl_cpu_has(&tt_cpu, FPL_FEAT_XSAVE))
		skip();
	r = tt_run("ctxsw", 0.1, &rc, "mode", mode, "state", st, "refresh", refresh, NULL);
	assert_int_equal(rc, 0);
	assert_false(r->runs[0]->skipped);
	for (int t = 0; t < 2; t++) {
		x = tt_obs(r->runs[0], t ? "xinuse_echo" : "xinuse_initiator");
		assert_non_null(x);
		assert_int_equal(sscanf(x, "and %" SCNx64 " or %" SCNx64, &and, &or), 2);
		assert_int_equal(and & mask, mask);	/* live at every check */
	}
	assert_string_equal(tt_obs(r->runs[0], "state_verified"), "yes");
	fpl_result_free(r);
}

static void test_state_live_processes(void **state)
{
	state_live("processes", "write");
}

static void test_state_live_threads_batch(void **state)
{
	state_live("threads", "batch");
}

/* init is really init: the same XRSTOR leaves the components out of use. */
static void test_state_init_is_init(void **state)
{
	struct fpl_result *r;
	uint64_t mask, and, or;
	int rc;

	widest(&mask);
	if (!fpl_cpu_has(&tt_cpu, FPL_FEAT_XGETBV1) || !fpl_cpu_has(&tt_cpu, FPL_FEAT_XSAVE))
		skip();
	r = tt_run("ctxsw", 0.1, &rc, "state", "init", NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(sscanf(tt_obs(r->runs[0], "xinuse_echo"), "and %" SCNx64 " or %" SCNx64,
				&and, &or), 2);
	assert_int_equal(or & mask, 0);
	fpl_result_free(r);
}

/*
 * The in-run anchor (issue 35) of an A/B run of rounds rounds: one anchor
 * and one run delay per round, each state's ratio over the rounds the
 * anchor did not flag, each the round's batch over its anchor.
 */
static void anchored(const struct fpl_run *run, size_t rounds)
{
	const struct fpl_metric *an = fpl_run_find_metric(run, "anchor_ns");
	const struct fpl_metric *ra = fpl_run_find_metric(run, "round_trip_per_anchor_a");
	const struct fpl_metric *rb = fpl_run_find_metric(run, "round_trip_per_anchor_b");
	const json_t *o = fpl_run_obs_get(run, "anchor");
	json_int_t flagged = json_integer_value(json_object_get(o, "flagged_rounds"));

	assert_true(an && ra && rb && o);
	assert_int_equal(an->n, rounds);
	assert_int_equal(fpl_run_find_metric(run, "run_delay_ns")->n, rounds);
	assert_int_equal(json_integer_value(json_object_get(o, "rounds")), rounds);
	assert_int_equal(ra->n, rounds - (size_t)flagged);
	assert_int_equal(rb->n, ra->n);
	/* the Welch verdict over the same rounds: those whose tasks did not wait */
	assert_int_equal(fpl_run_obs_get_int(run, "welch_batches_kept", -1),
			 rounds - (size_t)flagged >= 2 ? rounds - (size_t)flagged : rounds);
	for (size_t i = 0; i < ra->n; i++)
		assert_true(ra->samples[i] > 0 && isfinite(ra->samples[i]));
	for (size_t i = 0; i < an->n; i++)
		assert_true(an->samples[i] > 0);
}

static void test_ab_difference(void **state)
{
	struct fpl_result *r;
	struct fpl_metric *d, *a, *b;
	char ab[64];
	uint64_t mask;
	json_t *w;
	double diff, lo, hi;
	int rc;

	snprintf(ab, sizeof(ab), "init,%s", widest(&mask));
	r = tt_run("ctxsw", 0.3, &rc, "ab", ab, "batch", "20", NULL);
	assert_int_equal(rc, 0);
	a = fpl_run_find_metric(r->runs[0], "round_trip_a");
	b = fpl_run_find_metric(r->runs[0], "round_trip_b");
	d = fpl_run_find_metric(r->runs[0], "difference");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	/* Interleaved: one batch of each per round. */
	assert_int_equal(a->n, b->n);
	assert_int_equal(d->n, a->n);
	assert_true(d->samples[0] == b->samples[0] - a->samples[0]);
	w = json_object_get(d->extra, "welch");
	assert_non_null(w);
	diff = json_real_value(json_object_get(w, "diff"));
	lo = json_real_value(json_object_get(w, "ci_lo"));
	hi = json_real_value(json_object_get(w, "ci_hi"));
	assert_true(lo < diff && diff < hi);
	assert_non_null(json_object_get(d->extra, "paired"));
	assert_non_null(json_object_get(d->extra, "median_welch"));
	assert_non_null(tt_obs(r->runs[0], "b_minus_a_median"));
	/*
	 * Issue 32 item 7: the batch medians are resolved to the TSC's step (20 ns
	 * on the Zen 3 guest): their interval carries one step at each end.
	 */
	{
		json_t *mw = json_object_get(d->extra, "median_welch");
		double step = json_real_value(json_object_get(mw, "timer_step"));

		assert_true(step > 0);
		assert_true(json_real_value(json_object_get(mw, "ci_hi")) -
			    json_real_value(json_object_get(mw, "ci_lo")) >= 2 * step);
		assert_non_null(strstr(tt_obs(r->runs[0], "b_minus_a_median"), "one timer step"));
	}
	/* --batch asked is configuration: --batch 20 and the automatic size do not match */
	assert_int_equal(fpl_run_param_get_int(r->runs[0], "batch", -1), 20);
	assert_int_equal(fpl_run_obs_get_int(r->runs[0], "batch", -1), 20);
	/* One median per batch. */
	assert_int_equal(fpl_run_find_metric(r->runs[0], "round_trip_median_a")->n, a->n);
	assert_non_null(json_object_get(d->extra, "set_cost_welch"));
	/* every ns figure in TSC ticks too, the difference and the set costs among them */
	assert_int_equal(tt_units_derived(r->runs[0], "ns", "_tsc", "tsc",
					  tt_obs_real(r->runs[0], "tsc_hz_measured") / 1e9), 11);
	assert_non_null(fpl_run_find_metric(r->runs[0], "difference_cycles"));
	/* B - A is a difference in each of its units; the sides and set costs are samples */
	assert_true(fpl_metric_is_difference(d));
	assert_true(fpl_metric_is_difference(fpl_run_find_metric(r->runs[0], "difference_tsc")));
	assert_string_equal(fpl_metric_family(fpl_run_find_metric(r->runs[0],
								  "difference_cycles")), "difference");
	assert_false(fpl_metric_is_difference(a));
	assert_int_equal(fpl_metric_kind(fpl_run_find_metric(r->runs[0], "set_cost_a_cycles")),
			 FPL_KIND_SAMPLE);
	assert_string_equal(fpl_metric_family(fpl_run_find_metric(r->runs[0], "round_trip_b_tsc")),
			    "round_trip_b");
	assert_int_equal(fpl_metric_how(a)->reps, 20);
	assert_int_equal(fpl_metric_how(a)->clock, FPL_MCLOCK_MONOTONIC_RAW);
	assert_int_equal(fpl_metric_how(fpl_run_find_metric(r->runs[0], "round_trip_a_tsc"))->conv,
			 FPL_CONV_TSC_FROM_NS);
	if (fpl_cpu_has(&tt_cpu, FPL_FEAT_XGETBV1))
		assert_string_equal(tt_obs(r->runs[0], "state_verified"), "yes");
	anchored(r->runs[0], a->n);
	fpl_result_free(r);
}

/* ctxsw's times in all three units (issue 14): TSC ticks and core cycles from the ns samples. */
static void test_units(void **state)
{
	struct fpl_result *r;
	const struct fpl_run *run;
	double hz;
	int rc;

	r = tt_run("ctxsw", 0.1, &rc, NULL);
	assert_int_equal(rc, 0);
	run = r->runs[0];
	/* the automatic batch size is measured, not asked: observed only */
	assert_null(fpl_run_param_get(run, "batch"));
	assert_true(fpl_run_obs_get_int(run, "batch", -1) > 0);
	hz = tt_obs_real(run, "tsc_hz_measured");
	/* round_trip, round_trip_median, switch, and the anchor's anchor_ns and run_delay_ns */
	assert_int_equal(tt_units_derived(run, "ns", "_tsc", "tsc", hz / 1e9), 5);
	assert_int_equal(tt_units_derived(run, "ns", "_cycles", "cycles",
					  hz / 1e9 * tt_core_ratio(run)), 5);
	assert_non_null(fpl_run_find_metric(run, "anchor_tsc"));
	assert_non_null(strstr(fpl_run_find_metric(run, "switch_cycles")->method,
			       "core_per_tsc_before"));
	assert_non_null(strstr(fpl_run_find_metric(run, "switch_tsc")->method,
			       "tsc_hz_measured"));
	fpl_result_free(r);
}

static void test_bad_ab_and_state(void **state)
{
	struct fpl_result *r;
	int rc;

	r = tt_run("ctxsw", 0.1, &rc, "ab", "init", NULL);
	assert_int_equal(rc, -EINVAL);
	assert_true(tt_warned(r->runs[0], "two states"));
	fpl_result_free(r);
	r = tt_run("ctxsw", 0.1, &rc, "state", "nosuchthing", NULL);
	assert_int_equal(rc, -EINVAL);
	fpl_result_free(r);
}

/* pipe() failing: the call and errno named, an error returned. */
static void test_pipe_failure(void **state)
{
	struct rlimit old, lim;
	struct fpl_result *r;
	int fds[64], n = 0, rc;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = 48;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	/* Fill every free descriptor, then give one back: a pipe needs two. */
	while (n < 64 && (fds[n] = dup(0)) >= 0)
		n++;
	assert_int_equal(errno, EMFILE);
	assert_true(n > 0);
	close(fds[--n]);
	r = tt_run("ctxsw", 0.1, &rc, NULL);
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(rc, -EMFILE);
	assert_true(tt_warned(r->runs[0], "pipe: Too many open files"));
	fpl_result_free(r);
}

static void test_interrupt_processes(void **state)
{
	const char *a[] = { cmd_fpl_bin(), "ctxsw", "--budget", "30", "-q", NULL };
	int st = tt_interrupt(a, SIGINT, 1);

	/* Results so far are emitted, marked interrupted: a failure exit, not a crash. */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
}

static void test_interrupt_wis(void **state)
{
	const char *a[] = { cmd_fpl_bin(), "ctxsw", "--wis", "-t", "2", NULL };
	int st = tt_interrupt(a, SIGTERM, 4);

	/* will-it-scale's way: every task ended, then dead of the signal itself. */
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
}

/* A bad state value is a usage error before calibration and self-checks run. */
static void test_bad_state_before_calibration(void **state)
{
	tt_rejected_early("ctxsw --state nosuchthing", "--state");
	tt_rejected_early("ctxsw --ab init", "--ab");
	tt_rejected_early("ctxsw --ab none,init", "--ab");
}

/* ctxsw --ab: the verdicts are in the table, whole, the batch medians' first. */
static void test_ctxsw_ab_table(void **state)
{
	struct cmd_out o;
	const char *med, *welch, *by_med, *by_all;
	unsigned cis = 0;
	int rc = fpl(&o, 120, "ctxsw", "--ab", "init,sse", "--quick", "-q", "--budget", "0.2",
		     NULL);

	if (rc == 77) {
		print_unsupported("ctxsw --ab init,sse", o.out, o.err);
		cmd_out_free(&o);
		skip();
	}
	assert_int_equal(rc, 0);
	med = strstr(o.out, "(b_minus_a_median)");
	welch = strstr(o.out, "(b_minus_a_welch)");
	if (!med || !welch)
		fail_msg("ctxsw --ab table without its verdicts:\n%s", o.out);
	by_med = strstr(o.out, "B - A, batch medians");
	by_all = strstr(o.out, "B - A, batches of rounds that did not wait");
	if (!by_med || !by_all)
		fail_msg("ctxsw --ab table without both B - A lines:\n%s", o.out);
	assert_true(by_med < by_all);
	/*
	 * every CI is whole on its line: ".. +N.NNN%)". A proven difference
	 * reads "+0.985% (95% CI ..", none "no difference proven at 95% (CI ..":
	 * both forms count, whichever this run measured.
	 */
	for (const char *p = o.out; (p = strstr(p, "CI ")); p++) {
		size_t line = strcspn(p, "\n");

		if (p == o.out || (p[-1] != '(' && p[-1] != ' '))
			continue;
		cis++;

		if (!memchr(p, ')', line))
			fail_msg("ctxsw --ab: a CI not closed on its line: %.*s\n%s", (int)line, p,
				 o.out);
	}
	if (!cis)
		fail_msg("ctxsw --ab table without a CI:\n%s", o.out);
	cmd_out_free(&o);
}

/* An A/B of one state twice says it is an A/A control; of two states it does not. */
static void test_aa_control_said(void **state)
{
	static const char *const sb[2] = { "init", "sse" };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct fpl_result *r = fpl_result_new();
		struct fpl_run *run = fpl_result_add_run(r, "ctxsw");
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		fpl_run_param_str(run, "state_a", "init");
		fpl_run_param_str(run, "state_b", sb[k]);
		fpl_run_obs_str(run, "b_minus_a_median", "no difference proven at 95% (CI -0.3% .. "
				"+0.4%)");
		fpl_run_lines_ctxsw(run, f);
		fclose(f);
		if (k)
			assert_null(strstr(buf, "A/A control"));
		else
			assert_non_null(strstr(buf, "(an A/A control: --ab init,init runs the same "
						    "state in both arms"));
		free(buf);
		fpl_result_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_state_before_calibration),
		cmocka_unit_test(test_wis_output_parses),
		cmocka_unit_test(test_wis_usage),
		cmocka_unit_test(test_placement_processes),
		cmocka_unit_test(test_placement_threads),
		cmocka_unit_test(test_placement_within_start_mask),
		cmocka_unit_test(test_state_live_processes),
		cmocka_unit_test(test_state_live_threads_batch),
		cmocka_unit_test(test_state_init_is_init),
		cmocka_unit_test(test_ab_difference),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_bad_ab_and_state),
		cmocka_unit_test(test_pipe_failure),
		cmocka_unit_test(test_interrupt_processes),
		cmocka_unit_test(test_interrupt_wis),
		cmocka_unit_test(test_ctxsw_ab_table),
		cmocka_unit_test(test_aa_control_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
