// SPDX-License-Identifier: GPL-3.0-or-later
/* will-it-scale's context_switch1 and signal1: the tasks, their placement and the per-second counts. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include "fpulab/wis.h"
#include "tasks.h"

#define WIS_LINE	128	/* one counter per cache line pair: no false sharing */
#define WIS_QUIT	0xff

struct wis_shared {
	int quit;
	char pad[WIS_LINE - sizeof(int)];
	unsigned long long count[];	/* every WIS_LINE bytes */
};

struct wis_pair {
	int p1[2], p2[2];	/* initiator -> echo, echo -> initiator */
};

struct wis_ctx {
	const struct fpl_wis_cfg *cfg;
	struct wis_shared *sh;
	size_t sh_size;
	struct wis_pair *pairs;
	int start[2];		/* every task waits for this to become readable */
	struct fpl_task *tasks;
	unsigned ntasks;
	struct wis_arg {
		struct wis_ctx *ctx;
		unsigned i;
	} *args;
};

const char *fpl_wis_description(enum fpl_wis_case c)
{
	return c == FPL_WIS_SIGNAL1 ? "signal delivery" : "Context switch via pipes";
}

static volatile unsigned long long *counter(struct wis_ctx *ctx, unsigned i)
{
	return (unsigned long long *)((char *)ctx->sh->count + (size_t)i * WIS_LINE);
}

static bool quitting(const struct wis_ctx *ctx)
{
	return __atomic_load_n(&ctx->sh->quit, __ATOMIC_RELAXED);
}

