/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark descriptors: one per file in src/bench, found by name, run by the harness. */
#ifndef FPULAB_BENCH_H
#define FPULAB_BENCH_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "fpulab/base.h"
#include "fpulab/cpu.h"
#include "fpulab/result.h"

struct fpl_clock;	/* fpulab/clock.h: created once per process */
struct fpl_ktrace;	/* fpulab/ktrace.h: the kernel's x86_fpu events, when traced */

enum fpl_opt_type {
	FPL_OPT_INT,	/* integer in [min, max]; accepts 0x.. and k/M/G suffixes (1024) */
	FPL_OPT_REAL,	/* real number in [min, max] */
	FPL_OPT_STR,	/* free text, or one of choices when given */
	FPL_OPT_FLAG,	/* present or not; no value */
};

struct fpl_opt {
	const char *name;	/* long option without dashes: "mask" is --mask */
	enum fpl_opt_type type;
	const char *def;	/* default, as text; NULL for none */
	double min, max;	/* numbers only */
	const char *const *choices;	/* STR only: NULL-terminated, or NULL for any */
	const char *help;
};

/* One option value as given on the command line. */
struct fpl_optval {
	const char *name;
	const char *value;	/* NULL for a flag */
};

struct fpl_bench;

struct fpl_bench_env {
	const struct fpl_bench *bench;
	const struct fpl_cpu *cpu;
	struct fpl_clock *clock;
	bool quick;		/* suite settings: the whole suite within 60 s */
	double budget_s;	/* time budget for this benchmark; 0 = its default */
	int pin_cpu;		/* CPU the harness pinned to, -1 if none */
	/*
	 * The CPUs this process might run on when it started, before the pin
	 * (taskset, a cpuset): tasks a benchmark places go among them. NULL:
	 * every CPU hwloc allows.
	 */
	const cpu_set_t *cpus_start;
	const struct fpl_optval *opts;
	size_t nopts;
	/* Optional: called now and then with the fraction done (0..1). */
	void (*progress)(void *arg, const char *bench, double frac, const char *what);
	void *progress_arg;
	/* Set asynchronously (SIGINT/SIGTERM): stop soon, keep what was measured. */
	volatile sig_atomic_t *stop;
	/*
	 * --kernel-trace: one extra bracketed batch after the measurement, its
	 * x86_fpu events in the run's observed.kernel. NULL: not traced.
	 */
	struct fpl_ktrace *ktrace;
	/* What .check parsed the options into (bench->cfg_size bytes); NULL: none. */
	const void *cfg;
	/* Where .run says why it refused its options when it returns -EINVAL. */
	struct fpl_diag *diag;
};

/* Default --budget in seconds, without and with --quick. */
struct fpl_budget {
	double full_s, quick_s;
};

struct fpl_bench {
	const char *name;
	const char *summary;
	/*
	 * The measurement's default time budget (what --budget replaces), and
	 * under --ab where it differs ({0, 0}: the same). The one place these
	 * figures live: the benchmark reads them (fpl_bench_budget), --help
	 * prints them.
	 */
	struct fpl_budget budget, budget_ab;
	const struct fpl_opt *opts;	/* terminated by an entry with name NULL */
	/* 1 when this CPU can run it; 0 with *why set to a reason otherwise. NULL: every CPU. */
	int (*supported)(const struct fpl_cpu *cpu, const char **why);
	/* Bytes of the configuration .check parses the options into (env->cfg); 0: none. */
	size_t cfg_size;
	/*
	 * Optional: check option values against env->cpu before the session
	 * calibrates anything, and parse them into cfg (cfg_size bytes, zeroed)
	 * when cfg_size is not 0: the options are parsed once, here, and .run
	 * reads env->cfg. -EINVAL with diag naming the option; -ENOTSUP with
	 * the reason when nothing asked for can be measured on env->cpu (a
	 * state, mask or implementation named that it lacks; part of what was
	 * asked is left to run(), which skips it); 0 otherwise, with diag->msg
	 * empty or one notice to show once (what "widest" is here).
	 */
	int (*check)(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag);
	/*
	 * Records runs into result; never prints. 0 or -errno; -EINVAL with
	 * env->diag set for options it refuses only once running.
	 */
	int (*run)(const struct fpl_bench_env *env, struct fpl_result *result);
};

/* Every benchmark, in name order (generated from src/bench/bench_*.c). */
extern const struct fpl_bench *const fpl_benches[];
extern const size_t fpl_nbenches;
const struct fpl_bench *fpl_bench_find(const char *name);
const struct fpl_opt *fpl_bench_find_opt(const struct fpl_bench *b, const char *name);

/*
 * Check values against the descriptor: unknown names, values out of range,
 * not a number, not one of the choices. -EINVAL with diag naming the option.
 */
int fpl_bench_check_opts(const struct fpl_bench *b, const struct fpl_optval *v,
			 size_t n, struct fpl_diag *diag);

/*
 * Check opts against the descriptor (fpl_bench_check_opts), then the
 * benchmark's own .check on cpu, parsing into cfg (cfg_size bytes, zeroed
 * by the caller; NULL: a scratch one). 0, -EINVAL with diag, -ENOMEM.
 */
int fpl_bench_prepare(const struct fpl_bench *b, const struct fpl_cpu *cpu,
		      const struct fpl_optval *opts, size_t nopts, void *cfg,
		      struct fpl_diag *diag);

/* The value given on the command line, else the default (NULL if neither). */
const char *fpl_bench_opt(const struct fpl_bench_env *env, const char *name);
bool fpl_bench_flag(const struct fpl_bench_env *env, const char *name);
/* Parsed values (already checked by fpl_bench_check_opts); def if absent. */
long long fpl_bench_opt_int(const struct fpl_bench_env *env, const char *name, long long def);
double fpl_bench_opt_real(const struct fpl_bench_env *env, const char *name, double def);

/* Parse an integer with optional 0x prefix and k/M/G (binary) suffix. 0 or -EINVAL. */
int fpl_parse_int(const char *s, long long *out);

/*
 * Parse "64,256,1k,64K" (fpl_parse_int items: 0x.., k/M/G) into at most max
 * sizes, each in [lo, hi] and a multiple of unit (unit 0 or 1: any).
 * 0, or -EINVAL with diag naming the item and the rule it broke.
 */
int fpl_parse_sizes(const char *s, size_t lo, size_t hi, size_t unit, size_t *out, size_t max,
		    size_t *n, struct fpl_diag *diag);

/*
 * The budget of this call of benchmark b: --budget where given, else b's
 * default for --quick or not (the --ab pair when ab and it has one). b is
 * the benchmark's own descriptor, not env->bench: tests call a
 * benchmark's parts with an env of their own making.
 */
double fpl_bench_budget(const struct fpl_bench *b, const struct fpl_bench_env *env, bool ab);

/* Report progress through env->progress if set. */
void fpl_bench_progress(const struct fpl_bench_env *env, double frac, const char *what);
static inline bool fpl_bench_stopped(const struct fpl_bench_env *env)
{
	return env->stop && *env->stop;
}

#endif
