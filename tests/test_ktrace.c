// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: x86_fpu trace lines and tallies, dmesg x86/fpu lines against CPUID, the tracefs session. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/cpu.h"
#include "fpulab/kernelview.h"
#include "fpulab/ktrace.h"
#include "fpulab/xstate.h"
#include "runcmd.h"

#define DATA "tests/data/ktrace/"


static char *slurp_path(const char *path, size_t *len)
{
	char *s = cmd_slurp(path, len);

	assert_non_null(s);
	return s;
}

static void test_parse_sample_line(void **state)
{
	struct fpl_kt_event ev;

	(void)state;
	assert_int_equal(fpl_kt_parse_line(" pingpong-6088    [000] d..2. 6648435174110: "
					   "x86_fpu_regs_deactivated: x86/fpu: 00000000a7d4d9a7 "
					   "load: 1 xfeatures: a2 xcomp_bv: 80000000000200e7", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_REGS_DEACTIVATED);
	assert_string_equal(ev.comm, "pingpong");
	assert_int_equal(ev.tid, 6088);
	assert_int_equal(ev.cpu, 0);
	assert_true(ev.ts == 6648435174110ull);
	assert_true(ev.load);
	assert_true(ev.xfeatures == 0xa2);
	assert_true(ev.xcomp_bv == 0x80000000000200e7ull);
}

static void test_parse_hand_written(void **state)
{
	struct fpl_kt_event ev;

	(void)state;
	/* A comm with a dash, a space and a bracket; no irq-info flags; the local clock. */
	assert_int_equal(fpl_kt_parse_line("  my-odd [x] task-42 [013] 1234.567890: x86_fpu_dropped: "
					   "x86/fpu: 0x1234 load: 0 xfeatures: 0 xcomp_bv: 0", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_DROPPED);
	assert_string_equal(ev.comm, "my-odd [x] task");
	assert_int_equal(ev.tid, 42);
	assert_int_equal(ev.cpu, 13);
	assert_true(ev.ts == 1234567890ull);
	assert_false(ev.load);
	/* record-tgid's column. */
	assert_int_equal(fpl_kt_parse_line("bash-7 (      7) [001] ...1. 99: x86_fpu_copy_dst: "
					   "x86/fpu: 0000000000000000 load: 0 xfeatures: 3 "
					   "xcomp_bv: 8000000000000003", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_COPY_DST);
	assert_int_equal(ev.tid, 7);
	/* A marker keeps its text. */
	assert_int_equal(fpl_kt_parse_line("fpulab-99 [000] ...1. 5: tracing_mark_write: "
					   "fpulab-begin 99.1 ctxsw", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_MARKER);
	assert_string_equal(ev.text, "fpulab-begin 99.1 ctxsw");
	/* An x86_fpu event the list does not know is still counted, as other. */
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... 5: x86_fpu_new_thing: x86/fpu: 0 "
					   "load: 1 xfeatures: 1 xcomp_bv: 2", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_OTHER);
	/* Lines without an event: headers, blanks, other subsystems. */
	assert_int_equal(fpl_kt_parse_line("# tracer: nop", &ev), 0);
	assert_int_equal(fpl_kt_parse_line("", &ev), 0);
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... 5: sched_switch: prev_comm=a", &ev), 0);
	/* Malformed. */
	assert_int_equal(fpl_kt_parse_line("garbage", &ev), -EINVAL);
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... x: x86_fpu_dropped: x86/fpu: 0 load: 0 "
					   "xfeatures: 0 xcomp_bv: 0", &ev), -EINVAL);
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... 5: x86_fpu_regs_activated: x86/fpu: 0 "
					   "load: 1 xfeatures: a2", &ev), -EINVAL);
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... 5: x86_fpu_regs_activated: x86/fpu: 0 "
					   "load: 2 xfeatures: a2 xcomp_bv: 0", &ev), -EINVAL);
	assert_int_equal(fpl_kt_parse_line("a-1 [000] d.... 5: x86_fpu_regs_activated: x86/fpu: 0 "
					   "load: 1 xfeatures: a2 xcomp_bv: 0 trailing", &ev), -EINVAL);
	assert_int_equal(fpl_kt_parse_line("task [000] d.... 5: x86_fpu_dropped: x86/fpu: 0 load: 0 "
					   "xfeatures: 0 xcomp_bv: 0", &ev), -EINVAL);
}

