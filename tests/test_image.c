// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the image library: each validation rule on crafted images, registers, conversion. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/image.h"

#define CPUID "tests/data/cpuid/"
#define BUFSZ 8192

struct ctx {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
	struct fpl_image_cfg cfg;
	struct fpl_image img;
	uint8_t *buf;
};

static struct ctx *ctx_load(const char *dump)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct fpl_diag diag = { "" };

	assert_non_null(c);
	if (fpl_cpu_load(&c->cpu, dump, &diag))
		fail_msg("%s: %s", dump, diag.msg);
	assert_int_equal(fpl_xstate_init(&c->xs, &c->cpu), 0);
	fpl_image_cfg_init(&c->cfg, &c->cpu, &c->xs);
	c->buf = fpl_xstate_alloc(BUFSZ);
	assert_non_null(c->buf);
	return c;
}

static void ctx_free(struct ctx *c)
{
	free(c->buf);
	free(c);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

/* A valid standard image: x87 and SSE present, MXCSR at its default. */
static size_t std_image(struct ctx *c)
{
	memset(c->buf, 0, BUFSZ);
	put32(c->buf, 0, 0x037f);
	put32(c->buf, 24, 0x1f80);
	put64(c->buf, 512, FPL_XFEATURE_MASK_FPSSE);
	return fpl_xstate_size_std(&c->xs, c->xs.xcr0);
}

static size_t cmp_image(struct ctx *c)
{
	std_image(c);
	put64(c->buf, 520, c->xs.xcr0 | FPL_XCOMP_BV_COMPACTED);
	return fpl_xstate_size_compacted(&c->xs, c->xs.xcr0);
}

static void decode(struct ctx *c, size_t len)
{
	struct fpl_diag diag = { "" };

	if (fpl_image_decode(c->buf, len, &c->cfg, &c->img, &diag))
		fail_msg("decode: %s", diag.msg);
}

/* The one finding of this severity, which must name rule and offset. */
static void expect(struct ctx *c, enum fpl_image_severity sev, const char *rule, size_t off)
{
	for (unsigned i = 0; i < c->img.nfindings; i++) {
		const struct fpl_image_finding *f = &c->img.findings[i];

		if (!strcmp(f->rule, rule)) {
			assert_int_equal(f->severity, sev);
			assert_int_equal(f->offset, off);
			assert_true(strlen(f->msg) > 10);
			return;
		}
	}
	fail_msg("no finding %s (%u findings%s%s)", rule, c->img.nfindings,
		 c->img.nfindings ? ", first " : "", c->img.nfindings ? c->img.findings[0].rule : "");
}

static void expect_clean(struct ctx *c)
{
	if (fpl_image_rejected(&c->img))
		fail_msg("rejected: %s @%zu: %s", c->img.findings[0].rule, c->img.findings[0].offset,
			 c->img.findings[0].msg);
}

static void test_std_rules(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa-xcr0-avx.cpuid");	/* XCR0 = x87|SSE|AVX */
	size_t n = std_image(c);

	c->cfg.format = FPL_IMAGE_STANDARD;
	decode(c, n);
	expect_clean(c);
	assert_int_equal(c->img.nfindings, 0);

	put64(c->buf, 512, 0x27);	/* opmask: enumerated, not in this XCR0 */
	decode(c, n);
	assert_true(c->img.xrstor_faults);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xstate_bv", 512);
	/* Checked whatever RFBM is. */
	c->cfg.rfbm = 1;
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xstate_bv", 512);
	c->cfg.rfbm = ~0ull;
	put64(c->buf, 512, 3 | 1ull << 63);
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xstate_bv", 519);

	std_image(c);
	put64(c->buf, 520, 1);	/* XCOMP_BV = 1: bit 63 clear but non-zero */
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xcomp_bv", 520);

	std_image(c);
	c->buf[512 + 19] = 4;
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.header_16_23", 531);

	/* Bytes 24..63: reserved, not checked by the standard form. */
	std_image(c);
	c->buf[512 + 40] = 1;
	decode(c, n);
	expect_clean(c);
	expect(c, FPL_IMAGE_NOTE, "xrstor.header_24_63", 552);
	ctx_free(c);
}

static void test_mxcsr_rules(void **state)
{
	struct ctx *amd = ctx_load(CPUID "genoa.cpuid");
	struct ctx *intel = ctx_load(CPUID "sandybridge.aida");
	struct ctx *c = amd;
	size_t n = std_image(c);

	assert_int_equal(amd->cfg.mxcsr_mask, 0x2ffff);
	assert_int_equal(intel->cfg.mxcsr_mask, 0xffff);
	put32(c->buf, 24, 0x1f80 | 1u << 18);
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.mxcsr", 24);
	/* The standard form loads MXCSR for SSE or AVX in RFBM, even with XSTATE_BV clear. */
	put64(c->buf, 512, 0);
	c->cfg.rfbm = FPL_XFEATURE_MASK_YMM;
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.mxcsr", 24);
	c->cfg.rfbm = FPL_XFEATURE_MASK_FP;
	decode(c, n);
	expect_clean(c);

	/* MXCSR.MM (bit 17): AMD with MisAlignSse takes it, Intel faults. */
	c->cfg.rfbm = ~0ull;
	std_image(c);
	put32(c->buf, 24, 0x1f80 | 1u << 17);
	decode(c, n);
	expect_clean(c);
	c = intel;
	n = std_image(c);
	put32(c->buf, 24, 0x1f80 | 1u << 17);
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.mxcsr", 24);

	/* Compacted form: MXCSR only with SSE in RFBM and XSTATE_BV. */
	c = amd;
	n = cmp_image(c);
	put32(c->buf, 24, 0x1f80 | 1u << 18);
	put64(c->buf, 512, FPL_XFEATURE_MASK_YMM);
	decode(c, n);
	expect_clean(c);
	put64(c->buf, 512, FPL_XFEATURE_MASK_SSE);
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.mxcsr", 24);
	ctx_free(amd);
	ctx_free(intel);
}

static void test_compacted_rules(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa-xcr0-avx.cpuid");
	struct ctx *snb = ctx_load(CPUID "sandybridge.aida");
	size_t n = cmp_image(c);

	decode(c, n);
	expect_clean(c);
	assert_int_equal(c->img.format, FPL_IMAGE_COMPACTED);

	put64(c->buf, 520, FPL_XCOMP_BV_COMPACTED | 3);
	put64(c->buf, 512, 7);	/* AVX in XSTATE_BV, not in XCOMP_BV */
	c->cfg.rfbm = 1;	/* checked whatever RFBM is */
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xstate_bv_not_in_xcomp_bv", 512);
	c->cfg.rfbm = ~0ull;

	cmp_image(c);
	put64(c->buf, 520, FPL_XCOMP_BV_COMPACTED | 0x27);	/* opmask not in XCR0 */
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.xcomp_bv", 520);

	cmp_image(c);
	c->buf[512 + 40] = 1;	/* bytes 24..63 are checked by this form */
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.header_16_63", 552);

	n = cmp_image(snb);	/* no XSAVEC */
	decode(snb, n);
	expect(snb, FPL_IMAGE_FAULT, "xrstor.compacted_unsupported", 527);
	ctx_free(c);
	ctx_free(snb);
}

static void test_alignment_size_and_short(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = std_image(c);
	struct fpl_diag diag = { "" };

	memmove(c->buf + 8, c->buf, n);
	c->cfg.check_align = true;
	assert_int_equal(fpl_image_decode(c->buf + 8, n, &c->cfg, &c->img, NULL), 0);
	expect(c, FPL_IMAGE_FAULT, "xrstor.align", 0);
	c->cfg.check_align = false;
	assert_int_equal(fpl_image_decode(c->buf + 8, n, &c->cfg, &c->img, NULL), 0);
	expect_clean(c);

	n = std_image(c);
	put64(c->buf, 512, 0xe3);	/* Hi16_ZMM ends at 2432 */
	decode(c, 2000);
	expect(c, FPL_IMAGE_FAULT, "image.truncated", 2000);
	c->cfg.rfbm = 3;		/* not loaded: not read */
	decode(c, 2000);
	expect_clean(c);

	assert_int_equal(fpl_image_decode(c->buf, 575, &c->cfg, &c->img, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "575 bytes"));
	assert_int_equal(fpl_image_decode(c->buf, 0, &c->cfg, &c->img, &diag), -EINVAL);
	ctx_free(c);
}

/* A signal frame as the kernel writes it for XCR0: sw bytes at 464, magic2 after. */
static size_t sig_image(struct ctx *c)
{
	uint32_t size = fpl_xstate_size_std(&c->xs, c->xs.xcr0);

	std_image(c);
	put32(c->buf, 464, FPL_FP_XSTATE_MAGIC1);
	put32(c->buf, 468, size + 4);
	put64(c->buf, 472, c->xs.xcr0);
	put32(c->buf, 480, size);
	put32(c->buf, size, FPL_FP_XSTATE_MAGIC2);
	return size + 4;
}

static void test_signal_rules(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = sig_image(c);
	uint32_t size = (uint32_t)n - 4;

	decode(c, n);
	assert_int_equal(c->img.format, FPL_IMAGE_SIGNAL);
	assert_true(c->img.sw.valid);
	expect_clean(c);
	assert_int_equal(c->img.nfindings, 0);

	put32(c->buf, 464, 0x12345678);
	decode(c, n);
	assert_int_equal(c->img.format, FPL_IMAGE_STANDARD);	/* auto: no magic, no frame */
	c->cfg.format = FPL_IMAGE_SIGNAL;
	decode(c, n);
	expect(c, FPL_IMAGE_KERNEL, "sigframe.magic1", 464);

	sig_image(c);
	put32(c->buf, 480, size + 64);
	decode(c, n);
	expect(c, FPL_IMAGE_KERNEL, "sigframe.xstate_size", 480);
	sig_image(c);
	put32(c->buf, 468, size - 1);
	decode(c, n);
	expect(c, FPL_IMAGE_KERNEL, "sigframe.extended_size", 468);
	sig_image(c);
	decode(c, n - 1);
	expect(c, FPL_IMAGE_KERNEL, "sigframe.magic2", size);

	/* What sigreturn tolerates: notes, no rejection. */
	sig_image(c);
	put64(c->buf, 472, c->xs.xcr0 | 1ull << 18);
	put64(c->buf, 512, FPL_XFEATURE_MASK_SSE);
	decode(c, n);
	expect_clean(c);
	expect(c, FPL_IMAGE_NOTE, "sigframe.xfeatures", 472);
	expect(c, FPL_IMAGE_NOTE, "sigframe.fpsse", 512);
	/* sigreturn's XRSTOR uses xfeatures as RFBM. */
	sig_image(c);
	put64(c->buf, 472, FPL_XFEATURE_MASK_FP);
	put32(c->buf, 24, 1u << 20);
	decode(c, n);
	assert_int_equal(c->img.rfbm, FPL_XFEATURE_MASK_FP);
	expect_clean(c);
	put64(c->buf, 472, FPL_XFEATURE_MASK_FPSSE);
	decode(c, n);
	expect(c, FPL_IMAGE_FAULT, "xrstor.mxcsr", 24);
	ctx_free(c);
}

static void test_ptrace_rules(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = std_image(c);

	put64(c->buf, 464, c->xs.xcr0);
	decode(c, n);
	assert_int_equal(c->img.format, FPL_IMAGE_PTRACE);
	assert_int_equal(c->img.ptrace_xcr0, c->xs.xcr0);
	expect_clean(c);

	/* The kernel is stricter than XRSTOR about header bytes 24..63. */
	c->buf[512 + 60] = 1;
	decode(c, n);
	assert_false(c->img.xrstor_faults);
	assert_true(c->img.kernel_rejects);
	expect(c, FPL_IMAGE_KERNEL, "ptrace.header_16_63", 572);
	c->buf[512 + 60] = 0;

	decode(c, n - 64);
	expect(c, FPL_IMAGE_KERNEL, "ptrace.size", n - 64);

	/* MXCSR: the kernel checks it only with x87, SSE or AVX in XSTATE_BV. */
	put32(c->buf, 24, 1u << 20);
	put64(c->buf, 512, FPL_XFEATURE_MASK_OPMASK);
	decode(c, n);
	assert_false(c->img.kernel_rejects);
	put64(c->buf, 512, FPL_XFEATURE_MASK_YMM);
	decode(c, n);
	expect(c, FPL_IMAGE_KERNEL, "ptrace.mxcsr", 24);

	std_image(c);
	put64(c->buf, 464, 0x7);
	decode(c, n);
	expect(c, FPL_IMAGE_NOTE, "ptrace.xcr0", 464);
	ctx_free(c);
}

static void test_no_xsave_cpu(void **state)
{
	struct ctx *c = ctx_load(CPUID "nehalem.aida");

	std_image(c);
	decode(c, 576);
	expect(c, FPL_IMAGE_FAULT, "xrstor.unsupported", 0);
	ctx_free(c);
}

static void test_x87(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = std_image(c);
	static const uint8_t one[10] = { 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f };
	static const uint8_t denorm[10] = { 1 };
	struct fpl_x87 x;

	/* TOP = 5, ST0..ST2 in physical 5, 6, 7: 1.0, +0, a denormal. */
	put32(c->buf, 2, 5u << 11);
	c->buf[4] = 0xe0;
	memcpy(c->buf + 32, one, 10);
	memcpy(c->buf + 64, denorm, 10);
	decode(c, n);
	fpl_image_x87(&c->img, &x);
	assert_false(x.init);
	assert_int_equal(x.top, 5);
	assert_int_equal(x.tag[0], FPL_X87_VALID);
	assert_int_equal(x.tag[1], FPL_X87_ZERO);
	assert_int_equal(x.tag[2], FPL_X87_SPECIAL);
	for (unsigned i = 3; i < 8; i++)
		assert_int_equal(x.tag[i], FPL_X87_EMPTY);
	assert_memory_equal(x.st[0], one, 10);
	assert_string_equal(fpl_x87_tag_name(x.tag[2]), "special");

	put64(c->buf, 512, FPL_XFEATURE_MASK_SSE);	/* x87 in init state */
	decode(c, n);
	fpl_image_x87(&c->img, &x);
	assert_true(x.init);
	assert_int_equal(x.fcw, 0x037f);
	assert_int_equal(x.tag[0], FPL_X87_EMPTY);
	ctx_free(c);
}

/* Each vector piece gets its own byte value so that assembly mistakes show. */
static void test_vectors(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = std_image(c);
	const struct fpl_xstate *xs = &c->xs;
	uint8_t v[64], want[64];
	uint64_t k;
	uint32_t pkru;

	put64(c->buf, 512, c->xs.xcr0);
	memset(c->buf + 160 + 16 * 3, 0x11, 16);
	memset(c->buf + xs->comp[2].offset + 16 * 3, 0x22, 16);
	memset(c->buf + xs->comp[6].offset + 32 * 3, 0x33, 32);
	memset(c->buf + xs->comp[7].offset + 64 * 4, 0x44, 64);
	put64(c->buf, xs->comp[5].offset + 8 * 7, 0xdeadbeefcafef00dull);
	put32(c->buf, xs->comp[9].offset, 0x55555554);
	decode(c, n);
	expect_clean(c);
	memset(want, 0x11, 16);
	memset(want + 16, 0x22, 16);
	memset(want + 32, 0x33, 32);
	assert_int_equal(fpl_image_vector(&c->img, 3, 64, v), 0);
	assert_memory_equal(v, want, 64);
	assert_int_equal(fpl_image_vector(&c->img, 3, 16, v), 0);
	assert_memory_equal(v, want, 16);
	memset(want, 0x44, 64);
	assert_int_equal(fpl_image_vector(&c->img, 20, 64, v), 0);
	assert_memory_equal(v, want, 64);
	assert_int_equal(fpl_image_opmask(&c->img, 7, &k), 0);
	assert_int_equal(k, 0xdeadbeefcafef00dull);
	assert_int_equal(fpl_image_pkru(&c->img, &pkru), 0);
	assert_int_equal(pkru, 0x55555554);
	assert_int_equal(fpl_image_vector(&c->img, 32, 16, v), -EINVAL);
	assert_int_equal(fpl_image_vector(&c->img, 0, 24, v), -EINVAL);

	/* A component in init state reads as zero whatever its bytes say. */
	put64(c->buf, 512, c->xs.xcr0 & ~FPL_XFEATURE_MASK_YMM);
	decode(c, n);
	assert_int_equal(fpl_image_vector(&c->img, 3, 32, v), 0);
	memset(want, 0x11, 16);
	memset(want + 16, 0, 16);
	assert_memory_equal(v, want, 32);
	ctx_free(c);

	c = ctx_load(CPUID "genoa-xcr0-avx.cpuid");
	n = std_image(c);
	decode(c, n);
	assert_int_equal(fpl_image_vector(&c->img, 0, 64, v), -ENOENT);
	assert_int_equal(fpl_image_vector(&c->img, 16, 16, v), -ENOENT);
	assert_int_equal(fpl_image_opmask(&c->img, 0, &k), -ENOENT);
	ctx_free(c);
}

static void test_convert_roundtrip(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	struct fpl_image cimg, simg;
	size_t n = std_image(c), clen, slen;
	void *cbuf, *sbuf;
	struct fpl_diag diag = { "" };

	put64(c->buf, 512, 0x2a7);	/* x87 SSE AVX opmask Hi16_ZMM PKRU */
	for (size_t i = 576; i < n; i++)
		c->buf[i] = (uint8_t)(i * 7 + 1);
	decode(c, n);
	expect_clean(c);
	assert_int_equal(fpl_image_convert(&c->img, true, ~0ull, &cbuf, &clen, &diag), 0);
	assert_int_equal(clen, fpl_xstate_size_compacted(&c->xs, c->xs.xcr0));
	assert_int_equal(fpl_image_decode(cbuf, clen, &c->cfg, &cimg, &diag), 0);
	assert_false(fpl_image_rejected(&cimg));
	assert_int_equal(cimg.format, FPL_IMAGE_COMPACTED);
	assert_int_equal(cimg.xstate_bv, 0x2a7);
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		uint32_t s1 = 0, s2 = 0;
		const uint8_t *a = fpl_image_component(&c->img, i, &s1);
		const uint8_t *b = fpl_image_component(&cimg, i, &s2);

		assert_int_equal(!a, !b);
		if (a) {
			assert_int_equal(s1, s2);
			assert_memory_equal(a, b, s1);
		}
	}
	assert_int_equal(fpl_image_convert(&cimg, false, 0, &sbuf, &slen, &diag), 0);
	assert_int_equal(slen, n);
	assert_int_equal(fpl_image_decode(sbuf, slen, &c->cfg, &simg, &diag), 0);
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		uint32_t s1 = 0;
		const uint8_t *a = fpl_image_component(&c->img, i, &s1);
		const uint8_t *b = fpl_image_component(&simg, i, NULL);

		if (a)
			assert_memory_equal(a, b, i < 2 ? FPL_SW_BYTES_OFFSET : s1);
	}
	free(sbuf);

	/* Compacted with a mask that drops a present component: refused. */
	assert_int_equal(fpl_image_convert(&c->img, true, 0x7, &sbuf, &slen, &diag), -EINVAL);
	assert_null(sbuf);
	assert_non_null(strstr(diag.msg, "OPMASK"));
	/* A rejected image: refused. */
	put64(c->buf, 520, 1);
	decode(c, n);
	assert_int_equal(fpl_image_convert(&c->img, true, ~0ull, &sbuf, &slen, &diag), -EINVAL);
	free(cbuf);
	ctx_free(c);
}

