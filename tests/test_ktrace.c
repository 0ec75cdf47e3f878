// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests: x86_fpu trace lines and tallies, dmesg x86/fpu lines against CPUID, the tracefs session. */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/cpu.h"
#include "report/kernelview.h"
#include "fpulab/kexpect.h"
#include "fpulab/ktrace.h"
#include "fpulab/xstate.h"
#include "ktrace/ktrace_internal.h"
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
	/* The stacktrace option's lines: the header and its frames. */
	assert_int_equal(fpl_kt_parse_line("    sig2-28172   [001] b.... 2189701487571: <stack trace>",
					   &ev), 0);
	assert_int_equal(fpl_kt_parse_line(" => fpregs_mark_activate", &ev), 0);
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
/*
 * The tally t over ops operations op, read back as a kernel object, judged
 * against bench's expectation (placement for ctxsw): the classes that
 * differ must be differ.
 */
static void judge_as(const struct fpl_kt_tally *t, double ops, const char *bench,
		     const char *placement, const char *op, unsigned differ)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, bench);
	const struct fpl_kexpect *e;
	double per_op[FPL_KT_NCLASSES];
	json_t *j = fpl_kt_tally_json(t, ops, op, NULL);

	assert_non_null(j);
	if (placement)
		fpl_run_param_str(run, "placement", placement);
	e = fpl_kexpect_find(run, op);
	assert_non_null(e);
	fpl_kt_class_per_op(j, per_op);
	assert_int_equal(fpl_kexpect_judge(e, per_op, 0), differ);
	json_decref(j);
	fpl_result_free(r);
}

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
	/* Per round trip that is the ctxsw same-CPU expectation, to the event. */
	judge_as(&t, 20, "ctxsw", "same", "round trip", 0);
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

/* Zen 4 KVM guest, Linux 6.18.44: 8 signals to self (SIGUSR1, empty handler) between markers. */
#define SIG_TID		28179
#define SIG_STACK_TID	28172	/* the same program, traced with the stacktrace option */

static void signal_sample(const char *file, pid_t tid, struct fpl_kt_tally *t)
{
	char begin[64], end[64];
	struct fpl_diag diag = { "" };
	size_t len;
	char *text = slurp_path(file, &len);

	snprintf(begin, sizeof(begin), "fpulab-begin %d.1 ", (int)tid);
	snprintf(end, sizeof(end), "fpulab-end %d.1 ", (int)tid);
	assert_int_equal(fpl_kt_tally(text, len, &tid, 1, begin, end, t, &diag), 0);
	assert_true(t->begin_seen && t->end_seen);
	free(text);
}

/* Per signal: no save, no restore, two activations without a load; the model says so. */
static void test_signal_sample(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	pid_t tid = SIG_TID;
	size_t len;
	char *text;

	(void)state;
	signal_sample(DATA "zen4-kvm-signal-sample.txt", SIG_TID, &t);
	assert_int_equal(t.saves, 0);
	assert_int_equal(t.restores, 0);
	assert_int_equal(t.no_load, 16);
	assert_int_equal(t.drops + t.copies + t.others, 0);
	judge_as(&t, 8, "signal", NULL, "signal", 0);
	/* The same counts are not a round trip of two tasks: the judge can say no. */
	judge_as(&t, 8, "ctxsw", "same", "round trip",
		 1u << FPL_KT_C_SAVE | 1u << FPL_KT_C_RESTORE | 1u << FPL_KT_C_ACTIVATE);
	/*
	 * The whole file: the task's start (ret_from_fork and exec, each a
	 * restore) and its exit: fpu__drop() (a regs_deactivated and a drop),
	 * then its last switch-out (another regs_deactivated).
	 */
	text = slurp_path(DATA "zen4-kvm-signal-sample.txt", &len);
	assert_int_equal(fpl_kt_tally(text, len, &tid, 1, NULL, NULL, &t, &diag), 0);
	assert_int_equal(t.drops, 1);
	assert_int_equal(t.saves, 2);
	assert_int_equal(t.restores, 2);
	assert_int_equal(t.no_load, 16);
	free(text);
}

