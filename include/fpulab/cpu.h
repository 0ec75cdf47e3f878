/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CPU snapshot: CPUID leaves and XCR0 read once, and feature predicates on them. */
#ifndef FPULAB_CPU_H
#define FPULAB_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fpulab/base.h"

/*
 * Features fpulab cares about. fpl_cpu_has() answers "usable": the CPUID bit
 * is set AND, for anything with register state, the OS enabled that state in
 * XCR0 (and CR4.OSXSAVE for the XSAVE family). fpl_cpu_has_cpuid() is the
 * bare CPUID bit.
 */
enum fpl_feature {
	FPL_FEAT_FXSR,
	FPL_FEAT_SSE,
	FPL_FEAT_SSE2,
	FPL_FEAT_SSE3,
	FPL_FEAT_SSSE3,
	FPL_FEAT_SSE4_1,
	FPL_FEAT_SSE4_2,
	FPL_FEAT_AVX,
	FPL_FEAT_AVX2,
	FPL_FEAT_FMA,
	FPL_FEAT_AVX512F,
	FPL_FEAT_AVX512DQ,
	FPL_FEAT_AVX512CD,
	FPL_FEAT_AVX512BW,
	FPL_FEAT_AVX512VL,
	FPL_FEAT_AVX512IFMA,
	FPL_FEAT_AVX512VBMI,
	FPL_FEAT_AVX512VBMI2,
	FPL_FEAT_AVX512VNNI,
	FPL_FEAT_AVX512BITALG,
	FPL_FEAT_AVX512VPOPCNTDQ,
	FPL_FEAT_AVX512BF16,
	FPL_FEAT_AVX512FP16,
	FPL_FEAT_AMX_TILE,
	FPL_FEAT_AMX_INT8,
	FPL_FEAT_AMX_BF16,
	FPL_FEAT_XSAVE,
	FPL_FEAT_OSXSAVE,
	FPL_FEAT_XSAVEOPT,
	FPL_FEAT_XSAVEC,
	FPL_FEAT_XGETBV1,
	FPL_FEAT_XSAVES,
	FPL_FEAT_XFD,
	FPL_FEAT_PKU,
	FPL_FEAT_OSPKE,
	FPL_FEAT_MPX,
	FPL_FEAT_RDTSCP,
	FPL_FEAT_TSC_INVARIANT,
	FPL_FEAT_HYPERVISOR,
	FPL_FEAT_NR
};

struct fpl_cpuid_leaf {
	uint32_t leaf, subleaf;
	uint32_t eax, ebx, ecx, edx;
};

#define FPL_CPU_MAX_LEAVES 384

struct fpl_cpu {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;	/* display values */
	uint64_t xcr0;
	/* false: a dump without XCR0; every user component enumerated is assumed on */
	bool xcr0_known;
	bool live;		/* read from the running CPU, not from a dump */
	/*
	 * What ARCH_GET_XCOMP_PERM answers for this snapshot, where
	 * fpl_cpu_set_xcr0() gave it (a dump only): false means the kernel is
	 * asked (live) or the default before ARCH_REQ_XCOMP_PERM is assumed.
	 */
	bool xcomp_perm_known;
	uint64_t xcomp_perm;
	char source[256];	/* "live" or the dump's file name */
	/*
	 * How a dump was interpreted: what needed guessing, and the leaves it
	 * lacks that fpulab reads (each with what is unknown for it), "; " apart.
	 */
	char note[512];
	unsigned nleaves;
	struct fpl_cpuid_leaf leaves[FPL_CPU_MAX_LEAVES];
};

/* Read the running CPU (CPUID, XGETBV(0) when OSXSAVE). Returns 0. */
int fpl_cpu_read(struct fpl_cpu *cpu);

/*
 * Load a dump: fpulab's own format (fpl_cpu_save) or InstLatx64/AIDA64's
 * "CPUID 0000000D: EAX-EBX-ECX-EDX [SL 02]". Only the first logical CPU is
 * read. Leaves the dump lacks are named in cpu->note and read as zeros.
 * Returns 0, -ENOENT/-EIO for the file, -EINVAL for a malformed line, a
 * leaf given twice, sizes no CPU has, or a file without any CPUID leaf
 * (diag names the file, and the line where there is one).
 */
