// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The CPU corpus: real CPUs' CPUID dumps (tests/data/corpus/NAME.aida or
 * .cpuid) and beside each the answers fpulab gives for it (NAME.expected),
 * as libcpuid's tests/ and hwloc's tests/hwloc/x86/ keep them. Every dump is
 * replayed under four variants of what the OS enabled and permitted, set
 * through the one seam for XGETBV and ARCH_GET_XCOMP_PERM
 * (fpl_cpu_set_xcr0), never by editing leaves here. The answers are
 * regenerated in memory and compared with the committed file line by line;
 * FPL_REGEN=1 writes the files instead (make corpus-regen), for review.
 * The invariants (no overlapping components, sizes that agree with
 * CPUID.(0xD,0), every logical CPU of a dump alike) are asserted on every
 * dump and variant.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <cmocka.h>

#include "fpulab/amx.h"
#include "fpulab/bench.h"
#include "fpulab/chacha20.h"
#include "fpulab/cpu.h"
#include "fpulab/image.h"
#include "fpulab/suite.h"
#include "fpulab/xor.h"
#include "fpulab/xstate.h"

#define DIR "tests/data/corpus/"

/* Each dump, and the CPU class it stands for in issue 31's list. */
static const struct corpus_dump {
	const char *file;
	const char *why;
} dumps[] = {
	{ "nehalem-ep.aida", "no XSAVE" },
	{ "jasperlake-n5100.aida", "XSAVE without AVX (Jasper Lake)" },
	{ "alderlake-12900k.aida", "AVX2 hybrid (Alder Lake, P- and E-cores)" },
	{ "alderlake-avx512.aida", "Alder Lake with AVX-512 (E-cores off)" },
	{ "zen3-5950x.aida", "Zen 3" },
	{ "zen4-7700x.aida", "Zen 4 client" },
	{ "zen4-genoa.aida", "Zen 4 server (Genoa)" },
	{ "zen5-9950x.aida", "Zen 5 client" },
	{ "zen5-turin.aida", "Zen 5 server (Turin)" },
	{ "sapphirerapids.aida", "Sapphire Rapids (AMX)" },
	{ "emeraldrapids.aida", "Emerald Rapids (AMX)" },
	{ "graniterapids.aida", "Granite Rapids (AVX10, AMX)" },
	{ "intel-spr-amx-kvm.cpuid", "captured: Intel AMX KVM guest" },
	{ "amd-zen3-kvm.cpuid", "captured: Zen 3 KVM guest, XCR0 0x7" },
	{ "zen3-pku-kvm.cpuid", "captured: Zen 3 KVM guest, XCR0 0x207" },
};

/* The variants: what the OS enabled (XCR0) and what this process may use. */
enum variant { V_BASE, V_NOAMXPERM, V_NOAVX512, V_FPSSE, V_NR };
static const char *const vnames[V_NR] = { "base", "amx-not-permitted", "no-avx512", "x87-sse" };
static const char *const vwords[V_NR] = {
	"XCR0 as the dump gives it (or derived), all of it permitted (as after ARCH_REQ_XCOMP_PERM)",
	"the same XCR0, AMX tile data not permitted (the default before ARCH_REQ_XCOMP_PERM)",
	"XCR0 without the AVX-512 components (bits 5-7), all of it permitted",
	"XCR0 x87|SSE only",
};

static void vset(const struct fpl_cpu *base, enum variant v, struct fpl_cpu *out)
{
	uint64_t x = base->xcr0, perm;
	struct fpl_diag d = { "" };
	int err;

	*out = *base;
	if (!fpl_cpu_has_cpuid(base, FPL_FEAT_OSXSAVE))
		x = 0;
	switch (v) {
	case V_NOAVX512:
		x &= ~FPL_XFEATURE_MASK_AVX512;
		break;
	case V_FPSSE:
		x &= FPL_XFEATURE_MASK_FPSSE;
		break;
	default:
		break;
	}
	perm = v == V_NOAMXPERM ? x & ~FPL_XFEATURE_MASK_XTILE_DATA : x;
	err = fpl_cpu_set_xcr0(out, x, perm, &d);
	if (err)
		fail_msg("%s %s: fpl_cpu_set_xcr0(0x%" PRIx64 "): %s", base->source, vnames[v], x,
			 d.msg);
}

