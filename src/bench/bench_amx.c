// SPDX-License-Identifier: GPL-3.0-or-later
/* amx: the AMX lifecycle: permission, first tile use (XFD trap), again, in a forked child, release; sigaltstack rules. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fpulab/amx.h"
#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/sigframe.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"
#include "amx_ops.h"
#include "ktpass.h"
#include "tasks.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_amx;

#define AMX_MAX_SAMPLES	2000
#define ALT_SMALL	8192		/* METHOD.md: refused after permission, accepted before */

static const struct fpl_opt amx_opts[] = {
	{ "samples", FPL_OPT_INT, NULL, 5, AMX_MAX_SAMPLES, NULL,
	  "fresh child processes to measure, at most (default: what the budget allows, up to "
	  "200; 50 with --quick)" },
	{ .name = NULL },
};

/* What one forked child measured, TSC ticks (lfence;rdtsc around one operation). */
struct amx_sample {
	int done;			/* 1: every figure below is set */
	int perm_err;			/* -errno of the first ARCH_REQ_XCOMP_PERM */
	int fork_status;		/* the grandchild's exit status, -1 if it died */
	uint64_t perm_first, perm_again, ldtilecfg, first_use, second_use;
	uint64_t release_live, release_init, fork_first_use, fork_second_use;
	uint64_t perm_after, xinuse_after_use;
};

/* The sigaltstack rules and the signal frame's size, seen by one child. */
struct amx_alt {
	int done;
	int small_before;		/* sigaltstack(ALT_SMALL) before permission: 0 or -errno */
	int perm_small;			/* ARCH_REQ_XCOMP_PERM with it installed */
	int perm;			/* ARCH_REQ_XCOMP_PERM with none installed */
	int small_after;		/* sigaltstack(ALT_SMALL) after permission */
	int min_after;			/* sigaltstack(AT_MINSIGSTKSZ) after permission */
	uint32_t frame[3];		/* xstate_size: no permission, permission unused, tiles used */
};

struct amx_shared {
	struct amx_alt alt;
	struct amx_sample s[AMX_MAX_SAMPLES];
};

struct amx_ctx {
	const struct fpl_cpu *cpu;
	unsigned char cfg[64];
	unsigned char *tile;		/* one tile's rows, non-zero bytes */
	long stride;
	bool xgetbv1;
	long min_altstack;
	struct amx_shared *sh;
	struct amx_sample *cur;
};

/*
 * fn(c) in a child process (tasks.c: pinned like the parent, inherited;
 * dies with it; ignores SIGINT/SIGTERM, so only the parent decides to
 * stop), reaped blocking. *status: the child's exit status, -N when signal
 * N ended it, -1 otherwise. 0, or the fork's -errno.
 */
static int run_child(int (*fn)(void *), struct amx_ctx *c, int *status)
{
	struct fpl_task t;
	int err = fpl_task_start(&t, false, NULL, fn, c, NULL);

	if (err)
		return err;
	fpl_task_reap(&t, -1);
	*status = t.signo ? -t.signo : t.status;
	return 0;
}

/* The grandchild: forked from a process whose tiles are live; XFD is armed again here. */
static int fork_child(void *arg)
{
	struct amx_ctx *c = arg;
	struct amx_sample *s = c->cur;

	fpl_amxb_ldtilecfg(c->cfg);
	s->fork_first_use = fpl_amxb_tileload0_timed(c->tile, c->stride);
	s->fork_second_use = fpl_amxb_tileload0_timed(c->tile, c->stride);
	fpl_tilerelease();
	return 0;
}

