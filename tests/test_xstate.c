// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/xstate on the running CPU: layout against CPUID, save/restore round trips, init state, XINUSE. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/amx.h"
#include "fpulab/xstate.h"

/*
 * The components these tests load and save: what this process may use
 * (fpl_xstate_permitted()), re-read by live_get(). Without AMX permission
 * that is XCR0 without TILEDATA; test_amx_permitted asks for it last and
 * runs the register tests again with tiles.
 */
static uint64_t perm;

struct live {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
};

static struct live *live_get(void)
{
	struct live *l = malloc(sizeof(*l));

	assert_non_null(l);
	assert_int_equal(fpl_cpu_read(&l->cpu), 0);
	assert_int_equal(fpl_xstate_init(&l->xs, &l->cpu), 0);
	perm = fpl_xstate_permitted(&l->xs);
	return l;
}

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- layout on the running CPU ---- */

static void test_live_layout_matches_cpuid(void **state)
{
	struct live *l = live_get();
	struct fpl_xstate *xs = &l->xs;
	uint32_t r[4];

	if (!xs->xsave) {
		assert_int_equal(fpl_xstate_size_std(xs, xs->xcr0), 512);
		free(l);
		skip();
	}
	fpl_cpuid_raw(0xd, 0, r);
	assert_int_equal(xs->xcr0, fpl_xgetbv(0));
	assert_int_equal(fpl_xstate_size_std(xs, xs->xcr0), r[1]);
	assert_int_equal(fpl_xstate_size_std(xs, xs->user), r[2]);
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		if (!(xs->user >> i & 1))
			continue;
		fpl_cpuid_raw(0xd, i, r);
		assert_int_equal(fpl_xstate_offset_std(xs, i), r[1]);
		assert_int_equal(xs->comp[i].size, r[0]);
	}
	/* 0xD.1 EBX covers XCR0 | IA32_XSS; with no supervisor component it is XCR0 alone. */
	fpl_cpuid_raw(0xd, 1, r);
	if (!xs->supervisor && fpl_cpu_has(&l->cpu, FPL_FEAT_XSAVEC))
		assert_int_equal(fpl_xstate_size_compacted(xs, xs->xcr0), r[1]);
	free(l);
}

/* ---- round trips ---- */

/* Bytes of a component that hold state; the rest of its CPUID size is padding. */
static uint32_t arch_size(const struct fpl_xstate *xs, unsigned id)
{
	if (id == FPL_XFEATURE_BNDCSR)
		return 16;	/* BNDCFGU, BNDSTATUS */
	if (id == FPL_XFEATURE_PKRU)
		return 4;
	return xs->comp[id].size;
}

/* Where a component's bytes are in an image written by insn; -1 when not there. */
static int64_t comp_offset(const struct fpl_xstate *xs, enum fpl_save_insn insn, uint64_t rfbm,
			   unsigned id)
{
	if (insn == FPL_INSN_FXSAVE)
		return id < 2 ? (int64_t)xs->comp[id].offset : -1;
	if (insn == FPL_INSN_XSAVEC)
		return fpl_xstate_offset_compacted(xs, rfbm, id);
	return fpl_xstate_offset_std(xs, id);
}

/*
 * Compare the architectural bytes of one component. x87: FCW, FSW, abridged
 * FTW and the 10 bytes of each data register (FOP/FIP/FDP are saved by AMD
 * only when an exception is pending). SSE: MXCSR (not MXCSR_MASK) and XMM0-15.
 */
static void assert_comp_equal(const struct fpl_xstate *xs, unsigned id, const uint8_t *a,
			      int64_t off_a, const uint8_t *b, int64_t off_b, const char *what)
{
	if (id == FPL_XFEATURE_FP) {
		if (memcmp(a, b, 5))
			fail_msg("%s: x87 control/status/tag differ", what);
		for (unsigned i = 0; i < 8; i++)
			if (memcmp(a + 32 + 16 * i, b + 32 + 16 * i, 10))
				fail_msg("%s: x87 ST%u differs", what, i);
	} else if (id == FPL_XFEATURE_SSE) {
		if (memcmp(a + 24, b + 24, 4) || memcmp(a + 160, b + 160, 256))
			fail_msg("%s: MXCSR or XMM0-15 differ", what);
	} else if (memcmp(a + off_a, b + off_b, arch_size(xs, id))) {
		fail_msg("%s: %s differs", what, fpl_xfeature_name(id));
	}
}