static void supp(FILE *f, const char *pre, const char *name, bool ok, const char *why)
{
	fprintf(f, "%s %s: %s%s\n", pre, name, ok ? "supported" : "skip: ",
		ok ? "" : why ? why : "(no reason given)");
}

static const char *names(uint64_t m, char *buf, size_t n)
{
	return fpl_xfeature_mask_names(m, buf, n);
}

/* "accepted", or every finding that rejects it and the notes, as severity:rule. */
static void verdict(FILE *f, const char *pre, const char *what, const void *buf, size_t len,
		    const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		    enum fpl_image_format fmt)
{
	struct fpl_image_cfg cfg;
	struct fpl_image *img = calloc(1, sizeof(*img));
	struct fpl_diag d = { "" };

	assert_non_null(img);
	fpl_image_cfg_init(&cfg, cpu, xs);
	cfg.format = fmt;
	fprintf(f, "%s image.%s:", pre, what);
	if (fpl_image_decode(buf, len, &cfg, img, &d)) {
		fprintf(f, " not an image: %s\n", d.msg);
		free(img);
		return;
	}
	fprintf(f, " %s", fpl_image_rejected(img) ? "rejected" : "accepted");
	for (unsigned i = 0; i < img->nfindings; i++)
		fprintf(f, " %s:%s", fpl_image_severity_name(img->findings[i].severity),
			img->findings[i].rule);
	fprintf(f, "\n");
	free(img);
}

/* The three standard images of a layout: valid, an XSTATE_BV bit outside XCR0, XCOMP_BV short. */
static void images(FILE *f, const char *pre, const struct fpl_cpu *cpu,
		   const struct fpl_xstate *xs)
{
	uint64_t xcr0 = fpl_xstate_xcr0(xs), perm = fpl_xstate_permitted(xs), bv, out_bit = 0;
	uint32_t size = fpl_xstate_size_std(xs, xcr0);
	size_t alloc = size > xs->size_std_max ? size : xs->size_std_max, clen = 0;
	struct fpl_image_cfg cfg;
	struct fpl_image *img;
	struct fpl_diag d = { "" };
	uint8_t *buf;
	void *comp = NULL;
	unsigned top = 0;

	if (!xs->xsave) {
		fprintf(f, "%s image: no XSAVE here: FXSAVE's 512-byte area only\n", pre);
		return;
	}
	buf = fpl_xstate_alloc(alloc);
	img = calloc(1, sizeof(*img));
	assert_non_null(buf);
	assert_non_null(img);
	fpl_xstate_pattern(xs, perm, 0x5eed, buf);
	verdict(f, pre, "standard_valid", buf, size, cpu, xs, FPL_IMAGE_STANDARD);

	for (unsigned i = 2; i < 63 && !out_bit; i++)
		if (!(xcr0 >> i & 1))
			out_bit = 1ull << i;
	memcpy(&bv, buf + FPL_XSAVE_HDR_OFFSET, 8);
	bv |= out_bit;
	memcpy(buf + FPL_XSAVE_HDR_OFFSET, &bv, 8);
	fprintf(f, "%s image.bv_outside_xcr0.bit: %u\n", pre, __builtin_ctzll(out_bit));
	verdict(f, pre, "bv_outside_xcr0", buf, size, cpu, xs, FPL_IMAGE_STANDARD);
	bv &= ~out_bit;
	memcpy(buf + FPL_XSAVE_HDR_OFFSET, &bv, 8);

	fpl_image_cfg_init(&cfg, cpu, xs);
	cfg.format = FPL_IMAGE_STANDARD;
	if (!cfg.xsavec) {
		fprintf(f, "%s image.compacted_xcomp_short: no XSAVEC here\n", pre);
	} else if (fpl_image_decode(buf, size, &cfg, img, &d) ||
		   fpl_image_convert(img, true, perm, &comp, &clen, &d)) {
		fprintf(f, "%s image.compacted_xcomp_short: cannot convert: %s\n", pre, d.msg);
	} else {
		uint64_t xcomp, cbv;

		memcpy(&cbv, (uint8_t *)comp + FPL_XSAVE_HDR_OFFSET, 8);
		memcpy(&xcomp, (uint8_t *)comp + FPL_XSAVE_HDR_OFFSET + 8, 8);
		for (unsigned i = 0; i < 63; i++)
			if (cbv >> i & 1)
				top = i;
		xcomp &= ~(1ull << top);
		memcpy((uint8_t *)comp + FPL_XSAVE_HDR_OFFSET + 8, &xcomp, 8);
		fprintf(f, "%s image.compacted_xcomp_short.cleared: %u (%s), XSTATE_BV 0x%" PRIx64
			   ", XCOMP_BV 0x%" PRIx64 ", %zu bytes\n", pre, top, fpl_xfeature_name(top),
			cbv, xcomp, clen);
		verdict(f, pre, "compacted_xcomp_short", comp, clen, cpu, xs,
			FPL_IMAGE_COMPACTED);
	}
	free(comp);
	free(img);
	free(buf);
}

