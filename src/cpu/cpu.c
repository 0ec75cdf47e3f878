// SPDX-License-Identifier: GPL-3.0-or-later
/* CPUID/XGETBV snapshot of the running CPU, and feature predicates on any snapshot. */
#include <cpuid.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "fpulab/cpu.h"
#include "cpu_internal.h"

enum reg { EAX, EBX, ECX, EDX };

/* XCR0 bits a feature's registers need before the OS lets a program use them. */
#define XCR0_SSE	0x2ull
#define XCR0_AVX	0x6ull
#define XCR0_AVX512	0xe6ull
#define XCR0_MPX	0x18ull
#define XCR0_PKRU	0x200ull
#define XCR0_AMX	0x60000ull

struct feature_def {
	const char *name;
	uint32_t leaf, subleaf;
	enum reg reg;
	unsigned bit;
	uint64_t xcr0;		/* state that must be enabled */
	bool osxsave;		/* instruction faults unless CR4.OSXSAVE */
	int also;		/* another feature that must be usable, or -1 */
};

static const struct feature_def features[FPL_FEAT_NR] = {
	[FPL_FEAT_FXSR] = { "fxsr", 1, 0, EDX, 24, 0, false, -1 },
	[FPL_FEAT_SSE] = { "sse", 1, 0, EDX, 25, 0, false, -1 },
	[FPL_FEAT_SSE2] = { "sse2", 1, 0, EDX, 26, 0, false, -1 },
	[FPL_FEAT_SSE3] = { "sse3", 1, 0, ECX, 0, 0, false, -1 },
	[FPL_FEAT_SSSE3] = { "ssse3", 1, 0, ECX, 9, 0, false, -1 },
	[FPL_FEAT_SSE4_1] = { "sse4_1", 1, 0, ECX, 19, 0, false, -1 },
	[FPL_FEAT_SSE4_2] = { "sse4_2", 1, 0, ECX, 20, 0, false, -1 },
	[FPL_FEAT_AVX] = { "avx", 1, 0, ECX, 28, XCR0_AVX, true, -1 },
	[FPL_FEAT_AVX2] = { "avx2", 7, 0, EBX, 5, XCR0_AVX, true, FPL_FEAT_AVX },
	[FPL_FEAT_FMA] = { "fma", 1, 0, ECX, 12, XCR0_AVX, true, FPL_FEAT_AVX },
	[FPL_FEAT_AVX512F] = { "avx512f", 7, 0, EBX, 16, XCR0_AVX512, true, -1 },
	[FPL_FEAT_AVX512DQ] = { "avx512dq", 7, 0, EBX, 17, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512CD] = { "avx512cd", 7, 0, EBX, 28, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512BW] = { "avx512bw", 7, 0, EBX, 30, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512VL] = { "avx512vl", 7, 0, EBX, 31, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512IFMA] = { "avx512ifma", 7, 0, EBX, 21, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512VBMI] = { "avx512vbmi", 7, 0, ECX, 1, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512VBMI2] = { "avx512vbmi2", 7, 0, ECX, 6, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512VNNI] = { "avx512vnni", 7, 0, ECX, 11, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512BITALG] = { "avx512bitalg", 7, 0, ECX, 12, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512VPOPCNTDQ] = { "avx512vpopcntdq", 7, 0, ECX, 14, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512BF16] = { "avx512bf16", 7, 1, EAX, 5, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AVX512FP16] = { "avx512fp16", 7, 0, EDX, 23, XCR0_AVX512, true, FPL_FEAT_AVX512F },
	[FPL_FEAT_AMX_TILE] = { "amx_tile", 7, 0, EDX, 24, XCR0_AMX, true, -1 },
	[FPL_FEAT_AMX_INT8] = { "amx_int8", 7, 0, EDX, 25, XCR0_AMX, true, FPL_FEAT_AMX_TILE },
	[FPL_FEAT_AMX_BF16] = { "amx_bf16", 7, 0, EDX, 22, XCR0_AMX, true, FPL_FEAT_AMX_TILE },
	[FPL_FEAT_XSAVE] = { "xsave", 1, 0, ECX, 26, 0, true, -1 },
	[FPL_FEAT_OSXSAVE] = { "osxsave", 1, 0, ECX, 27, 0, false, -1 },
	[FPL_FEAT_XSAVEOPT] = { "xsaveopt", 0xd, 1, EAX, 0, 0, true, FPL_FEAT_XSAVE },
	[FPL_FEAT_XSAVEC] = { "xsavec", 0xd, 1, EAX, 1, 0, true, FPL_FEAT_XSAVE },
	[FPL_FEAT_XGETBV1] = { "xgetbv1", 0xd, 1, EAX, 2, 0, true, FPL_FEAT_XSAVE },
	[FPL_FEAT_XSAVES] = { "xsaves", 0xd, 1, EAX, 3, 0, true, FPL_FEAT_XSAVE },
	[FPL_FEAT_XFD] = { "xfd", 0xd, 1, EAX, 4, 0, true, FPL_FEAT_XSAVE },
	[FPL_FEAT_PKU] = { "pku", 7, 0, ECX, 3, XCR0_PKRU, true, FPL_FEAT_OSPKE },
	[FPL_FEAT_OSPKE] = { "ospke", 7, 0, ECX, 4, 0, false, -1 },
	[FPL_FEAT_MPX] = { "mpx", 7, 0, EBX, 14, XCR0_MPX, true, -1 },
	[FPL_FEAT_RDTSCP] = { "rdtscp", 0x80000001, 0, EDX, 27, 0, false, -1 },
	[FPL_FEAT_TSC_INVARIANT] = { "tsc_invariant", 0x80000007, 0, EDX, 8, 0, false, -1 },
	[FPL_FEAT_HYPERVISOR] = { "hypervisor", 1, 0, ECX, 31, 0, false, -1 },
};