/* Convert src and decode the result with the full RFBM: XRSTOR must accept it. */
static void convert_clean(struct ctx *c, bool to_compacted, struct fpl_image *out, void **buf)
{
	struct fpl_diag diag = { "" };
	size_t len;

	assert_int_equal(fpl_image_convert(&c->img, to_compacted, ~0ull, buf, &len, &diag), 0);
	assert_int_equal(fpl_image_decode(*buf, len, &c->cfg, out, &diag), 0);
	if (fpl_image_rejected(out))
		fail_msg("converted image rejected: %s", out->findings[0].rule);
}

/*
 * MXCSR as XRSTOR leaves it survives conversion both ways. A compacted image
 * without SSE in XSTATE_BV is accepted whatever its MXCSR (XRSTOR sets 0x1f80),
 * but the standard form loads MXCSR with SSE or AVX in RFBM: the converter
 * must write 0x1f80 there (the fuzz reproducer: XCOMP_BV 0x80000000000000e7,
 * XSTATE_BV 0, MXCSR 0x1f000080).
 */
static void test_convert_mxcsr(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	size_t n = cmp_image(c);
	struct fpl_image out;
	uint32_t v;
	void *buf;

	put64(c->buf, 520, 0x80000000000000e7ull);
	n = fpl_xstate_size_compacted(&c->xs, 0xe7);
	put64(c->buf, 512, 0);
	put32(c->buf, 24, 0x1f000080);
	put32(c->buf, 28, 0);
	decode(c, n);
	expect_clean(c);
	convert_clean(c, false, &out, &buf);
	assert_int_equal(out.mxcsr, 0x1f80);
	assert_int_equal(out.mxcsr_mask_saved, c->cfg.mxcsr_mask);
	free(buf);

	/* Standard to compacted: an MXCSR XRSTOR loads must not become the init one. */
	n = std_image(c);
	put64(c->buf, 512, 0);
	put32(c->buf, 24, 0x1f80 | 0x6000);	/* round toward zero */
	decode(c, n);
	expect_clean(c);
	convert_clean(c, true, &out, &buf);
	assert_true(out.xstate_bv & FPL_XFEATURE_MASK_SSE);
	assert_int_equal(out.mxcsr, 0x1f80 | 0x6000);
	for (unsigned i = 0; i < 16; i++) {
		uint8_t x[16] = { 0 }, z[16] = { 0 };

		assert_int_equal(fpl_image_vector(&out, i, 16, x), 0);
		assert_memory_equal(x, z, 16);
	}
	memcpy(&v, (uint8_t *)buf + 24, 4);
	assert_int_equal(v, 0x1f80 | 0x6000);
	free(buf);
	ctx_free(c);
}