static void layout(FILE *f, const char *pre, const struct fpl_xstate *xs)
{
	uint64_t xcr0 = fpl_xstate_xcr0(xs), all = xs->user | xs->supervisor | 3;

	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *c = &xs->comp[i];
		int64_t co = fpl_xstate_offset_compacted(xs, xcr0, i);

		if (!(all >> i & 1) || !c->enumerated)
			continue;
		if (c->supervisor) {
			fprintf(f, "%s comp.%u %s: supervisor, size %u%s\n", pre, i,
				fpl_xfeature_name(i), c->size, c->align64 ? ", align64" : "");
			continue;
		}
		fprintf(f, "%s comp.%u %s: size %u, standard offset %u, ", pre, i,
			fpl_xfeature_name(i), c->size, c->offset);
		if (co >= 0)
			fprintf(f, "compacted offset %" PRId64, co);
		else
			fprintf(f, "not in XCR0");
		fprintf(f, "%s%s\n", c->align64 ? ", align64" : "", c->xfd ? ", xfd" : "");
	}
	fprintf(f, "%s size.standard: %u\n", pre, fpl_xstate_size_std(xs, xcr0));
	fprintf(f, "%s size.compacted: %u\n", pre, fpl_xstate_size_compacted(xs, xcr0));
	fprintf(f, "%s size.standard_max: %u (every user component, 0xD.0 ECX)\n", pre,
		xs->size_std_max);
}

