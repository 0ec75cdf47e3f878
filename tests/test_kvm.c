// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for kvm: the backend, the guest's code, the VM's state round trip, the trace, bad input. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "fpulab/ktrace.h"
#include "fpulab/kvmhost.h"
#include "fpulab/xstate.h"
#include "bench/kvm/kvmbench.h"
#include "report/views.h"
#include "taskstest.h"

/* /dev/kvm usable here, or skip() with the reason (CI may run where it is not). */
static void need_kvm(struct fpl_kvm_host *h)
{
	if (fpl_kvm_host_read(h)) {
		print_message("skipped: %s\n", h->why);
		skip();
	}
}

static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_backend_of(void **state)
{
	(void)state;
	assert_int_equal(fpl_kvm_backend_of(false, FPL_KVM_MOD_INTEL, true, false), FPL_KVM_NONE);
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_INTEL, true, false), FPL_KVM_VMX);
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_AMD, false, true), FPL_KVM_SVM);
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_PVM, false, false), FPL_KVM_PVM);
	/* PVM beside a vendor module serves /dev/kvm only where the CPU has no VMX/SVM. */
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_PVM | FPL_KVM_MOD_AMD, false, true),
			 FPL_KVM_SVM);
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_PVM | FPL_KVM_MOD_AMD, false, false),
			 FPL_KVM_PVM);
	assert_int_equal(fpl_kvm_backend_of(true, 0, true, false), FPL_KVM_UNKNOWN);
	assert_int_equal(fpl_kvm_backend_of(true, FPL_KVM_MOD_INTEL | FPL_KVM_MOD_AMD, true, true),
			 FPL_KVM_UNKNOWN);
	assert_string_equal(fpl_kvm_backend_label(FPL_KVM_PVM),
			    "PVM: guest ring 0 emulated, XCR0 not switched");
	assert_string_equal(fpl_kvm_backend_label(FPL_KVM_VMX), "");
}

/*
 * The loop's bytes, assembled by hand from the SDM's encodings: 31 C0
 * (xor eax,eax), 0F A2 (cpuid), B8/BA/BB imm32 (mov r32, imm32), 48 0F AE
 * /5 with ModRM 0x2B (xrstor64 [rbx]), E6 ib (out imm8, al), E9 rel32.
 */
static void test_guest_code_bytes(void **state)
{
	static const uint8_t want[] = {
		0x31, 0xc0, 0x0f, 0xa2,
		0xb8, 0xe7, 0x00, 0x00, 0x00, 0xba, 0x01, 0x00, 0x00, 0x00,
		0xbb, 0x00, 0x00, 0x01, 0x00, 0x48, 0x0f, 0xae, 0x2b,
		0xe6, 0x10, 0xe9, 0xe2, 0xff, 0xff, 0xff,	/* back 30 bytes, to 0 */
	};
	struct fpl_kvm_guest g = { .ring = 0, .cpuids = 1, .writes = true,
				   .rfbm = 0x1000000e7ull };
	uint8_t code[64];
	size_t n;

	(void)state;
	n = fpl_kvm_guest_code(&g, 0x10000, false, code, sizeof(code));
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(code, want, sizeof(want));
	/* Too small a buffer: 0, nothing half-made used. */
	assert_int_equal(fpl_kvm_guest_code(&g, 0x10000, false, code, 8), 0);
	g.writes = false;
	g.cpuids = 0;
	n = fpl_kvm_guest_code(&g, 0, false, code, sizeof(code));
	assert_int_equal(n, 7);
	assert_memory_equal(code, ((const uint8_t[]){ 0xe6, 0x10, 0xe9, 0xf9, 0xff, 0xff, 0xff }),
			    7);
}

/*
 * The guest's register writes (its ring-0 path on VMX/SVM, which PVM
 * cannot run) executed here as a function: the same bytes, RET for OUT.
 * The registers must then hold the image, read back with XSAVE.
 */
