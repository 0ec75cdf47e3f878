// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab xsave: instructions around the XSAVE family (MXCSR, FNINIT, VZEROUPPER, XGETBV), back-to-back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct misc_cell {
	enum fpl_xs_misc m;
	void *buf;
};

static uint64_t misc_timed(void *arg, uint64_t reps)
{
	struct misc_cell *c = arg;

	return fpl_xs_misc_loop(c->m, c->buf, reps);
}

static uint64_t dirty_only(void *arg, uint64_t reps)
{
	struct misc_cell *c = arg;

	return fpl_xs_dirty_ymm(c->buf, reps);
}

static const struct {
	enum fpl_xs_misc m;
	const char *insn, *pattern;
	double ops;
	bool avx, xgetbv1, empty_dirty;
	const char *method;
} misc[] = {
	{ XS_LDMXCSR_SAME, "ldmxcsr", "same value", 1, false, false, false,
	  "throughput: back-to-back LDMXCSR of 0x1f80 (the value already in MXCSR) from one location" },
	{ XS_LDMXCSR_ALT, "ldmxcsr", "alternating", 2, false, false, false,
	  "throughput: LDMXCSR alternating 0x9f80 (FTZ) and 0x1f80 from two locations; per LDMXCSR" },
	{ XS_STMXCSR, "stmxcsr", "to one location", 1, false, false, false,
	  "throughput: back-to-back STMXCSR to one location" },
	{ XS_STLDMXCSR, "stmxcsr+ldmxcsr", "load what was just stored", 1, false, false, false,
	  "throughput: STMXCSR then LDMXCSR from the same location (store forwarding); per pair" },
	{ XS_FNINIT, "fninit", "", 1, false, false, false, "throughput: back-to-back FNINIT" },
	{ XS_XGETBV0, "xgetbv0", "", 1, false, false, false,
	  "throughput: back-to-back XGETBV with ECX=0 (XCR0), ECX set each time" },
	{ XS_XGETBV1, "xgetbv1", "", 1, false, true, false,
	  "throughput: back-to-back XGETBV with ECX=1 (XINUSE), ECX set each time" },
	{ XS_VZEROUPPER, "vzeroupper", "upper state clean", 1, true, false, false,
	  "throughput: back-to-back VZEROUPPER (after the first, nothing to clear)" },
	{ XS_VZEROALL, "vzeroall", "", 1, true, false, false, "throughput: back-to-back VZEROALL" },
	{ XS_VZEROUPPER_DIRTY, "vzeroupper", "upper state dirty", 1, true, false, true,
	  "latency: VPCMPEQD ymm0 (all ones, not a zero idiom) then VZEROUPPER, minus the VPCMPEQD "
	  "alone" },
};

int fpl_xs_misc(struct fpl_xs_bench *x, double share_end)
{
	size_t n = FPL_ARRAY_SIZE(misc), k = 0;
	struct misc_cell *cells = calloc(n, sizeof(*cells));
	struct fpl_variant *v = calloc(n, sizeof(*v));
	struct fpl_harness_cfg cfg;
	uint32_t *buf = fpl_xs_alloc(x);
	int err = 0;

	if (!cells || !v || !buf) {
		err = -ENOMEM;
		goto out;
	}
	buf[0] = 0x1f80;
	buf[1] = 0x9f80;
	for (size_t i = 0; i < n; i++) {
		struct fpl_run *run = fpl_result_add_run(x->result, "xsave");

		if (!run || fpl_run_param_str(run, "insn", misc[i].insn) ||
		    fpl_run_param_str(run, "pattern", misc[i].pattern) ||
		    fpl_run_param_str(run, "method", misc[i].empty_dirty ? "latency" : "throughput")) {
			err = -ENOMEM;
			goto out;
		}
		if (misc[i].avx && !x->avx) {
			fpl_run_skip(run, "no AVX (CPUID bit or XCR0)");
			continue;
		}
		/* XGETBV raises #UD unless the OS set CR4.OSXSAVE (qemu64, Westmere) */
		if (misc[i].m == XS_XGETBV0 && !x->xs.xsave) {
			fpl_run_skip(run, "no XGETBV: XSAVE not enabled by the OS (CPUID.1:ECX.OSXSAVE)");
			continue;
		}
		if (misc[i].xgetbv1 && !x->xgetbv1) {
			fpl_run_skip(run, "no XGETBV with ECX=1 on this CPU");
			continue;
		}
		cells[k] = (struct misc_cell){ misc[i].m, buf };
		v[k] = (struct fpl_variant){ .name = misc[i].insn, .timed = misc_timed,
					     .empty = misc[i].empty_dirty ? dirty_only : NULL,
					     .arg = &cells[k], .ops_per_rep = misc[i].ops, .run = run,
					     .method = misc[i].method };
		k++;
	}
	fpl_harness_defaults(x->env, &cfg);
	cfg.drop_disturbed = true;	/* cells are not paired by round */
	cfg.warn_to = x->result;	/* about the group, not its first cell */
	cfg.budget_s = fpl_xs_left(x, share_end);
	cfg.warmup_s = cfg.budget_s * 0.05;
	cfg.hard_s = cfg.budget_s * 2;
	cfg.max_samples = x->max_samples;
	err = fpl_harness_run(x->env, &cfg, v, k);
out:
	free(cells);
	free(v);
	return err;
}