/*
 * Three KVM_RUN round trips of a real-mode guest (2 emulated instructions
 * with a CPUID, then OUT) under kvm_pvm: one kvm_fpu load and unload each,
 * the x86_fpu event before a load the guest fpstate's (CET_S in its
 * xcomp_bv), before an unload the host task's (without it).
 */
static void test_kvm_sample(void **state)
{
	struct fpl_diag diag = { "" };
	struct fpl_kt_tally t;
	struct fpl_kt_event ev;
	pid_t tid = 24081;
	size_t len;
	char *text = slurp_path(DATA "zen4-kvm-pvm-kvmrun-sample.txt", &len);
	json_t *o;

	(void)state;
	assert_int_equal(fpl_kt_parse_line("  small-24081 [000] ..... 12775950555555: kvm_fpu: "
					   "unload", &ev), 1);
	assert_int_equal(ev.type, FPL_KT_KVM);
	assert_int_equal(ev.kvm, FPL_KT_KVM_FPU_UNLOAD);
	assert_int_equal(fpl_kt_parse_line("  small-24081 [000] ..... 1: kvm_fpu: maybe", &ev),
			 -EINVAL);
	assert_int_equal(fpl_kt_tally(text, len, &tid, 1, "begin", "end", &t, &diag), 0);
	assert_true(t.kvm_seen);
	assert_int_equal(t.kvm[FPL_KT_KVM_FPU_LOAD], 3);
	assert_int_equal(t.kvm[FPL_KT_KVM_FPU_UNLOAD], 3);
	assert_int_equal(t.kvm[FPL_KT_KVM_USERSPACE_EXIT], 3);
	assert_int_equal(t.kvm[FPL_KT_KVM_PIO], 3);
	assert_int_equal(t.kvm[FPL_KT_KVM_CPUID], 3);
	assert_int_equal(t.kvm[FPL_KT_KVM_EMULATE_INSN], 11);
	assert_int_equal(t.kvm[FPL_KT_KVM_EXIT], 0);
	assert_int_equal(t.kvm_unpaired, 0);
	/* kvm events are not x86_fpu events: the classes see the six regs_activated alone. */
	assert_int_equal(t.no_load, 6);
	assert_int_equal(t.saves + t.restores + t.drops + t.copies, 0);
	assert_int_equal(t.nguest_xcomp_bv, 1);
	assert_true(t.guest_xcomp_bv[0] == 0x80000000000018e7ull);
	assert_int_equal(t.nhost_xcomp_bv, 1);
	assert_true(t.host_xcomp_bv[0] == 0x80000000000008e7ull);
	o = fpl_kt_tally_json(&t, 3, "round trip", fpl_xfeature_mask_names);
	assert_non_null(o);
	assert_true(json_number_value(json_object_get(json_object_get(o, "kvm"),
						      "fpu_loads_per_op")) == 1.0);
	assert_int_equal(json_integer_value(json_object_get(o, "other")), 0);
	json_decref(o);
	free(text);
}

/*
 * The same with the kernel stack of each event: the counts are the same
 * (stack lines carry no event), and the two activations of each signal come
 * from fpu__clear_user_states() at delivery and __fpu_restore_sig() at
 * sigreturn, in turn.
 */