static void roundtrip_one(const struct fpl_xstate *xs, enum fpl_save_insn insn, unsigned id,
			  uint8_t *pat, uint8_t *a, uint8_t *b, size_t size)
{
	uint64_t rfbm = perm, m = 1ull << id;
	int64_t off = comp_offset(xs, insn, rfbm, id);
	char what[64];
	int e1, e2;

	snprintf(what, sizeof(what), "%s %s", fpl_save_insn_name(insn), fpl_xfeature_name(id));
	memset(pat, 0, xs->size_std_max);
	fpl_xstate_pattern(xs, m, 0x1234 + id, pat);
	memset(a, 0, size);
	memset(b, 0, size);

	/*
	 * No libc or cmocka call between setting registers and saving them
	 * (glibc uses AVX-512): results are checked afterwards.
	 */
	e1 = fpl_regs_set(xs, m, 0x1234 + id);
	fpl_xstate_save(insn, a, rfbm);
	e2 = fpl_regs_set(xs, m, 0xdead0000 + id);
	fpl_xstate_restore(insn, a, rfbm);
	fpl_xstate_save(insn, b, rfbm);
	assert_int_equal(e1, 0);
	assert_int_equal(e2, 0);

	assert_true(off >= 0);
	assert_comp_equal(xs, id, pat, fpl_xstate_offset_std(xs, id), a, off, what);
	assert_comp_equal(xs, id, a, off, b, off, what);
	if (insn != FPL_INSN_FXSAVE) {
		assert_true(get64(a + 512) & m);
		assert_true(get64(b + 512) & m);
	}
	if (insn == FPL_INSN_XSAVEC) {
		assert_int_equal(get64(a + 520), FPL_XCOMP_BV_COMPACTED | rfbm);
	} else if (insn != FPL_INSN_FXSAVE) {
		assert_int_equal(get64(a + 520), 0);
	}
}

static void test_roundtrip(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	size_t size = xs->size_std_max + 4096;
	uint8_t *pat = fpl_xstate_alloc(size), *a = fpl_xstate_alloc(size),
		*b = fpl_xstate_alloc(size);
	unsigned n = 0;

	for (int insn = 0; insn < FPL_INSN_NR; insn++) {
		if (!fpl_save_insn_supported(&l->cpu, insn, NULL))
			continue;
		for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
			if (!(perm >> id & 1) || (insn == FPL_INSN_FXSAVE && id > 1))
				continue;
			roundtrip_one(xs, insn, id, pat, a, b, size);
			n++;
		}
	}
	/* At least x87 and SSE under FXSAVE: every x86-64 CPU has them. */
	assert_true(n >= 2);
	fpl_regs_init(xs, perm);
	free(pat);
	free(a);
	free(b);
	free(l);
}

/* XSAVEC writes the XCR0 layout exactly: the last component ends at the computed size. */
static void test_xsavec_extent(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint32_t size;
	uint8_t *a;
	int e1;

	if (!fpl_save_insn_supported(&l->cpu, FPL_INSN_XSAVEC, NULL)) {
		free(l);
		skip();
	}
	size = fpl_xstate_size_compacted(xs, perm);
	a = fpl_xstate_alloc(size + 256);
	memset(a, 0xa5, size + 256);
	e1 = fpl_regs_set(xs, perm, 77);
	fpl_xsavec64(a, perm);
	assert_int_equal(e1, 0);
	for (uint32_t i = size; i < size + 256; i++)
		assert_int_equal(a[i], 0xa5);
	assert_int_equal(get64(a + 512), perm);
	fpl_regs_init(xs, perm);
	free(a);
	free(l);
}

/* ---- init state and XINUSE ---- */

