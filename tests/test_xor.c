// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/kernels xor: each implementation and arity, size checks, calibration arithmetic. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/xor.h"
#include "report/xorlines.h"
#include "fpulab/xstate.h"
#include "upper.h"

#define MAXB	(1u << 20)

static struct fpl_cpu cpu;

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t *abuf(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, FPL_XOR_ALIGN, bytes), 0);
	return p;
}

static void fill(uint64_t *p, size_t bytes)
{
	for (size_t i = 0; i < bytes / 8; i++)
		p[i] = rnd();
}

/* sizes: 512 B, a few odd multiples, 4 KiB, 1 MiB */
static const size_t sizes[] = { 512, 1024, 1536, 3584, 4096, 5120, 65536 + 512, MAXB };

static void check_impl(const struct fpl_xor_impl *im)
{
	uint64_t *src[FPL_XOR_MAX_SRCS], *d = abuf(MAXB), *ref = abuf(MAXB);

	for (int i = 0; i < FPL_XOR_MAX_SRCS; i++) {
		src[i] = abuf(MAXB);
		fill(src[i], MAXB);
	}
	for (size_t z = 0; z < FPL_ARRAY_SIZE(sizes); z++) {
		size_t bytes = sizes[z];

		for (unsigned n = 1; n <= FPL_XOR_MAX_SRCS; n++) {
			/* a guard word past the end must survive */
			fill(d, MAXB);
			memcpy(ref, d, MAXB);
			for (size_t w = 0; w < bytes / 8; w++)
				for (unsigned s = 0; s < n; s++)
					ref[w] ^= src[s][w];
			assert_int_equal(fpl_xor_run(im, &cpu, n, bytes, d,
						     (const uint64_t *const *)src), 0);
			if (memcmp(d, ref, MAXB))
				fail_msg("%s: %u sources, %zu bytes differ from the reference",
					 im->name, n, bytes);
		}
	}
	for (int i = 0; i < FPL_XOR_MAX_SRCS; i++)
		free(src[i]);
	free(d);
	free(ref);
}

static void test_each_impl(void **state)
{
	size_t n, ran = 0;
	const struct fpl_xor_impl *im = fpl_xor_impls(&n);
	char skipped[512] = "";

	assert_true(n >= 6);
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;

		if (!im[i].supported(&cpu, &why)) {
			assert_non_null(why);
			snprintf(skipped + strlen(skipped), sizeof(skipped) - strlen(skipped),
				 " %s (%s)", im[i].name, why);
			assert_int_equal(fpl_xor_run(&im[i], &cpu, 1, 512, (uint64_t *)64,
						     (const uint64_t *const[]){ (uint64_t *)64 }),
					 -ENOTSUP);
			continue;
		}
		check_impl(&im[i]);
		ran++;
	}
	if (skipped[0])
		print_message("xor: skipped:%s\n", skipped);
	assert_true(ran >= 2);	/* the two generic C rows run anywhere */
}

struct call {
	const struct fpl_xor_impl *im;
	unsigned nsrc;
	uint64_t *d, *s[FPL_XOR_MAX_SRCS];
};

static void call_arity(void *arg)
{
	struct call *c = arg;

	switch (c->nsrc) {
	case 1:
		c->im->do_2(4096, c->d, c->s[0]);
		break;
	case 2:
		c->im->do_3(4096, c->d, c->s[0], c->s[1]);
		break;
	case 3:
		c->im->do_4(4096, c->d, c->s[0], c->s[1], c->s[2]);
		break;
	default:
		c->im->do_5(4096, c->d, c->s[0], c->s[1], c->s[2], c->s[3]);
		break;
	}
}

/*
 * Every arity of the AVX rows returns with YMM and ZMM_Hi256 in init: the
 * model's harness and libc run SSE-encoded code after the call, which the
 * kernel does not (see xor_avx.c), so dirty upper state would be billed to
 * the code around the work on Intel.
 */