void fpl_cpuid_raw(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	__cpuid_count(leaf, subleaf, out[0], out[1], out[2], out[3]);
}

uint64_t fpl_xgetbv(uint32_t ecx)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return ((uint64_t)hi << 32) | lo;
}

bool fpl_cpu_cpuid(const struct fpl_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		   uint32_t out[4])
{
	for (unsigned i = 0; i < cpu->nleaves; i++) {
		const struct fpl_cpuid_leaf *l = &cpu->leaves[i];

		if (l->leaf == leaf && l->subleaf == subleaf) {
			out[0] = l->eax;
			out[1] = l->ebx;
			out[2] = l->ecx;
			out[3] = l->edx;
			return true;
		}
	}
	out[0] = out[1] = out[2] = out[3] = 0;
	return false;
}

bool fpl_cpu_has_cpuid(const struct fpl_cpu *cpu, enum fpl_feature f)
{
	const struct feature_def *d;
	uint32_t r[4];

	if ((unsigned)f >= FPL_FEAT_NR)
		return false;
	d = &features[f];
	fpl_cpu_cpuid(cpu, d->leaf, d->subleaf, r);
	return (r[d->reg] >> d->bit) & 1;
}

bool fpl_cpu_has(const struct fpl_cpu *cpu, enum fpl_feature f)
{
	const struct feature_def *d;

	if (!fpl_cpu_has_cpuid(cpu, f))
		return false;
	d = &features[f];
	if (d->osxsave && !fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE))
		return false;
	if (d->xcr0 && (cpu->xcr0 & d->xcr0) != d->xcr0)
		return false;
	/* With XSAVE enabled, SSE state must be enabled in XCR0 as well. */
	if ((f == FPL_FEAT_SSE || f == FPL_FEAT_SSE2) &&
	    fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE) && !(cpu->xcr0 & XCR0_SSE))
		return false;
	if (d->also >= 0 && !fpl_cpu_has(cpu, (enum fpl_feature)d->also))
		return false;
	return true;
}

const char *fpl_feature_name(enum fpl_feature f)
{
	return (unsigned)f < FPL_FEAT_NR ? features[f].name : "?";
}

int fpl_feature_by_name(const char *name)
{
	for (unsigned i = 0; i < FPL_FEAT_NR; i++)
		if (!strcasecmp(name, features[i].name))
			return (int)i;
	return -1;
}

uint64_t fpl_cpu_xfeatures_user(const struct fpl_cpu *cpu)
{
	uint32_t r[4];

	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	return ((uint64_t)r[3] << 32) | r[0];
}

uint64_t fpl_cpu_xfeatures_supervisor(const struct fpl_cpu *cpu)
{
	uint32_t r[4];

	fpl_cpu_cpuid(cpu, 0xd, 1, r);
	return ((uint64_t)r[3] << 32) | r[2];
}

/*
 * Callers read XINUSE right after setting register state, so nothing here may
 * touch a vector register: clang turns the leaf copy in fpl_cpu_cpuid() into
 * an SSE move, which marks SSE in use. Decide once from raw CPUID, in
 * general registers, and cache (CPUID traps to the hypervisor in a VM).
 */