static void test_signal_stacks(void **state)
{
	struct fpl_kt_tally t;
	size_t len, delivery = 0, sigreturn = 0;
	char *text = slurp_path(DATA "zen4-kvm-signal-stacks.txt", &len), *save = NULL, *line;
	const char *last = "";
	bool in = false, want = false;

	(void)state;
	signal_sample(DATA "zen4-kvm-signal-stacks.txt", SIG_STACK_TID, &t);
	assert_int_equal(t.saves + t.restores + t.drops + t.copies, 0);
	assert_int_equal(t.no_load, 16);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "fpulab-begin"))
			in = true;
		if (strstr(line, "fpulab-end"))
			break;
		if (!in)
			continue;
		if (strstr(line, "x86_fpu_regs_activated:")) {
			assert_false(want);	/* every event has its stack before the next */
			want = true;
		} else if (want && !strcmp(line, " => fpu__clear_user_states")) {
			assert_string_not_equal(last, "delivery");
			last = "delivery";
			delivery++;
			want = false;
		} else if (want && !strcmp(line, " => __fpu_restore_sig")) {
			assert_string_equal(last, "delivery");
			last = "sigreturn";
			sigreturn++;
			want = false;
		}
	}
	assert_false(want);
	assert_int_equal(delivery, 8);
	assert_int_equal(sigreturn, 8);
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

/* A traced pass's kernel object as fpl_kt_tally_json writes it: counts over ops. */
static json_t *pass(const char *op, double ops, int sv, int rs, int nl, int dr, double sw)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:f, "
			 "s:[{s:s, s:s}]}", "status", "traced", "name", "batch", "op", op,
			 "ops", ops, "saves", sv, "restores", rs, "restores_without_load", nl,
			 "drops", dr, "copies", 0, "other", 0, "switches_per_op", sw,
			 "xcomp_bv", "value", "0x80000000000008e7", "components", "x87|SSE");
}

static void set_release(struct fpl_result *r, const char *release)
{
	json_object_set_new(r->host, "kernel", json_pack("{s:s}", "release", release));
}

/* The table: counts the kernel source does not predict are a difference, with the reason. */
static void test_table_differs(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *a = fpl_result_add_run(r, "ctxsw"), *b = fpl_result_add_run(r, "signal"),
		*c = fpl_result_add_run(r, "signal"), *d = fpl_result_add_run(r, "section");
	static char buf[32768];
	char line[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	json_t *m;

	(void)state;
	assert_non_null(f);
	set_release(r, "6.18.44-fc-v669");
	fpl_run_param_str(a, "placement", "same");
	/* Same CPU, 100 round trips: 2 saves each, but only 1 restore. */
	fpl_run_obs_json(a, "kernel", pass("round trip", 100, 200, 100, 0, 0, 1.0));
	fpl_run_obs_json(b, "kernel", json_pack("{s:s, s:s}", "status", "skipped", "reason",
						 "not root"));
	/* 1000 signals with one switch of the thread: one save and one restore more. */
	fpl_run_obs_json(c, "kernel", pass("signal", 1000, 1, 1, 2000, 0, 0.001));
	/* Section: two switches in 64 calls; the model's own count is shown, not judged. */
	m = pass("call", 64, 2, 2, 0, 0, 2.0 / 64);
	json_object_set_new(m, "model", json_pack("{s:f, s:f, s:s}", "saves_per_op", 64.0,
						  "restores_per_op", 64.0, "why", "user space"));
	json_object_set_new(m, "name", json_string("inside"));
	fpl_run_obs_json(d, "kernel", m);
	assert_int_equal(fpl_table_kernel(r, f), 1);
	fclose(f);
	assert_non_null(strstr(buf, "DIFFERS: restores"));
	assert_null(strstr(buf, "DIFFERS: saves"));
	assert_non_null(strstr(buf, "not traced: not root"));
	assert_non_null(strstr(buf, "inside: fpulab's own model did 64.000 saves"));
	/* The signal row agrees, and its note names where the two activations come from. */
	assert_non_null(strstr(buf, "2.000"));
	assert_non_null(strstr(buf, "agrees ["));
	assert_non_null(strstr(buf, "fpu__clear_user_states()"));
	assert_non_null(strstr(buf, "Linux 5.8 and later"));
	assert_int_equal(fpl_kview_xcomp_line(r, 12, "CET_S", line, sizeof(line)), 1);
	assert_non_null(strstr(line, "0x80000000000008e7"));
	assert_non_null(strstr(line, "CET_S (bit 12) is not in it"));
	assert_int_equal(fpl_kview_xcomp_line(r, 11, "CET_U", line, sizeof(line)), 1);
	assert_non_null(strstr(line, "is in it"));
	fpl_result_free(r);
}

/*
 * amx, written from the kernel source (no AMX machine has run it): one
 * child's lifecycle agrees when the child's xcomp_bv grew by TILEDATA, and
 * differs when it never did. r gets two runs; returns the table's count.
 */
static int amx_table(bool grew, char *buf, size_t len)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "amx");
	FILE *f = fmemopen(buf, len, "w");
	json_t *k = pass("child", 1, 3, 2, 0, 1, 1.0);
	int n;

	assert_non_null(f);
	set_release(r, "6.18.44");
	json_object_set_new(k, "copies", json_integer(2));
	json_object_set_new(k, "tasks", json_pack("[{s:i, s:[{s:s}]}, {s:i, s:[{s:s}, {s:s}]}]",
		"tid", 10, "xcomp_bv", "value", "0x80000000000200e7",
		"tid", 11, "xcomp_bv", "value", "0x80000000000200e7",
		"value", grew ? "0x80000000000600e7" : "0x80000000000200e7"));
	fpl_run_obs_json(run, "kernel", k);
	n = fpl_table_kernel(r, f);
	fclose(f);
	fpl_result_free(r);
	return n;
}