static void test_guest_code_runs_here(void **state)
{
	struct fpl_xstate xs;
	uint64_t rfbm, mask;
	uint8_t *page, *img, *back;
	struct fpl_kvm_guest g = { .cpuids = 2, .writes = true };
	size_t n;

	(void)state;
	fpl_cpu_read(&tt_cpu);
	assert_int_equal(fpl_xstate_init(&xs, &tt_cpu), 0);
	if (!xs.xsave)
		skip();
	rfbm = xs.xcr0 & ~(FPL_XFEATURE_MASK_PKRU | FPL_XFEATURE_MASK_XTILE |
			   FPL_XFEATURE_MASK(APX));
	mask = rfbm & ~FPL_XFEATURE_MASK_FP;
	/* Below 4 GiB: the loop loads the image's address with a 32-bit move. */
	page = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	assert_true(page != MAP_FAILED);
	img = page + 4096;
	back = fpl_xstate_alloc(xs.size_std_max);
	assert_non_null(back);
	fpl_xstate_pattern(&xs, mask, 42, img);
	g.rfbm = rfbm;
	n = fpl_kvm_guest_code(&g, (uint32_t)(uintptr_t)img, true, page, 4096);
	assert_true(n > 0);
	((void (*)(void))(uintptr_t)page)();
	fpl_xsave64(back, rfbm);
	fpl_regs_init(&xs, rfbm & ~FPL_XFEATURE_MASK_FP);
	assert_int_equal(fpl_kvm_state_differs(&xs, mask, img, back), 0);
	free(back);
	munmap(page, 1 << 16);
}