/*
 * A decoded image says what it is: its buffer and format, each finding
 * whole (a rule, a sentence, an offset inside the bytes or just past them
 * for a truncation), and a verdict
 * that is its findings' (a FAULT finding: XRSTOR faults; KERNEL: the
 * kernel rejects), the first rejection not a note.
 */
static void verdict_as_said(const struct fpl_image *img, const uint8_t *b, size_t len,
			    unsigned iter)
{
	bool fault = false, kernel = false;

	if (img->buf != b || img->len != len || img->format == FPL_IMAGE_AUTO ||
	    img->format >= FPL_IMAGE_FORMAT_NR || img->nfindings > FPL_IMAGE_MAX_FINDINGS)
		fail_msg("iteration %u: image of %zu bytes decoded as format %d, %u findings", iter,
			 len, img->format, img->nfindings);
	for (unsigned k = 0; k < img->nfindings; k++) {
		const struct fpl_image_finding *f = &img->findings[k];

		if (!f->rule || !*f->rule || !*f->msg || !memchr(f->msg, 0, sizeof(f->msg)) ||
		    f->severity > FPL_IMAGE_FAULT || f->offset > len)
			fail_msg("iteration %u: finding %u: %s at byte %zu of %zu: %s", iter, k,
				 f->rule ? f->rule : "(no rule)", f->offset, len, f->msg);
		fault |= f->severity == FPL_IMAGE_FAULT;
		kernel |= f->severity == FPL_IMAGE_KERNEL;
	}
	/* findings past the last kept may carry the verdict; those kept never contradict it */
	if ((fault && !img->xrstor_faults) || (kernel && !img->kernel_rejects) ||
	    (!img->findings_dropped && (fault != img->xrstor_faults ||
					kernel != img->kernel_rejects)))
		fail_msg("iteration %u: verdict fault %d kernel %d, findings fault %d kernel %d", iter,
			 img->xrstor_faults, img->kernel_rejects, fault, kernel);
	if (fpl_image_rejected(img) && !img->findings_dropped)
		assert_int_not_equal(fpl_image_first_rejection(img)->severity, FPL_IMAGE_NOTE);
}