/* The captured sample: 20 same-CPU round trips are 40 saves and 40 restores (2 and 2 each). */
static void test_tally_sample(void **state)
{
	const pid_t pp[2] = { 6087, 6088 }, amx[1] = { 6089 };
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	size_t len;
	char *text = slurp_path(DATA "spr-tracefs-sample.txt", &len);
	json_t *j;

	(void)state;
	assert_int_equal(fpl_kt_tally(text, len, pp, 2, "start of 20", NULL, &t, &diag), 0);
	assert_true(t.begin_seen);
	assert_false(t.end_seen);
	assert_int_equal(t.saves, 40);
	assert_int_equal(t.restores, 40);
	assert_int_equal(t.no_load, 0);
	assert_int_equal(t.ntasks, 2);
	assert_int_equal(t.others, 14);		/* amxprobe's, after the marker */
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(t.task[i].nxcomp_bv, 1);
		assert_true(t.task[i].xcomp_bv[0] == 0x80000000000200e7ull);
		assert_true(t.task[i].first_ts < t.task[i].last_ts);
	}
	/* Without the marker: the two events before it count too. */
	assert_int_equal(fpl_kt_tally(text, len, pp, 2, NULL, NULL, &t, &diag), 0);
	assert_int_equal(t.saves, 41);
	assert_int_equal(t.restores, 41);
	/* The AMX task: xcomp_bv grows from 0x200e7 to 0x600e7 at its first tile use. */
	assert_int_equal(fpl_kt_tally(text, len, amx, 1, NULL, NULL, &t, &diag), 0);
	assert_int_equal(t.saves, 3);
	assert_int_equal(t.restores, 2);
	assert_int_equal(t.no_load, 8);
	assert_int_equal(t.drops, 1);
	assert_int_equal(t.task[0].nxcomp_bv, 2);
	assert_true(t.task[0].xcomp_bv[0] == 0x80000000000200e7ull);
	assert_true(t.task[0].xcomp_bv[1] == 0x80000000000600e7ull);
	j = fpl_kt_tally_json(&t, 1, "run", fpl_xfeature_mask_names);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "saves")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "restores")), 2);
	assert_true(json_real_value(json_object_get(j, "saves_per_op")) == 3.0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "xcomp_bv"), 1), "rfbm")), "0x600e7");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "xcomp_bv"), 1), "components")), "AMX_TILEDATA"));
	json_decref(j);
	free(text);
}

static void test_tally_malformed_line_number(void **state)
{
	const char *text = "# tracer: nop\n"
			   "a-1 [000] d.... 5: x86_fpu_dropped: x86/fpu: 0 load: 0 xfeatures: 0 "
			   "xcomp_bv: 0\n"
			   "a-1 [000] d.... 6: x86_fpu_dropped: x86/fpu: 0 load: 0\n";
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;

	(void)state;
	assert_int_equal(fpl_kt_tally(text, strlen(text), NULL, 0, NULL, NULL, &t, &diag),
			 -EINVAL);
	assert_non_null(strstr(diag.msg, "line 3"));
}

static void test_tally_window_and_header(void **state)
{
	const char *text = "# entries-in-buffer/entries-written: 4/9   #P:2\n"
			   "a-1 [000] d.... 5: x86_fpu_regs_deactivated: x86/fpu: 0 load: 1 "
			   "xfeatures: 3 xcomp_bv: 8000000000000003\n"
			   "a-1 [000] ...1. 6: tracing_mark_write: fpulab-begin 1.1 x\n"
			   "a-1 [000] d.... 7: x86_fpu_regs_activated: x86/fpu: 0 load: 1 "
			   "xfeatures: 3 xcomp_bv: 8000000000000003\n"
			   "a-1 [000] ...1. 9: tracing_mark_write: fpulab-end 1.1 x\n"
			   "a-1 [000] d.... 10: x86_fpu_regs_deactivated: x86/fpu: 0 load: 1 "
			   "xfeatures: 3 xcomp_bv: 8000000000000003\n";
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	json_t *j;

	(void)state;
	assert_int_equal(fpl_kt_tally(text, strlen(text), NULL, 0, "fpulab-begin 1.1 ",
				      "fpulab-end 1.1 ", &t, &diag), 0);
	assert_int_equal(t.saves, 0);
	assert_int_equal(t.restores, 1);
	assert_true(t.begin_ts == 6 && t.end_ts == 9);
	assert_int_equal(t.entries, 4);
	assert_int_equal(t.written, 9);
	j = fpl_kt_tally_json(&t, 2, "op", NULL);
	assert_non_null(j);
	/* Fewer entries than written: events were lost and the object says so. */
	assert_true(json_is_false(json_object_get(j, "complete")));
	assert_true(json_real_value(json_object_get(j, "ticks_per_op")) == 1.5);
	json_decref(j);
}