/* A VM here: the guest's state set, read back, kept over round trips; CET_S refused. */
static void test_state_round_trip(void **state)
{
	struct fpl_kvm_host h;
	struct fpl_kvm_vm vm;
	struct fpl_kvm_vm_cfg cfg = { .guest = { .ring = 0 } };
	struct fpl_diag diag = { "" };
	struct fpl_xstate xs;
	uint8_t *img, *back;
	uint64_t mask, bv;
	size_t fds = open_fds();

	(void)state;
	need_kvm(&h);
	fpl_cpu_read(&tt_cpu);
	assert_int_equal(fpl_xstate_init(&xs, &tt_cpu), 0);
	if (fpl_kvm_vm_open(&vm, &cfg, &diag))
		fail_msg("%s", diag.msg);
	mask = h.supported_xcr0 & xs.xcr0 & ~(FPL_XFEATURE_MASK_PKRU | FPL_XFEATURE_MASK_XTILE |
					      FPL_XFEATURE_MASK_FP);
	img = fpl_xstate_alloc(vm.xsave_size + xs.size_std_max);
	back = fpl_xstate_alloc(vm.xsave_size + xs.size_std_max);
	assert_non_null(img);
	assert_non_null(back);
	fpl_xstate_pattern(&xs, mask, 7, img);
	assert_int_equal(fpl_kvm_vm_set_xsave(&vm, img), 0);
	assert_int_equal(fpl_kvm_vm_get_xsave(&vm, back), 0);
	memcpy(&bv, back + 512, sizeof(bv));
	assert_true((bv & mask) == mask);
	assert_int_equal(fpl_kvm_state_differs(&xs, mask, img, back), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(fpl_kvm_vm_run(&vm), 0);
	assert_int_equal(vm.run->exit_reason, KVM_EXIT_IO);
	assert_int_equal(vm.run->io.port, FPL_KVM_PORT);
	memset(back, 0, vm.xsave_size);
	assert_int_equal(fpl_kvm_vm_get_xsave(&vm, back), 0);
	assert_int_equal(fpl_kvm_state_differs(&xs, mask, img, back), 0);
	/* Supervisor state is never a user ABI image's: KVM_SET_XSAVE refuses XSTATE_BV[12]. */
	bv = mask | FPL_XFEATURE_MASK(CET_KERNEL);
	memcpy(img + 512, &bv, sizeof(bv));
	assert_int_equal(fpl_kvm_vm_set_xsave(&vm, img), -EINVAL);
	free(img);
	free(back);
	fpl_kvm_vm_close(&vm);
	assert_int_equal(open_fds(), fds);
}

/* The benchmark in this process: figures, the state verified, no fd left behind. */
static void test_bench_runs(void **state)
{
	struct fpl_kvm_host h;
	struct fpl_result *r;
	size_t fds;
	int rc;

	(void)state;
	need_kvm(&h);
	fds = open_fds();
	r = tt_run("kvm", 0.2, &rc, "ab", "init,avx", NULL);
	assert_int_equal(rc, 0);
	/* a host without AVX has no avx state to give the guest: a skip with its reason */
	if (r->runs[0]->skipped && !fpl_cpu_has(&tt_cpu, FPL_FEAT_AVX)) {
		print_message("skipped: %s\n", r->runs[0]->skip_reason);
		fpl_result_free(r);
		skip();
	}
	if (r->runs[0]->skipped)
		fail_msg("skipped: %s", r->runs[0]->skip_reason);
	assert_string_equal(tt_obs(r->runs[0], "state_verified"), "yes");
	assert_true(fpl_run_find_metric(r->runs[0], "round_trip_a_cycles")->n >= 3);
	assert_int_equal(fpl_run_find_metric(r->runs[0], "difference_tsc")->n,
			 fpl_run_find_metric(r->runs[0], "round_trip_b_tsc")->n);
	assert_non_null(tt_obs(r->runs[0], "b_minus_a"));
	/*
	 * Issue 32 item 7: the samples' lattice (the TSC's step over the reps) is
	 * in the intervals: the median's carries one step at each end.
	 */
	{
		const struct fpl_metric *d = fpl_run_find_metric(r->runs[0], "difference_tsc");
		double q = json_real_value(json_object_get(d->extra, "lattice_step"));
		json_t *med = json_object_get(d->extra, "median");

		assert_true(q > 0);
		if (med)
			assert_true(json_real_value(json_object_get(med, "ci_hi")) -
				    json_real_value(json_object_get(med, "ci_lo")) >= 2 * q);
	}
	assert_string_equal(tt_obs(r->runs[0], "kvm_backend"), fpl_kvm_backend_name(h.backend));
	assert_int_equal(tt_obs_int(r->runs[0], "guest_ring"), 0);
	fpl_result_free(r);
	/* A state this host cannot give a guest: a skip with the reason, no fd either. */
	r = tt_run("kvm", 0.1, &rc, "state", "pkru", NULL);
	assert_int_equal(rc, 0);
	assert_true(r->runs[0]->skipped);
	assert_non_null(strstr(r->runs[0]->skip_reason, "cannot give a guest"));
	fpl_result_free(r);
	assert_int_equal(open_fds(), fds);
}

/*
 * PVM, seen in what it does rather than in /sys/module: a guest's ring 0 is
 * KVM's instruction emulator there, which cannot run XRSTOR; on VMX/SVM the
 * same guest runs at ring 0 with its state verified.
 */
static void test_pvm_detected(void **state)
{
	struct fpl_kvm_host h;
	struct fpl_result *r;
	int rc;

	(void)state;
	need_kvm(&h);
	r = tt_run("kvm", 0.1, &rc, "guest", "writes", "ring", "0", "state", "avx", NULL);
	assert_int_equal(rc, 0);
	if (h.backend == FPL_KVM_PVM) {
		assert_true(r->runs[0]->skipped);
		assert_non_null(strstr(r->runs[0]->skip_reason, "emulator"));
		assert_false(h.vmx || h.svm);
	} else if (h.backend == FPL_KVM_VMX || h.backend == FPL_KVM_SVM) {
		assert_false(r->runs[0]->skipped);
		assert_string_equal(tt_obs(r->runs[0], "state_verified"), "yes");
	}
	fpl_result_free(r);
	/* auto: ring 3 for a writing guest under PVM, its registers verified there. */
	r = tt_run("kvm", 0.1, &rc, "guest", "writes", "state", "avx", NULL);
	assert_int_equal(rc, 0);
	assert_false(r->runs[0]->skipped);
	assert_int_equal(tt_obs_int(r->runs[0], "guest_ring"), h.backend == FPL_KVM_PVM ? 3 : 0);
	assert_string_equal(tt_obs(r->runs[0], "state_verified"), "yes");
	fpl_result_free(r);
}

/* The kernel's events per KVM_RUN against the model (root, tracefs and kvm events needed). */
static void test_trace_agrees(void **state)
{
	const struct fpl_bench *b = fpl_bench_find("kvm");
	struct fpl_optval ov[] = { { "cpuid", "3" } };
	struct fpl_bench_env env = { .bench = b, .cpu = &tt_cpu, .clock = tt_clock(),
				     .budget_s = 0.1, .pin_cpu = -1, .opts = ov, .nopts = 1 };
	struct fpl_diag diag = { "" };
	struct fpl_kvm_host h;
	struct fpl_ktrace *kt;
	struct fpl_result *r;
	const json_t *k, *kvm, *e;

	(void)state;
	need_kvm(&h);
	if (fpl_ktrace_open(&kt, &diag)) {
		print_message("skipped: %s\n", diag.msg);
		skip();
	}
	env.ktrace = kt;
	r = fpl_result_new();
	assert_int_equal(b->run(&env, r), 0);
	fpl_ktrace_close(kt);
	k = fpl_run_obs_get(r->runs[0], "kernel");
	if (fpl_run_obs_get(r->runs[0], "kernel_kvm_events")) {
		print_message("skipped: the kvm events: %s\n",
			      json_string_value(fpl_run_obs_get(r->runs[0], "kernel_kvm_events")) ?:
			      "not traced");
		fpl_result_free(r);
		skip();
	}
	/* a KVM_RUN a signal cut short has its own exits: the per-op counts are not exact then */
	if (fpl_run_obs_get_int(r->runs[0], "kvm_run_interrupted", 0) > 0) {
		print_message("skipped: %lld KVM_RUNs interrupted while traced\n",
			      fpl_run_obs_get_int(r->runs[0], "kvm_run_interrupted", 0));
		fpl_result_free(r);
		skip();
	}
	assert_string_equal(json_string_value(json_object_get(k, "status")), "traced");
	kvm = json_object_get(k, "kvm");
	e = json_object_get(k, "expected");
	assert_true(json_number_value(json_object_get(kvm, "fpu_loads_per_op")) == 1.0);
	assert_true(json_number_value(json_object_get(kvm, "fpu_unloads_per_op")) == 1.0);
	/* PVM's ring 0 and VMX/SVM alike: every CPUID reaches KVM, inside the one KVM_RUN. */
	assert_true(json_number_value(json_object_get(kvm, "cpuid_per_op")) == 3.0);
	assert_int_equal(json_array_size(json_object_get(e, "differs")), 0);
	assert_int_equal(json_array_size(json_object_get(k, "kvm_guest_xcomp_bv")), 1);
	assert_int_equal(json_array_size(json_object_get(k, "kvm_host_xcomp_bv")), 1);
	fpl_result_free(r);
}

/* The view on a made-up run: each state's row with its median, B - A with its words. */
static void test_table(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "kvm");
	struct fpl_table_opts o = { .warnings = true };
	const char *names[] = { "round_trip_a_tsc", "round_trip_b_tsc" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fpl_run_param_str(run, "state_a", "init");
	fpl_run_param_str(run, "state_b", "avx512");
	fpl_run_obs_str(run, "kvm_backend", "kvm_pvm (PVM)");
	fpl_run_obs_str(run, "kvm_label", "PVM: guest ring 0 emulated, XCR0 not switched");
	fpl_run_obs_str(run, "xstate_bv_set_b", "0xe0");
	fpl_run_obs_str(run, "b_minus_a", "+54.1 TSC ticks = +0.297% of A");
	for (int i = 0; i < 2; i++) {
		struct fpl_metric *m = fpl_run_add_metric(run, names[i], "tsc", "synthetic");

		for (int k = 0; k < 5; k++)
			assert_int_equal(fpl_metric_add(m, 18000 + 100 * i + k), 0);
	}
	assert_int_equal(fpl_view_table(r, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "PVM: guest ring 0 emulated, XCR0 not switched"));
	assert_non_null(strstr(buf, "avx512       0xe0"));
	assert_non_null(strstr(buf, "18102 [18101, 18103] TSC ticks"));	/* B's median, quartiles */
	assert_non_null(strstr(buf, "B - A (avx512 minus init)"));
	assert_null(strstr(buf, "A/A control"));
	free(buf);
	/* The suite's block: both states' medians, B - A named by its states. */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	fpl_summary_kvm(r, f);
	fclose(f);
	assert_non_null(strstr(buf, "state init 18002 [18001, 18003], avx512 18102"));
	assert_non_null(strstr(buf, "avx512 minus init: +54.1 TSC ticks"));
	free(buf);
	fpl_result_free(r);
}

/*
 * --runs: each run's trimmed B - A one replicate. 40, 50, 60 ticks: mean 50,
 * sd 10, t(0.975, 2) = 4.3027 (R: qt(0.975, 2)), so 50 +/- 24.84.
 */
static void test_series(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 3; i++) {
		struct fpl_run *run = fpl_result_add_run(r, "kvm");
		struct fpl_metric *m = fpl_run_add_metric(run, "difference_tsc", "tsc", "synthetic");

		fpl_run_param_str(run, "state_a", "init");
		fpl_run_param_str(run, "state_b", "avx512");
		assert_int_equal(fpl_metric_add(m, 1), 0);
		m->extra = json_pack("{s:{s:f, s:f}}", "paired_trimmed", "diff", 40.0 + 10 * i,
				     "a", 20000.0);
	}
	assert_int_equal(fpl_series_kvm(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "3 runs"));
	assert_non_null(strstr(buf, "+50.0 TSC ticks [+25.2, +74.8] = +0.250% [+0.126, +0.374]"));
	assert_non_null(strstr(buf, "proven"));
	free(buf);
	fpl_result_free(r);
}