static void test_simd_leaves_upper_init(void **state)
{
	static struct call c;
	struct fpl_xstate xs;
	size_t n, ran = 0;
	const struct fpl_xor_impl *im = fpl_xor_impls(&n);

	upper_usable_or_skip(&cpu, &xs);
	c.d = abuf(4096);
	memset(c.d, 0, 4096);
	for (int i = 0; i < FPL_XOR_MAX_SRCS; i++) {
		c.s[i] = abuf(4096);
		memset(c.s[i], i, 4096);
	}
	for (size_t i = 0; i < n; i++) {
		if (!(im[i].xfeatures & UPPER_MASK) || !im[i].supported(&cpu, NULL))
			continue;
		for (c.nsrc = 1; c.nsrc <= FPL_XOR_MAX_SRCS; c.nsrc++) {
			uint64_t left;

			c.im = &im[i];
			left = upper_after(&cpu, &xs, call_arity, &c);
			if (left)
				fail_msg("xor/%s do_%u returned with XINUSE upper bits 0x%" PRIx64
					 " (YMM 0x4, ZMM_Hi256 0x40) still in use", im[i].name,
					 c.nsrc + 1, left);
			ran++;
		}
	}
	for (int i = 0; i < FPL_XOR_MAX_SRCS; i++)
		free(c.s[i]);
	free(c.d);
	assert_true(ran >= 4);
}

static void test_names_and_features(void **state)
{
	const char *want[] = { "8regs", "32regs", "generic_sse", "prefetch64-sse", "avx", "avx512" };

	for (size_t i = 0; i < FPL_ARRAY_SIZE(want); i++)
		assert_non_null(fpl_xor_find(want[i]));
	assert_null(fpl_xor_find("avx2"));
	assert_null(fpl_xor_find(NULL));
	assert_int_equal(fpl_xor_find("8regs")->xfeatures, 0);
	assert_int_equal(fpl_xor_find("generic_sse")->xfeatures, FPL_XFEATURE_MASK_SSE);
	assert_true(fpl_xor_find("avx")->xfeatures & FPL_XFEATURE_MASK_YMM);
	assert_true(fpl_xor_find("avx512")->xfeatures & FPL_XFEATURE_MASK_ZMM_Hi256);
	assert_false(fpl_xor_find("avx")->xfeatures & FPL_XFEATURE_MASK_ZMM_Hi256);
	/* the kernel forces avx exactly when AVX and OSXSAVE are usable */
	if (fpl_cpu_has(&cpu, FPL_FEAT_AVX))
		assert_ptr_equal(fpl_xor_kernel_forced(&cpu), fpl_xor_find("avx"));
	else
		assert_null(fpl_xor_kernel_forced(&cpu));
}

static void test_bad_input(void **state)
{
	const struct fpl_xor_impl *im = fpl_xor_find("8regs");
	uint64_t *d = abuf(4096), *s = abuf(4096 + 64);
	const uint64_t *srcs[4] = { s, s, s, s };
	const size_t bad[] = { 0, 8, 64, 256, 511, 513, 768, 1000, 4095, 4096 + 256 };

	memset(d, 0, 4096);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(bad); i++) {
		assert_int_equal(fpl_xor_check_size(bad[i]), -EINVAL);
		assert_int_equal(fpl_xor_run(im, NULL, 1, bad[i], d, srcs), -EINVAL);
	}
	assert_int_equal(fpl_xor_check_size(512), 0);
	assert_int_equal(fpl_xor_run(im, NULL, 0, 512, d, srcs), -EINVAL);
	assert_int_equal(fpl_xor_run(im, NULL, 5, 512, d, srcs), -EINVAL);
	assert_int_equal(fpl_xor_run(NULL, NULL, 1, 512, d, srcs), -EINVAL);
	assert_int_equal(fpl_xor_run(im, NULL, 1, 512, d + 1, srcs), -EINVAL);
	srcs[2] = s + 1;
	assert_int_equal(fpl_xor_run(im, NULL, 3, 512, d, srcs), -EINVAL);
	/* rejected calls write nothing */
	for (size_t i = 0; i < 4096 / 8; i++)
		assert_int_equal(d[i], 0);
	free(d);
	free(s);
}

/*
 * Fake ktime: each read costs read_ns, each do_2 call costs call_ns; reads
 * return the time rounded down to gran (a coarse clocksource).
 */
struct fake {
	uint64_t t, read_ns, call_ns, gran, reads;
};

static struct fake *cur;

static uint64_t fake_now(void *arg)
{
	struct fake *f = arg;
	uint64_t v = f->t - f->t % f->gran;

	f->t += f->read_ns;
	f->reads++;
	return v;
}

static void fake_do_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s)
{
	assert_int_equal(bytes, FPL_XOR_BENCH_SIZE);
	cur->t += cur->call_ns;
}

static const struct fpl_xor_impl fake_impl = { .name = "fake", .do_2 = fake_do_2 };