static void test_table_amx_untested(void **state)
{
	static char buf[16384];

	(void)state;
	assert_int_equal(amx_table(true, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "agrees ["));
	assert_non_null(strstr(buf, "untested:"));
	assert_non_null(strstr(buf, "fpstate_realloc()"));
	assert_int_equal(amx_table(false, buf, sizeof(buf)), 1);
	assert_non_null(strstr(buf, "DIFFERS: xcomp_bv"));
}

/* A kernel older than the source the expectation was written from: shown, not compared. */
static void test_table_old_kernel(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *a = fpl_result_add_run(r, "signal");
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	set_release(r, "5.4.0-100-generic");
	/* What a pre-5.8 delivery could look like (fpu__clear() dropped first): not judged. */
	fpl_run_obs_json(a, "kernel", pass("signal", 1000, 1000, 0, 2000, 1000, 0));
	assert_int_equal(fpl_table_kernel(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "unknown ["));
	assert_non_null(strstr(buf, "not compared: written for Linux 5.8 and later, this is "
			       "5.4.0-100-generic"));
	assert_null(strstr(buf, "DIFFERS"));
	/* the same counts from a kernel the expectation was written for: judged, and they differ */
	set_release(r, "6.18.44-fc-v669");
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(fpl_table_kernel(r, f), 1);
	fclose(f);
	assert_non_null(strstr(buf, "DIFFERS"));
	assert_null(strstr(buf, "not compared"));
	fpl_result_free(r);
}

/*
 * fpulab with env and args (which ask for --json) must exit 0; the first
 * run's observed.kernel object, from *doc (the caller's to json_decref).
 */
static const json_t *run_kernel(const char *env, const char *args, json_t **doc)
{
	char *out, *err;
	const json_t *k;

	assert_int_equal(fplrun(env, args, &out, &err), 0);
	*doc = json_loads(out, 0, NULL);
	free(out);
	free(err);
	assert_non_null(*doc);
	k = json_object_get(json_object_get(json_array_get(json_object_get(*doc, "runs"), 0),
					    "observed"), "kernel");
	assert_non_null(k);
	return k;
}

/*
 * A tracefs write is one write(2), never continued: all of it, the error, or
 * -EIO when it wrote less (a short write sets no errno: it must not read as
 * done). The file size limit cuts a write to a regular file short, every time.
 */
