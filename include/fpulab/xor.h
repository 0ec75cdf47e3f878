/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel's RAID xor templates (one row per implementation) and its calibration method. */
#ifndef FPULAB_XOR_H
#define FPULAB_XOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/cpu.h"

/*
 * Sizes are multiples of the AVX template's 512-byte line; buffers are
 * 64-byte aligned (the kernel xors whole pages). The do_N pointers do not
 * check either: use fpl_xor_run() where the input is not known good.
 */
#define FPL_XOR_LINE		512
#define FPL_XOR_ALIGN		64
#define FPL_XOR_MAX_SRCS	4

/* One implementation, as struct xor_block_template: dest ^= src1 ^ ... */
struct fpl_xor_impl {
	const char *name;	/* the kernel's name where it has one: "avx", "prefetch64-sse" */
	const char *isa;	/* "C", "SSE2", "AVX", "AVX-512F" */
	const char *shape;	/* one line: unrolling, prefetch, instructions */
	unsigned width;		/* bytes per load or store: 8 (general registers), 16, 32, 64 */
	uint64_t xfeatures;	/* FPL_XFEATURE_MASK_* it writes; 0 for general registers only */
	/* false with *why set when the CPU (CPUID and XCR0) cannot run it */
	bool (*supported)(const struct fpl_cpu *cpu, const char **why);
	void (*do_2)(size_t bytes, uint64_t *restrict dest, const uint64_t *restrict s1);
	void (*do_3)(size_t bytes, uint64_t *restrict dest, const uint64_t *restrict s1,
		     const uint64_t *restrict s2);
	void (*do_4)(size_t bytes, uint64_t *restrict dest, const uint64_t *restrict s1,
		     const uint64_t *restrict s2, const uint64_t *restrict s3);
	void (*do_5)(size_t bytes, uint64_t *restrict dest, const uint64_t *restrict s1,
		     const uint64_t *restrict s2, const uint64_t *restrict s3,
		     const uint64_t *restrict s4);
};

/* Every implementation built in, generic ones first; *n gets the count. */
const struct fpl_xor_impl *fpl_xor_impls(size_t *n);
/* By name (exact); NULL if unknown. */
const struct fpl_xor_impl *fpl_xor_find(const char *name);
/* The kernel's choice on x86-64 6.x: "avx" when AVX and OSXSAVE, else NULL (calibrate). */
const struct fpl_xor_impl *fpl_xor_kernel_forced(const struct fpl_cpu *cpu);

/*
 * The L1 bound of impl's do_N (N = arity, 2 to 5) over size bytes: per core
 * cycle the core does `loads` loads and `stores` stores of `width` bytes
 * (fpl_cpu_lsu); do_N loads N streams (the destination and N - 1 sources)
 * and stores one, so bytes of destination per cycle <= min(loads x width / N,
 * stores x width). It holds only while the N x size bytes touched fit in
 * L1D: fits_l1d says whether they do (-1: the CPU does not tell its L1D).
 */
/* A median over this percentage of the bound is an anomaly (a warning naming the row), not a figure. */
#define FPL_XOR_BOUND_ANOMALY_PCT 105.0

struct fpl_xor_bound {
	double bytes_per_cycle;
	double loads, stores;		/* per cycle, accesses of width bytes */
	unsigned width, arity;
	size_t footprint, l1d_bytes;	/* arity x size; 0: unknown */
	int fits_l1d;			/* 1, 0, or -1 when l1d_bytes is unknown */
	const char *core, *source;	/* from fpl_cpu_lsu */
	bool known;			/* false: the CPU is not in the table */
};
/* 0, or -EINVAL for a NULL argument or an arity outside 2..5. */
int fpl_xor_bound(const struct fpl_cpu *cpu, const struct fpl_xor_impl *impl, unsigned arity,
		  size_t size, struct fpl_xor_bound *b);

/* 0 if bytes is a positive multiple of FPL_XOR_LINE, else -EINVAL. */
int fpl_xor_check_size(size_t bytes);