static void benches(FILE *f, const char *pre, const struct fpl_cpu *cpu,
		    const struct fpl_xstate *xs)
{
	const char *why;
	size_t nx;

	for (size_t i = 0; i < fpl_nbenches; i++) {
		const struct fpl_bench *b = fpl_benches[i];

		char nm[64];
		bool ok;

		why = NULL;
		snprintf(nm, sizeof(nm), "bench.%s", b->name);
		if (!b->supported) {
			fprintf(f, "%s %s: every CPU (no .supported)\n", pre, nm);
			continue;
		}
		ok = b->supported(cpu, &why);
		supp(f, pre, nm, ok, why);
	}
	why = NULL;
	{
		bool ok = fpl_amx_supported(xs, &why);

		supp(f, pre, "xstate.amx", ok, why);
	}
	for (int k = 0; k < FPL_INSN_NR; k++) {
		char nm[32];

		bool ok;

		why = NULL;
		snprintf(nm, sizeof(nm), "insn.%s", fpl_save_insn_name(k));
		ok = fpl_save_insn_supported(cpu, k, &why);
		supp(f, pre, nm, ok, why);
	}
	{
		const struct fpl_xor_impl *x = fpl_xor_impls(&nx);

		for (size_t i = 0; i < nx; i++) {
			char nm[64];

			bool ok;

			why = NULL;
			snprintf(nm, sizeof(nm), "xor.%s", x[i].name);
			ok = x[i].supported(cpu, &why);
			supp(f, pre, nm, ok, why);
		}
	}
	{
		const struct fpl_chacha20_impl *c = fpl_chacha20_impls(&nx);

		for (size_t i = 0; i < nx; i++) {
			char nm[64];

			bool ok;

			why = NULL;
			snprintf(nm, sizeof(nm), "chacha20.%s", c[i].name);
			ok = c[i].supported(cpu, &why);
			supp(f, pre, nm, ok, why);
		}
	}
}

/* The suite as `fpulab run` plans it here; with tiles where AMX is usable and permitted. */
static void suite(FILE *f, const char *pre, const struct fpl_cpu *cpu,
		  const struct fpl_xstate *xs)
{
	struct fpl_suite_entry plan[32];
	size_t n;
	bool tiles;

	tiles = fpl_amx_supported(xs, NULL) &&
		(fpl_xstate_permitted(xs) & FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(fpl_suite_plan(cpu, tiles, plan, FPL_ARRAY_SIZE(plan), &n), 0);
	fprintf(f, "%s suite.tiles: %s\n", pre, tiles ? "yes" : "no");
	for (size_t i = 0; i < n; i++) {
		const struct fpl_bench *b = fpl_bench_find(plan[i].bench);
		struct fpl_diag d = { "" };
		int err;

		fprintf(f, "%s suite.%zu: %s", pre, i, plan[i].bench);
		for (size_t k = 0; k < plan[i].nopts; k++)
			fprintf(f, " --%s %s", plan[i].opts[k].name,
				plan[i].opts[k].value ? plan[i].opts[k].value : "");
		/* The session's check of the options against this CPU, before anything runs. */
		err = b ? fpl_bench_prepare(b, cpu, plan[i].opts, plan[i].nopts, NULL, &d) : -ENOENT;
		fprintf(f, " (options %s%s)\n", err ? "refused: " : "accepted", err ? d.msg : "");
	}
}

/* Invariants of a layout: components apart, sizes that agree with CPUID.(0xD,0). */
static void invariants(const char *name, const char *vn, const struct fpl_cpu *cpu,
		       const struct fpl_xstate *xs)
{
	uint64_t xcr0 = fpl_xstate_xcr0(xs);
	uint32_t r[4], end = FPL_XSAVE_LEGACY_SIZE + FPL_XSAVE_HDR_SIZE;

	if (!xs->xsave)
		return;
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *a = &xs->comp[i];
		int64_t co = fpl_xstate_offset_compacted(xs, xcr0, i);

		if (!(xcr0 >> i & 1) || a->supervisor)
			continue;
		if (a->offset < FPL_XSAVE_LEGACY_SIZE + FPL_XSAVE_HDR_SIZE)
			fail_msg("%s %s: component %u at %u inside the legacy area or header", name,
				 vn, i, a->offset);
		for (unsigned j = i + 1; j < FPL_XFEATURE_MAX; j++) {
			const struct fpl_xcomp *b = &xs->comp[j];

			if (!(xcr0 >> j & 1) || b->supervisor)
				continue;
			if (a->offset < b->offset + b->size && b->offset < a->offset + a->size)
				fail_msg("%s %s: components %u [%u,+%u) and %u [%u,+%u) overlap in "
					 "the standard form", name, vn, i, a->offset, a->size, j,
					 b->offset, b->size);
		}
		if (co < end)
			fail_msg("%s %s: component %u compacted at %" PRId64 " below %u", name, vn,
				 i, co, end);
		end = (uint32_t)co + a->size;
	}
	if (end != fpl_xstate_size_compacted(xs, xcr0))
		fail_msg("%s %s: compacted walk ends at %u, size %u", name, vn, end,
			 fpl_xstate_size_compacted(xs, xcr0));
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	if (fpl_xstate_size_std(xs, xcr0) != r[1])
		fail_msg("%s %s: standard size %u for XCR0 0x%" PRIx64 ", CPUID.(0xD,0).EBX %u",
			 name, vn, fpl_xstate_size_std(xs, xcr0), xcr0, r[1]);
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++)
		if ((xs->user >> i & 1) && !xs->comp[i].size)
			return;	/* a component of unknown size (the note says so): ECX unchecked */
	if (fpl_xstate_size_std(xs, xs->user) != r[2])
		fail_msg("%s %s: standard size %u for every user component, CPUID.(0xD,0).ECX %u",
			 name, vn, fpl_xstate_size_std(xs, xs->user), r[2]);
}