/* All of n bytes zero. */
static bool all_zero(const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

/*
 * The registers of a decoded image on a CPU with AVX-512 (c's): every one
 * there, a component outside XSTATE_BV read as its init value, x87's init
 * as FNINIT leaves it; a register number or width out of range refused.
 */
static void registers_as_said(const struct ctx *c, unsigned iter)
{
	const struct fpl_image *img = &c->img;
	uint64_t bv = img->xstate_bv, k = 1;
	uint32_t p = 1;
	uint8_t v[64];
	struct fpl_x87 x;

	fpl_image_x87(img, &x);
	assert_true(x.top < 8);
	for (unsigned i = 0; i < 8; i++)
		assert_true(x.tag[i] <= FPL_X87_EMPTY);
	if (!(bv & FPL_XFEATURE_MASK_FP) && (!x.init || x.fcw != 0x37f || x.fsw ||
					     x.tag[0] != FPL_X87_EMPTY))
		fail_msg("iteration %u: x87 not in XSTATE_BV 0x%llx, read as fcw 0x%x fsw 0x%x",
			 iter, (unsigned long long)bv, x.fcw, x.fsw);
	for (unsigned r = 0; r < 32; r++) {
		assert_int_equal(fpl_image_vector(img, r, 64, v), 0);
		if (r < 16 && ((!(bv & FPL_XFEATURE_MASK_SSE) && !all_zero(v, 16)) ||
			       (!(bv & FPL_XFEATURE_MASK_YMM) && !all_zero(v + 16, 16)) ||
			       (!(bv & FPL_XFEATURE_MASK_ZMM_Hi256) && !all_zero(v + 32, 32))))
			fail_msg("iteration %u: zmm%u has bytes of a component in init (XSTATE_BV "
				 "0x%llx)", iter, r, (unsigned long long)bv);
		if (r >= 16 && !(bv & FPL_XFEATURE_MASK_Hi16_ZMM) && !all_zero(v, 64))
			fail_msg("iteration %u: zmm%u not zero with Hi16_ZMM in init", iter, r);
	}
	assert_int_equal(fpl_image_vector(img, 32, 64, v), -EINVAL);
	assert_int_equal(fpl_image_vector(img, 0, 8, v), -EINVAL);
	assert_int_equal(fpl_image_opmask(img, 3, &k), 0);
	if (!(bv & FPL_XFEATURE_MASK_OPMASK))
		assert_int_equal(k, 0);
	if (fpl_xstate_xcr0(&c->xs) & FPL_XFEATURE_MASK_PKRU) {
		assert_int_equal(fpl_image_pkru(img, &p), 0);
		if (!(bv & FPL_XFEATURE_MASK_PKRU))
			assert_int_equal(p, 0);
	} else {
		assert_int_equal(fpl_image_pkru(img, &p), -ENOENT);
	}
}

/*
 * Conversion of a decoded image: refused when XRSTOR would fault on it or
 * its XSTATE_BV has components XCR0 has not (a signal frame the kernel
 * restores with FXRSTOR only); else 64-byte aligned bytes that decode, as the form asked for, to an
 * image XRSTOR takes, with the same XSTATE_BV (SSE added where MXCSR is
 * not its init value). True when converted.
 */
static bool converts_as_said(const struct ctx *c, bool to_compacted, unsigned iter)
{
	struct fpl_image_cfg cfg = c->cfg;
	struct fpl_image *back = malloc(sizeof(*back));
	struct fpl_diag diag = { "" };
	void *out = NULL;
	size_t olen = 0;
	int rc = fpl_image_convert(&c->img, to_compacted, ~0ull, &out, &olen, &diag);

	assert_non_null(back);
	if (c->img.xrstor_faults || (c->img.xstate_bv & ~fpl_xstate_xcr0(&c->xs))) {
		if (rc != -EINVAL || out || !*diag.msg)
			fail_msg("iteration %u: converted what XRSTOR faults on or XCR0 cannot hold "
				 "(XSTATE_BV 0x%llx): %d", iter,
				 (unsigned long long)c->img.xstate_bv, rc);
		free(back);
		return false;
	}
	if (rc || !out || (uintptr_t)out % 64)
		fail_msg("iteration %u: an image XRSTOR takes not converted: %d %s", iter, rc,
			 diag.msg);
	cfg.format = to_compacted ? FPL_IMAGE_COMPACTED : FPL_IMAGE_STANDARD;
	assert_int_equal(fpl_image_decode(out, olen, &cfg, back, &diag), 0);
	if (back->xrstor_faults || (back->xstate_bv & ~FPL_XFEATURE_MASK_SSE) !=
	    (c->img.xstate_bv & ~FPL_XFEATURE_MASK_SSE))
		fail_msg("iteration %u: converted, XSTATE_BV 0x%llx -> 0x%llx, %s", iter,
			 (unsigned long long)c->img.xstate_bv, (unsigned long long)back->xstate_bv,
			 back->nfindings ? back->findings[0].msg : "no finding");
	free(out);
	free(back);
	return true;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The length of a noisy_image of c's CPU in the standard or compacted form. */
static size_t noisy_len(const struct ctx *c, bool compacted)
{
	return compacted ? fpl_xstate_size_compacted(&c->xs, c->xs.xcr0) :
			   fpl_xstate_size_std(&c->xs, c->xs.xcr0);
}

/*
 * An image XRSTOR takes, in the standard or compacted form for XCR0, with
 * XSTATE_BV a random part of XCR0 and every register byte random: MXCSR
 * at its default, the software bytes and the header's reserved bytes zero.
 */
static void noisy_image(const struct ctx *c, uint8_t *b, size_t len, uint64_t *s, bool compacted)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)xorshift(s);
	put32(b, 24, 0x1f80);
	memset(b + 464, 0, 576 - 464);
	put64(b, 512, xorshift(s) & c->xs.xcr0);
	if (compacted)
		put64(b, 520, c->xs.xcr0 | FPL_XCOMP_BV_COMPACTED);
}