/* The kernel's boot lines against the layout computed from the same machine's CPUID dump. */
static void dmesg_against(const char *dmesg, const char *cpuid, uint64_t enabled, long ctx)
{
	struct fpl_diag diag = { "" };
	struct fpl_kt_dmesg d;
	struct fpl_xstate xs;
	struct fpl_cpu cpu;
	size_t len;
	char *text = slurp_path(dmesg, &len);
	json_t *c;

	assert_int_equal(fpl_kt_dmesg_parse(text, len, &d, &diag), 0);
	assert_true(d.enabled == enabled);
	assert_int_equal(d.context_size, ctx);
	assert_string_equal(d.format, "compacted");
	assert_int_equal(fpl_cpu_load(&cpu, cpuid, &diag), 0);
	assert_int_equal(fpl_xstate_init(&xs, &cpu), 0);
	assert_int_equal(fpl_kview_dmesg_check(&d, &xs, &c), 0);
	if (json_integer_value(json_object_get(c, "mismatches")))
		fpl_kview_dmesg_print(c, stderr);
	assert_int_equal(json_integer_value(json_object_get(c, "mismatches")), 0);
	json_decref(c);
	/* One offset off by 64: the check must see it. */
	for (int i = 2; i < FPL_KT_DMESG_MAX; i++)
		if (d.offset[i] >= 0) {
			d.offset[i] += 64;
			break;
		}
	assert_int_equal(fpl_kview_dmesg_check(&d, &xs, &c), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "mismatches")), 1);
	json_decref(c);
	/*
	 * The ring buffer dropped the first 'Supporting' lines (x87 and SSE
	 * gone, the rest kept): no mismatch claimed for what the log lost.
	 */
	assert_true(d.features & 1);
	d.features &= ~(uint64_t)3;
	for (int i = 2; i < FPL_KT_DMESG_MAX; i++)
		if (d.offset[i] >= 0) {
			d.offset[i] -= 64;
			break;
		}
	assert_int_equal(fpl_kview_dmesg_check(&d, &xs, &c), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "mismatches")), 0);
	json_decref(c);
	free(text);
}

static void test_dmesg_spr(void **state)
{
	(void)state;
	dmesg_against(DATA "spr-dmesg-fpu.txt", DATA "spr.cpuid", 0x600e7, 10688);
}

static void test_dmesg_zen4_cet(void **state)
{
	(void)state;
	/* CET_U and CET_S (supervisor) in the kernel's compacted layout, beyond XCR0 0xe7. */
	dmesg_against(DATA "zen4-kvm-dmesg-fpu.txt", DATA "zen4-kvm.cpuid", 0x18e7, 2472);
}

static void test_dmesg_malformed(void **state)
{
	const char *t = "[    0.1] x86/fpu: Supporting XSAVE feature 0x001: 'x87'\n"
			"[    0.2] something else\n"
			"[    0.3] x86/fpu: xstate_offset[2]:  576, xstate_sizes[3]:  256\n";
	struct fpl_diag diag = { "" };
	struct fpl_kt_dmesg d;

	(void)state;
	assert_int_equal(fpl_kt_dmesg_parse(t, strlen(t), &d, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "line 3"));
	assert_int_equal(fpl_kt_dmesg_parse("no fpu here\n", 12, &d, &diag), -ENOENT);
}

/* The table: a count that is not the model's is reported as a difference. */
static void test_table_differs(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *a = fpl_result_add_run(r, "ctxsw"), *b = fpl_result_add_run(r, "signal");
	char buf[4096] = "", line[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	fpl_run_obs_json(a, "kernel", json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:{s:f, s:f}, "
						 "s:[{s:s, s:s}]}", "status", "traced",
						 "name", "batch", "op", "round trip", "ops", 100.0,
						 "saves_per_op", 2.0, "restores_per_op", 1.0, "model",
						 "saves_per_op", 2.0, "restores_per_op", 2.0,
						 "xcomp_bv", "value", "0x80000000000008e7",
						 "components", "x87|SSE"));
	fpl_run_obs_json(b, "kernel", json_pack("{s:s, s:s}", "status", "skipped", "reason",
						 "not root"));
	assert_int_equal(fpl_table_kernel(r, f), 1);
	fclose(f);
	assert_non_null(strstr(buf, "DIFFERS: restores"));
	assert_null(strstr(buf, "DIFFERS: saves"));
	assert_non_null(strstr(buf, "not traced: not root"));
	assert_int_equal(fpl_kview_xcomp_line(r, 12, "CET_S", line, sizeof(line)), 1);
	assert_non_null(strstr(line, "0x80000000000008e7"));
	assert_non_null(strstr(line, "CET_S (bit 12) is not in it"));
	assert_int_equal(fpl_kview_xcomp_line(r, 11, "CET_U", line, sizeof(line)), 1);
	assert_non_null(strstr(line, "is in it"));
	assert_true(fpl_kview_agrees(2.02, 2));
	assert_false(fpl_kview_agrees(1.5, 2));
	assert_false(fpl_kview_agrees(0.2, 0));
	fpl_result_free(r);
}