/*
 * The SDM lets a processor report XINUSE[i] = 1 (and XSAVE write XSTATE_BV[i]
 * = 1) for a component in its init state; emulators such as qemu's TCG do so
 * for some components. Probe three times: a component whose bit stays set
 * after everything went back to init, every time, is not tracked, and only
 * its values can be checked. Real Intel and AMD parts track every one (Zen 4
 * here does), though a preemption's restore may set a bit now and then on
 * these guests (fpl_live_extra_ok): so the checks below retry too.
 */
#define XINUSE_TRIES 3
struct tracking {
	uint64_t bv, xinuse;	/* components whose init state these bits show */
};

static struct tracking tracks_init(const struct fpl_cpu *cpu, const struct fpl_xstate *xs)
{
	uint8_t *a = fpl_xstate_alloc(xs->size_std_max);
	struct tracking t;
	uint64_t bv = ~0ull, xinuse = ~0ull;
	bool have = true;

	for (int i = 0; i < XINUSE_TRIES; i++) {
		uint64_t in = 0;
		int e = fpl_regs_init(xs, perm);

		have = fpl_xinuse(cpu, &in) && have;
		fpl_xsave64(a, perm);
		assert_int_equal(e, 0);
		bv &= get64(a + 512);
		xinuse &= in;
	}
	free(a);
	t.bv = perm & ~bv;
	t.xinuse = have ? perm & ~xinuse : 0;
	if (t.bv != perm || (have && t.xinuse != perm))
		print_message("this CPU reports init components as in use (XSTATE_BV 0x%llx, "
			      "XINUSE 0x%llx): checking only their values\n",
			      (unsigned long long)bv, (unsigned long long)xinuse);
	return t;
}

static void assert_init_bytes(const struct fpl_xstate *xs, unsigned id, const uint8_t *img)
{
	static const uint8_t zero[8192 + 64];

	if (id == FPL_XFEATURE_FP) {
		assert_int_equal(img[0] | img[1] << 8, 0x037f);
		assert_int_equal(img[2] | img[3] << 8, 0);
		assert_int_equal(img[4], 0);
		for (unsigned i = 0; i < 8; i++)
			assert_memory_equal(img + 32 + 16 * i, zero, 10);
	} else if (id == FPL_XFEATURE_SSE) {
		assert_int_equal(get64(img + 24) & 0xffffffff, 0x1f80);
		assert_memory_equal(img + 160, zero, 256);
	} else if (arch_size(xs, id) <= sizeof(zero)) {
		assert_memory_equal(img + xs->comp[id].offset, zero, arch_size(xs, id));
	}
}

/* The component's bytes still hold the 0xff the buffer was filled with. */
static bool untouched(const struct fpl_xstate *xs, unsigned id, const uint8_t *img)
{
	uint32_t off = xs->comp[id].offset, n = arch_size(xs, id);

	if (id == FPL_XFEATURE_FP) {
		off = 0;
		n = 24;
	} else if (id == FPL_XFEATURE_SSE) {
		off = 160;
	}
	for (uint32_t i = 0; i < n; i++)
		if (img[off + i] != 0xff)
			return false;
	return true;
}

static void test_init_reads_back_as_init(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint8_t *a = fpl_xstate_alloc(xs->size_std_max);
	uint64_t xinuse = 0;
	struct tracking tracking;
	bool have_xinuse;
	int e1, e2;

	if (!xs->xsave) {
		free(a);
		free(l);
		skip();
	}
	tracking = tracks_init(&l->cpu, xs);
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
		uint64_t m = 1ull << id;

		if (!(perm & m))
			continue;
		/* left in use is so every time; a preemption's restore, now and then */
		for (int i = 0; i < XINUSE_TRIES; i++) {
			memset(a, 0xff, xs->size_std_max);
			e1 = fpl_regs_set(xs, m, 99);
			e2 = fpl_regs_init(xs, m);
			have_xinuse = fpl_xinuse(&l->cpu, &xinuse);
			fpl_xsave64(a, perm);
			if (!((tracking.xinuse & m) && have_xinuse && (xinuse & m)) &&
			    !((tracking.bv & m) && (get64(a + 512) & m)))
				break;
		}
		assert_int_equal(e1, 0);
		assert_int_equal(e2, 0);
		if ((tracking.xinuse & m) && have_xinuse && (xinuse & m))
			fail_msg("%s: XINUSE still set after init (0x%llx)", fpl_xfeature_name(id),
				 (unsigned long long)xinuse);
		if ((tracking.bv & m) && (get64(a + 512) & m))
			fail_msg("%s: XSTATE_BV still set after init", fpl_xfeature_name(id));
		/*
		 * With XSTATE_BV clear the image says "init" whatever its bytes;
		 * XSAVE then either wrote the init values (Zen 4 does) or left the
		 * buffer alone (qemu).
		 */
		if ((get64(a + 512) & m) || !untouched(xs, id, a))
			assert_init_bytes(xs, id, a);
	}
	free(a);
	free(l);
}

