// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The image library against this machine: signal frames and ptrace dumps
 * captured here, the captured fixtures in tests/data/images/, conversion
 * checked by XRSTOR, x87 tags checked by FNSTENV, and the kernel's ptrace
 * rules checked by PTRACE_SETREGSET. FPL_REGEN_IMAGES=1 rewrites the fixtures.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <cmocka.h>
#include <cpuid.h>

#include "fpulab/image.h"

#define IMAGES "tests/data/images/"
#define CAP 16384
#define SEED 0x5eed

struct live {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
	struct fpl_image_cfg cfg;
	struct fpl_image img, ref;
	uint8_t *pattern;	/* fpl_xstate_pattern(perm, SEED): what the registers hold */
	/*
	 * What this process may load (fpl_xstate_permitted: no AMX tile data
	 * without permission, never asked here) and what the kernel saves for
	 * it (fpl_xstate_active): the frames it gets are active's size.
	 */
	uint64_t perm, active;
};

static int setup(void **state)
{
	struct live *l = calloc(1, sizeof(*l));

	fpl_cpu_read(&l->cpu);
	if (fpl_xstate_init(&l->xs, &l->cpu) || !l->xs.xsave) {
		free(l);
		*state = NULL;
		return 0;
	}
	l->perm = fpl_xstate_permitted(&l->xs);
	l->active = fpl_xstate_active(&l->xs);
	fpl_image_cfg_init(&l->cfg, &l->cpu, &l->xs);
	l->pattern = fpl_xstate_alloc(CAP);
	fpl_xstate_pattern(&l->xs, l->perm, SEED, l->pattern);
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct live *l = *state;

	if (l)
		free(l->pattern);
	free(l);
	return 0;
}

/* No libc between setting registers and the kernel's save: glibc uses AVX-512 here. */
static long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * tgkill, and on the way back from the handler's sigreturn WRPKRU(0) before
 * any memory access. A frame mutated into the compacted form (XCOMP_BV[63])
 * makes sigreturn's XRSTOR read PKRU at its compacted offset, inside the
 * holes of the standard frame that the kernel's XSAVE never wrote (stale
 * stack bytes); a value denying pkey 0 killed the child with SEGV_PKUERR
 * after a restore that had succeeded, in about half the runs on the Zen 3
 * guest with protection keys. Only where the OS enabled pkeys (OSPKE).
 */
static void tgkill_open_pkru(long pid, long tid, long sig)
{
	long nr = SYS_tgkill;

	__asm__ volatile("syscall\n\t"
			 "xor %%ecx, %%ecx\n\t"
			 "xor %%edx, %%edx\n\t"
			 "xor %%eax, %%eax\n\t"
			 "wrpkru"
			 : "+a"(nr), "+D"(pid), "+S"(tid), "+d"(sig)
			 : : "rcx", "r11", "memory");
}

static bool have_ospke(void)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 4));
}

static uint8_t *sig_copy;
static size_t sig_len;

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	const uint8_t *fp = (const uint8_t *)((ucontext_t *)ucv)->uc_mcontext.fpregs;
	uint32_t magic, ext;

	memcpy(&magic, fp + 464, 4);
	memcpy(&ext, fp + 468, 4);
	sig_len = magic == FPL_FP_XSTATE_MAGIC1 && ext <= CAP ? ext : 512;
	memcpy(sig_copy, fp, sig_len);
}

/* The fpstate of a signal delivered while the registers hold the pattern (mask 0: init). */
static size_t capture_signal(struct live *l, uint64_t mask, uint8_t *out)
{
	struct sigaction sa = { 0 }, old;
	long pid = getpid(), tid = syscall(SYS_gettid);

	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, &old);
	sig_copy = out;
	if (mask)
		fpl_regs_set(&l->xs, mask, SEED);
	else
		fpl_regs_init(&l->xs, l->perm);
	raw_syscall3(SYS_tgkill, pid, tid, SIGUSR1);
	sigaction(SIGUSR1, &old, NULL);
	return sig_len;
}

/*
 * A child stops itself with the pattern live; NT_X86_XSTATE is read. Returns
 * the pid, stopped. Where this process may not trace its child (Yama's
 * ptrace_scope 3, a seccomp filter) the test is skipped with the reason: an
 * untraced child's stop would never reach waitpid.
 */
