// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab kvm's timed body: a guest state put in place, KVM_RUN round trips, the state read back. */
#include <string.h>

#include "fpulab/clock.h"
#include "kvmbench.h"

#define XSTATE_BV_OFFSET	512
#define MXCSR_OFFSET		24
#define XMM_OFFSET		160
#define XMM_BYTES		256

int fpl_kvm_arm_set(struct fpl_kvm_arm *a)
{
	/* The writes guest XRSTORs from guest memory: the same image, in place. */
	if (a->writes)
		memcpy(a->vm->mem + FPL_KVM_GPA_IMAGE, a->img,
		       a->xs->size_std_max < FPL_KVM_IMAGE_MAX ? a->xs->size_std_max :
		       FPL_KVM_IMAGE_MAX);
	return fpl_kvm_vm_set_xsave(a->vm, a->img);
}

uint64_t fpl_kvm_arm_timed(void *arg, uint64_t reps)
{
	struct fpl_kvm_arm *a = arg;
	uint64_t t0, t1, done = 0;
	int err;

	if (a->err)
		return 0;
	err = fpl_kvm_arm_set(a);
	if (err) {
		a->err = err;
		return 0;
	}
	/*
	 * The host task's own registers: the swap saves them on entry and
	 * restores them on exit, so their state is part of the cost. Init
	 * for every batch (glibc's string functions leave AVX-512 in use).
	 */
	if (a->host_init)
		fpl_xrstor64(a->host_init, a->host_rfbm);
	t0 = fpl_tsc_begin();
	while (done < reps) {
		err = fpl_kvm_vm_run(a->vm);
		if (!err) {
			done++;
			continue;
		}
		/*
		 * A signal cut it short (its handler has run): again, so that the
		 * sample stays whole; a stop request ends the run after this round.
		 */
		if (err == -EINTR) {
			a->interrupted++;
			continue;
		}
		a->err = err;
		break;
	}
	t1 = fpl_tsc_end();
	a->batches++;
	if (!a->err)
		fpl_kvm_arm_compare(a, NULL);
	return t1 - t0;
}

uint64_t fpl_kvm_state_differs(const struct fpl_xstate *xs, uint64_t want, const void *a,
			       const void *b)
{
	const uint8_t *pa = a, *pb = b;
	uint64_t bad = 0;

	if ((want & FPL_XFEATURE_MASK_SSE) &&
	    (memcmp(pa + XMM_OFFSET, pb + XMM_OFFSET, XMM_BYTES) ||
	     memcmp(pa + MXCSR_OFFSET, pb + MXCSR_OFFSET, 4)))
		bad |= FPL_XFEATURE_MASK_SSE;
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		int64_t off = fpl_xstate_offset_std(xs, i);

		if (!(want >> i & 1) || off < 0 || !xs->comp[i].size)
			continue;
		if (memcmp(pa + off, pb + off, xs->comp[i].size))
			bad |= 1ull << i;
	}
	return bad;
}

/* Components of mask whose data in img is not all zero (their init values, x87 aside). */
static uint64_t not_zero(const struct fpl_xstate *xs, uint64_t mask, const uint8_t *img)
{
	uint64_t bad = 0;

	for (unsigned i = 1; i < FPL_XFEATURE_MAX; i++) {
		int64_t off = i == FPL_XFEATURE_SSE ? XMM_OFFSET : fpl_xstate_offset_std(xs, i);
		size_t size = i == FPL_XFEATURE_SSE ? XMM_BYTES : xs->comp[i].size;

		if (!(mask >> i & 1) || off < 0)
			continue;
		for (size_t b = 0; b < size && !(bad >> i & 1); b++)
			if (img[off + (int64_t)b])
				bad |= 1ull << i;
	}
	return bad;
}

int fpl_kvm_arm_compare(struct fpl_kvm_arm *a, uint64_t *bv_out)
{
	uint64_t bv;
	int err = fpl_kvm_vm_get_xsave(a->vm, a->back);

	if (err) {
		a->get_failed++;
		return err;
	}
	memcpy(&bv, (const uint8_t *)a->back + XSTATE_BV_OFFSET, sizeof(bv));
	bv &= a->rfbm;
	if (bv_out)
		*bv_out = bv;
	if (!a->checks++)
		a->bv_and = bv;
	a->bv_and &= bv;
	a->bv_or |= bv;
	/*
	 * XINUSE, and so XSTATE_BV, may read 1 for a component in its init
	 * configuration (SDM vol. 1, 13.6; a Zen 4 guest shows YMM now and
	 * then after AVX-512): one outside the state is wrong only with data.
	 */
	if ((bv & a->mask) != a->mask ||
	    not_zero(a->xs, bv & ~a->mask & ~FPL_XFEATURE_MASK_FP, a->back) ||
	    fpl_kvm_state_differs(a->xs, a->mask, a->img, a->back)) {
		a->data_bad++;
		return 1;
	}
	return 0;
}