static void test_regs_set_sets_xinuse(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	struct tracking tracking;
	uint64_t xinuse;
	int e1, e2;
	bool ok;

	if (!fpl_cpu_has(&l->cpu, FPL_FEAT_XGETBV1)) {
		free(l);
		skip();
	}
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++) {
		uint64_t m = 1ull << id;

		if (!(perm & m))
			continue;
		e1 = fpl_regs_init(xs, perm);
		e2 = fpl_regs_set(xs, m, 5);
		ok = fpl_xinuse(&l->cpu, &xinuse);
		assert_int_equal(e1, 0);
		assert_int_equal(e2, 0);
		assert_true(ok);
		if (!(xinuse & m))
			fail_msg("%s: XINUSE 0x%llx lacks it after fpl_regs_set",
				 fpl_xfeature_name(id), (unsigned long long)xinuse);
	}
	/* Everything at once, then everything back. */
	tracking = tracks_init(&l->cpu, xs);
	e1 = fpl_regs_set(xs, perm, 6);
	ok = fpl_xinuse(&l->cpu, &xinuse);
	assert_int_equal(e1, 0);
	assert_true(ok);
	assert_int_equal(xinuse & perm, perm);
	for (int i = 0; i < XINUSE_TRIES; i++) {
		e1 = i ? fpl_regs_set(xs, perm, 6) : 0;
		e1 = e1 ? e1 : fpl_regs_init(xs, perm);
		ok = fpl_xinuse(&l->cpu, &xinuse);
		if (!ok || !(xinuse & tracking.xinuse))
			break;
	}
	assert_int_equal(e1, 0);
	assert_true(ok);
	assert_int_equal(xinuse & tracking.xinuse, 0);
	free(l);
}

/* The path for CPUs without XSAVE (FXSAVE/FXRSTOR only), run on this CPU with XSAVE ignored. */
static void test_fxsave_only_path(void **state)
{
	struct live *l = live_get();
	struct fpl_xstate xs = l->xs;
	uint8_t *pat = fpl_xstate_alloc(4096), *a = fpl_xstate_alloc(512),
		*b = fpl_xstate_alloc(512);
	int e1;

	xs.xsave = false;
	xs.xcr0 = xs.user = FPL_XFEATURE_MASK_FPSSE;
	xs.size_std_max = 512;
	fpl_xstate_pattern(&xs, FPL_XFEATURE_MASK_FPSSE, 11, pat);
	e1 = fpl_regs_set(&xs, FPL_XFEATURE_MASK_FPSSE, 11);
	fpl_fxsave64(a);
	assert_int_equal(e1, 0);
	assert_comp_equal(&xs, FPL_XFEATURE_FP, pat, 0, a, 0, "fxrstor x87");
	assert_comp_equal(&xs, FPL_XFEATURE_SSE, pat, 0, a, 0, "fxrstor SSE");
	/* Setting SSE alone leaves x87 as it was. */
	e1 = fpl_regs_set(&xs, FPL_XFEATURE_MASK_SSE, 12);
	fpl_fxsave64(b);
	assert_int_equal(e1, 0);
	assert_comp_equal(&xs, FPL_XFEATURE_FP, a, 0, b, 0, "x87 kept");
	assert_memory_not_equal(a + 160, b + 160, 256);
	e1 = fpl_regs_init(&xs, FPL_XFEATURE_MASK_FPSSE);
	fpl_fxsave64(b);
	assert_int_equal(e1, 0);
	assert_init_bytes(&xs, FPL_XFEATURE_FP, b);
	assert_init_bytes(&xs, FPL_XFEATURE_SSE, b);
	assert_int_equal(fpl_regs_set(&xs, FPL_XFEATURE_MASK_YMM, 1), -ENOTSUP);
	free(pat);
	free(a);
	free(b);
	free(l);
}

