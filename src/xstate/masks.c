// SPDX-License-Identifier: GPL-3.0-or-later
/* The three component masks: XCR0, permitted (ARCH_GET_XCOMP_PERM), active (XFD-armed left out). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "fpulab/image.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"

/* A signal default-ignored and unused by fpulab's benchmarks. */
#define PROBE_SIGNAL SIGURG

uint64_t fpl_xstate_xcr0(const struct fpl_xstate *xs)
{
	return xs->xsave ? xs->xcr0 : FPL_XFEATURE_MASK_FPSSE;
}

uint64_t fpl_xstate_xfd_mask(const struct fpl_xstate *xs)
{
	uint64_t m = 0;

	if (!xs->xsave)
		return 0;
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++)
		if ((xs->xcr0 >> i & 1) && xs->comp[i].xfd)
			m |= 1ull << i;
	return m;
}

uint64_t fpl_xstate_default_perm(const struct fpl_xstate *xs)
{
	return fpl_xstate_xcr0(xs) & ~fpl_xstate_xfd_mask(xs);
}

static int get_perm(const struct fpl_xstate *xs, uint64_t *perm)
{
	uint64_t v = 0;
	int err;

	*perm = fpl_xstate_default_perm(xs);
	if (!xs->live && xs->perm_known) {
		*perm = (xs->perm & fpl_xstate_xcr0(xs)) | fpl_xstate_default_perm(xs);
		return 0;
	}
	if (!xs->live)
		return -ENODATA;
	err = fpl_arch_get_xcomp_perm(&v);
	if (err)
		return err;
	/* The kernel's user features; the default set is always permitted. */
	*perm = (v & fpl_xstate_xcr0(xs)) | fpl_xstate_default_perm(xs);
	return 0;
}

uint64_t fpl_xstate_permitted(const struct fpl_xstate *xs)
{
	uint64_t perm;

	/* Nothing XFD can arm: the kernel permits all of XCR0 (no syscall needed). */
	if (!fpl_xstate_xfd_mask(xs))
		return fpl_xstate_xcr0(xs);
	get_perm(xs, &perm);
	return perm;
}

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local volatile sig_atomic_t probe_seen;
static _Thread_local volatile uint64_t probe_xfeatures;
static _Thread_local volatile uint32_t probe_size;

static void probe_handler(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	struct fpl_image_sw sw;

	(void)sig;
	(void)si;
	if (!uc->uc_mcontext.fpregs)
		return;
	fpl_image_sw_live(uc->uc_mcontext.fpregs, &sw);
	probe_seen = sw.magic1 == FPL_FP_XSTATE_MAGIC1 ? 1 : 2;
	probe_xfeatures = sw.xfeatures;
	probe_size = sw.xstate_size;
}

int fpl_xstate_sigframe_probe(uint64_t *xfeatures, uint32_t *xstate_size)
{
	struct sigaction sa, old;
	sigset_t unblock, oldmask;
	int err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = probe_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&unblock);
	sigaddset(&unblock, PROBE_SIGNAL);
	pthread_mutex_lock(&probe_lock);
	probe_seen = 0;
	if (sigaction(PROBE_SIGNAL, &sa, &old)) {
		err = -errno;
		pthread_mutex_unlock(&probe_lock);
		return err;
	}
	pthread_sigmask(SIG_UNBLOCK, &unblock, &oldmask);
	/* Delivered to this thread before tgkill returns: it is unblocked here. */
	if (syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), PROBE_SIGNAL))
		err = -errno;
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(PROBE_SIGNAL, &old, NULL);
	pthread_mutex_unlock(&probe_lock);
	if (err)
		return err;
	if (probe_seen != 1)
		return -ENODATA;
	if (xfeatures)
		*xfeatures = probe_xfeatures;
	if (xstate_size)
		*xstate_size = probe_size;
	return 0;
}

static uint64_t active(const struct fpl_xstate *xs, uint64_t perm, struct fpl_xstate_masks *m)
{
	uint64_t armable = perm & fpl_xstate_xfd_mask(xs), xf = 0;
	uint32_t size = 0;

	if (!xs->live) {
		m->active_from = "a dump: as permitted";
		return perm;
	}
	if (!armable) {
		m->active_from = "permitted";
		return perm;
	}
	/* With XFD armed XGETBV(1) reads the component as 0: 1 means used, disarmed. */
	if (xs->xgetbv1 && (fpl_xgetbv(1) & armable) == armable) {
		m->active_from = "XINUSE";
		return perm;
	}
	if (fpl_xstate_sigframe_probe(&xf, &size)) {
		/* No frame to read: assume the kernel's default, the smaller set. */
		m->active_from = "default (no signal frame)";
		return perm & ~armable;
	}
	m->active_from = "signal frame";
	m->frame_xfeatures = xf;
	m->frame_xstate_size = size;
	return perm & (xf | ~armable);
}

uint64_t fpl_xstate_active(const struct fpl_xstate *xs)
{
	struct fpl_xstate_masks m;

	memset(&m, 0, sizeof(m));
	return active(xs, fpl_xstate_permitted(xs), &m);
}

int fpl_xstate_masks(const struct fpl_xstate *xs, struct fpl_xstate_masks *m)
{
	memset(m, 0, sizeof(*m));
	m->xcr0 = fpl_xstate_xcr0(xs);
	m->perm_err = get_perm(xs, &m->permitted);
	m->permitted_from = !m->perm_err ? (xs->live ? "ARCH_GET_XCOMP_PERM"
					    : "a dump: as given with its XCR0")
			    : !xs->live	 ? "a dump: XCR0 minus XFD, the default before permission"
					 : "XCR0 minus XFD: ARCH_GET_XCOMP_PERM failed";
	m->active = active(xs, m->permitted, m);
	return 0;
}
