// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Differential test of the image validator: random and mutated images go to
 * fpl_image_decode() and to a real XRSTOR in a child; the verdicts must agree.
 * FPL_DIFF_IMAGES=N sets the count (default 100000), FPL_DIFF_SEED the seed.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <cpuid.h>

#include "fpulab/image.h"

#define BATCH	2048
#define NBASE	24

enum { V_PENDING, V_OK, V_GP, V_OTHER };

/*
 * Shared with the long-lived child: shared pages are not copy-on-write, so
 * neither side takes page faults once they are touched (each costs tens of
 * microseconds in this VM, more than an XRSTOR and a signal).
 */
struct shared {
	uint64_t rfbm[BATCH];
	unsigned shift[BATCH];
	volatile uint8_t verdict[BATCH];
};

struct env {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
	struct fpl_image_cfg cfg;
	uint8_t *base[NBASE];		/* real XSAVE / XSAVEC output */
	uint8_t *good;			/* restored after each image */
	struct shared *sh;
	uint8_t *slots;			/* BATCH slots of slot bytes, shared like sh */
	size_t slot;			/* the largest image here plus a misalignment of up to 63 */
	uint64_t perm;			/* the permitted mask: what XRSTOR here may load */
	pid_t child;
	int cmd, done;			/* pipes to and from the child */
	uint64_t rng;
};

static uint64_t rnd(struct env *e)
{
	/* splitmix64: reproducible from FPL_DIFF_SEED */
	uint64_t z = (e->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint8_t *slot_at(struct env *e, unsigned i)
{
	return e->slots + (size_t)i * e->slot;
}

static bool chance(struct env *e, unsigned percent)
{
	return rnd(e) % 100 < percent;
}

/* Bits worth trying: XCR0's, components this CPU lacks, supervisor ones, bit 63. */
static uint64_t interesting_bits(struct env *e)
{
	static const unsigned extra[] = { 3, 4, 8, 9, 10, 11, 12, 17, 18, 19, 30, 62, 63 };
	uint64_t m = rnd(e) & e->xs.xcr0;

	if (chance(e, 15))
		m |= 1ull << extra[rnd(e) % FPL_ARRAY_SIZE(extra)];
	if (chance(e, 2))
		m = rnd(e);
	return m;
}

static void mutate(struct env *e, uint8_t *img, uint64_t *rfbm)
{
	uint64_t v;

	if (chance(e, 30)) {
		v = interesting_bits(e);
		memcpy(img + 512, &v, 8);
	}
	if (chance(e, 20)) {
		memcpy(&v, img + 520, 8);
		switch (rnd(e) % 4) {
		case 0: v ^= FPL_XCOMP_BV_COMPACTED; break;
		case 1: v = interesting_bits(e) | (chance(e, 80) ? FPL_XCOMP_BV_COMPACTED : 0); break;
		case 2: v = rnd(e) % 4; break;
		default: v ^= 1ull << (rnd(e) % 64); break;
		}
		memcpy(img + 520, &v, 8);
	}
	if (chance(e, 15))
		img[528 + rnd(e) % 48] = (uint8_t)(chance(e, 50) ? 1u << (rnd(e) % 8) : rnd(e));
	if (chance(e, 25)) {
		uint32_t mx;

		memcpy(&mx, img + 24, 4);
		mx ^= 1u << (chance(e, 60) ? 16 + rnd(e) % 16 : rnd(e) % 16);
		memcpy(img + 24, &mx, 4);
	}
	if (chance(e, 20))	/* x87, XMM, software bytes: no XRSTOR rule looks at them */
		for (unsigned i = 0; i < 8; i++)
			img[rnd(e) % 512] = (uint8_t)rnd(e);
	*rfbm = chance(e, 40) ? ~0ull : chance(e, 80) ? interesting_bits(e) : rnd(e);
}

/* An image made of random bytes, header words biased towards zero and towards XCR0's bits. */
static void random_image(struct env *e, uint8_t *img)
{
	for (unsigned i = 0; i < e->xs.size_std_max; i += 8) {
		uint64_t v = rnd(e);

		memcpy(img + i, &v, 8);
	}
	for (unsigned i = 512; i < 576; i += 8) {
		uint64_t v = chance(e, 60) ? 0 : i < 528 ? interesting_bits(e) : rnd(e);

		if (i == 520 && chance(e, 40))
			v |= FPL_XCOMP_BV_COMPACTED;
		memcpy(img + i, &v, 8);
	}
	if (chance(e, 70))
		memcpy(img + 24, &(uint32_t){ 0x1f80 }, 4);
}

static void make_batch(struct env *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct shared *sh = e->sh;
		uint8_t *img;

		sh->shift[i] = chance(e, 2) ? 1 + rnd(e) % 63 : 0;
		img = slot_at(e, i) + sh->shift[i];
		if (chance(e, 10))
			random_image(e, img);
		else
			memcpy(img, e->base[rnd(e) % NBASE], e->xs.size_std_max);
		mutate(e, img, &sh->rfbm[i]);
		/*
		 * Tile data XFD still arms for this process (no AMX permission)
		 * stays out of RFBM: XRSTOR of it raises #NM, SIGILL, which is
		 * the kernel's XFD rule, not one of XRSTOR's #GP rules tested here.
		 */
		sh->rfbm[i] &= ~(fpl_xstate_xfd_mask(&e->xs) & ~e->perm);
		sh->verdict[i] = V_PENDING;
	}
}

/*
 * With PKRU in RFBM and XSTATE_BV (XCR0 0x207 on a Zen 3 KVM guest), XRSTOR
 * loads the image's PKRU, and a value that denies pkey 0 makes the next access
 * (even the kernel's write of a signal frame) fault: the child dies with
 * XRSTOR's work done. So where the OS enabled protection keys, PKRU is opened
 * again by WRPKRU in the same asm, before any memory access.
 */
static bool have_ospke(void)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 4));
}

