// SPDX-License-Identifier: GPL-3.0-or-later
/* signal: a signal to the thread itself, empty handler; delivery and return timed; frame size. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fpulab/bench.h"
#include "fpulab/clock.h"
#include "fpulab/image.h"
#include "fpulab/sigframe.h"
#include "ktpass.h"
#include "livestate.h"
#include "runclock.h"
#include "abstate.h"
#include "signal_ab.h"
#include "tasks.h"

/* Defined at the end of this file; its default budgets are read before. */
extern const struct fpl_bench fpl_bench_signal;

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ	51
#endif
#define REDZONE			128
#define SAMPLE_SIGNALS		64	/* signals per sample: about 0.2 ms */

static const struct fpl_opt signal_opts[] = {
	{ "state", FPL_OPT_STR, "none", 0, 0, NULL,
	  "components made live before every signal: none, init, widest (the widest this CPU "
	  "has: avx512, else avx, else sse), or a mask (avx512, 0xe0)" },
	{ "altstack", FPL_OPT_INT, "0", 0, 1 << 30, NULL,
	  "run the handler on an alternate stack of this many bytes (0: the thread's stack); "
	  "at least the larger of AT_MINSIGSTKSZ and MINSIGSTKSZ (2048)" },
	{ "batch", FPL_OPT_INT, "64", 1, 1e6, NULL, "signals per sample" },
	{ "ab", FPL_OPT_STR, NULL, 0, 0, NULL,
	  "two states A,B (as --state, not none) in interleaved batches, A B then B A: their "
	  "difference per round with its interval; X,X is an A/A control" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

/* What the handler saw; written in the handler only. */
static struct {
	uint64_t t1;			/* TSC on entry */
	bool probe;			/* also look at the frame */
	bool on_altstack;
	uintptr_t alt_top;
	struct fpl_sigframe_info fi;
	unsigned cur;			/* the state of this batch (--ab: 0 A, 1 B) */
	uint64_t bv_and[2], bv_or[2];	/* XSTATE_BV in the frame, every signal, per state */
} hs;

/*
 * Runs in the handler, possibly on an alternate stack of exactly
 * AT_MINSIGSTKSZ bytes with a few hundred left below the frame: no library
 * calls (not even memcpy, which sanitizers intercept with deep stacks);
 * fpl_image_sw_live() reads the software bytes byte by byte.
 */
static void probe_frame(const ucontext_t *uc)
{
	const unsigned char *fp = (const unsigned char *)uc->uc_mcontext.fpregs;
	struct fpl_sigframe_info *fi = &hs.fi;
	struct fpl_image_sw sw;
	uintptr_t top, start;

	/* The kernel's rt_sigframe: the return address, then the ucontext. */
	start = (uintptr_t)uc - sizeof(void *);
	top = hs.on_altstack ? hs.alt_top : (uintptr_t)uc->uc_mcontext.gregs[REG_RSP] - REDZONE;
	fi->seen = true;
	fi->frame_bytes = top - start;
	fi->xsave = false;
	if (!fp)
		return;
	fi->fpstate_offset = (uintptr_t)fp - start;
	fpl_image_sw_live(fp, &sw);
	fi->magic1 = sw.magic1;
	fi->extended_size = sw.extended_size;
	fi->xfeatures = sw.xfeatures;
	fi->xstate_size = sw.xstate_size;
	fi->xsave = sw.magic1 == FPL_FP_XSTATE_MAGIC1;
	fi->magic2_ok = sw.magic2_found;
}

static void handler(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	const unsigned char *fp;
	uint64_t bv = 0;

	hs.t1 = fpl_tsc_begin();
	(void)sig;
	(void)si;
	fp = (const unsigned char *)uc->uc_mcontext.fpregs;
	if (fp && hs.fi.xsave)
		bv = *(const volatile uint64_t *)(fp + FPL_XSAVE_HDR_OFFSET);
	hs.bv_and[hs.cur] &= bv;
	hs.bv_or[hs.cur] |= bv;
	if (hs.probe)
		probe_frame(uc);
}

long fpl_signal_at_minsigstksz(void)
{
	long v = (long)getauxval(AT_MINSIGSTKSZ);

	if (v <= 0)
		v = sysconf(_SC_MINSIGSTKSZ);
	return v > 0 ? v : MINSIGSTKSZ;
}

long fpl_signal_altstack_floor(long at_minsigstksz)
{
	return at_minsigstksz > FPL_KERNEL_MINSIGSTKSZ ? at_minsigstksz : FPL_KERNEL_MINSIGSTKSZ;
}

long fpl_signal_min_altstack(void)
{
	return fpl_signal_altstack_floor(fpl_signal_at_minsigstksz());
}

int fpl_signal_check_altstack_at(long long size, long at_minsigstksz, struct fpl_diag *diag)
{
	long min = fpl_signal_altstack_floor(at_minsigstksz);

	if (size == 0 || size >= min)
		return 0;
	if (size >= at_minsigstksz)
		return fpl_diag_set(diag, -EINVAL, "--altstack %lld: smaller than %ld bytes, the "
				    "kernel's MINSIGSTKSZ: sigaltstack(2) refuses it (ENOMEM) although "
				    "one signal frame (AT_MINSIGSTKSZ, %ld bytes here) would fit",
				    size, min, at_minsigstksz);
	return fpl_diag_set(diag, -EINVAL, "--altstack %lld: smaller than %ld bytes, the smallest "
			    "alternate stack here (the larger of AT_MINSIGSTKSZ, %ld bytes, the "
			    "kernel's minimum for one signal frame, and MINSIGSTKSZ, %u, the least "
			    "sigaltstack(2) takes)", size, min, at_minsigstksz,
			    FPL_KERNEL_MINSIGSTKSZ);
}

int fpl_signal_check_altstack(long long size, struct fpl_diag *diag)
{
	return fpl_signal_check_altstack_at(size, fpl_signal_at_minsigstksz(), diag);
}

struct sigctx {
	struct fpl_live live;
	unsigned nstates;
	void *alt;		/* mapping: a guard page, then the stack */
	size_t alt_len;
	stack_t old_ss;
	struct sigaction old_sa;
	bool ss_set, sa_set;
	long pid, tid;
	uint64_t xin_and[2], xin_or[2], checks[2];
};

static int install(struct sigctx *s, long long altsize, struct fpl_run *run)
{
	long page = sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	stack_t ss;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | (altsize ? SA_ONSTACK : 0);
	if (altsize) {
		s->alt_len = page + ((altsize + page - 1) / page) * page;
		s->alt = mmap(NULL, s->alt_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->alt == MAP_FAILED) {
			s->alt = NULL;
			return fpl_run_warn(run, "mmap: %s", strerror(errno)), -ENOMEM;
		}
		/* A guard page under the stack: an overflow faults instead of corrupting. */
		mprotect(s->alt, page, PROT_NONE);
		ss.ss_sp = (char *)s->alt + s->alt_len - altsize;
		ss.ss_size = altsize;
		ss.ss_flags = 0;
		if (sigaltstack(&ss, &s->old_ss))
			return fpl_run_warn(run, "sigaltstack: %s", strerror(errno)), -errno;
		s->ss_set = true;
		hs.on_altstack = true;
		hs.alt_top = (uintptr_t)ss.ss_sp + ss.ss_size;
	}
	if (sigaction(SIGUSR1, &sa, &s->old_sa))
		return fpl_run_warn(run, "sigaction: %s", strerror(errno)), -errno;
	s->sa_set = true;
	return 0;
}

static void uninstall(struct sigctx *s)
{
	if (s->sa_set)
		sigaction(SIGUSR1, &s->old_sa, NULL);
	if (s->ss_set)
		sigaltstack(&s->old_ss, NULL);
	if (s->alt)
		munmap(s->alt, s->alt_len);
	hs.on_altstack = false;
}

struct sig_sample {
	double deliver, ret, total;	/* TSC ticks per signal */
};

/* n signals in state st: raw tgkill right after the XRSTOR, nothing in between but the TSC read. */
static void sig_batch(struct sigctx *s, unsigned st, unsigned long n, struct sig_sample *out)
{
	uint64_t d = 0, r = 0;

	hs.cur = st;
	for (unsigned long i = 0; i < n; i++) {
		uint64_t t0, t2;

		if (s->nstates)
			fpl_live_set(&s->live, st);
		t0 = fpl_tsc_begin();
		fpl_sys3(SYS_tgkill, s->pid, s->tid, SIGUSR1);
		t2 = fpl_tsc_end();
		d += hs.t1 - t0;
		r += t2 - hs.t1;
		/* Keep the sums in general registers: a vectorised sum would make SSE live. */
		__asm__("" : "+r"(d), "+r"(r));
	}
	if (s->nstates && s->live.xinuse) {
		uint64_t x = fpl_xgetbv(1);

		s->xin_and[st] &= x;
		s->xin_or[st] |= x;
		s->checks[st]++;
	}
	/* Nothing computed with vector registers before the XINUSE read above. */
	__asm__ volatile("" : "+r"(d), "+r"(r));
	out->deliver = (double)d / n;
	out->ret = (double)r / n;
	out->total = (double)(d + r) / n;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void param_frame(struct fpl_run *run, const struct fpl_sigframe_info *fi, long min)
{
	char buf[32];

	fpl_run_obs_int(run, "at_minsigstksz", min);
	fpl_run_obs_int(run, "altstack_min", fpl_signal_altstack_floor(min));
	if (!fi->seen) {
		fpl_run_warn(run, "the probe signal did not reach the handler");
		return;
	}
	fpl_run_obs_int(run, "frame_bytes", (long long)fi->frame_bytes);
	fpl_run_obs_int(run, "frame_fpstate_offset", (long long)fi->fpstate_offset);
	fpl_run_obs_bool(run, "frame_xsave", fi->xsave);
	if (!fi->xsave)
		return;
	fpl_run_obs_int(run, "frame_xstate_size", fi->xstate_size);
	fpl_run_obs_int(run, "frame_extended_size", fi->extended_size);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, fi->xfeatures);
	fpl_run_obs_str(run, "frame_xfeatures", buf);
	fpl_run_obs_bool(run, "frame_magic2_ok", fi->magic2_ok);
	if (fi->frame_bytes > (uint64_t)min)
		fpl_run_warn(run, "signal frame %" PRIu64 " bytes exceeds AT_MINSIGSTKSZ %ld",
			     fi->frame_bytes, min);
}

/* What was wrong, in values and in words: components missing from the frame or extra in it. */
static void verify_warn(struct fpl_run *run, const struct sigctx *s, unsigned st, uint64_t mask,
			uint64_t others)
{
	uint64_t claimed = mask & ~FPL_XFEATURE_MASK_FPSSE, xa = s->xin_and[st];
	char names[160], w1[400], w2[400], xin[480] = "";

	if (s->live.xinuse && s->checks[st] && ((mask & ~xa) || (xa & others)))
		snprintf(xin, sizeof(xin), "; XINUSE after sigreturn and 0x%" PRIx64 ", or 0x%"
			 PRIx64 "%s", xa, s->xin_or[st],
			 fpl_live_diff_words(mask & ~xa, xa & others, w2, sizeof(w2)));
	fpl_run_warn(run, "state 0x%" PRIx64 " (%s) not seen live in every signal frame: "
		     "XSTATE_BV and 0x%" PRIx64 ", or 0x%" PRIx64 "%s%s",
		     mask, fpl_xfeature_mask_names(mask, names, sizeof(names)), hs.bv_and[st],
		     hs.bv_or[st], fpl_live_diff_words(claimed & ~hs.bv_and[st],
						       hs.bv_and[st] & others, w1, sizeof(w1)),
		     xin);
}

/*
 * The frame's XSTATE_BV (every signal) and XINUSE after sigreturn (every
 * sample) of state st; key suffix sfx ("" or an A/B run's "_a", "_b").
 */
static bool verify_one(struct fpl_run *run, const struct sigctx *s, unsigned st, uint64_t mask,
		       const char *sfx)
{
	uint64_t others = s->live.rfbm & ~mask & ~FPL_XFEATURE_MASK_FPSSE;
	uint64_t ba = hs.bv_and[st], xa = s->xin_and[st];
	char buf[96], key[48];
	bool ok;

	snprintf(buf, sizeof(buf), "and 0x%" PRIx64 " or 0x%" PRIx64, ba, hs.bv_or[st]);
	snprintf(key, sizeof(key), "frame_xstate_bv%s", sfx);
	fpl_run_obs_str(run, key, buf);
	snprintf(key, sizeof(key), "frame_extra_in_use%s", sfx);
	fpl_live_obs_extra(run, key, ba, hs.bv_or[st], others);
	/* The kernel sets FP and SSE in every frame: only the other components tell. */
	ok = (ba & mask & ~FPL_XFEATURE_MASK_FPSSE) == (mask & ~FPL_XFEATURE_MASK_FPSSE) &&
	     fpl_live_extra_ok(ba, others);
	if (s->live.xinuse && s->checks[st]) {
		snprintf(buf, sizeof(buf), "and 0x%" PRIx64 " or 0x%" PRIx64 " n=%" PRIu64,
			 xa, s->xin_or[st], s->checks[st]);
		snprintf(key, sizeof(key), "xinuse_after_return%s", sfx);
		fpl_run_obs_str(run, key, buf);
		snprintf(key, sizeof(key), "xinuse_extra_in_use%s", sfx);
		fpl_live_obs_extra(run, key, xa, s->xin_or[st], others);
		ok = ok && (xa & mask) == mask && fpl_live_extra_ok(xa, others);
	}
	if (!ok)
		verify_warn(run, s, st, mask, others);
	return ok;
}

static void verify(struct fpl_run *run, const struct sigctx *s, const uint64_t *mask)
{
	bool ok = true;

	if (!s->nstates)
		return;
	for (unsigned st = 0; st < s->nstates; st++)
		ok &= verify_one(run, s, st, mask[st], s->nstates > 1 ? (st ? "_b" : "_a") : "");
	fpl_run_obs_str(run, "state_verified", ok ? "yes" : "NO");
}

struct sig_metrics {
	struct fpl_metric *total, *deliver, *ret;
};

/* One state's three metrics; sfx "" or an A/B run's "_a", "_b". */
static int make_metrics(struct fpl_run *run, struct sig_metrics *m, unsigned long n, bool alt,
			const char *sfx)
{
	const struct fpl_metric_how how = { .reps = (long long)n, .clock = FPL_MCLOCK_TSC,
					    .overhead = FPL_OVERHEAD_NONE, .conv = FPL_CONV_NONE };
	char meth[400], name[32];
	const char *stack = alt ? "alternate stack" : "own stack";

	snprintf(meth, sizeof(meth), "tgkill(SIGUSR1) to this thread, empty SA_SIGINFO handler on "
		 "its %s, %lu signals per sample", stack, n);
	snprintf(name, sizeof(name), "round_trip%s", sfx);
	m->total = fpl_run_add_metric(run, name, "tsc", NULL);
	if (!m->total || fpl_metric_set_method(m->total, meth, NULL, "TSC ticks per signal, "
					       "lfence;rdtsc before the system call, "
					       "lfence;rdtsc;lfence after its return"))
		return -ENOMEM;
	snprintf(meth, sizeof(meth), "from before tgkill to the handler's first instruction "
		 "(lfence;rdtsc), %lu signals per sample, %s", n, stack);
	snprintf(name, sizeof(name), "delivery%s", sfx);
	m->deliver = fpl_run_add_metric(run, name, "tsc", meth);
	snprintf(meth, sizeof(meth), "from the handler's first instruction through sigreturn "
		 "to after tgkill returns, %lu signals per sample, %s", n, stack);
	snprintf(name, sizeof(name), "return%s", sfx);
	m->ret = fpl_run_add_metric(run, name, "tsc", meth);
	if (!m->deliver || !m->ret)
		return -ENOMEM;
	fpl_metric_set_how(m->total, &how);
	fpl_metric_set_how(m->deliver, &how);
	fpl_metric_set_how(m->ret, &how);
	return 0;
}

/*
 * Every TSC metric from index first on in ns and core cycles too
 * (NAME_ns, NAME_cycles), from the same samples: at the TSC rate measured
 * over the run, and the run's core/TSC figure.
 */
static int other_units(const struct fpl_bench_env *env, struct fpl_run *run, size_t first,
		       const struct fpl_runclock *rc, double ns_per_tick)
{
	size_t n = run->nmetrics;
	char name[48], cyc[512];

	fpl_runclock_cycles_text(env->clock, rc, "", cyc, sizeof(cyc));
	for (size_t i = first; i < n; i++) {
		if (strcmp(run->metrics[i]->unit, "tsc"))
			continue;
		snprintf(name, sizeof(name), "%s_ns", run->metrics[i]->name);
		if (!fpl_metric_scaled(run, run->metrics[i], name, "ns", ns_per_tick, "ns from TSC "
				       "ticks at the TSC rate measured over this run against "
				       "CLOCK_MONOTONIC_RAW (observed tsc_hz_measured)",
				       FPL_CONV_NS_FROM_TSC))
			return -ENOMEM;
	}
	for (size_t i = first; i < n; i++) {
		if (strcmp(run->metrics[i]->unit, "tsc"))
			continue;
		snprintf(name, sizeof(name), "%s_cycles", run->metrics[i]->name);
		if (!fpl_metric_scaled(run, run->metrics[i], name, "cycles", rc->ratio, cyc,
				       fpl_runclock_cycles_conv(env->clock)))
			return -ENOMEM;
	}
	return 0;
}

/* One round: a batch per state, in A B, B A order so that a linear drift hits both alike. */
static int round_of(struct sigctx *s, struct sig_metrics *m, unsigned nst, unsigned long round,
		    unsigned long n)
{
	struct sig_sample smp;

	for (unsigned k = 0; k < nst; k++) {
		unsigned st = round & 1 ? nst - 1 - k : k;

		sig_batch(s, st, n, &smp);
		if (fpl_metric_add(m[st].total, smp.total) ||
		    fpl_metric_add(m[st].deliver, smp.deliver) || fpl_metric_add(m[st].ret, smp.ret))
			return -ENOMEM;
	}
	return 0;
}

static int measure(const struct fpl_bench_env *env, struct sigctx *s, struct fpl_run *run,
		   struct sig_metrics *m, unsigned long n, double budget_s, bool aa)
{
	unsigned nst = s->nstates > 1 ? 2 : 1;
	struct fpl_runclock rc;
	double t0, end, t1;
	uint64_t c0, c1;
	int err = 0, e2;

	fpl_runclock_begin(env->clock, &rc);
	t0 = now_ns();
	end = t0 + budget_s * 1e9;
	c0 = fpl_tsc_begin();
	for (unsigned long i = 0;; i++) {
		if (fpl_bench_stopped(env)) {
			err = -EINTR;
			fpl_run_warn(run, "interrupted after %.2f s: samples so far kept",
				     (now_ns() - t0) / 1e9);
			break;
		}
		if (i >= 3 && now_ns() >= end)
			break;
		if (round_of(s, m, nst, i, n))
			return -ENOMEM;
		if (!(i & 255))
			fpl_bench_progress(env, (now_ns() - t0) / (end - t0), "signals");
	}
	c1 = fpl_tsc_end();
	t1 = now_ns();
	/* TSC rate over the whole run against CLOCK_MONOTONIC_RAW, for the ns figures. */
	fpl_run_obs_real(run, "tsc_hz_measured", (double)(c1 - c0) * 1e9 / (t1 - t0));
	e2 = fpl_runclock_end(env->clock, &rc, run);
	if (!e2 && nst > 1)
		e2 = fpl_signal_ab_record(run, m[0].total, m[1].total, aa);
	if (!e2)
		e2 = other_units(env, run, 0, &rc, (t1 - t0) / (double)(c1 - c0));
	return e2 ? e2 : err;
}

#define KT_SIGNALS	1000	/* the traced batch */

/*
 * --kernel-trace: one more batch, bracketed by markers. What the kernel
 * should show for it (per signal: no save, no restore, two activations
 * without a load) is model/kexpect.c's, for op "signal".
 */
static int signal_trace(const struct fpl_bench_env *env, struct sigctx *s, struct fpl_run *run)
{
	struct fpl_ktpass p;
	struct sig_sample smp;

	if (!fpl_ktpass_begin(env, &p, run, "signal"))
		return 0;
	sig_batch(s, 0, KT_SIGNALS, &smp);
	return fpl_ktpass_end(env, &p, run, "batch", KT_SIGNALS, "signal", NULL);
}

/*
 * What .check parses of the options: --state as a mask (none: no state
 * set), or why this CPU cannot have it (err -ENOTSUP: the run skips).
 */
struct signal_cfg {
	struct fpl_ab_states st;	/* --state or --ab, "widest" resolved */
	int err;
	char why[sizeof(((struct fpl_diag *)0)->msg)];
	char note[sizeof(((struct fpl_diag *)0)->msg)];	/* what "widest" is here, or "" */
};

static int parse_state(const struct fpl_bench_env *env, struct signal_cfg *c,
		       struct fpl_diag *diag)
{
	const char *st = fpl_bench_opt(env, "state"), *ab = fpl_bench_opt(env, "ab");
	struct fpl_xstate xs;
	int err = fpl_xstate_init(&xs, env->cpu);

	if (err)
		return err;
	if (fpl_xstate_names_widest(ab ? ab : st))
		fpl_xstate_widest_note(fpl_xstate_xcr0(&xs), "XCR0", c->note, sizeof(c->note));
	return fpl_ab_states_parse(&xs, st, ab, &c->st, diag);
}

static int prepare(const struct fpl_bench_env *env, struct sigctx *s, struct fpl_run *run,
		   struct signal_cfg *c)
{
	struct fpl_diag diag = { "" };
	int err;

	if (env->cfg) {
		*c = *(const struct signal_cfg *)env->cfg;	/* parsed once, by .check */
		err = c->err;
		snprintf(diag.msg, sizeof(diag.msg), "%s", c->why);
	} else {
		err = parse_state(env, c, &diag);
	}
	if (c->st.ab) {
		fpl_run_param_str(run, "state_a", c->st.name[0]);
		fpl_run_param_str(run, "state_b", c->st.name[1]);
	} else {
		fpl_run_param_str(run, "state", c->st.name[0][0] ? c->st.name[0] :
				  fpl_bench_opt(env, "state"));
	}
	if (!err && !c->st.none) {
		s->nstates = c->st.n;
		err = fpl_live_init(&s->live, env->cpu, c->st.mask, c->st.n, &diag);
	}
	if (err == -ENOTSUP)
		fpl_run_skip(run, "%s", diag.msg);
	else if (err)
		fpl_run_warn(run, "%s", diag.msg);
	return err;
}

/* Before anything runs: an --altstack or a --state no CPU accepts is a usage error now. */
static int signal_check(const struct fpl_bench_env *env, void *cfg, struct fpl_diag *diag)
{
	struct signal_cfg *c = cfg;
	int err;

	/* A too small alternate stack is bad input: said before anything runs. */
	err = fpl_signal_check_altstack(fpl_bench_opt_int(env, "altstack", 0), diag);
	if (err)
		return err;
	/* A state this CPU lacks: refused now (exit 77), before the clock is calibrated. */
	err = parse_state(env, c, diag);
	if (err)
		return err;
	snprintf(diag->msg, sizeof(diag->msg), "%s", c->note);
	return 0;
}

static int signal_run(const struct fpl_bench_env *env, struct fpl_result *res)
{
	struct fpl_run *run = fpl_result_add_run(res, "signal");
	long long altsize = fpl_bench_opt_int(env, "altstack", 0);
	unsigned long n = (unsigned long)fpl_bench_opt_int(env, "batch", SAMPLE_SIGNALS);
	double budget = fpl_bench_budget(&fpl_bench_signal, env, fpl_bench_opt(env, "ab") != NULL);
	struct fpl_diag diag = { "" };
	struct signal_cfg c = { 0 };
	struct sig_metrics m[2];
	struct sigctx s;
	struct sig_sample smp;
	int err;

	if (!run)
		return -ENOMEM;
	memset(&s, 0, sizeof(s));
	err = prepare(env, &s, run, &c);
	if (err)
		goto out;
	fpl_run_param_int(run, "altstack", altsize);
	fpl_run_param_int(run, "batch", (long long)n);
	/* .check refused it before anything ran; a caller without .check hears it here */
	err = fpl_signal_check_altstack(altsize, env->diag ? env->diag : &diag);
	if (err) {
		if (!env->diag)
			fpl_run_warn(run, "%s", diag.msg);
		goto out;
	}
	s.pid = getpid();
	s.tid = syscall(SYS_gettid);
	s.xin_and[0] = s.xin_and[1] = ~0ull;
	err = install(&s, altsize, run);
	if (err)
		goto out;
	/* One probe signal reads the frame; then a short warm-up. */
	hs.probe = true;
	sig_batch(&s, 0, 1, &smp);
	hs.probe = false;
	param_frame(run, &hs.fi, fpl_signal_at_minsigstksz());
	for (double end = now_ns() + 0.05e9; now_ns() < end;)
		for (unsigned st = 0; st < (s.nstates > 1 ? 2u : 1u); st++)
			sig_batch(&s, st, n, &smp);
	for (unsigned st = 0; st < 2; st++) {
		hs.bv_and[st] = s.xin_and[st] = ~0ull;
		hs.bv_or[st] = s.xin_or[st] = s.checks[st] = 0;
	}
	err = make_metrics(run, &m[0], n, altsize > 0, c.st.ab ? "_a" : "");
	if (!err && c.st.ab)
		err = make_metrics(run, &m[1], n, altsize > 0, "_b");
	if (!err)
		err = measure(env, &s, run, m, n, budget, c.st.aa);
	if (!err)
		err = signal_trace(env, &s, run);
	if (!err || err == -EINTR)
		verify(run, &s, c.st.mask);
out:
	uninstall(&s);
	fpl_live_free(&s.live);
	return err == -ENOTSUP && run->skipped ? 0 : err;
}

const struct fpl_bench fpl_bench_signal = {
	.name = "signal",
	.budget = { 2, 0.5 },
	.budget_ab = { 6, 2 },
	.summary = "signal to self with an empty handler: delivery, return, frame size, live state",
	.opts = signal_opts,
	.cfg_size = sizeof(struct signal_cfg),
	.check = signal_check,
	.run = signal_run,
};