static pid_t stopped_child(struct live *l)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (!pid) {
		long me;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(100 + (errno & 0x7f));
		me = getpid();
		fpl_regs_set(&l->xs, l->perm, SEED);
		raw_syscall3(SYS_kill, me, SIGSTOP, 0);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 100) {
		print_message("skipped: PTRACE_TRACEME refused here: %s\n",
			      strerror(WEXITSTATUS(st) - 100));
		skip();
	}
	assert_true(WIFSTOPPED(st));
	return pid;
}

static void end_child(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static size_t capture_ptrace(struct live *l, uint8_t *out)
{
	pid_t pid = stopped_child(l);
	struct iovec iov = { out, CAP };

	assert_int_equal(ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov), 0);
	end_child(pid);
	return iov.iov_len;
}

static void decode_ok(struct live *l, const uint8_t *buf, size_t len, enum fpl_image_format f)
{
	struct fpl_diag diag = { "" };

	l->cfg.format = FPL_IMAGE_AUTO;
	if (fpl_image_decode(buf, len, &l->cfg, &l->img, &diag))
		fail_msg("%s", diag.msg);
	assert_int_equal(l->img.format, f);
	if (fpl_image_rejected(&l->img))
		fail_msg("rejected: %s @%zu: %s", l->img.findings[0].rule,
			 l->img.findings[0].offset, l->img.findings[0].msg);
}

/* Registers decoded from img equal those of ref (vectors, opmask, MXCSR). */
static void same_registers(const struct fpl_image *img, const struct fpl_image *ref)
{
	uint8_t a[64], b[64];
	uint64_t ka, kb;

	for (unsigned n = 0; n < 32; n++)
		for (unsigned w = 16; w <= 64; w *= 2)
			if (!fpl_image_vector(ref, n, w, b)) {
				assert_int_equal(fpl_image_vector(img, n, w, a), 0);
				assert_memory_equal(a, b, w);
			}
	for (unsigned k = 0; k < 8; k++)
		if (!fpl_image_opmask(ref, k, &kb)) {
			assert_int_equal(fpl_image_opmask(img, k, &ka), 0);
			assert_int_equal(ka, kb);
		}
	assert_int_equal(img->mxcsr, ref->mxcsr);
}

static void test_signal_frame(void **state)
{
	struct live *l = *state;
	uint8_t *buf = fpl_xstate_alloc(CAP);
	uint32_t std = l ? fpl_xstate_size_std(&l->xs, l->active) : 0;
	size_t len;

	if (!l)
		skip();
	assert_int_equal(fpl_image_decode(l->pattern, l->xs.size_std_max, &l->cfg, &l->ref, NULL), 0);
	len = capture_signal(l, l->perm, buf);
	decode_ok(l, buf, len, FPL_IMAGE_SIGNAL);
	/*
	 * The frame is the standard image for this task's active mask (XCR0
	 * without AMX tile data until it is used), the sw bytes say so, magic2
	 * follows.
	 */
	assert_int_equal(l->img.sw.xstate_size, std);
	assert_int_equal(l->img.sw.extended_size, std + 4);
	assert_int_equal(len, std + 4);
	assert_int_equal(l->img.sw.xfeatures, l->active);
	assert_false(l->img.compacted);
	same_registers(&l->img, &l->ref);
	printf("signal frame here: %zu bytes (xstate_size %u + magic2), xfeatures 0x%llx, "
	       "XSTATE_BV 0x%llx\n", len, l->img.sw.xstate_size,
	       (unsigned long long)l->img.sw.xfeatures, (unsigned long long)l->img.xstate_bv);

	/* All state in init: the kernel still sets x87 and SSE in XSTATE_BV. */
	len = capture_signal(l, 0, buf);
	decode_ok(l, buf, len, FPL_IMAGE_SIGNAL);
	assert_int_equal(l->img.xstate_bv & FPL_XFEATURE_MASK_FPSSE, FPL_XFEATURE_MASK_FPSSE);
	free(buf);
}