/* One sample: a child of a process that has neither permission nor tile state of its own. */
static int sample_child(void *arg)
{
	struct amx_ctx *c = arg;
	struct amx_sample *s = c->cur;
	uint64_t t0;
	int err;

	t0 = fpl_tsc_begin();
	err = fpl_arch_req_xcomp_perm(FPL_XFEATURE_XTILE_DATA);
	s->perm_first = fpl_tsc_end() - t0;
	if (err) {
		s->perm_err = err;
		return 3;
	}
	t0 = fpl_tsc_begin();
	err = fpl_arch_req_xcomp_perm(FPL_XFEATURE_XTILE_DATA);
	s->perm_again = fpl_tsc_end() - t0;
	if (err) {
		s->perm_err = err;
		return 3;
	}
	fpl_arch_get_xcomp_perm(&s->perm_after);
	s->ldtilecfg = fpl_amxb_ldtilecfg_timed(c->cfg);
	s->first_use = fpl_amxb_tileload0_timed(c->tile, c->stride);
	s->second_use = fpl_amxb_tileload0_timed(c->tile, c->stride);
	if (c->xgetbv1)
		s->xinuse_after_use = fpl_xgetbv(1);
	s->release_live = fpl_amxb_tilerelease_timed();
	s->release_init = fpl_amxb_tilerelease_timed();
	/* Tiles live at the fork, as in a task that forks while using them. */
	fpl_amxb_ldtilecfg(c->cfg);
	fpl_amxb_tileload0(c->tile, c->stride);
	if (run_child(fork_child, c, &s->fork_status))
		s->fork_status = -1;
	fpl_tilerelease();
	s->done = 1;
	return 0;
}

/* The xstate_size of this thread's signal frame now (its software bytes), or 0. */
static uint32_t frame_size(void)
{
	uint32_t size = 0;

	return fpl_xstate_sigframe_probe(NULL, &size) ? 0 : size;
}

static int set_altstack(void *base, size_t size)
{
	stack_t ss = { .ss_sp = base, .ss_size = size, .ss_flags = base ? 0 : SS_DISABLE };

	return sigaltstack(&ss, NULL) ? -errno : 0;
}

/* The sigaltstack rules around permission (METHOD.md), in a child of its own. */
static int alt_child(void *arg)
{
	struct amx_ctx *c = arg;
	struct amx_alt *a = &c->sh->alt;
	size_t len = (size_t)(c->min_altstack > ALT_SMALL ? c->min_altstack : ALT_SMALL) + 4096;
	void *stack;

	stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return 5;
	a->frame[0] = frame_size();
	a->small_before = set_altstack(stack, ALT_SMALL);
	a->perm_small = fpl_arch_req_xcomp_perm(FPL_XFEATURE_XTILE_DATA);
	set_altstack(NULL, 0);
	a->perm = a->perm_small ? fpl_arch_req_xcomp_perm(FPL_XFEATURE_XTILE_DATA) : 0;
	if (a->perm)
		return 6;
	a->frame[1] = frame_size();
	a->small_after = set_altstack(stack, ALT_SMALL);
	set_altstack(NULL, 0);
	a->min_after = set_altstack(stack, (size_t)c->min_altstack);
	set_altstack(NULL, 0);
	fpl_amxb_ldtilecfg(c->cfg);
	fpl_amxb_tileload0(c->tile, c->stride);
	a->frame[2] = frame_size();
	fpl_tilerelease();
	a->done = 1;
	return 0;
}

static const char *errname(int err, char *buf, size_t len)
{
	switch (-err) {
	case 0: return "ok";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ENODEV: return "ENODEV";
	default:
		snprintf(buf, len, "errno %d", -err);
		return buf;
	}
}

static void record_alt(struct fpl_run *run, const struct amx_ctx *c, int status)
{
	const struct amx_alt *a = &c->sh->alt;
	char b[32];

	fpl_run_obs_int(run, "at_minsigstksz", fpl_signal_at_minsigstksz());
	fpl_run_obs_int(run, "altstack_min", c->min_altstack);
	fpl_run_obs_int(run, "altstack_small_bytes", ALT_SMALL);
	if (!a->done && a->perm) {
		fpl_run_warn(run, "sigaltstack child: ARCH_REQ_XCOMP_PERM refused (%s)",
			     errname(a->perm, b, sizeof(b)));
		return;
	}
	if (!a->done) {
		fpl_run_warn(run, "sigaltstack child ended early (status %d)", status);
		return;
	}
	fpl_run_obs_str(run, "altstack_small_before_perm", errname(a->small_before, b, sizeof(b)));
	fpl_run_obs_str(run, "perm_with_small_altstack", errname(a->perm_small, b, sizeof(b)));
	fpl_run_obs_str(run, "altstack_small_after_perm", errname(a->small_after, b, sizeof(b)));
	fpl_run_obs_str(run, "altstack_min_after_perm", errname(a->min_after, b, sizeof(b)));
	fpl_run_obs_int(run, "frame_xstate_size_noperm", a->frame[0]);
	fpl_run_obs_int(run, "frame_xstate_size_perm_unused", a->frame[1]);
	fpl_run_obs_int(run, "frame_xstate_size_tiles_used", a->frame[2]);
}