/* The leaves that must agree on every logical CPU: feature bits and all of leaf 0xD. */
static bool same_leaf(uint32_t leaf)
{
	return leaf == 0xd || leaf == 7;
}

static unsigned blocks_agree(const char *path, const struct fpl_cpu *first)
{
	struct fpl_cpu *c = malloc(sizeof(*c));
	struct fpl_diag d = { "" };
	unsigned n = 1;
	uint32_t a[4], b[4];

	assert_non_null(c);
	for (;; n++) {
		int err = fpl_cpu_load_nth(c, path, n, &d);

		if (err == -ENOENT)
			break;
		if (err)
			fail_msg("%s block %u: %s", path, n, d.msg);
		for (unsigned i = 0; i < first->nleaves; i++) {
			const struct fpl_cpuid_leaf *l = &first->leaves[i];

			if (!same_leaf(l->leaf))
				continue;
			fpl_cpu_cpuid(first, l->leaf, l->subleaf, a);
			fpl_cpu_cpuid(c, l->leaf, l->subleaf, b);
			if (memcmp(a, b, sizeof(a)))
				fail_msg("%s: logical CPU block %u differs from the first in leaf "
					 "0x%x.%u: %08x-%08x-%08x-%08x against %08x-%08x-%08x-%08x",
					 path, n, l->leaf, l->subleaf, b[0], b[1], b[2], b[3], a[0],
					 a[1], a[2], a[3]);
		}
		fpl_cpu_cpuid(first, 1, 0, a);
		fpl_cpu_cpuid(c, 1, 0, b);
		if (a[0] != b[0] || a[2] != b[2] || a[3] != b[3])
			fail_msg("%s: logical CPU block %u differs from the first in leaf 1", path,
				 n);
	}
	free(c);
	return n;
}