static void test_ptrace_dump(void **state)
{
	struct live *l = *state;
	uint8_t *buf = fpl_xstate_alloc(CAP);
	size_t len;

	if (!l)
		skip();
	assert_int_equal(fpl_image_decode(l->pattern, l->xs.size_std_max, &l->cfg, &l->ref, NULL), 0);
	len = capture_ptrace(l, buf);
	decode_ok(l, buf, len, FPL_IMAGE_PTRACE);
	assert_int_equal(len, fpl_xstate_size_std(&l->xs, l->xs.xcr0));
	assert_int_equal(l->img.ptrace_xcr0, l->xs.xcr0);
	assert_int_equal(l->img.xcomp_bv, 0);
	same_registers(&l->img, &l->ref);
	printf("ptrace NT_X86_XSTATE here: %zu bytes, XCR0 0x%llx at 464\n", len,
	       (unsigned long long)l->img.ptrace_xcr0);
	free(buf);
}

/* The kernel's PTRACE_SETREGSET against the validator's kernel rules, on mutated dumps. */
static void test_ptrace_setregset_agrees(void **state)
{
	struct live *l = *state;
	uint8_t *good = fpl_xstate_alloc(CAP), *buf = fpl_xstate_alloc(CAP);
	uint64_t s = 0x2545f4914f6cdd1dull;
	unsigned n = 3000, rejected = 0;
	size_t len;
	pid_t pid;

	if (!l)
		skip();
	len = capture_ptrace(l, good);
	pid = stopped_child(l);
	l->cfg.format = FPL_IMAGE_PTRACE;
	/*
	 * The child never asks for AMX permission: the kernel takes tile data
	 * (XSTATE_BV bit 18) from no such tracee (the validator's default).
	 */
	l->cfg.tracee = FPL_TRACEE_NO_PERM;
	for (unsigned i = 0; i < n; i++) {
		struct iovec iov = { buf, len };
		bool kernel_no;

		memcpy(buf, good, len);
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		switch (s % 6) {
		case 0: buf[512 + (s >> 8) % 64] ^= (uint8_t)(1u << ((s >> 16) % 8)); break;
		case 1: buf[24 + (s >> 8) % 4] ^= (uint8_t)(1u << ((s >> 16) % 8)); break;
		case 2: buf[512] = (uint8_t)(s >> 8); buf[24 + 2] = (uint8_t)(s >> 20); break;
		case 3: iov.iov_len = len - 64 * ((s >> 8) % 3); break;
		case 4: buf[512] = (uint8_t)(s >> 8); break;
		default: buf[(s >> 8) % 512] = (uint8_t)(s >> 24); break;
		}
		kernel_no = ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov) != 0;
		assert_int_equal(fpl_image_decode(buf, iov.iov_len, &l->cfg, &l->img, NULL), 0);
		if (kernel_no != l->img.kernel_rejects)
			fail_msg("image %u: kernel %s (errno %d), validator %s (%s)", i,
				 kernel_no ? "refused" : "took it", errno,
				 l->img.kernel_rejects ? "refuses" : "accepts",
				 l->img.nfindings ? l->img.findings[0].rule : "no findings");
		rejected += kernel_no;
	}
	l->cfg.format = FPL_IMAGE_AUTO;
	end_child(pid);
	printf("ptrace differential: %u images to PTRACE_SETREGSET, %u refused, 0 disagreements\n",
	       n, rejected);
	assert_true(rejected > n / 10 && rejected < n - n / 10);
	free(good);
	free(buf);
}

static const uint8_t *sr_image;
static size_t sr_len;

static void on_usr2(int sig, siginfo_t *si, void *ucv)
{
	memcpy(((ucontext_t *)ucv)->uc_mcontext.fpregs, sr_image, sr_len);
}

