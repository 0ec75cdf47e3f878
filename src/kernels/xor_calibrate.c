// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's xor calibration (do_xor_speed) in its three eras, with an injectable clock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpulab/xor.h"

static const char *const era_names[FPL_XOR_ERA_NR] = {
	[FPL_XOR_ERA_CURRENT] = "current",
	[FPL_XOR_ERA_5_10] = "5.10",
	[FPL_XOR_ERA_PRE_5_10] = "pre-5.10",
};

const char *fpl_xor_era_name(enum fpl_xor_era era)
{
	return (unsigned)era < FPL_XOR_ERA_NR ? era_names[era] : "?";
}

int fpl_xor_era_by_name(const char *name)
{
	for (int i = 0; name && i < FPL_XOR_ERA_NR; i++)
		if (!strcmp(era_names[i], name))
			return i;
	return -1;
}

static uint64_t monotonic_ns(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const struct fpl_xor_clock fpl_xor_clock_monotonic = { .now_ns = monotonic_ns };

/* x86-64 mb() and cpu_relax() */
static inline void mb(void)
{
	__asm__ __volatile__("mfence" ::: "memory");
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

struct calib {
	const struct fpl_xor_impl *impl;
	const struct fpl_xor_clock *clock;
	const struct fpl_xor_hook *hook;
	uint64_t *b1;
	const uint64_t *b2;
	unsigned long calls;
};

static inline uint64_t ktime_get(const struct calib *c)
{
	return c->clock->now_ns(c->clock->arg);
}

static inline void call(struct calib *c)
{
	if (c->hook && c->hook->begin)
		c->hook->begin(c->hook->arg);
	c->impl->do_2(FPL_XOR_BENCH_SIZE, c->b1, c->b2);
	if (c->hook && c->hook->end)
		c->hook->end(c->hook->arg);
	c->calls++;
}

/* Since "crypto: xor - fix template benchmarking" (2024). */
static int speed_current(struct calib *c, struct fpl_xor_speed *out)
{
	unsigned long reps = 0;
	uint64_t start, t0;
	unsigned int ns;

	t0 = ktime_get(c);
	while ((start = ktime_get(c)) == t0)
		cpu_relax();
	do {
		mb();
		call(c);
		mb();
	} while (reps++ < FPL_XOR_REPS || (t0 = ktime_get(c)) == start);
	/* the kernel divides by the low 32 bits of the interval */
	ns = (unsigned int)(t0 - start);
	if (!ns)
		return -ERANGE;
	out->reps = reps;
	out->ns = t0 - start;
	out->speed = (int)((1000ul * reps * FPL_XOR_BENCH_SIZE) / ns);
	return 0;
}

/* 5.10 to 2024: the shortest of three runs of REPS calls. */
static int speed_5_10(struct calib *c, struct fpl_xor_speed *out)
{
	int64_t min = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t start = ktime_get(c);
		int64_t diff;

		for (int j = 0; j < FPL_XOR_REPS; j++) {
			mb();
			call(c);
			mb();
		}
		diff = (int64_t)(ktime_get(c) - start);
		if (diff < min)
			min = diff;
	}
	if (!min)
		min = 1;
	out->reps = FPL_XOR_REPS;
	out->ns = (uint64_t)min;
	/* 800U * 4096 * 1000 fits in 32 unsigned bits: the kernel's arithmetic is 32-bit */
	out->speed = (int)((1000u * (unsigned int)FPL_XOR_REPS * FPL_XOR_BENCH_SIZE) /
			   (unsigned int)min);
	return 0;
}

static inline unsigned long jiffies(const struct calib *c, unsigned hz)
{
	return (unsigned long)((unsigned __int128)ktime_get(c) * hz / 1000000000u);
}

/* Before 5.10: calls that fit in one whole jiffy, the best of five. */
static int speed_pre_5_10(struct calib *c, unsigned hz, struct fpl_xor_speed *out)
{
	int max = 0;

	for (int i = 0; i < 5; i++) {
		unsigned long j = jiffies(c, hz), now;
		int count = 0;

		while ((now = jiffies(c, hz)) == j)
			cpu_relax();
		while ((long)(jiffies(c, hz) - (now + 1)) < 0) {	/* time_before() */
			mb();
			call(c);
			mb();
			count++;
			mb();
		}
		if (count > max)
			max = count;
	}
	out->reps = (unsigned long)max;
	out->ns = 1000000000u / hz;
	out->speed = max * (int)(hz * FPL_XOR_BENCH_SIZE / 1024);
	return 0;
}

int fpl_xor_calibrate(const struct fpl_xor_impl *impl, const struct fpl_xor_calib_opts *opts,
		      uint64_t *b1, const uint64_t *b2, struct fpl_xor_speed *out)
{
	struct calib c = { .impl = impl, .b1 = b1, .b2 = b2 };
	enum fpl_xor_era era = opts ? opts->era : FPL_XOR_ERA_CURRENT;
	unsigned hz = opts && opts->hz ? opts->hz : 1000;
	int err;

	if (!impl || !impl->do_2 || !b1 || !b2 || !out || (unsigned)era >= FPL_XOR_ERA_NR ||
	    hz > 100000)
		return -EINVAL;
	c.clock = opts && opts->clock ? opts->clock : &fpl_xor_clock_monotonic;
	c.hook = opts ? opts->hook : NULL;
	memset(out, 0, sizeof(*out));
	switch (era) {
	case FPL_XOR_ERA_CURRENT:
		err = speed_current(&c, out);
		break;
	case FPL_XOR_ERA_5_10:
		err = speed_5_10(&c, out);
		break;
	default:
		err = speed_pre_5_10(&c, hz, out);
		break;
	}
	out->calls = c.calls;
	return err;
}

int fpl_xor_fastest(const struct fpl_xor_speed *speeds, size_t n)
{
	size_t best = 0;

	if (!speeds || !n)
		return -1;
	for (size_t i = 1; i < n; i++)
		if (speeds[i].speed > speeds[best].speed)
			best = i;
	return (int)best;
}

int fpl_xor_calib_buffers(void **region, uint64_t **b1, uint64_t **b2)
{
	uint64_t *p;

	if (!region || !b1 || !b2)
		return -EINVAL;
	if (posix_memalign(region, 4096, 4 * 4096))
		return -ENOMEM;
	p = *region;
	for (size_t i = 0; i < 4 * 4096 / sizeof(*p); i++)
		p[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	/* __get_free_pages(GFP_KERNEL, 2); b2 = b1 + 2*PAGE_SIZE + BENCH_SIZE */
	*b1 = p;
	*b2 = p + (2 * 4096 + FPL_XOR_BENCH_SIZE) / sizeof(*p);
	return 0;
}