/* No tracefs: the benchmark still runs, its run says why the kernel was not traced. */
static void test_skip_without_tracefs(void **state)
{
	char *out, *err;
	json_t *doc, *k;

	(void)state;
	assert_int_equal(fplrun("FPL_TRACEFS=/nonexistent/tracefs ",
				"signal --kernel-trace --budget 0.05 --json -q", &out, &err), 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	k = json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "observed"), "kernel");
	assert_non_null(k);
	assert_string_equal(json_string_value(json_object_get(k, "status")), "skipped");
	assert_non_null(strstr(json_string_value(json_object_get(k, "reason")), "no tracefs"));
	json_decref(doc);
	free(out);
	free(err);
}

/* Not root (setpriv to nobody when the test is root): a skip with the reason, exit 0. */
static void test_skip_not_root(void **state)
{
	const char *pre = "";
	char *out, *err;
	json_t *doc, *k;

	(void)state;
	if (geteuid() == 0) {
		if (access("/usr/bin/setpriv", X_OK)) {
			print_message("  skipped: root and no setpriv to drop it\n");
			skip();
		}
		pre = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
	}
	assert_int_equal(fplrun(pre, "signal --kernel-trace --budget 0.05 --json -q", &out, &err),
			 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	k = json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "observed"), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "status")), "skipped");
	assert_true(strlen(json_string_value(json_object_get(k, "reason"))) > 0);
	json_decref(doc);
	free(out);
	free(err);
}

/*
 * The live tests: tracefs in this test's own mount namespace (as fpulab
 * does it), the x86_fpu events present. Returns the root, or NULL and why.
 */
static const char *live_root(char *why, size_t len)
{
	static char root[256];
	static int state;	/* 0 unknown, 1 ready, -1 not here */
	static char reason[200];
	struct stat st;

	if (state == 0) {
		state = -1;
		if (geteuid() != 0)
			snprintf(reason, sizeof(reason), "not root");
		else if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			snprintf(reason, sizeof(reason), "no private mount namespace: %s",
				 strerror(errno));
		else if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
			snprintf(reason, sizeof(reason), "tracefs does not mount: %s",
				 strerror(errno));
		else if (stat("/sys/kernel/tracing/events/x86_fpu", &st))
			snprintf(reason, sizeof(reason), "no x86_fpu trace events");
		else {
			snprintf(root, sizeof(root), "/sys/kernel/tracing");
			state = 1;
		}
	}
	snprintf(why, len, "%s", reason);
	return state == 1 ? root : NULL;
}

/* Instances fpulab-PID whose process is gone (other fpulabs may be tracing beside the test). */
static int stale_instances(const char *root, char *names, size_t len)
{
	char list[1024], *tok, *save = NULL;
	int n = 0;

	names[0] = 0;
	if (fpl_ktrace_list_instances(root, "fpulab-", list, sizeof(list)) <= 0)
		return 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long pid = strtol(tok + 7, NULL, 10);

		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH) {
			snprintf(names + strlen(names), len - strlen(names), "%s ", tok);
			n++;
		}
	}
	return n;
}

static void test_live_instance_removed(void **state)
{
	char why[200], list[256], *out, *err;
	const char *root = live_root(why, sizeof(why));
	json_t *doc, *k;

	(void)state;
	if (!root) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	assert_int_equal(fplrun("", "signal --kernel-trace --budget 0.05 --json -q", &out, &err),
			 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	k = json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
					    "observed"), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "status")), "traced");
	/* 1000 signals: the model says no save; the kernel's count is a number of saves per op. */
	assert_true(json_is_number(json_object_get(k, "saves_per_op")));
	assert_true(json_array_size(json_object_get(k, "xcomp_bv")) >= 1);
	json_decref(doc);
	free(out);
	free(err);
	assert_int_equal(stale_instances(root, list, sizeof(list)), 0);
	/* fpulab run ends through its own report: the instance goes there too. */
	assert_int_equal(fplrun("", "run signal --kernel-trace --budget 0.2 -q", &out, &err), 0);
	assert_non_null(strstr(out, "Model against kernel"));
	free(out);
	free(err);
	assert_int_equal(stale_instances(root, list, sizeof(list)), 0);
}