/* fpl_regs_set_exact: the mask live, everything else in init, whatever libc did before. */
static void test_regs_set_exact(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint8_t *a = fpl_xstate_alloc(xs->size_std_max);
	struct tracking t;
	uint64_t xinuse = 0, masks[FPL_XFEATURE_MAX + 2];
	unsigned n = 0;
	bool have;
	int e;

	if (!xs->xsave) {
		free(a);
		free(l);
		skip();
	}
	t = tracks_init(&l->cpu, xs);
	masks[n++] = 0;
	masks[n++] = perm;
	for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++)
		if (perm >> id & 1)
			masks[n++] = 1ull << id;
	for (unsigned i = 0; i < n; i++) {
		uint64_t m = masks[i];

		/* left in use is so every time; a preemption's restore, now and then */
		for (int k = 0; k < XINUSE_TRIES; k++) {
			/* Dirty what glibc dirties (and more) first. */
			memset(a, 0x5a, xs->size_std_max);
			e = fpl_regs_set(xs, perm, 3);
			assert_int_equal(e, 0);
			e = fpl_regs_set_exact(xs, m, 4);
			have = fpl_xinuse(&l->cpu, &xinuse);
			fpl_xsave64(a, perm);
			if ((!have || (xinuse & t.xinuse) == (m & t.xinuse)) &&
			    (get64(a + 512) & t.bv) == (m & t.bv))
				break;
		}
		assert_int_equal(e, 0);
		if (have && (xinuse & t.xinuse) != (m & t.xinuse))
			fail_msg("set_exact(0x%llx): XINUSE 0x%llx", (unsigned long long)m,
				 (unsigned long long)xinuse);
		if ((get64(a + 512) & t.bv) != (m & t.bv))
			fail_msg("set_exact(0x%llx): XSTATE_BV 0x%llx", (unsigned long long)m,
				 (unsigned long long)get64(a + 512));
		for (unsigned id = 0; id < FPL_XFEATURE_MAX; id++)
			if ((perm & ~m) >> id & 1)
				assert_init_bytes(xs, id, a);
	}
	assert_int_equal(fpl_regs_set_exact(xs, xs->xcr0 | ~xs->xcr0, 1), -ENOTSUP);
	free(a);
	free(l);
}

static void test_regs_unsupported(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	uint64_t missing = ~xs->xcr0 & ((1ull << FPL_XFEATURE_MAX) - 1);
	unsigned id = (unsigned)__builtin_ctzll(missing);

	assert_int_equal(fpl_regs_set(xs, 1ull << id, 1), -ENOTSUP);
	assert_int_equal(fpl_regs_init(xs, 1ull << id), -ENOTSUP);
	free(l);
}

/*
 * The frame the kernel writes for this thread: its active mask, at that
 * mask's standard size; the three masks nest (active <= permitted <= XCR0).
 */