static int running_has_xgetbv1(void)
{
	static int known = -1;
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	uint32_t a, b, c, d;

	if (k < 0) {
		__cpuid_count(1, 0, a, b, c, d);
		k = (c >> 27) & 1;	/* OSXSAVE */
		if (k) {
			__cpuid_count(0xd, 1, a, b, c, d);
			k = (a >> 2) & 1;
		}
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}

bool fpl_xinuse(const struct fpl_cpu *cpu, uint64_t *xinuse)
{
	if (!cpu->live || !running_has_xgetbv1())
		return false;
	*xinuse = fpl_xgetbv(1);
	return true;
}

int fpl_cpu_add_leaf(struct fpl_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		     const uint32_t r[4])
{
	struct fpl_cpuid_leaf *l = NULL;

	for (unsigned i = 0; i < cpu->nleaves; i++)
		if (cpu->leaves[i].leaf == leaf && cpu->leaves[i].subleaf == subleaf)
			l = &cpu->leaves[i];
	if (!l) {
		if (cpu->nleaves >= FPL_CPU_MAX_LEAVES)
			return -ENOSPC;
		l = &cpu->leaves[cpu->nleaves++];
	}
	*l = (struct fpl_cpuid_leaf){ leaf, subleaf, r[0], r[1], r[2], r[3] };
	return 0;
}

/* Vendor, brand and display family/model/stepping from the captured leaves. */
void fpl_cpu_decode(struct fpl_cpu *cpu)
{
	uint32_t r[4];
	unsigned base_family, base_model;

	fpl_cpu_cpuid(cpu, 0, 0, r);
	memcpy(cpu->vendor, &r[1], 4);
	memcpy(cpu->vendor + 4, &r[3], 4);
	memcpy(cpu->vendor + 8, &r[2], 4);
	cpu->vendor[12] = 0;

	fpl_cpu_cpuid(cpu, 1, 0, r);
	base_family = (r[0] >> 8) & 0xf;
	base_model = (r[0] >> 4) & 0xf;
	cpu->stepping = r[0] & 0xf;
	cpu->family = base_family;
	if (base_family == 0xf)
		cpu->family += (r[0] >> 20) & 0xff;
	cpu->model = base_model;
	if (base_family == 0x6 || base_family == 0xf)
		cpu->model |= ((r[0] >> 16) & 0xf) << 4;

	memset(cpu->brand, 0, sizeof(cpu->brand));
	for (unsigned i = 0; i < 3; i++) {
		fpl_cpu_cpuid(cpu, 0x80000002 + i, 0, r);
		memcpy(cpu->brand + 16 * i, r, 16);
	}
	cpu->brand[48] = 0;
	/* Brand strings are padded with spaces on either side. */
	size_t n = strlen(cpu->brand), s = 0;

	while (n && cpu->brand[n - 1] == ' ')
		cpu->brand[--n] = 0;
	while (cpu->brand[s] == ' ')
		s++;
	memmove(cpu->brand, cpu->brand + s, n - s + 1);
}

static void read_leaf(struct fpl_cpu *cpu, uint32_t leaf, uint32_t subleaf)
{
	uint32_t r[4];

	fpl_cpuid_raw(leaf, subleaf, r);
	fpl_cpu_add_leaf(cpu, leaf, subleaf, r);
}

/* How many subleaves of a leaf are worth keeping. */
static void read_subleaves(struct fpl_cpu *cpu, uint32_t leaf)
{
	uint32_t r[4];
	unsigned n;

	fpl_cpuid_raw(leaf, 0, r);
	fpl_cpu_add_leaf(cpu, leaf, 0, r);
	switch (leaf) {
	case 0x4: case 0x8000001d:
		for (n = 1; n < 16 && (r[0] & 0x1f); n++) {
			fpl_cpuid_raw(leaf, n, r);
			fpl_cpu_add_leaf(cpu, leaf, n, r);
		}
		break;
	case 0x7: case 0x14: case 0x1d:
		n = r[0] < 8 ? r[0] : 8;
		for (unsigned s = 1; s <= n; s++)
			read_leaf(cpu, leaf, s);
		break;
	case 0xb: case 0x1f:
		for (n = 1; n < 8 && (r[2] & 0xff00); n++) {
			fpl_cpuid_raw(leaf, n, r);
			fpl_cpu_add_leaf(cpu, leaf, n, r);
		}
		break;
	case 0xd:
		for (n = 1; n < 64; n++) {
			fpl_cpuid_raw(leaf, n, r);
			if (n < 2 || r[0] || r[1] || r[2] || r[3])
				fpl_cpu_add_leaf(cpu, leaf, n, r);
		}
		break;
	default:
		break;
	}
}

int fpl_cpu_read(struct fpl_cpu *cpu)
{
	uint32_t r[4], max;

	memset(cpu, 0, sizeof(*cpu));
	cpu->live = true;
	snprintf(cpu->source, sizeof(cpu->source), "live");

	fpl_cpuid_raw(0, 0, r);
	max = r[0] < 0x30 ? r[0] : 0x30;
	for (uint32_t l = 0; l <= max; l++)
		read_subleaves(cpu, l);
	fpl_cpuid_raw(1, 0, r);
	if (r[2] & (1u << 31)) {
		fpl_cpuid_raw(0x40000000, 0, r);
		max = r[0] >= 0x40000000 && r[0] < 0x40000010 ? r[0] : 0x40000001;
		for (uint32_t l = 0x40000000; l <= max; l++)
			read_leaf(cpu, l, 0);
	}
	fpl_cpuid_raw(0x80000000, 0, r);
	max = r[0] < 0x80000040 ? r[0] : 0x80000040;
	for (uint32_t l = 0x80000000; l <= max; l++)
		read_subleaves(cpu, l);

	fpl_cpu_decode(cpu);
	if (fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE))
		cpu->xcr0 = fpl_xgetbv(0);
	cpu->xcr0_known = true;
	return 0;
}