/* info: the kernel's view is always there, read or with the reason; with the trace, our xcomp_bv. */
static void test_info_kernel_view(void **state)
{
	static const char *const st[] = { "read", "unreadable", "absent", "malformed", NULL };
	char why[200], *out, *err;
	const char *root = live_root(why, sizeof(why)), *s;
	json_t *doc, *v, *t;
	bool known = false;

	(void)state;
	assert_int_equal(fplrun("", root ? "info --json --kernel-trace" : "info --json", &out,
				&err), 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	v = json_object_get(json_object_get(doc, "host"), "kernel_view");
	s = json_string_value(json_object_get(json_object_get(v, "dmesg"), "status"));
	assert_non_null(s);
	for (int i = 0; st[i]; i++)
		known = known || !strcmp(s, st[i]);
	assert_true(known);
	/* Read: fpulab's CPUID layout must be the kernel's (both describe this machine). */
	if (!strcmp(s, "read"))
		assert_int_equal(json_integer_value(json_object_get(json_object_get(v, "dmesg"),
								     "mismatches")), 0);
	if (root) {
		t = json_object_get(v, "own_task");
		assert_string_equal(json_string_value(json_object_get(t, "status")), "traced");
		assert_true(json_array_size(json_object_get(t, "xcomp_bv")) >= 1);
	}
	json_decref(doc);
	free(out);
	free(err);
}

/* Watch: SIGINT 0.2 s after the child's own tracefs instance appears (30 s at the most). */
struct instance_watch {
	const char *root;
	bool seen, sent;
	double seen_at;
	pid_t pid;
};

static int on_instance(pid_t pid, double t, double *next_s, void *arg)
{
	struct instance_watch *w = arg;
	char name[64], list[256];

	w->pid = pid;
	if (t < 0 || w->sent)
		return 0;
	*next_s = 0.02;
	if (!w->seen) {
		snprintf(name, sizeof(name), "fpulab-%d", (int)pid);
		w->seen = fpl_ktrace_list_instances(w->root, name, list, sizeof(list)) == 1;
		w->seen_at = t;
	}
	if ((w->seen && t >= w->seen_at + 0.2) || t > 30) {
		w->sent = true;
		return SIGINT;
	}
	return 0;
}

static void test_live_instance_removed_after_sigint(void **state)
{
	char why[200], list[256], name[64];
	const char *root = live_root(why, sizeof(why));
	const char *argv[] = { cmd_fpl_bin(), "ctxsw", "--kernel-trace", "--budget", "30", "-q",
			       "-o", "/dev/null", NULL };
	struct instance_watch w = { root, false, false, 0, 0 };
	struct cmd_out o;
	int st;

	(void)state;
	if (!root) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	/* Its instance comes after the clock and self-checks. */
	assert_int_equal(cmd_run_watch(argv, 120, on_instance, &w, &o), 0);
	st = o.status;
	cmd_out_free(&o);
	snprintf(name, sizeof(name), "fpulab-%d", (int)w.pid);
	assert_true(w.seen);
	assert_true(WIFEXITED(st));
	/* Its own instance: another fpulab may be tracing beside this test. */
	assert_int_equal(fpl_ktrace_list_instances(root, name, list, sizeof(list)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sample_line),
		cmocka_unit_test(test_parse_hand_written),
		cmocka_unit_test(test_tally_sample),
		cmocka_unit_test(test_tally_malformed_line_number),
		cmocka_unit_test(test_tally_window_and_header),
		cmocka_unit_test(test_dmesg_spr),
		cmocka_unit_test(test_dmesg_zen4_cet),
		cmocka_unit_test(test_dmesg_malformed),
		cmocka_unit_test(test_table_differs),
		cmocka_unit_test(test_skip_without_tracefs),
		cmocka_unit_test(test_skip_not_root),
		cmocka_unit_test(test_live_instance_removed),
		cmocka_unit_test(test_info_kernel_view),
		cmocka_unit_test(test_live_instance_removed_after_sigint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