int fpl_cpu_load(struct fpl_cpu *cpu, const char *path, struct fpl_diag *diag);
int fpl_cpu_load_stream(struct fpl_cpu *cpu, FILE *f, const char *name,
			struct fpl_diag *diag);
/*
 * Logical CPU n (0 is the first) of an AIDA64 dump that holds several
 * ("Logical CPU #n" headers, or leaf 0 starting again); fpulab's own format
 * holds one. As fpl_cpu_load otherwise; -ENOENT with diag when the dump has
 * no logical CPU n.
 */
int fpl_cpu_load_nth(struct fpl_cpu *cpu, const char *path, unsigned n, struct fpl_diag *diag);

/*
 * The one seam for what the OS answers on a snapshot from a dump: XGETBV(0)
 * (xcr0) and ARCH_GET_XCOMP_PERM (perm, kept as xcr0 & perm), as another OS
 * on the same CPU would have set them. CPUID.(0xD,0).EBX, which the CPU
 * computes from XCR0, becomes the standard size for the new XCR0 (from the
 * dump's own 0xD.n offsets and sizes); nothing else in the leaves changes.
 * xcr0 must be one XSETBV accepts: x87 set, a subset of the user components
 * of 0xD.0 EDX:EAX, AVX with SSE, the three AVX-512 components together and
 * with AVX, both AMX components together. Without OSXSAVE there is no XCR0:
 * only x87|SSE (or 0) is accepted and nothing changes but perm. 0, or
 * -EINVAL with diag (also for a live snapshot: its XCR0 is the CPU's).
 */
int fpl_cpu_set_xcr0(struct fpl_cpu *cpu, uint64_t xcr0, uint64_t perm, struct fpl_diag *diag);
/* Write the snapshot in fpulab's own dump format. Returns 0 or -errno. */
int fpl_cpu_save(const struct fpl_cpu *cpu, FILE *f);

/* CPUID from the snapshot; a leaf that was not captured reads as zeros (returns false). */
bool fpl_cpu_cpuid(const struct fpl_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		   uint32_t out[4]);

bool fpl_cpu_has(const struct fpl_cpu *cpu, enum fpl_feature f);
bool fpl_cpu_has_cpuid(const struct fpl_cpu *cpu, enum fpl_feature f);
const char *fpl_feature_name(enum fpl_feature f);
/* Lookup by name (case-insensitive, "avx512f"); -1 if unknown. */
int fpl_feature_by_name(const char *name);

/* Components the CPU enumerates in CPUID 0xD.0 (user) and 0xD.1 ECX:EDX (supervisor). */
uint64_t fpl_cpu_xfeatures_user(const struct fpl_cpu *cpu);
uint64_t fpl_cpu_xfeatures_supervisor(const struct fpl_cpu *cpu);

/*
 * The L1 data cache of the snapshot's CPU in bytes: Intel leaf 4, AMD leaf
 * 0x8000001D (or 0x80000005 ECX[31:24] KiB). 0 when the snapshot does not say.
 */
size_t fpl_cpu_l1d_bytes(const struct fpl_cpu *cpu);

/*
 * Peak L1D accesses per core cycle of one width (8, 16, 32 or 64 bytes) on
 * the snapshot's core, from the vendor's optimization guide (source names
 * it). A fraction where the data path is narrower than the access (half for
 * a 512-bit access done as two 256-bit ones). known is false for a CPU not
 * in the table: then the figures are a stated default.
 */
struct fpl_cpu_lsu {
	double loads, stores;
	unsigned width;
	const char *core;	/* "AMD Zen 3/Zen 4 (family 19h)" */
	const char *source;	/* the guide and what it says */
	bool known;
};
/* 0, or -EINVAL for another width. */
int fpl_cpu_lsu(const struct fpl_cpu *cpu, unsigned width, struct fpl_cpu_lsu *out);

/*
 * Direct instruction helpers for the running CPU. fpl_xgetbv() must only be
 * called when OSXSAVE is set (ECX=1 also needs XGETBV1).
 */
uint64_t fpl_xgetbv(uint32_t ecx);
void fpl_cpuid_raw(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* XINUSE (XGETBV ECX=1) where the running CPU has it; false otherwise. */
bool fpl_xinuse(const struct fpl_cpu *cpu, uint64_t *xinuse);

#endif