/* Mutate a kernel-written frame in the places the kernel's and XRSTOR's checks look at. */
static void mutate_frame(uint8_t *t, size_t len, uint64_t xcr0, uint64_t *s)
{
	static const uint32_t sizes[] = { 575, 576, 1000, 2432, 2433, 4096 };
	uint64_t r;

#define RND() (*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17, *s)
	r = RND();
	if (r % 10 == 0)
		t[464 + (r >> 8) % 4] ^= 0x10;
	if ((r >> 12) % 10 == 0)
		memcpy(t + 480, &sizes[(r >> 16) % 6], 4);
	if ((r >> 20) % 10 == 0)
		memcpy(t + 468, &(uint32_t){ (uint32_t)((r >> 24) % 2 ? 2431 : 0) }, 4);
	if ((r >> 28) % 10 == 0)
		t[len - 1] ^= 1;
	r = RND();
	if (r % 4 == 0)
		memcpy(t + 472, &(uint64_t){ (r >> 8) & (xcr0 | 1ull << 9) }, 8);
	if ((r >> 16) % 4 == 0)
		memcpy(t + 512, &(uint64_t){ (r >> 24) & (xcr0 | 1ull << 9) }, 8);
	r = RND();
	if (r % 8 == 0)
		t[512 + 16 + (r >> 8) % 48] = 1;
	if ((r >> 16) % 8 == 0)
		t[24 + 2] = (uint8_t)(r >> 24);
	if ((r >> 32) % 8 == 0)
		memcpy(t + 520, &(uint64_t){ FPL_XCOMP_BV_COMPACTED | xcr0 }, 8);
#undef RND
}

/* The child of test_sigreturn_agrees: its frame replaced by t, XMM0 and YMM0's upper half after. */
static void __attribute__((noreturn)) sigreturn_child(const struct live *l, const uint8_t *t,
						       size_t len, int fd)
{
	struct sigaction sa = { .sa_sigaction = on_usr2, .sa_flags = SA_SIGINFO };
	long me = getpid(), tid = syscall(SYS_gettid);
	uint8_t *after = fpl_xstate_alloc(CAP), got[32];

	sr_image = t;
	sr_len = len;
	signal(SIGSEGV, SIG_DFL);	/* not cmocka's: the parent wants to see it */
	sigaction(SIGUSR2, &sa, NULL);
	if (have_ospke())
		tgkill_open_pkru(me, tid, SIGUSR2);
	else
		raw_syscall3(SYS_tgkill, me, tid, SIGUSR2);
	fpl_xsave64(after, ~0ull);
	memcpy(got, after + 160, 16);
	memcpy(got + 16, after + l->xs.comp[2].offset, 16);
	if (!(after[512] & FPL_XFEATURE_MASK_YMM))
		memset(got + 16, 0, 16);
	_exit(write(fd, got, 32) == 32 ? 0 : 1);
}

/*
 * sigreturn against the validator's signal-frame rules: a handler replaces its
 * frame's fpstate with a mutated one. Expected: SIGSEGV when the validator
 * says XRSTOR (or FXRSTOR) faults; otherwise XMM0 and the upper YMM0 as
 * XRSTOR with RFBM = xfeatures (or, when the software bytes fail the kernel's
 * check, FXRSTOR of the legacy area) leaves them.
 */