/*
 * Checked entry point: dest ^= srcs[0] ^ ... ^ srcs[nsrc - 1], 1 <= nsrc <= 4.
 * -EINVAL for a bad size, count, NULL or misaligned pointer; -ENOTSUP when
 * cpu is given and cannot run impl (cpu NULL: the caller has checked).
 */
int fpl_xor_run(const struct fpl_xor_impl *impl, const struct fpl_cpu *cpu, unsigned nsrc,
		size_t bytes, uint64_t *dest, const uint64_t *const *srcs);

/* ---- calibration, as the kernel's do_xor_speed() did it in each era ---- */

enum fpl_xor_era {
	/* mid-2024 on: wait for a tick, >= 801 calls and until the clock moved, one timing */
	FPL_XOR_ERA_CURRENT,
	/* 5.10 to 2024: 3 runs of 800 calls, the shortest run wins */
	FPL_XOR_ERA_5_10,
	/* before 5.10: 5 runs counting calls within one jiffy, the largest count wins */
	FPL_XOR_ERA_PRE_5_10,
	FPL_XOR_ERA_NR
};
const char *fpl_xor_era_name(enum fpl_xor_era era);	/* "current", "5.10", "pre-5.10" */
int fpl_xor_era_by_name(const char *name);		/* -1 if unknown */

#define FPL_XOR_BENCH_SIZE	4096	/* bytes per do_2 call */
#define FPL_XOR_REPS		800	/* REPS in the kernel */

/* ktime_get() for the calibration: monotonic ns. A test injects a fake one. */
struct fpl_xor_clock {
	uint64_t (*now_ns)(void *arg);
	void *arg;
};
/* CLOCK_MONOTONIC through clock_gettime(), as ktime_get() reads it. */
extern const struct fpl_xor_clock fpl_xor_clock_monotonic;

/*
 * Called right before and right after every do_2 call of a calibration,
 * inside the mb() pair, where the kernel's templates do kernel_fpu_begin()
 * and kernel_fpu_end(). Either may be NULL.
 */
struct fpl_xor_hook {
	void (*begin)(void *arg);
	void (*end)(void *arg);
	void *arg;
};

struct fpl_xor_calib_opts {
	enum fpl_xor_era era;
	const struct fpl_xor_clock *clock;	/* NULL: fpl_xor_clock_monotonic */
	const struct fpl_xor_hook *hook;	/* NULL: bare calls */
	unsigned hz;				/* pre-5.10 jiffy rate; 0: 1000 */
};

struct fpl_xor_speed {
	/*
	 * The kernel's int: MB/s (10^6 bytes of destination per second) for
	 * current and 5.10; for pre-5.10 calls * HZ * 4 (KiB/s), which the
	 * kernel printed as speed / 1000 "." speed % 1000 MB/sec.
	 */
	int speed;
	unsigned long reps;	/* calls in the interval that gave speed */
	uint64_t ns;		/* that interval (pre-5.10: one jiffy) */
	unsigned long calls;	/* all do_2 calls made */
};

/*
 * Time impl->do_2 on 4096-byte buffers b1 (dest) and b2 the way do_xor_speed()
 * did in opts->era. The kernel lays them out as b2 = b1 + 3 * 4096 in one
 * 16 KiB allocation: fpl_xor_calib_buffers() gives that. Pins nothing and
 * disables nothing: the caller places the thread. 0 or -EINVAL.
 */
int fpl_xor_calibrate(const struct fpl_xor_impl *impl, const struct fpl_xor_calib_opts *opts,
		      uint64_t *b1, const uint64_t *b2, struct fpl_xor_speed *out);
/* The kernel's pick: the first strict maximum in measuring order; -1 if n == 0. */
int fpl_xor_fastest(const struct fpl_xor_speed *speeds, size_t n);

/* 16 KiB, page aligned, filled with a fixed pattern; *b1 and *b2 inside it. free() *region. */
int fpl_xor_calib_buffers(void **region, uint64_t **b1, uint64_t **b2);

#endif