static void xrstor_open_pkru(const void *buf, uint64_t rfbm)
{
	uint32_t lo = (uint32_t)rfbm, hi = (uint32_t)(rfbm >> 32);

	__asm__ volatile("xrstor64 %2\n\t"
			 "xor %%ecx, %%ecx\n\t"
			 "xor %%edx, %%edx\n\t"
			 "xor %%eax, %%eax\n\t"
			 "wrpkru"
			 : "+a"(lo), "+d"(hi)
			 : "m"(*(const char *)buf)
			 : "rcx", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
			   "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)",
			   "st(6)", "st(7)", "fpsr");
}

static sigjmp_buf jb;
static volatile sig_atomic_t last_code;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	last_code = sig == SIGSEGV && si->si_code == SI_KERNEL ? V_GP : V_OTHER;
	siglongjmp(jb, 1);
}

/* The child: XRSTOR each image of a batch, note whether it raised #GP, restore a sane state. */
static void __attribute__((noreturn)) child(struct env *e)
{
	struct shared *sh = e->sh;
	struct sigaction sa;
	static volatile unsigned i;
	unsigned rq[2];
	bool pkru = have_ospke();

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	while (read(e->cmd, rq, sizeof(rq)) == sizeof(rq)) {
		for (i = rq[0]; i < rq[1]; i++) {
			/* No signal mask saved: SA_NODEFER leaves it alone, and that spares a syscall. */
			if (sigsetjmp(jb, 0)) {
				fpl_xrstor64(e->good, e->perm);
				sh->verdict[i] = (uint8_t)last_code;
				continue;
			}
			if (pkru)
				xrstor_open_pkru(slot_at(e, i) + sh->shift[i], sh->rfbm[i]);
			else
				fpl_xrstor64(slot_at(e, i) + sh->shift[i], sh->rfbm[i]);
			fpl_xrstor64(e->good, e->perm);
			sh->verdict[i] = V_OK;
		}
		if (write(e->done, "d", 1) != 1)
			break;
	}
	_exit(0);
}

static void start_child(struct env *e)
{
	int cmd[2], done[2];

	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(done), 0);
	e->child = fork();
	assert_true(e->child >= 0);
	if (!e->child) {
		close(cmd[1]);
		close(done[0]);
		e->cmd = cmd[0];
		e->done = done[1];
		child(e);
	}
	close(cmd[0]);
	close(done[1]);
	e->cmd = cmd[1];
	e->done = done[0];
}

static void stop_child(struct env *e)
{
	int st;

	close(e->cmd);
	close(e->done);
	waitpid(e->child, &st, 0);
}

static void start_batch(struct env *e, unsigned from, unsigned n)
{
	unsigned rq[2] = { from, n };

	assert_int_equal(write(e->cmd, rq, sizeof(rq)), sizeof(rq));
}