static int begins, ends;

static void hook_begin(void *arg)
{
	assert_int_equal(begins, ends);
	begins++;
	(*(int *)arg)++;
}

static void hook_end(void *arg)
{
	ends++;
	assert_int_equal(begins, ends);
}

static struct fpl_xor_speed calib(struct fake *f, enum fpl_xor_era era, unsigned hz)
{
	struct fpl_xor_clock clk = { fake_now, f };
	int arg = 0;
	struct fpl_xor_hook hook = { hook_begin, hook_end, &arg };
	struct fpl_xor_calib_opts o = { .era = era, .clock = &clk, .hook = &hook, .hz = hz };
	struct fpl_xor_speed sp;
	uint64_t b[8] = { 0 };

	cur = f;
	begins = ends = 0;
	assert_int_equal(fpl_xor_calibrate(&fake_impl, &o, b, b, &sp), 0);
	assert_int_equal(begins, sp.calls);
	assert_int_equal(arg, sp.calls);
	return sp;
}

static void test_calib_current(void **state)
{
	/*
	 * t0 = 0, start = 1; 801 calls (reps++ < 800 is post-increment), then a
	 * read at 1 + 1 + 801 * 100 = 80102: 1000 * 801 * 4096 / 80101.
	 */
	struct fake f = { .read_ns = 1, .call_ns = 100, .gran = 1 };
	struct fpl_xor_speed sp = calib(&f, FPL_XOR_ERA_CURRENT, 0);

	assert_int_equal(sp.reps, 801);
	assert_int_equal(sp.calls, 801);
	assert_int_equal(sp.ns, 80101);
	assert_int_equal(sp.speed, 40959);	/* 3280896000 / 80101 = 40959.75 */

	/*
	 * A 1 ms clock: start at the tick to 1000000 (t = 1000001), 801 calls
	 * and one read reach 1080102, then 101 ns per call and read until the
	 * clock reads 2000000: 9108 more calls.
	 */
	f = (struct fake){ .read_ns = 1, .call_ns = 100, .gran = 1000000, .t = 999999 };
	sp = calib(&f, FPL_XOR_ERA_CURRENT, 0);
	assert_int_equal(sp.ns, 1000000);
	assert_int_equal(sp.reps, 9909);
	assert_int_equal(sp.calls, 9909);
	assert_int_equal(sp.speed, 40587);
}

static void test_calib_5_10(void **state)
{
	/* each run: 800 calls of 50 ns plus one 7 ns read = 40007 ns */
	struct fake f = { .read_ns = 7, .call_ns = 50, .gran = 1 };
	struct fpl_xor_speed sp = calib(&f, FPL_XOR_ERA_5_10, 0);

	assert_int_equal(sp.calls, 2400);
	assert_int_equal(sp.reps, 800);
	assert_int_equal(sp.ns, 40007);
	assert_int_equal(sp.speed, 81905);	/* 3276800000 / 40007 */

	/* a clock too coarse to move: min 0 becomes 1, the kernel's guard */
	f = (struct fake){ .read_ns = 0, .call_ns = 1, .gran = 1000000000 };
	sp = calib(&f, FPL_XOR_ERA_5_10, 0);
	assert_int_equal(sp.ns, 1);
	assert_int_equal(sp.speed, (int)3276800000u);
}

static void test_calib_pre_5_10(void **state)
{
	/* HZ=250: a jiffy is 4 ms; 1000 ns per call and 0 per read: 4000 calls per jiffy */
	struct fake f = { .read_ns = 0, .call_ns = 1000, .gran = 1, .t = 1 };
	struct fpl_xor_speed sp;

	/* reads alone never advance this clock: make them cost 1 ns so the wait ends */
	f.read_ns = 1;
	sp = calib(&f, FPL_XOR_ERA_PRE_5_10, 250);
	/* per call 1000 ns + one read of 1 ns: floor(4000000 / 1001) or one more */
	assert_true(sp.reps == 3996 || sp.reps == 3997);
	assert_int_equal(sp.speed, (int)sp.reps * 1000);	/* HZ * 4096 / 1024 = 1000 */
	assert_int_equal(sp.ns, 4000000);

	f = (struct fake){ .read_ns = 1, .call_ns = 999, .gran = 1, .t = 1 };
	sp = calib(&f, FPL_XOR_ERA_PRE_5_10, 1000);
	assert_int_equal(sp.reps, 1000);	/* 1 ms / (999 + 1) ns */
	assert_int_equal(sp.speed, 4000000);	/* printed "4000.000 MB/sec" */
}