/* What the dump itself says before any variant: XCR0's origin and the size its OS had. */
static void dump_facts(FILE *f, const struct corpus_dump *dp, const char *path,
		       const struct fpl_cpu *cpu)
{
	struct fpl_xstate xs;
	uint32_t r[4];
	uint64_t os = 0;
	char b[200];
	unsigned nblocks = blocks_agree(path, cpu);

	fpl_xstate_init(&xs, cpu);
	fprintf(f, "# fpulab CPU corpus: what fpulab answers for %s (%s).\n", dp->file, dp->why);
	fprintf(f, "# Generated by tests/test_cpucorpus.c; regenerate with make corpus-regen "
		   "and review the diff.\n");
	fprintf(f, "cpu: %s (%s family 0x%x model 0x%x stepping 0x%x)\n", cpu->brand, cpu->vendor,
		cpu->family, cpu->model, cpu->stepping);
	fprintf(f, "logical_cpus: %u in the dump, all alike in leaves 1, 7 and 0xD\n", nblocks);
	if (cpu->note[0])
		fprintf(f, "note: %s\n", cpu->note);
	fprintf(f, "xcr0: 0x%" PRIx64 " (%s), %s\n", cpu->xcr0, names(cpu->xcr0, b, sizeof(b)),
		cpu->xcr0_known ? "the dump's xcr0 line"
		: fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE) ? "derived: CPUID.(0xD,0) EDX:EAX, "
							    "every user component it enumerates "
							    "with a size"
							  : "none: OSXSAVE clear");
	if (!xs.xsave)
		return;
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	/* The dumping OS's XCR0: the user components that end within EBX. */
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++)
		if ((xs.user >> i & 1) && !xs.comp[i].supervisor &&
		    (i < 2 || (xs.comp[i].size &&
				   xs.comp[i].offset + xs.comp[i].size <= r[1])))
			os |= 1ull << i;
	fprintf(f, "cpuid.0xd.0: EBX %u, ECX %u, EDX:EAX 0x%" PRIx64 "\n", r[1], r[2], xs.user);
	fprintf(f, "dumping_os.xcr0: 0x%" PRIx64 " (%s), the components within EBX: standard "
		   "size %u\n", os, names(os, b, sizeof(b)), fpl_xstate_size_std(&xs, os));
	if (fpl_xstate_size_std(&xs, os) != r[1])
		fail_msg("%s: CPUID.(0xD,0).EBX %u is no standard size of this layout (%u for "
			 "0x%" PRIx64 ")", dp->file, r[1], fpl_xstate_size_std(&xs, os), os);
	if (cpu->xcr0_known && fpl_xstate_size_std(&xs, cpu->xcr0) != r[1])
		fail_msg("%s: the dump's XCR0 0x%" PRIx64 " gives %u bytes, its 0xD.0 EBX %u",
			 dp->file, cpu->xcr0, fpl_xstate_size_std(&xs, cpu->xcr0), r[1]);
}

static void variant(FILE *f, const struct corpus_dump *dp, const struct fpl_cpu *base,
		    enum variant v)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_xstate_masks m;
	char pre[64], b[200];
	uint32_t frame;

	assert_non_null(cpu);
	vset(base, v, cpu);
	fpl_xstate_init(&xs, cpu);
	fpl_xstate_masks(&xs, &m);
	snprintf(pre, sizeof(pre), "[%s]", vnames[v]);
	fprintf(f, "\n%s variant: %s\n", pre, vwords[v]);
	fprintf(f, "%s xcr0: 0x%" PRIx64 " (%s)\n", pre, m.xcr0, names(m.xcr0, b, sizeof(b)));
	fprintf(f, "%s permitted: 0x%" PRIx64 " (%s)\n", pre, m.permitted,
		names(m.permitted, b, sizeof(b)));
	fprintf(f, "%s usable:", pre);
	for (int i = 0; i < FPL_FEAT_NR; i++)
		if (fpl_cpu_has(cpu, i))
			fprintf(f, " %s", fpl_feature_name(i));
	fprintf(f, "\n");
	benches(f, pre, cpu, &xs);
	suite(f, pre, cpu, &xs);
	layout(f, pre, &xs);
	frame = xs.xsave ? fpl_xstate_size_std(&xs, m.active) : FPL_XSAVE_LEGACY_SIZE;
	fprintf(f, "%s sigframe.xstate_size: %u (the standard image of 0x%" PRIx64 "%s)\n", pre,
		frame, m.active, xs.xsave ? ", then 4 bytes of magic2" : ": FXSAVE, no magic2");
	fprintf(f, "%s sigframe.max: %u (AT_MINSIGSTKSZ as the kernel computes it for XCR0)\n",
		pre, fpl_xstate_sigframe_max(&xs));
	fprintf(f, "%s altstack.min: %u (the larger of that and MINSIGSTKSZ %u)\n", pre,
		fpl_xstate_altstack_min(&xs), FPL_KERNEL_MINSIGSTKSZ);
	images(f, pre, cpu, &xs);
	invariants(dp->file, vnames[v], cpu, &xs);
	free(cpu);
}