/* Arbitrary bytes for iteration iter: any, mostly small, or (noisy) an image XRSTOR takes. */
static uint8_t *arbitrary(struct ctx *c, unsigned iter, uint64_t *s, size_t *len, bool *noisy)
{
	uint8_t *b;

	*noisy = iter % 5 == 4;
	*len = *noisy ? noisy_len(c, iter % 2) : iter % 3 ? 576 + *s % 2600 : *s % 700;
	b = malloc(*len + 1);
	assert_non_null(b);
	if (*noisy) {
		noisy_image(c, b, *len, s, iter % 2);
		c->cfg.format = iter % 2 ? FPL_IMAGE_COMPACTED : FPL_IMAGE_STANDARD;
		return b;
	}
	for (size_t i = 0; i < *len; i++) {
		xorshift(s);
		b[i] = (uint8_t)(iter % 2 ? *s : (*s & 0x0101010101010101ull) ? *s & 0x3 : 0);
	}
	c->cfg.format = (enum fpl_image_format)(iter % FPL_IMAGE_FORMAT_NR);
	return b;
}

/*
 * Arbitrary bytes, each declared format in turn: decoding never crashes
 * (ASan watches in make asan) and returns 0 or -EINVAL with a reason, the
 * latter for anything shorter than the legacy area and header; what a
 * decoded image says of itself holds (verdict_as_said, registers_as_said,
 * converts_as_said). Images XRSTOR takes whatever their registers hold are
 * taken, and convert.
 */