/* The figures: each in TSC ticks as measured and in ns with the session's TSC rate. */
static const struct {
	const char *name;
	size_t off;
	const char *what;
} figures[] = {
	{ "perm_request", offsetof(struct amx_sample, perm_first),
	  "arch_prctl(ARCH_REQ_XCOMP_PERM, 18) the first time, in a forked child of a process "
	  "without AMX permission" },
	{ "perm_request_again", offsetof(struct amx_sample, perm_again),
	  "the same request repeated in that child (permission already granted)" },
	{ "ldtilecfg", offsetof(struct amx_sample, ldtilecfg),
	  "LDTILECFG of a valid palette-1 configuration (every tile at full size) before any "
	  "tile-data use: TILECFG is not XFD-armed, no trap" },
	{ "first_use", offsetof(struct amx_sample, first_use),
	  "the first TILELOADD (tmm0, one tile from memory) in a fresh forked child with "
	  "permission: the XFD #NM trap, the kernel's fpstate enlargement, the load re-executed" },
	{ "second_use", offsetof(struct amx_sample, second_use),
	  "the next TILELOADD of the same tile in that child (XFD disarmed)" },
	{ "fork_first_use", offsetof(struct amx_sample, fork_first_use),
	  "the first TILELOADD in a child forked from a process with tiles live (XFD re-armed "
	  "in the child, tile data not inherited)" },
	{ "fork_second_use", offsetof(struct amx_sample, fork_second_use),
	  "the next TILELOADD in that forked child" },
	{ "tilerelease_live", offsetof(struct amx_sample, release_live),
	  "TILERELEASE with tile data and TILECFG live" },
	{ "tilerelease_init", offsetof(struct amx_sample, release_init),
	  "TILERELEASE again, with tile state already init" },
};