/* The expected text of one dump, into a malloc'd string. */
static char *expected_of(const struct corpus_dump *dp)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag d = { "" };
	char path[256], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(cpu);
	assert_non_null(f);
	snprintf(path, sizeof(path), DIR "%s", dp->file);
	if (fpl_cpu_load(cpu, path, &d))
		fail_msg("%s: %s", path, d.msg);
	dump_facts(f, dp, path, cpu);
	for (int v = 0; v < V_NR; v++)
		variant(f, dp, cpu, v);
	fclose(f);
	free(cpu);
	return text;
}

static void expected_path(const struct corpus_dump *dp, char *path, size_t n)
{
	const char *dot = strrchr(dp->file, '.');

	snprintf(path, n, DIR "%.*s.expected", (int)(dot - dp->file), dp->file);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t n = 0;
	ssize_t k;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&s, &n);
	char buf[4096];

	while ((k = (ssize_t)fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, (size_t)k, m);
	fclose(m);
	fclose(f);
	return s;
}

/* 0 when equal; otherwise the first differing line is printed and 1 returned. */
static int first_diff(const char *path, const char *want, const char *got)
{
	unsigned line = 1;

	while (*want || *got) {
		size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");

		if (a != b || memcmp(want, got, a)) {
			print_error("%s:%u differs:\n  committed: %.*s\n  now:       %.*s\n"
				    "(regenerate with `make corpus-regen`, then review the diff)\n",
				    path, line, (int)a, want, (int)b, got);
			return 1;
		}
		want += a + (want[a] == '\n');
		got += b + (got[b] == '\n');
		line++;
	}
	return 0;
}

static void test_corpus(void **state)
{
	const struct corpus_dump *dp = *state;
	char path[256], *now = expected_of(dp), *was;
	const char *regen = getenv("FPL_REGEN");

	expected_path(dp, path, sizeof(path));
	if (regen && !strcmp(regen, "1")) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(now, f);
		assert_int_equal(fclose(f), 0);
		print_message("wrote %s\n", path);
		free(now);
		return;
	}
	was = slurp(path);
	if (!was)
		fail_msg("%s missing: run `make corpus-regen` and review it", path);
	if (first_diff(path, was, now)) {
		free(was);
		free(now);
		fail();
	}
	free(was);
	free(now);
}

/* The seam refuses an XCR0 that XSETBV would refuse, and a live snapshot. */
static void test_seam_refuses(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag d = { "" };
	uint32_t r[4];

	(void)state;
	assert_non_null(cpu);
	assert_int_equal(fpl_cpu_load(cpu, DIR "sapphirerapids.aida", &d), 0);
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x2, 0x2, &d), -EINVAL);	/* no x87 */
	assert_non_null(strstr(d.msg, "x87"));
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x27, 0x27, &d), -EINVAL);	/* opmask alone */
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x20007, 0x20007, &d), -EINVAL); /* TILECFG alone */
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x80007, 0x80007, &d), -EINVAL); /* APX not here */
	/* Accepted: EBX follows, as the CPU computes it from XCR0 (SDM vol. 1, 13.2). */
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x7, 0x7, &d), 0);
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	assert_int_equal(r[1], 832);
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x602e7, 0x202e7, &d), 0);
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	assert_int_equal(r[1], 11008);
	assert_int_equal(cpu->xcomp_perm, 0x202e7);
	/* Nehalem has no XCR0 at all. */
	assert_int_equal(fpl_cpu_load(cpu, DIR "nehalem-ep.aida", &d), 0);
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x7, 0x7, &d), -EINVAL);
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x3, 0x3, &d), 0);
	cpu->live = true;
	assert_int_equal(fpl_cpu_set_xcr0(cpu, 0x3, 0x3, &d), -EINVAL);
	free(cpu);
}