static void test_sigreturn_agrees(void **state)
{
	struct live *l = *state;
	uint8_t *base = fpl_xstate_alloc(CAP), *t = fpl_xstate_alloc(CAP);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned n = 300, segv = 0, fx_only = 0;
	size_t len;

	if (!l)
		skip();
	len = capture_signal(l, l->perm, base);
	l->cfg.format = FPL_IMAGE_SIGNAL;
	/*
	 * The frames are restored by forked children: XFD is armed again there,
	 * so their fpstate holds the permitted mask without XFD components,
	 * whatever this process used.
	 */
	l->cfg.task_mask = l->perm & ~fpl_xstate_xfd_mask(&l->xs);
	for (unsigned i = 0; i < n; i++) {
		uint8_t want[32], got[32];
		int fds[2], st;
		pid_t pid;

		memcpy(t, base, len);
		/* Within the task's mask: tile data with XFD armed would be #NM, not a rule here. */
		mutate_frame(t, len, l->cfg.task_mask, &s);
		assert_int_equal(fpl_image_decode(t, len, &l->cfg, &l->img, NULL), 0);
		assert_int_equal(pipe(fds), 0);
		pid = fork();
		if (!pid)
			sigreturn_child(l, t, len, fds[1]);
		close(fds[1]);
		waitpid(pid, &st, 0);
		if (l->img.xrstor_faults != (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
			fail_msg("frame %u: sigreturn %s, validator %s (%s)", i,
				 WIFSIGNALED(st) ? "killed the task" : "returned",
				 l->img.xrstor_faults ? "expects a fault" : "expects none",
				 l->img.nfindings ? l->img.findings[0].rule : "no findings");
		segv += l->img.xrstor_faults;
		if (!l->img.xrstor_faults) {
			uint8_t y[32];

			assert_int_equal(read(fds[0], got, 32), 32);
			memset(want, 0, 32);
			if (!l->img.sw.valid) {
				memcpy(want, t + 160, 16);
				fx_only++;
			} else {
				if (l->img.rfbm & FPL_XFEATURE_MASK_SSE)
					fpl_image_vector(&l->img, 0, 16, want);
				if (l->img.rfbm & FPL_XFEATURE_MASK_YMM &&
				    !fpl_image_vector(&l->img, 0, 32, y))
					memcpy(want + 16, y + 16, 16);
			}
			assert_memory_equal(got, want, 32);
		}
		close(fds[0]);
	}
	l->cfg.format = FPL_IMAGE_AUTO;
	l->cfg.task_mask = l->active;
	printf("sigreturn differential: %u mutated frames, %u killed by SIGSEGV, %u restored "
	       "x87/SSE only (software bytes refused), 0 disagreements\n", n, segv, fx_only);
	assert_true(segv > 10 && fx_only > 10 && segv + fx_only < n - 10);
	free(base);
	free(t);
}

/* XRSTOR of the converted image loads the same state as XRSTOR of the original. */
static void test_convert_on_hardware(void **state)
{
	struct live *l = *state;
	uint8_t *a = fpl_xstate_alloc(CAP), *b = fpl_xstate_alloc(CAP);
	uint8_t *zero = fpl_xstate_alloc(CAP);
	struct fpl_diag diag = { "" };
	size_t clen;
	void *conv;

	if (!l || !l->cfg.xsavec)
		skip();
	decode_ok(l, l->pattern, l->xs.size_std_max, FPL_IMAGE_STANDARD);
	assert_int_equal(fpl_image_convert(&l->img, true, l->perm, &conv, &clen, &diag), 0);
	memcpy(zero + 24, &(uint32_t){ 0x1f80 }, 4);
	fpl_xrstor64(l->pattern, l->perm);
	fpl_xsave64(a, ~0ull);
	fpl_xrstor64(zero, l->perm);
	fpl_xrstor64(conv, l->perm);
	fpl_xsave64(b, ~0ull);
	fpl_xrstor64(zero, l->perm);
	/* Legacy area up to the software bytes, then every component XSAVE wrote. */
	assert_memory_equal(a + 32, b + 32, FPL_SW_BYTES_OFFSET - 32);
	assert_memory_equal(a + 576, b + 576, l->xs.size_std_xcr0 - 576);
	free(conv);
	free(a);
	free(b);
	free(zero);
}

/* Our tags for ST(i) agree with FNSTENV's full tag word after XRSTOR of the image. */
static void test_x87_tags_on_hardware(void **state)
{
	struct live *l = *state;
	uint8_t *img = fpl_xstate_alloc(CAP), *zero = fpl_xstate_alloc(CAP);
	static const uint8_t vals[4][10] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f },	/* 1.0: valid */
		{ 0 },						/* +0: zero */
		{ 1 },						/* denormal: special */
		{ 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x7f },	/* NaN: special */
	};
	struct fpl_x87 x;
	uint8_t env[28];
	uint16_t ftw;

	if (!l)
		skip();
	memcpy(zero + 24, &(uint32_t){ 0x1f80 }, 4);
	for (unsigned top = 0; top < 8; top += 3) {
		memset(img, 0, 1024);
		memcpy(img, &(uint16_t){ 0x037f }, 2);
		memcpy(img + 2, &(uint16_t){ (uint16_t)(top << 11) }, 2);
		img[4] = (uint8_t)(0x5b << top | 0x5b >> (8 - top));	/* some empty, some not */
		for (unsigned i = 0; i < 8; i++)
			memcpy(img + 32 + 16 * i, vals[(i + top) % 4], 10);
		memcpy(img + 24, &(uint32_t){ 0x1f80 }, 4);
		memcpy(img + 512, &(uint64_t){ FPL_XFEATURE_MASK_FPSSE }, 8);
		fpl_xrstor64(img, FPL_XFEATURE_MASK_FPSSE);
		__asm__ volatile("fnstenv %0" : "=m"(env));
		fpl_xrstor64(zero, l->perm);
		memcpy(&ftw, env + 8, 2);
		decode_ok(l, img, l->xs.size_std_xcr0, FPL_IMAGE_STANDARD);
		fpl_image_x87(&l->img, &x);
		for (unsigned i = 0; i < 8; i++)
			assert_int_equal(x.tag[i], ftw >> (2 * ((top + i) & 7)) & 3);
	}
	free(img);
	free(zero);
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	uint8_t *buf = fpl_xstate_alloc(CAP);
	FILE *f = fopen(path, "rb");

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	*len = fread(buf, 1, CAP, f);
	fclose(f);
	return buf;
}