static void test_write_whole_short(void **state)
{
	static const char m[] = "fpulab-end 1234.1 self";
	char path[] = "/tmp/fpl-ktwrite-XXXXXX", got[64];
	struct rlimit old, lim;
	void (*oldh)(int);
	int fd = mkstemp(path), short_err, full_err;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 8;
	oldh = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	errno = 0;
	short_err = fpl_kt_write_whole(fd, m, strlen(m));	/* 8 bytes of 22 */
	full_err = fpl_kt_write_whole(fd, m, strlen(m));	/* at the limit: EFBIG */
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, oldh);
	assert_int_equal(pread(fd, got, sizeof(got), 0), 8);
	assert_int_equal(short_err, -EIO);
	assert_int_equal(full_err, -EFBIG);
	/* no limit: all of it */
	assert_int_equal(fpl_kt_write_whole(fd, m, strlen(m)), 0);
	assert_int_equal(pread(fd, got, sizeof(got), 8), (ssize_t)strlen(m));
	assert_int_equal(fpl_kt_write_whole(fd, m, 0), 0);
	close(fd);
	assert_int_equal(fpl_kt_write_whole(fd, m, strlen(m)), -EBADF);
}

/* No tracefs: the benchmark still runs, its run says why the kernel was not traced. */
static void test_skip_without_tracefs(void **state)
{
	json_t *doc;
	const json_t *k;

	(void)state;
	k = run_kernel("FPL_TRACEFS=/nonexistent/tracefs ",
		       "signal --kernel-trace --budget 0.05 --json -q", &doc);
	assert_string_equal(json_string_value(json_object_get(k, "status")), "skipped");
	assert_non_null(strstr(json_string_value(json_object_get(k, "reason")), "no tracefs"));
	json_decref(doc);
}