/* The standard XSAVE size for xcr0 from the snapshot's own 0xD.n leaves, as CPUID.(0xD,0).EBX. */
static uint32_t std_size_for(const struct fpl_cpu *cpu, uint64_t xcr0)
{
	uint32_t size = 576, r[4];

	for (unsigned i = 2; i < 63; i++) {
		if (!(xcr0 >> i & 1))
			continue;
		fpl_cpu_cpuid(cpu, 0xd, i, r);
		if (!(r[2] & 1) && r[1] + r[0] > size)	/* user components only */
			size = r[1] + r[0];
	}
	return size;
}

int fpl_cpu_set_xcr0(struct fpl_cpu *cpu, uint64_t xcr0, uint64_t perm, struct fpl_diag *diag)
{
	uint64_t user = fpl_cpu_xfeatures_user(cpu) & ~fpl_cpu_xfeatures_supervisor(cpu);
	const char *bad = NULL;
	uint32_t r[4];

	if (cpu->live)
		return fpl_diag_set(diag, -EINVAL, "XCR0 0x%llx: the snapshot is the running CPU's; "
				    "only a dump's XCR0 can be set", (unsigned long long)xcr0);
	if (!fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE)) {
		if (xcr0 & ~0x3ull)
			return fpl_diag_set(diag, -EINVAL, "XCR0 0x%llx: %s has no XCR0 (CPUID.1:ECX "
					    "OSXSAVE clear): x87 and SSE only",
					    (unsigned long long)xcr0, cpu->source);
		cpu->xcomp_perm = perm & 0x3;
		cpu->xcomp_perm_known = true;
		return 0;
	}
	if (!(xcr0 & 1))
		bad = "x87 (bit 0) must be set";
	else if (xcr0 & ~user)
		bad = "it has components CPUID.(0xD,0) does not enumerate as user state";
	else if ((xcr0 & XCR0_AVX) == 0x4)
		bad = "AVX (bit 2) needs SSE (bit 1)";
	else if ((xcr0 & 0xe0) && ((xcr0 & 0xe0) != 0xe0 || (xcr0 & XCR0_AVX) != XCR0_AVX))
		bad = "the AVX-512 components (bits 5-7) go together, with AVX";
	else if ((xcr0 & XCR0_AMX) && (xcr0 & XCR0_AMX) != XCR0_AMX)
		bad = "the AMX components (bits 17, 18) go together";
	if (bad)
		return fpl_diag_set(diag, -EINVAL, "XCR0 0x%llx for %s: XSETBV would refuse it: %s",
				    (unsigned long long)xcr0, cpu->source, bad);
	cpu->xcr0 = xcr0;
	cpu->xcr0_known = true;
	cpu->xcomp_perm = perm & xcr0;
	cpu->xcomp_perm_known = true;
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	r[1] = std_size_for(cpu, xcr0);
	return fpl_cpu_add_leaf(cpu, 0xd, 0, r) ? fpl_diag_set(diag, -EINVAL, "no leaf 0xD") : 0;
}