static uint64_t field(const struct amx_sample *s, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

static int record_samples(struct fpl_run *run, const struct amx_ctx *c, size_t n,
			  const struct fpl_clock *clock)
{
	char meth[512], name[48];

	for (size_t k = 0; k < FPL_ARRAY_SIZE(figures); k++) {
		/* one operation per child, the timer's own cost left in (observed timer_floor_tsc) */
		struct fpl_metric_how how = { .reps = 1, .clock = FPL_MCLOCK_TSC,
					      .overhead = FPL_OVERHEAD_NONE, .conv = FPL_CONV_NONE };
		struct fpl_metric *ns, *tsc;

		snprintf(meth, sizeof(meth), "%s; one per child, TSC ticks between lfence;rdtsc "
			 "and lfence;rdtsc;lfence around the one operation (timer floor included: "
			 "observed timer_floor_tsc)", figures[k].what);
		snprintf(name, sizeof(name), "%s_tsc", figures[k].name);
		tsc = fpl_run_add_metric(run, name, "tsc", meth);
		snprintf(meth + strlen(meth), sizeof(meth) - strlen(meth), "; in ns with the "
			 "session's TSC rate");
		ns = fpl_run_add_metric(run, figures[k].name, "ns", meth);
		if (!tsc || !ns || fpl_metric_set_family(tsc, figures[k].name))
			return -ENOMEM;
		fpl_metric_set_how(tsc, &how);
		how.conv = FPL_CONV_NS_FROM_TSC;
		fpl_metric_set_how(ns, &how);
		for (size_t i = 0; i < n; i++) {
			const struct amx_sample *s = &c->sh->s[i];
			double v;

			if (!s->done)
				continue;
			if ((!strcmp(figures[k].name, "fork_first_use") ||
			     !strcmp(figures[k].name, "fork_second_use")) && s->fork_status)
				continue;
			v = (double)field(s, figures[k].off);
			if (fpl_metric_add(tsc, v) || fpl_metric_add(ns, fpl_clock_tsc_to_ns(clock, v)))
				return -ENOMEM;
		}
	}
	return 0;
}

static void record_masks(struct fpl_run *run, const struct amx_ctx *c, size_t n)
{
	char b[24];

	for (size_t i = 0; i < n; i++) {
		const struct amx_sample *s = &c->sh->s[i];

		if (!s->done)
			continue;
		snprintf(b, sizeof(b), "0x%" PRIx64, s->perm_after);
		fpl_run_obs_str(run, "permitted_in_child", b);
		if (c->xgetbv1) {
			snprintf(b, sizeof(b), "0x%" PRIx64, s->xinuse_after_use);
			fpl_run_obs_str(run, "xinuse_after_first_use", b);
			if ((s->xinuse_after_use & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE)
				fpl_run_warn(run, "after the first TILELOADD XINUSE was %s: tile "
					     "state not in use", b);
		}
		return;
	}
}

static void amx_budget(const struct fpl_bench_env *env, double *budget, size_t *max)
{
	*budget = fpl_bench_budget(&fpl_bench_amx, env, false);
	*max = (size_t)fpl_bench_opt_int(env, "samples", env->quick ? 50 : 200);
}

static int setup(struct amx_ctx *c, const struct fpl_bench_env *env, struct fpl_run *run)
{
	const struct fpl_amx_palette *p;
	struct fpl_xstate xs;
	const char *why = NULL;
	char b[128];
	size_t bytes;

	memset(c, 0, sizeof(*c));
	c->cpu = env->cpu;
	if (fpl_xstate_init(&xs, env->cpu) || !fpl_amx_supported(&xs, &why))
		return fpl_run_skip(run, "%s", why ? why : "no AMX on this CPU"), -ENOTSUP;
	p = &xs.amx;
	if (fpl_tilecfg_make(p, c->cfg))
		return fpl_run_skip(run, "AMX palette 1 not usable (CPUID 0x1D.1)"), -ENOTSUP;
	snprintf(b, sizeof(b), "%u tiles of %u rows x %u bytes (%u bytes each, %u in all)",
		 p->max_names, p->max_rows, p->bytes_per_row, p->bytes_per_tile,
		 p->total_tile_bytes);
	fpl_run_obs_str(run, "palette", b);
	c->stride = p->bytes_per_row;
	bytes = (size_t)p->max_rows * p->bytes_per_row;
	c->tile = malloc(bytes);
	if (!c->tile)
		return -ENOMEM;
	for (size_t i = 0; i < bytes; i++)
		c->tile[i] = (unsigned char)((i * 7 + 1) & 0xff);
	c->xgetbv1 = fpl_cpu_has(env->cpu, FPL_FEAT_XGETBV1);
	c->min_altstack = fpl_signal_min_altstack();
	c->sh = fpl_shared_alloc(sizeof(*c->sh));
	if (!c->sh) {
		free(c->tile);
		return -ENOMEM;
	}
	return 0;
}

/*
 * --kernel-trace: one more child's lifecycle (permission, first and second
 * tile use, release, a forked grandchild) under the trace. The point is the
 * child's xcomp_bv before and after its first tile use (0x200e7 growing to
 * 0x600e7 on the Intel machine: the kernel enlarges the fpstate at the XFD
 * trap); the counts to expect, bounds mostly, are model/kexpect.c's (op
 * "child"), written from the kernel source and untested on AMX hardware.
 */
static int amx_trace(const struct fpl_bench_env *env, struct amx_ctx *c, struct fpl_run *run,
		     size_t n)
{
	struct fpl_ktpass p;
	struct fpl_task t;

	if (n >= AMX_MAX_SAMPLES || !fpl_ktpass_begin(env, &p, run, "amx"))
		return 0;
	c->cur = &c->sh->s[n];
	if (fpl_task_start(&t, false, NULL, sample_child, c, NULL))
		return fpl_ktpass_end(env, &p, run, "lifecycle", 0, "child", NULL);
	fpl_ktpass_add_tid(&p, t.pid);
	fpl_task_reap(&t, -1);
	return fpl_ktpass_end(env, &p, run, "lifecycle", 1, "child", NULL);
}

/* This process's permitted mask before any child, and a warning when it has tiles already. */
static void note_perm_before(struct fpl_run *run)
{
	uint64_t perm0 = 0;
	char b[32];

	if (fpl_arch_get_xcomp_perm(&perm0))
		return;
	snprintf(b, sizeof(b), "0x%" PRIx64, perm0);
	fpl_run_obs_str(run, "permitted_before", b);
	if (perm0 & FPL_XFEATURE_MASK_XTILE_DATA)
		fpl_run_warn(run, "this process has AMX permission already (--amx, or an "
			     "AMX mask or state earlier): its children inherit it, so "
			     "perm_request is a repeated request, not a first one");
}

/*
 * One fresh child per sample until the budget (at least 11 samples, 5 at
 * 4x the budget) or max: *n samples, *failed children that ended early or
 * whose fork test failed, *elapsed seconds. 0, or the fork's -errno.
 */
static int sample_children(const struct fpl_bench_env *env, struct amx_ctx *c,
			   struct fpl_run *run, double budget, size_t max, size_t *n,
			   size_t *failed, double *elapsed)
{
	uint64_t t0 = fpl_tsc_begin();
	int err = 0, status = 0;
	char b[32];

	while (*n < max && !fpl_bench_stopped(env)) {
		*elapsed = (double)(fpl_tsc_end() - t0) / env->clock->tsc_hz;
		if (*elapsed >= budget && *n >= 11)
			break;
		if (*elapsed >= 4 * budget && *n >= 5)
			break;
		c->cur = &c->sh->s[*n];
		err = run_child(sample_child, c, &status);
		if (err)
			break;
		if (!c->cur->done) {
			if (c->cur->perm_err) {
				fpl_run_warn(run, "ARCH_REQ_XCOMP_PERM refused in a child: %s",
					     errname(c->cur->perm_err, b, sizeof(b)));
				break;
			}
			if (++*failed >= 3) {
				fpl_run_warn(run, "3 children ended early (last status %d)", status);
				break;
			}
			continue;
		}
		if (c->cur->fork_status)
			++*failed;
		++*n;
		if (!(*n & 15))
			fpl_bench_progress(env, *elapsed / budget, "children");
	}
	return err;
}

static int amx_run(const struct fpl_bench_env *env, struct fpl_result *res)
{
	struct fpl_run *run = fpl_result_add_run(res, "amx");
	struct amx_ctx *c = calloc(1, sizeof(*c));
	size_t max, n = 0, failed = 0;
	double budget, elapsed = 0;
	int err, status = 0;

	if (!run || !c) {
		free(c);
		return -ENOMEM;
	}
	amx_budget(env, &budget, &max);
	fpl_run_param_int(run, "samples", (long long)max);
	fpl_run_param_real(run, "budget_s", budget);
	err = setup(c, env, run);
	if (err) {
		free(c);
		return err == -ENOTSUP ? 0 : err;
	}
	fpl_run_obs_real(run, "timer_floor_tsc", env->clock->floor_tsc);
	note_perm_before(run);
	err = run_child(alt_child, c, &status);
	if (err)
		goto out;
	record_alt(run, c, status);
	err = sample_children(env, c, run, budget, max, &n, &failed, &elapsed);
	if (fpl_bench_stopped(env))
		fpl_run_warn(run, "interrupted after %zu children: samples so far kept", n);
	fpl_run_obs_int(run, "children", (long long)n);
	fpl_run_obs_int(run, "children_failed", (long long)failed);
	fpl_run_obs_real(run, "elapsed_s", elapsed);
	record_masks(run, c, n);
	if (err) {
		fpl_run_warn(run, "fork: %s", strerror(-err));
		if (!n)
			goto out;
	}
	err = record_samples(run, c, n, env->clock);
	if (!err)
		err = amx_trace(env, c, run, n);
out:
	fpl_shared_free(c->sh, sizeof(*c->sh));
	free(c->tile);
	free(c);
	return err;
}

static int amx_supported(const struct fpl_cpu *cpu, const char **why)
{
	struct fpl_xstate xs;

	if (fpl_xstate_init(&xs, cpu)) {
		*why = "CPUID leaf 0xD unreadable";
		return 0;
	}
	if (!fpl_amx_supported(&xs, why))
		return 0;
	if (!(fpl_xstate_xfd_mask(&xs) & FPL_XFEATURE_MASK_XTILE_DATA)) {
		*why = "no XFD for AMX tile data on this CPU: no first-use trap to measure";
		return 0;
	}
	return 1;
}

const struct fpl_bench fpl_bench_amx = {
	.name = "amx",
	.budget = { 2.0, 0.5 },
	.summary = "AMX lifecycle: permission, first tile use (XFD trap), again, in a forked child, "
		   "TILERELEASE; sigaltstack rules",
	.opts = amx_opts,
	.supported = amx_supported,
	.run = amx_run,
};