/* Wait for the batch; a child that died anyway is marked on its image and replaced. */
static void finish_batch(struct env *e, unsigned n)
{
	char c;

	while (read(e->done, &c, 1) != 1) {
		unsigned at = 0;

		while (at < n && e->sh->verdict[at] != V_PENDING)
			at++;
		stop_child(e);
		if (at < n)
			e->sh->verdict[at] = V_OTHER;
		start_child(e);
		if (at + 1 >= n)
			return;
		start_batch(e, at + 1, n);
	}
}

static void print_mismatch(struct env *e, unsigned i, const struct fpl_image *img)
{
	const uint8_t *p = slot_at(e, i) + e->sh->shift[i];
	uint64_t bv, cbv;
	uint32_t mx;

	memcpy(&bv, p + 512, 8);
	memcpy(&cbv, p + 520, 8);
	memcpy(&mx, p + 24, 4);
	fprintf(stderr, "  disagreement: cpu %s, validator %s: rfbm 0x%016llx xstate_bv 0x%016llx "
		"xcomp_bv 0x%016llx mxcsr 0x%08x shift %u header[16..63]:",
		e->sh->verdict[i] == V_GP ? "#GP" : e->sh->verdict[i] == V_OK ? "ok" : "other fault",
		img->xrstor_faults ? "fault" : "ok", (unsigned long long)e->sh->rfbm[i],
		(unsigned long long)bv, (unsigned long long)cbv, mx, e->sh->shift[i]);
	for (unsigned b = 528; b < 576; b++)
		fprintf(stderr, "%s%02x", b % 8 ? "" : " ", p[b]);
	fputc('\n', stderr);
	for (unsigned f = 0; f < img->nfindings; f++)
		fprintf(stderr, "    %s %s @%zu: %s\n", fpl_image_severity_name(img->findings[f].severity),
			img->findings[f].rule, img->findings[f].offset, img->findings[f].msg);
}

/* Images refused by exactly one rule: the CPU's verdict on them tests that rule alone. */
static const char *const sole_rules[] = {
	"xrstor.xstate_bv", "xrstor.xcomp_bv", "xrstor.header_16_23", "xrstor.mxcsr",
	"xrstor.xstate_bv_not_in_xcomp_bv", "xrstor.header_16_63", "xrstor.align",
};

static void count_sole(const struct fpl_image *img, unsigned long *hist)
{
	const char *rule = NULL;
	unsigned faults = 0;

	for (unsigned f = 0; f < img->nfindings; f++)
		if (img->findings[f].severity == FPL_IMAGE_FAULT) {
			faults++;
			rule = img->findings[f].rule;
		}
	if (faults != 1)
		return;
	for (unsigned r = 0; r < FPL_ARRAY_SIZE(sole_rules); r++)
		if (!strcmp(rule, sole_rules[r]))
			hist[r]++;
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}

/* Bases: XSAVE (standard) and XSAVEC (compacted) of varied live states and masks. */
static void make_bases(struct env *e)
{
	uint64_t masks[] = { ~0ull, 0, FPL_XFEATURE_MASK_FPSSE, FPL_XFEATURE_MASK_YMM | 2,
			     FPL_XFEATURE_MASK_AVX512 | 1, FPL_XFEATURE_MASK_OPMASK };
	bool xsavec = e->cfg.xsavec;

	for (unsigned i = 0; i < NBASE; i++) {
		uint64_t m = masks[i % FPL_ARRAY_SIZE(masks)] & e->perm;

		e->base[i] = fpl_xstate_alloc(e->slot);
		assert_non_null(e->base[i]);
		fpl_regs_set(&e->xs, m, i + 1);
		if (xsavec && i % 2)
			fpl_xsavec64(e->base[i], chance(e, 50) ? ~0ull : rnd(e));
		else
			fpl_xsave64(e->base[i], chance(e, 50) ? ~0ull : rnd(e));
	}
	/* Known good: every component in init state, MXCSR at its default. */
	e->good = fpl_xstate_alloc(e->slot);
	assert_non_null(e->good);
	memcpy(e->good + 24, &(uint32_t){ 0x1f80 }, 4);
	fpl_xrstor64(e->good, e->perm);
}