/* Not root (setpriv to nobody when the test is root): a skip with the reason, exit 0. */
static void test_skip_not_root(void **state)
{
	/* FPL_TRACEFS unset: tracefs found or mounted as fpulab does by itself */
	const char *pre = "env -u FPL_TRACEFS ", *why;
	json_t *doc;
	const json_t *k;

	(void)state;
	if (geteuid() == 0) {
		if (access("/usr/bin/setpriv", X_OK)) {
			print_message("  skipped: root and no setpriv to drop it\n");
			skip();
		}
		pre = "env -u FPL_TRACEFS /usr/bin/setpriv --reuid=65534 --regid=65534 "
		      "--clear-groups ";
	}
	k = run_kernel(pre, "signal --kernel-trace --budget 0.05 --json -q", &doc);
	assert_string_equal(json_string_value(json_object_get(k, "status")), "skipped");
	why = json_string_value(json_object_get(k, "reason"));
	assert_non_null(why);
	/* src/ktrace: "not root: tracefs is not mounted ...", or the instance's EACCES
	 * ("Permission denied") where a tracefs is mounted readable by all */
	if (!strstr(why, "root") && !strstr(why, "ermission"))
		fail_msg("not root: kernel trace reason '%s' names neither root nor permission",
			 why);
	json_decref(doc);
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

static bool is_dir_path(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
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

/*
 * A live pass against the kernel source's expectation: where it applies to
 * this kernel (Linux 5.8 to 6.18 for signal) every class agrees; elsewhere
 * the run says why it was not compared.
 */
static void live_expected(const json_t *k, const char *what)
{
	const json_t *x = json_object_get(k, "expected");
	const char *applies = json_string_value(json_object_get(x, "applies"));

	assert_non_null(applies);
	assert_true(json_is_number(json_object_get(k, "switches_per_op")));
	if (strcmp(applies, "yes")) {
		print_message("  %s: expectation not checked here: applies '%s' (from Linux %s, "
			      "source read up to %s)\n", what, applies,
			      json_string_value(json_object_get(x, "since")),
			      json_string_value(json_object_get(x, "checked")));
		return;
	}
	if (json_array_size(json_object_get(x, "differs"))) {
		char *d = json_dumps(k, JSON_COMPACT);

		fprintf(stderr, "%s: kernel %s\n", what, d);
		free(d);
	}
	assert_int_equal(json_array_size(json_object_get(x, "differs")), 0);
}

/*
 * A live traced run of args (skipped with the reason where tracefs is not
 * there), checked against the expectation; its kernel object in *k, the
 * document returned for the caller to json_decref.
 */
static json_t *live_traced(const char *args, const char *what, const json_t **k)
{
	char why[200];
	json_t *doc;

	if (!live_root(why, sizeof(why))) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	*k = run_kernel("", args, &doc);
	assert_string_equal(json_string_value(json_object_get(*k, "status")), "traced");
	live_expected(*k, what);
	return doc;
}

/*
 * No instance of a process gone but those in before: tracefs is the
 * kernel's, and an fpulab killed elsewhere on this machine (SIGKILL leaves
 * no chance to clean up) may have left one before this test ran.
 */
static void assert_no_new_stale(const char *root, const char *before)
{
	char now[1024], *tok, *save = NULL;

	stale_instances(root, now, sizeof(now));
	for (tok = strtok_r(now, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char name[80];

		snprintf(name, sizeof(name), "%s ", tok);
		if (!strstr(before, name))
			fail_msg("the tracefs instance %s outlived its fpulab (there before: '%s')",
				 tok, before);
	}
}

static void test_live_instance_removed(void **state)
{
	char why[200], before[1024], *out, *err;
	const char *root = live_root(why, sizeof(why));
	const json_t *k;
	json_t *doc;

	(void)state;
	if (root)
		stale_instances(root, before, sizeof(before));
	doc = live_traced("signal --kernel-trace --budget 0.05 --json -q", "signal", &k);
	assert_true(json_is_number(json_object_get(k, "saves_per_op")));
	assert_true(json_array_size(json_object_get(k, "xcomp_bv")) >= 1);
	json_decref(doc);
	assert_no_new_stale(root, before);
	/* fpulab run ends through its own report: the instance goes there too. */
	assert_int_equal(fplrun("", "run signal --kernel-trace --budget 0.2 -q", &out, &err), 0);
	assert_non_null(strstr(out, "Model against kernel"));
	free(out);
	free(err);
	assert_no_new_stale(root, before);
}

/*
 * An instance of our name that cannot be removed (busy: a reader holds its
 * trace_marker) is refused with its path and the reason, and left there:
 * it was used before, and close could have removed what another made.
 */
static void test_live_busy_instance_refused(void **state)
{
	char why[200], inst[320], marker[360], *old;
	const char *root = live_root(why, sizeof(why));
	struct fpl_diag diag = { "" };
	struct fpl_ktrace *kt = NULL;
	int fd, err;
	bool there;

	(void)state;
	if (!root) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	snprintf(inst, sizeof(inst), "%s/instances/fpulab-%d", root, (int)getpid());
	snprintf(marker, sizeof(marker), "%s/trace_marker", inst);
	assert_int_equal(mkdir(inst, 0700), 0);
	fd = open(marker, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	old = getenv("FPL_TRACEFS") ? strdup(getenv("FPL_TRACEFS")) : NULL;
	setenv("FPL_TRACEFS", root, 1);
	err = fpl_ktrace_open(&kt, &diag);
	fpl_ktrace_close(kt);
	if (old)
		setenv("FPL_TRACEFS", old, 1);
	else
		unsetenv("FPL_TRACEFS");
	free(old);
	there = is_dir_path(inst);
	close(fd);
	rmdir(inst);
	print_message("  %s\n", diag.msg);
	assert_int_equal(err, -EBUSY);
	assert_non_null(strstr(diag.msg, inst));
	assert_non_null(strstr(diag.msg, strerror(EBUSY)));
	assert_true(there);
}

/* A pid that was in use and is not now: a child that has been waited for. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/*
 * Instances left by killed fpulab processes go at the next open (issue 32
 * item 17), on a stand-in root of plain directories: fpulab-<gone pid>
 * removed and named; a live process's, another name, a non-number, kept.
 */
static void test_stale_instances_removed(void **state)
{
	char root[] = "/tmp/fpl-ktstale-XXXXXX", p[512], names[256], want[64];
	pid_t dead = gone_pid();
	const char *keep[4];
	char live[32];
	int n;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(live, sizeof(live), "fpulab-%d", (int)getppid());
	keep[0] = live;
	keep[1] = "fpulab-12ab";
	keep[2] = "other-5";
	keep[3] = "fpulab-";
	snprintf(p, sizeof(p), "%s/instances", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/instances/fpulab-%d", root, (int)dead);
	assert_int_equal(mkdir(p, 0700), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/instances/%s", root, keep[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	n = fpl_ktrace_remove_stale(root, names, sizeof(names));
	assert_int_equal(n, 1);
	snprintf(want, sizeof(want), "fpulab-%d", (int)dead);
	assert_string_equal(names, want);
	snprintf(p, sizeof(p), "%s/instances/%s", root, want);
	assert_false(is_dir_path(p));
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/instances/%s", root, keep[i]);
		assert_true(is_dir_path(p));
		assert_int_equal(rmdir(p), 0);
	}
	assert_int_equal(fpl_ktrace_remove_stale(root, names, sizeof(names)), 0);
	assert_string_equal(names, "");
	snprintf(p, sizeof(p), "%s/instances", root);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(root), 0);
	assert_true(fpl_ktrace_remove_stale(root, names, sizeof(names)) < 0);
}

/*
 * The same in the kernel's tracefs: an instance as a SIGKILLed run leaves it
 * (a real one, with its buffer) is gone after the next --kernel-trace run,
 * which says so once on stderr.
 */
static void test_live_stale_instance_removed(void **state)
{
	char why[200], inst[320], env[400], *out, *err;
	const char *root = live_root(why, sizeof(why));
	pid_t dead = gone_pid();

	(void)state;
	if (!root) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	snprintf(inst, sizeof(inst), "%s/instances/fpulab-%d", root, (int)dead);
	assert_int_equal(mkdir(inst, 0700), 0);
	snprintf(env, sizeof(env), "FPL_TRACEFS=%s ", root);
	assert_int_equal(fplrun(env, "signal --kernel-trace --budget 0.05", &out, &err), 0);
	if (is_dir_path(inst)) {
		rmdir(inst);
		fail_msg("%s still there after a traced run:\n%s", inst, err);
	}
	assert_non_null(strstr(err, "removed tracefs instances left by fpulab processes"));
	assert_non_null(strstr(err, inst + strlen(root) + strlen("/instances/")));
	free(out);
	free(err);
}

/* ctxsw on one CPU: 2 saves and 2 restores per round trip, where the expectation applies. */
static void test_live_ctxsw_expected(void **state)
{
	const json_t *k;

	(void)state;
	json_decref(live_traced("ctxsw --kernel-trace --placement same --budget 0.05 --json -q",
				"ctxsw", &k));
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

/*
 * Watch: SIGINT 0.2 s after the child's own tracefs instance appears, which
 * comes after the clock and self-checks: a second here, more on a loaded
 * machine; SIGINT anyway after 120 s (the test then fails: never seen).
 */
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
	if ((w->seen && t >= w->seen_at + 0.2) || t > 120) {
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
	assert_int_equal(cmd_run_watch(argv, 240, on_instance, &w, &o), 0);
	st = o.status;
	cmd_out_free(&o);
	snprintf(name, sizeof(name), "fpulab-%d", (int)w.pid);
	assert_true(w.seen);
	assert_true(WIFEXITED(st));
	/* Its own instance: another fpulab may be tracing beside this test. */
	assert_int_equal(fpl_ktrace_list_instances(root, name, list, sizeof(list)), 0);
}

/*
 * Stop the child while its own instance is there (SIGSTOP, then the instance
 * checked again), send it SIGINT and let it go on: the signal is sure to come
 * while the instance exists, however short that is.
 */
struct stop_watch {
	const char *root;
	pid_t pid;
	bool done, hit;
};

static int stop_in_instance(pid_t pid, double t, double *next_s, void *arg)
{
	struct stop_watch *w = arg;
	char name[64], list[256];
	siginfo_t si = { 0 };

	w->pid = pid;
	if (t < 0 || w->done)
		return 0;
	*next_s = 0.0002;
	snprintf(name, sizeof(name), "fpulab-%d", (int)pid);
	if (fpl_ktrace_list_instances(w->root, name, list, sizeof(list)) != 1)
		return 0;
	w->done = true;
	kill(pid, SIGSTOP);
	/* WNOWAIT: an exit before the stop stays for cmd_finish to reap */
	if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WEXITED | WNOWAIT))
		return 0;
	w->hit = si.si_code == CLD_STOPPED &&
		 fpl_ktrace_list_instances(w->root, name, list, sizeof(list)) == 1;
	kill(pid, SIGINT);
	kill(pid, SIGCONT);
	return 0;
}

/* info --kernel-trace interrupted while its instance is there: removed, then ended by the signal. */
static void test_info_instance_removed_after_sigint(void **state)
{
	char why[200], list[256], name[64];
	const char *root = live_root(why, sizeof(why));
	const char *argv[] = { cmd_fpl_bin(), "info", "--kernel-trace", "--json", NULL };
	struct stop_watch w = { root, 0, false, false };
	struct cmd_out o;
	int left = 0, tries;

	(void)state;
	if (!root) {
		print_message("  skipped: %s\n", why);
		skip();
	}
	/* The stop may come after the instance is gone: then again, a few times. */
	for (tries = 1;; tries++) {
		w = (struct stop_watch){ root, 0, false, false };
		assert_int_equal(cmd_run_watch(argv, 60, stop_in_instance, &w, &o), 0);
		snprintf(name, sizeof(name), "fpulab-%d", (int)w.pid);
		left = fpl_ktrace_list_instances(root, name, list, sizeof(list));
		if (left > 0) {
			char path[512];

			snprintf(path, sizeof(path), "%s/instances/%s", root, name);
			rmdir(path);	/* not left for the other tests */
		}
		if (w.hit || left || tries == 20)
			break;
		cmd_out_free(&o);
	}
	print_message("  %d run(s) to stop it inside its instance\n", tries);
	if (!w.hit && !left)
		fail_msg("never stopped inside its tracefs instance in %d runs", tries);
	assert_int_equal(left, 0);
	assert_true(WIFSIGNALED(o.status));
	assert_int_equal(WTERMSIG(o.status), SIGINT);
	assert_int_equal(o.nout, 0);	/* no report from an interrupted info */
	cmd_out_free(&o);
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
		cmocka_unit_test(test_signal_sample),
		cmocka_unit_test(test_signal_stacks),
		cmocka_unit_test(test_table_differs),
		cmocka_unit_test(test_table_old_kernel),
		cmocka_unit_test(test_table_amx_untested),
		cmocka_unit_test(test_write_whole_short),
		cmocka_unit_test(test_skip_without_tracefs),
		cmocka_unit_test(test_skip_not_root),
		cmocka_unit_test(test_live_instance_removed),
		cmocka_unit_test(test_live_busy_instance_refused),
		cmocka_unit_test(test_live_ctxsw_expected),
		cmocka_unit_test(test_info_kernel_view),
		cmocka_unit_test(test_kvm_sample),
		cmocka_unit_test(test_live_instance_removed_after_sigint),
		cmocka_unit_test(test_stale_instances_removed),
		cmocka_unit_test(test_live_stale_instance_removed),
		cmocka_unit_test(test_info_instance_removed_after_sigint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