/* The blocks of a multi-CPU dump are read one by one, and the count is exact. */
static void test_load_nth(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag d = { "" };
	uint32_t r[4];

	(void)state;
	assert_non_null(cpu);
	/* Jasper Lake N5100: four logical CPUs; leaf 1 EBX[31:24] is each one's APIC ID. */
	for (unsigned n = 0; n < 4; n++) {
		assert_int_equal(fpl_cpu_load_nth(cpu, DIR "jasperlake-n5100.aida", n, &d), 0);
		fpl_cpu_cpuid(cpu, 1, 0, r);
		assert_int_equal(r[1] >> 24, 2 * n);
	}
	assert_int_equal(fpl_cpu_load_nth(cpu, DIR "jasperlake-n5100.aida", 4, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "4 found"));
	/* fpulab's own format holds one. */
	assert_int_equal(fpl_cpu_load_nth(cpu, DIR "zen3-pku-kvm.cpuid", 0, &d), 0);
	assert_int_equal(fpl_cpu_load_nth(cpu, DIR "zen3-pku-kvm.cpuid", 1, &d), -ENOENT);
	free(cpu);
}

/*
 * A real Zen 3 dump taken under an OS with XCR0 x87|SSE|AVX gives 0xD.9
 * (PKRU, enumerated in 0xD.0) as zeros: loaded, PKRU left out of the
 * derived XCR0 with the note saying why (the loader refused the dump before).
 */
static void test_zero_subleaf(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_diag d = { "" };

	(void)state;
	assert_non_null(cpu);
	assert_int_equal(fpl_cpu_load(cpu, DIR "zen3-5950x.aida", &d), 0);
	assert_int_equal(fpl_cpu_xfeatures_user(cpu), 0x207);
	assert_int_equal(cpu->xcr0, 0x7);
	assert_false(cpu->xcr0_known);
	assert_non_null(strstr(cpu->note, "subleaf 9 reads zeros"));
	free(cpu);
}

/*
 * The live twin of sigframe.max: on the running CPU, what the layout gives
 * is the kernel's own AT_MINSIGSTKSZ (3376 on the Zen 3 guest with XCR0
 * 0x207). A kernel built without IA32 emulation has the 64-bit frame (440
 * bytes) and no fsave header: accepted, and said.
 */
static void test_sigframe_max_live(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	unsigned long at = getauxval(51);	/* AT_MINSIGSTKSZ */
	uint32_t mine, plain;

	(void)state;
	assert_non_null(cpu);
	fpl_cpu_read(cpu);
	fpl_xstate_init(&xs, cpu);
	free(cpu);
	if (!at) {
		print_message("the kernel gives no AT_MINSIGSTKSZ (before 5.14): skipped\n");
		skip();
	}
	mine = fpl_xstate_sigframe_max(&xs);
	plain = (440 + 15 + 63 + (xs.xsave ? fpl_xstate_size_std(&xs, xs.xcr0) + 4 : 512) + 15) &
		~15u;
	if (at == plain && at != mine)
		print_message("AT_MINSIGSTKSZ %lu: a kernel without IA32 emulation (layout gives %u "
			      "with it)\n", at, mine);
	else
		assert_int_equal(at, mine);
	assert_true(fpl_xstate_altstack_min(&xs) >= FPL_KERNEL_MINSIGSTKSZ);
}

int main(void)
{
	struct CMUnitTest t[FPL_ARRAY_SIZE(dumps) + 4];
	size_t n = 0;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(dumps); i++)
		t[n++] = (struct CMUnitTest){ dumps[i].file, test_corpus, NULL, NULL,
					      (void *)&dumps[i] };
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_seam_refuses);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_load_nth);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_zero_subleaf);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_sigframe_max_live);
	return _cmocka_run_group_tests("cpucorpus", t, n, NULL, NULL);
}