/* Rewrite tests/data/images/ from this machine (FPL_REGEN_IMAGES=1). */
static void regen(struct live *l)
{
	uint8_t *buf = fpl_xstate_alloc(CAP);
	FILE *f = fopen(IMAGES "host.cpuid", "w");
	size_t len;

	assert_non_null(f);
	fprintf(f, "# The machine tests/data/images/*.bin were captured on (test_image_live).\n");
	assert_int_equal(fpl_cpu_save(&l->cpu, f), 0);
	fclose(f);
	len = capture_signal(l, l->perm, buf);
	assert_int_equal(write_file(IMAGES "signal.bin", buf, len), 0);
	len = capture_ptrace(l, buf);
	assert_int_equal(write_file(IMAGES "ptrace.bin", buf, len), 0);
	memset(buf, 0, CAP);
	fpl_regs_set(&l->xs, l->perm, SEED);
	fpl_xsave64(buf, ~0ull);
	assert_int_equal(write_file(IMAGES "xsave.bin", buf, l->xs.size_std_xcr0), 0);
	memset(buf, 0, CAP);
	fpl_regs_set(&l->xs, l->perm, SEED);
	fpl_xsavec64(buf, ~0ull);
	assert_int_equal(write_file(IMAGES "xsavec.bin", buf,
				    fpl_xstate_size_compacted(&l->xs, l->xs.xcr0)), 0);
	fpl_regs_init(&l->xs, l->perm);
	free(buf);
}

/* The committed captures decode on any machine, against the machine they came from. */
static void test_fixtures(void **state)
{
	static const struct { const char *file; enum fpl_image_format f; } fx[] = {
		{ "xsave.bin", FPL_IMAGE_STANDARD }, { "xsavec.bin", FPL_IMAGE_COMPACTED },
		{ "signal.bin", FPL_IMAGE_SIGNAL }, { "ptrace.bin", FPL_IMAGE_PTRACE },
	};
	struct live *l = calloc(1, sizeof(*l));
	struct fpl_diag diag = { "" };
	uint8_t *ref = NULL;
	size_t ref_len = 0;

	if (*state && getenv("FPL_REGEN_IMAGES"))
		regen(*state);
	if (fpl_cpu_load(&l->cpu, IMAGES "host.cpuid", &diag))
		fail_msg("%s", diag.msg);
	assert_int_equal(fpl_xstate_init(&l->xs, &l->cpu), 0);
	fpl_image_cfg_init(&l->cfg, &l->cpu, &l->xs);
	for (unsigned i = 0; i < FPL_ARRAY_SIZE(fx); i++) {
		char path[256];
		uint8_t *buf;
		size_t len;

		snprintf(path, sizeof(path), IMAGES "%s", fx[i].file);
		buf = read_file(path, &len);
		decode_ok(l, buf, len, fx[i].f);
		if (!ref) {
			ref = buf;
			ref_len = len;
			continue;
		}
		assert_int_equal(fpl_image_decode(ref, ref_len, &l->cfg, &l->ref, NULL), 0);
		assert_int_equal(fpl_image_decode(buf, len, &l->cfg, &l->img, NULL), 0);
		same_registers(&l->img, &l->ref);
		if (fx[i].f == FPL_IMAGE_SIGNAL)
			assert_int_equal(len, l->img.sw.xstate_size + 4);
		free(buf);
	}
	free(ref);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_frame),
		cmocka_unit_test(test_ptrace_dump),
		cmocka_unit_test(test_ptrace_setregset_agrees),
		cmocka_unit_test(test_sigreturn_agrees),
		cmocka_unit_test(test_convert_on_hardware),
		cmocka_unit_test(test_x87_tags_on_hardware),
		cmocka_unit_test(test_fixtures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