static void test_calib_real_and_fastest(void **state)
{
	void *region;
	uint64_t *b1, *b2;
	struct fpl_xor_speed sp[2];
	struct fpl_xor_calib_opts o = { .era = FPL_XOR_ERA_CURRENT };

	assert_int_equal(fpl_xor_calib_buffers(&region, &b1, &b2), 0);
	assert_int_equal((uint8_t *)b2 - (uint8_t *)b1, 12288);
	assert_int_equal(fpl_xor_calibrate(fpl_xor_find("8regs"), &o, b1, b2, &sp[0]), 0);
	assert_true(sp[0].reps >= 801 && sp[0].ns > 0 && sp[0].speed > 0);
	o.era = FPL_XOR_ERA_NR;
	assert_int_equal(fpl_xor_calibrate(fpl_xor_find("8regs"), &o, b1, b2, &sp[1]), -EINVAL);
	free(region);

	/* ties keep the first measured, as "f->speed > fastest->speed" does */
	sp[0].speed = 5;
	sp[1].speed = 5;
	assert_int_equal(fpl_xor_fastest(sp, 2), 0);
	sp[1].speed = 6;
	assert_int_equal(fpl_xor_fastest(sp, 2), 1);
	assert_int_equal(fpl_xor_fastest(sp, 0), -1);
	assert_int_equal(fpl_xor_era_by_name("pre-5.10"), FPL_XOR_ERA_PRE_5_10);
	assert_int_equal(fpl_xor_era_by_name("5.10"), FPL_XOR_ERA_5_10);
	assert_int_equal(fpl_xor_era_by_name("current"), FPL_XOR_ERA_CURRENT);
	assert_int_equal(fpl_xor_era_by_name("4.19"), -1);
}

static void test_lines(void **state)
{
	char b[128];

	assert_int_equal(fpl_xor_line_measuring(b, sizeof(b), FPL_XOR_ERA_CURRENT), 38);
	assert_string_equal(b, "xor: measuring software checksum speed");
	fpl_xor_line_template(b, sizeof(b), FPL_XOR_ERA_CURRENT, "prefetch64-sse", 33764);
	assert_string_equal(b, "   prefetch64-sse  : 33764 MB/sec");
	fpl_xor_line_template(b, sizeof(b), FPL_XOR_ERA_5_10, "avx", 512);
	assert_string_equal(b, "   avx             :   512 MB/sec");
	fpl_xor_line_template(b, sizeof(b), FPL_XOR_ERA_PRE_5_10, "avx", 21072000);
	assert_string_equal(b, "   avx       : 21072.000 MB/sec");
	fpl_xor_line_using(b, sizeof(b), FPL_XOR_ERA_PRE_5_10, "avx", 21072000);
	assert_string_equal(b, "xor: using function: avx (21072.000 MB/sec)");
	fpl_xor_line_using(b, sizeof(b), FPL_XOR_ERA_CURRENT, "avx", 33764);
	assert_string_equal(b, "xor: using function: avx (33764 MB/sec)");
	fpl_xor_line_template(b, sizeof(b), FPL_XOR_ERA_PRE_5_10, "8regs", 1234567);
	assert_string_equal(b, "   8regs     :  1234.567 MB/sec");
	fpl_xor_line_forced(b, sizeof(b), FPL_XOR_ERA_CURRENT, "avx");
	assert_string_equal(b, "xor: automatically using best checksumming function   avx       ");
	assert_int_equal(fpl_xor_line_using(b, 10, FPL_XOR_ERA_CURRENT, "avx", 1), -ENOSPC);
	assert_int_equal(fpl_xor_line_using(b, sizeof(b), FPL_XOR_ERA_NR, "avx", 1), -EINVAL);
	assert_int_equal(fpl_xor_line_template(b, sizeof(b), FPL_XOR_ERA_CURRENT, NULL, 1),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_impl),
		cmocka_unit_test(test_names_and_features),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_simd_leaves_upper_init),
		cmocka_unit_test(test_calib_current),
		cmocka_unit_test(test_calib_5_10),
		cmocka_unit_test(test_calib_pre_5_10),
		cmocka_unit_test(test_calib_real_and_fastest),
		cmocka_unit_test(test_lines),
	};

	fpl_cpu_read(&cpu);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