static int xread(int fd, unsigned char *c)
{
	ssize_t r;

	do
		r = read(fd, c, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

static int xwrite(int fd, unsigned char c)
{
	ssize_t r;

	do
		r = write(fd, &c, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

static void wait_start(const struct wis_ctx *ctx)
{
	struct pollfd pfd = { ctx->start[0], POLLIN, 0 };

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
}

static int cs_initiator(void *p)
{
	struct wis_arg *a = p;
	struct wis_ctx *ctx = a->ctx;
	struct wis_pair *pp = &ctx->pairs[a->i];
	volatile unsigned long long *n = counter(ctx, a->i);
	unsigned char c = 0;

	wait_start(ctx);
	while (!quitting(ctx)) {
		if (xwrite(pp->p1[1], c) || xread(pp->p2[0], &c))
			return 1;
		*n += 2;
	}
	return xwrite(pp->p1[1], WIS_QUIT) ? 1 : 0;
}

static int cs_echo(void *p)
{
	struct wis_arg *a = p;
	struct wis_pair *pp = &a->ctx->pairs[a->i];
	unsigned char c;

	for (;;) {
		if (xread(pp->p1[0], &c))
			return 1;
		if (c == WIS_QUIT)
			return 0;
		if (xwrite(pp->p2[1], c))
			return 1;
	}
}

static void empty_handler(int sig)
{
	(void)sig;
}

static int install_usr1(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	return sigaction(SIGUSR1, &sa, old) ? -errno : 0;
}

static int sig_task(void *p)
{
	struct wis_arg *a = p;
	struct wis_ctx *ctx = a->ctx;
	volatile unsigned long long *n = counter(ctx, a->i);

	if (!ctx->cfg->threads && install_usr1(NULL))
		return 1;
	wait_start(ctx);
	while (!quitting(ctx)) {
		raise(SIGUSR1);
		*n += 1;
	}
	return 0;
}

static void close_fds(struct wis_ctx *ctx, unsigned npairs)
{
	for (unsigned i = 0; i < npairs; i++) {
		close(ctx->pairs[i].p1[0]);
		close(ctx->pairs[i].p1[1]);
		close(ctx->pairs[i].p2[0]);
		close(ctx->pairs[i].p2[1]);
	}
}

static int make_pipes(struct wis_ctx *ctx, struct fpl_diag *diag)
{
	unsigned npairs = ctx->cfg->tcase == FPL_WIS_CONTEXT_SWITCH1 ? ctx->cfg->tasks : 0;

	for (unsigned i = 0; i < npairs; i++) {
		struct wis_pair *pp = &ctx->pairs[i];
		int err;

		if (pipe(pp->p1) == 0) {
			if (pipe(pp->p2) == 0)
				continue;
			err = errno;
			close(pp->p1[0]);
			close(pp->p1[1]);
		} else {
			err = errno;
		}
		close_fds(ctx, i);
		return fpl_diag_set(diag, -err, "pipe: %s", strerror(err));
	}
	return 0;
}

/* Where task i goes: will-it-scale's i % count over cores or PUs; NULL when unbound. */
static int place(hwloc_topology_t topo, enum fpl_wis_bind bind, unsigned i, cpu_set_t *set)
{
	hwloc_obj_type_t type = bind == FPL_WIS_BIND_PU ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
	int n = hwloc_get_nbobjs_by_type(topo, type);
	hwloc_obj_t obj;

	if (n <= 0)
		return -ENODEV;
	obj = hwloc_get_obj_by_type(topo, type, i % (unsigned)n);
	if (!obj || hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, set, sizeof(*set)))
		return -ENODEV;
	return 0;
}

static int start_tasks(struct wis_ctx *ctx, hwloc_topology_t topo, struct fpl_diag *diag)
{
	const struct fpl_wis_cfg *cfg = ctx->cfg;
	bool cs = cfg->tcase == FPL_WIS_CONTEXT_SWITCH1;
	cpu_set_t set;
	int err;

	for (unsigned i = 0; i < cfg->tasks; i++) {
		const cpu_set_t *where = NULL;

		if (cfg->bind != FPL_WIS_BIND_NONE) {
			if (place(topo, cfg->bind, i, &set))
				return fpl_diag_set(diag, -ENODEV, "no %s found: try %s -m",
						    cfg->bind == FPL_WIS_BIND_PU ? "PUs" : "cores",
						    cfg->bind == FPL_WIS_BIND_PU ? "without" : "with");
			where = &set;
		}
		ctx->args[i] = (struct wis_arg){ ctx, i };
		err = fpl_task_start(&ctx->tasks[ctx->ntasks], cfg->threads, where,
				     cs ? cs_initiator : sig_task, &ctx->args[i], diag);
		if (err)
			return err;
		ctx->ntasks++;
		if (!cs)
			continue;
		/* The echo task shares its initiator's place, as will-it-scale's child inherits it. */
		err = fpl_task_start(&ctx->tasks[ctx->ntasks], cfg->threads, where, cs_echo,
				     &ctx->args[i], diag);
		if (err)
			return err;
		ctx->ntasks++;
	}
	return 0;
}

static void end_tasks(struct wis_ctx *ctx)
{
	__atomic_store_n(&ctx->sh->quit, 1, __ATOMIC_RELAXED);
	/* A task still waiting for the start must see it to notice quit. */
	(void)!write(ctx->start[1], "", 1);
	for (unsigned i = 0; i < ctx->ntasks; i++) {
		if (ctx->cfg->threads)
			fpl_task_reap(&ctx->tasks[i], 2000);
		else
			fpl_task_kill(&ctx->tasks[i]);
	}
}

static int tick_loop(struct wis_ctx *ctx, fpl_wis_tick_fn tick, void *arg,
		     volatile sig_atomic_t *stop)
{
	unsigned n = ctx->cfg->tasks;
	unsigned long long *snap = calloc(n, sizeof(*snap));
	struct timespec next;
	int ret = 0;

	if (!snap)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (tick(arg, 0, NULL, n))
		goto out;
	for (unsigned seq = 1;; seq++) {
		next.tv_sec++;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			if (stop && *stop)
				break;
		if (stop && *stop) {
			ret = -EINTR;
			break;
		}
		for (unsigned i = 0; i < n; i++)
			snap[i] = *counter(ctx, i);
		if (tick(arg, seq, snap, n))
			break;
	}
out:
	free(snap);
	return ret;
}

int fpl_wis_run(const struct fpl_wis_cfg *cfg, fpl_wis_tick_fn tick, void *arg,
		volatile sig_atomic_t *stop, struct fpl_diag *diag)
{
	bool cs = cfg->tcase == FPL_WIS_CONTEXT_SWITCH1;
	struct wis_ctx ctx = { .cfg = cfg, .start = { -1, -1 } };
	struct sigaction old_usr1;
	hwloc_topology_t topo = NULL;
	bool usr1 = false;
	int err;

	if (!cfg->tasks || cfg->tasks > FPL_WIS_MAX_TASKS)
		return fpl_diag_set(diag, -EINVAL, "tasks must be 1..%d", FPL_WIS_MAX_TASKS);
	ctx.sh_size = sizeof(*ctx.sh) + (size_t)cfg->tasks * WIS_LINE;
	ctx.sh = fpl_shared_alloc(ctx.sh_size);
	ctx.pairs = calloc(cfg->tasks, sizeof(*ctx.pairs));
	ctx.tasks = calloc(2 * (size_t)cfg->tasks, sizeof(*ctx.tasks));
	ctx.args = calloc(cfg->tasks, sizeof(*ctx.args));
	if (!ctx.sh || !ctx.pairs || !ctx.tasks || !ctx.args) {
		err = fpl_diag_set(diag, -ENOMEM, "out of memory for %u tasks", cfg->tasks);
		goto out;
	}
	if (pipe(ctx.start)) {
		err = fpl_diag_set(diag, -errno, "pipe: %s", strerror(errno));
		goto out;
	}
	err = make_pipes(&ctx, diag);
	if (err)
		goto out_start;
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		err = fpl_diag_set(diag, -ENODEV, "hwloc_topology_load: %s", strerror(errno));
		goto out_pipes;
	}
	if (!cs && cfg->threads) {
		err = install_usr1(&old_usr1);
		if (err) {
			fpl_diag_set(diag, err, "sigaction: %s", strerror(-err));
			goto out_pipes;
		}
		usr1 = true;
	}
	err = start_tasks(&ctx, topo, diag);
	if (!err) {
		if (write(ctx.start[1], "", 1) != 1)
			err = fpl_diag_set(diag, -errno, "write: %s", strerror(errno));
		else
			err = tick_loop(&ctx, tick, arg, stop);
	}
	end_tasks(&ctx);
	if (usr1)
		sigaction(SIGUSR1, &old_usr1, NULL);
out_pipes:
	close_fds(&ctx, cs ? cfg->tasks : 0);
out_start:
	close(ctx.start[0]);
	close(ctx.start[1]);
out:
	if (topo)
		hwloc_topology_destroy(topo);
	free(ctx.args);
	free(ctx.tasks);
	free(ctx.pairs);
	fpl_shared_free(ctx.sh, ctx.sh_size);
	return err;
}