/* The command: bad values are usage errors; no /dev/kvm, no right to it: 77 with the reason. */
static void test_bad_input(void **state)
{
	static const char *const bad[][2] = {
		{ "kvm --state bogus", "--state" }, { "kvm --ab init", "--ab" },
		{ "kvm --cpuid 5000", "--cpuid" }, { "kvm --ring 1", "--ring" },
		{ "kvm --state none", "none" }, { "kvm --guest sometimes", "--guest" },
	};
	char *out, *err, *why;

	(void)state;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(bad); i++)
		if (!fplrun_rejected_early(bad[i][0], bad[i][1], &why))
			fail_msg("fpulab %s: %s", bad[i][0], why ? why : "(no stderr)");
	assert_int_equal(fplrun("FPL_KVM_DEV=/nonexistent/kvm ", "kvm -q --budget 0.1", &out, &err),
			 77);
	assert_non_null(strstr(out, "no /nonexistent/kvm"));
	free(out);
	free(err);
	/* Not KVM at all behind the path: refused with the reason, not a crash. */
	assert_int_equal(fplrun("FPL_KVM_DEV=/dev/null ", "kvm -q --budget 0.1", &out, &err), 77);
	assert_non_null(strstr(out, "KVM_GET_API_VERSION"));
	free(out);
	free(err);
}

/* Without the right to /dev/kvm (nobody, where the test runs as root and the node is 0600). */
static void test_no_permission(void **state)
{
	struct stat st;
	char line[4200];
	struct cmd_out o;

	(void)state;
	if (geteuid() != 0 || stat("/dev/kvm", &st) || (st.st_mode & 0006)) {
		print_message("skipped: needs root and a /dev/kvm others cannot open\n");
		skip();
	}
	snprintf(line, sizeof(line), "setpriv --reuid=65534 --regid=65534 --clear-groups '%s' kvm "
		 "-q --budget 0.1", cmd_fpl_bin());
	assert_int_equal(cmd_sh(line, 60, &o), 0);
	if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 127)
		skip();		/* no setpriv */
	assert_int_equal(cmd_code(&o), 77);
	assert_non_null(strstr(o.out, "Permission denied"));
	cmd_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backend_of),
		cmocka_unit_test(test_guest_code_bytes),
		cmocka_unit_test(test_guest_code_runs_here),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_bench_runs),
		cmocka_unit_test(test_pvm_detected),
		cmocka_unit_test(test_trace_agrees),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_permission),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