static void test_arbitrary_bytes(void **state)
{
	struct ctx *c = ctx_load(CPUID "genoa.cpuid");
	uint64_t s = 88172645463325252ull;
	unsigned decoded = 0, refused = 0, rejected = 0, converted = 0;

	for (unsigned iter = 0; iter < 3000; iter++) {
		struct fpl_diag diag = { "" };
		size_t len;
		bool noisy;
		uint8_t *b = arbitrary(c, iter, &s, &len, &noisy);
		int rc = fpl_image_decode(b, len, &c->cfg, &c->img, &diag);

		if ((rc != 0 && rc != -EINVAL) || (rc && !*diag.msg) || (len < 576 && !rc) ||
		    (noisy && (rc || fpl_image_rejected(&c->img))))
			fail_msg("iteration %u: %zu bytes as %s: %d (%s)", iter, len,
				 fpl_image_format_name(c->cfg.format), rc,
				 rc ? diag.msg : c->img.findings[0].msg);
		if (!rc) {
			decoded++;
			rejected += fpl_image_rejected(&c->img);
			verdict_as_said(&c->img, b, len, iter);
			registers_as_said(c, iter);
			converted += converts_as_said(c, iter % 2, iter);
		} else {
			refused++;
		}
		free(b);
	}
	print_message("  3000 inputs: %u refused, %u decoded (%u rejected, %u converted)\n",
		      refused, decoded, rejected, converted);
	assert_true(refused > 0 && rejected > 0 && converted >= 600);
	ctx_free(c);
}

static void test_names(void **state)
{
	char buf[64];

	assert_int_equal(fpl_image_format_by_name("raw"), FPL_IMAGE_STANDARD);
	assert_int_equal(fpl_image_format_by_name("standard"), FPL_IMAGE_STANDARD);
	assert_int_equal(fpl_image_format_by_name("ptrace"), FPL_IMAGE_PTRACE);
	assert_int_equal(fpl_image_format_by_name("xml"), -1);
	assert_string_equal(fpl_image_format_name(FPL_IMAGE_SIGNAL), "signal");
	fpl_xfeature_mask_names(1ull << 63 | 1, buf, sizeof(buf));
	assert_string_equal(buf, "x87|bit63");
	fpl_xfeature_mask_names(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_rules),
		cmocka_unit_test(test_mxcsr_rules),
		cmocka_unit_test(test_compacted_rules),
		cmocka_unit_test(test_alignment_size_and_short),
		cmocka_unit_test(test_signal_rules),
		cmocka_unit_test(test_ptrace_rules),
		cmocka_unit_test(test_no_xsave_cpu),
		cmocka_unit_test(test_x87),
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_convert_roundtrip),
		cmocka_unit_test(test_convert_mxcsr),
		cmocka_unit_test(test_arbitrary_bytes),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