static void test_masks_live(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	struct fpl_xstate_masks m;
	uint64_t xf = 0;
	uint32_t size = 0;
	int e;

	assert_int_equal(fpl_xstate_masks(xs, &m), 0);
	assert_int_equal(m.xcr0, fpl_xstate_xcr0(xs));
	assert_int_equal(m.permitted & ~m.xcr0, 0);
	assert_int_equal(m.active & ~m.permitted, 0);
	assert_int_equal(m.permitted, fpl_xstate_permitted(xs));
	assert_int_equal(m.active, fpl_xstate_active(xs));
	/* The default set is always permitted. */
	assert_int_equal(fpl_xstate_default_perm(xs) & ~m.permitted, 0);
	e = fpl_xstate_sigframe_probe(&xf, &size);
	if (!xs->xsave) {
		assert_int_equal(e, -ENODATA);
	} else {
		assert_int_equal(e, 0);
		assert_int_equal(xf, m.active);
		assert_int_equal(size, fpl_xstate_size_std(xs, m.active));
	}
	/* The probe leaves no handler behind: SIGURG is back to its default. */
	{
		struct sigaction sa;

		assert_int_equal(sigaction(SIGURG, NULL, &sa), 0);
		assert_true(sa.sa_handler == SIG_DFL);
	}
	free(l);
}

/*
 * Last, since permission cannot be given back: ask for AMX, check the three
 * masks move as the kernel says (permitted grows at once, active only at
 * the first tile use), then run the register tests again with tiles.
 */
static void test_amx_permitted(void **state)
{
	struct live *l = live_get();
	const struct fpl_xstate *xs = &l->xs;
	struct fpl_diag diag = { "" };
	uint64_t before = 0, after = 0, xf = 0;
	uint32_t size = 0;
	const char *why;
	int e;

	if (!fpl_amx_supported(xs, &why)) {
		assert_int_equal(fpl_amx_request_perm(xs, &before, &after, &diag), -EOPNOTSUPP);
		assert_int_equal(fpl_amx_first_use(xs, &diag), -ENOTSUP);
		assert_int_equal(fpl_amx_release(xs), -ENOTSUP);
		assert_int_equal(before, fpl_xstate_xcr0(xs));
		free(l);
		print_message("skipped: %s\n", why);
		skip();
	}
	if (!(perm & FPL_XFEATURE_MASK_XTILE_DATA)) {
		/* Without permission, tile data must be refused before any instruction. */
		assert_int_equal(fpl_regs_set(xs, FPL_XFEATURE_MASK_XTILE_DATA, 1), -EPERM);
		assert_int_equal(fpl_amx_first_use(xs, &diag), -EPERM);
		assert_int_equal(fpl_xstate_active(xs) & FPL_XFEATURE_MASK_XTILE_DATA, 0);
	}
	e = fpl_amx_request_perm(xs, &before, &after, &diag);
	if (e)
		fail_msg("ARCH_REQ_XCOMP_PERM: %s", diag.msg);
	assert_true(after & FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(after, fpl_xstate_permitted(xs));
	assert_int_equal(fpl_xstate_sigframe_probe(&xf, &size), 0);
	/* Permission alone does not grow the task's state (the frame stays 2816 bytes there). */
	if (!(before & FPL_XFEATURE_MASK_XTILE_DATA)) {
		assert_int_equal(xf & FPL_XFEATURE_MASK_XTILE_DATA, 0);
		assert_int_equal(size, fpl_xstate_size_std(xs, fpl_xstate_active(xs)));
	}
	e = fpl_amx_first_use(xs, &diag);
	if (e)
		fail_msg("first tile use: %s", diag.msg);
	assert_int_equal(fpl_xstate_active(xs), after);
	assert_int_equal(fpl_xstate_sigframe_probe(&xf, &size), 0);
	assert_true(xf & FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(size, fpl_xstate_size_std(xs, after));
	free(l);
	test_roundtrip(state);
	test_init_reads_back_as_init(state);
	test_regs_set_sets_xinuse(state);
	test_regs_set_exact(state);
	l = live_get();
	assert_int_equal(fpl_amx_release(&l->xs), 0);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_layout_matches_cpuid),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_xsavec_extent),
		cmocka_unit_test(test_init_reads_back_as_init),
		cmocka_unit_test(test_regs_set_sets_xinuse),
		cmocka_unit_test(test_regs_set_exact),
		cmocka_unit_test(test_fxsave_only_path),
		cmocka_unit_test(test_regs_unsupported),
		cmocka_unit_test(test_masks_live),
		cmocka_unit_test(test_amx_permitted),
	};

	return cmocka_run_group_tests_name("xstate", tests, NULL, NULL);
}