/* The layout, the validator's configuration, the shared status and slots (mmap), from seed. */
static void env_setup(struct env *e, unsigned long seed)
{
	assert_int_equal(fpl_xstate_init(&e->xs, &e->cpu), 0);
	/* Sized from the largest layout of this CPU: 2432 bytes on Zen 4, 11008 with AMX. */
	e->slot = ((size_t)e->xs.size_std_max + 63) / 64 * 64 + 64;
	e->perm = fpl_xstate_permitted(&e->xs);
	fpl_image_cfg_init(&e->cfg, &e->cpu, &e->xs);
	e->cfg.format = FPL_IMAGE_STANDARD;	/* as XRSTOR reads it: form from XCOMP_BV[63] */
	e->cfg.check_align = true;
	e->rng = seed;
	e->sh = mmap(NULL, sizeof(*e->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	assert_true(e->sh != MAP_FAILED);
	memset(e->sh, 0, sizeof(*e->sh));
	e->slots = mmap(NULL, BATCH * e->slot, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	assert_true(e->slots != MAP_FAILED);
	memset(e->slots, 0, BATCH * e->slot);
}

static void test_differential(void **state)
{
	unsigned long total = env_ul("FPL_DIFF_IMAGES", 100000);
	unsigned long seed = env_ul("FPL_DIFF_SEED", 20261130);
	unsigned long done = 0, gp = 0, ok = 0, other = 0, bad = 0;
	unsigned long sole[FPL_ARRAY_SIZE(sole_rules)] = { 0 };
	struct env *e = calloc(1, sizeof(*e));
	struct fpl_image *img = malloc(BATCH * sizeof(*img));
	struct timespec t0, t1;
	double secs;

	assert_non_null(e);
	fpl_cpu_read(&e->cpu);
	if (!fpl_cpu_has(&e->cpu, FPL_FEAT_XSAVE) || !fpl_cpu_has(&e->cpu, FPL_FEAT_OSXSAVE)) {
		free(e);
		free(img);
		skip();
	}
	env_setup(e, seed);
	make_bases(e);
	start_child(e);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < total) {
		unsigned n = total - done < BATCH ? (unsigned)(total - done) : BATCH;

		make_batch(e, n);
		start_batch(e, 0, n);
		/* The validator runs while the child runs XRSTOR: two CPUs, half the time. */
		for (unsigned i = 0; i < n; i++) {
			const uint8_t *p = slot_at(e, i) + e->sh->shift[i];

			e->cfg.rfbm = e->sh->rfbm[i];
			assert_int_equal(fpl_image_decode(p, e->slot - e->sh->shift[i], &e->cfg,
							  &img[i], NULL), 0);
		}
		finish_batch(e, n);
		for (unsigned i = 0; i < n; i++) {
			uint8_t v = e->sh->verdict[i];

			gp += v == V_GP;
			ok += v == V_OK;
			other += v == V_OTHER;
			count_sole(&img[i], sole);
			if ((v != V_OK) != img[i].xrstor_faults || v == V_OTHER) {
				if (bad++ < 10)
					print_mismatch(e, i, &img[i]);
			}
		}
		done += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("differential: %lu images (seed %lu) to XRSTOR in child processes and to the "
	       "validator: %lu #GP, %lu loaded, %lu other faults, %lu disagreements, %.2f s wall\n",
	       done, seed, gp, ok, other, bad, secs);
	printf("images refused by one rule alone:");
	for (unsigned r = 0; r < FPL_ARRAY_SIZE(sole_rules); r++)
		printf(" %s %lu%s", sole_rules[r], sole[r],
		       r + 1 < FPL_ARRAY_SIZE(sole_rules) ? "," : "\n");
	assert_int_equal(bad, 0);
	assert_int_equal(other, 0);
	/* Each rule decided some images on its own (at 100000 images, hundreds each). */
	for (unsigned r = 0; r < FPL_ARRAY_SIZE(sole_rules) && done >= 100000; r++)
		if (sole[r] < 20)
			fail_msg("rule %s decided only %lu images alone", sole_rules[r], sole[r]);
	/* The generator must exercise both outcomes, or the agreement proves little. */
	assert_true(gp > done / 5 && ok > done / 5);
	stop_child(e);
	munmap(e->sh, sizeof(*e->sh));
	munmap(e->slots, BATCH * e->slot);
	for (unsigned i = 0; i < NBASE; i++)
		free(e->base[i]);
	free(e->good);
	free(e);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
