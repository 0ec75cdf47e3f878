// SPDX-License-Identifier: GPL-3.0-or-later
/* The L1 data cache: its size from CPUID, and the loads and stores per cycle each core can do. */
#include <errno.h>
#include <string.h>

#include "fpulab/cpu.h"

static bool is_amd(const struct fpl_cpu *cpu)
{
	return !strcmp(cpu->vendor, "AuthenticAMD") || !strcmp(cpu->vendor, "HygonGenuine");
}

/*
 * Intel leaf 4 and AMD leaf 0x8000001D share one layout: EAX[4:0] type (0
 * none, 1 data, 3 unified), EAX[7:5] level, EBX ways-1 [31:22], partitions-1
 * [21:12], line-1 [11:0], ECX sets-1.
 */
static size_t l1d_from_leaf(const struct fpl_cpu *cpu, uint32_t leaf)
{
	uint32_t r[4];

	for (uint32_t s = 0; s < 16; s++) {
		unsigned type;

		if (!fpl_cpu_cpuid(cpu, leaf, s, r))
			return 0;
		type = r[0] & 0x1f;
		if (!type)
			return 0;
		if ((type == 1 || type == 3) && ((r[0] >> 5) & 7) == 1)
			return (size_t)((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
			       ((r[1] & 0xfff) + 1) * ((size_t)r[2] + 1);
	}
	return 0;
}

size_t fpl_cpu_l1d_bytes(const struct fpl_cpu *cpu)
{
	uint32_t r[4];
	size_t n;

	if (!cpu)
		return 0;
	fpl_cpu_cpuid(cpu, 0, 0, r);
	if (!is_amd(cpu))
		return r[0] >= 4 ? l1d_from_leaf(cpu, 4) : 0;
	fpl_cpu_cpuid(cpu, 0x80000000, 0, r);
	n = r[0] >= 0x8000001d ? l1d_from_leaf(cpu, 0x8000001d) : 0;
	if (!n && r[0] >= 0x80000005) {
		/* the older leaf: ECX[31:24] is the L1D in KiB */
		fpl_cpu_cpuid(cpu, 0x80000005, 0, r);
		n = (size_t)(r[2] >> 24) << 10;
	}
	return n;
}

/*
 * Accesses to L1D per core cycle at each width (8, 16, 32, 64 bytes): a
 * fraction where an access is split (a 256-bit access on a 128-bit path
 * counts half). The figures are the vendors' peak rates; gathered from the
 * guides named in source, by core.
 */
struct lsu_row {
	const char *core;
	double loads[4], stores[4];
	const char *source;
};

static const struct lsu_row amd_zen1 = {
	"AMD Zen/Zen+ (family 17h models 00h-2Fh, Hygon 18h)",
	{ 2, 2, 1, 0.5 }, { 1, 1, 0.5, 0.25 },
	"Software Optimization Guide for AMD Family 17h Processors (pub. 55723), "
	"load-store unit: two loads and one store per cycle over 128-bit data paths, a "
	"256-bit access taking two"
};
static const struct lsu_row amd_zen2 = {
	"AMD Zen 2 (family 17h models 30h and later)",
	{ 2, 2, 2, 1 }, { 1, 1, 1, 0.5 },
	"Software Optimization Guide for AMD Family 17h Models 30h and Greater (pub. 56305), "
	"load-store unit: two loads and one store of up to 256 bits per cycle"
};
static const struct lsu_row amd_zen34 = {
	"AMD Zen 3/Zen 4 (family 19h)",
	{ 3, 2, 2, 1 }, { 2, 1, 1, 0.5 },
	"Software Optimization Guides for AMD Family 19h (pub. 56665) and the AMD Zen4 "
	"microarchitecture (pub. 57647), load-store unit: three memory operations per cycle, "
	"up to three loads and up to two stores of general registers (a read-modify-write "
	"is one operation); vectors two loads and one store of up to 256 bits, a 512-bit "
	"access taking two"
};
static const struct lsu_row amd_zen5 = {
	"AMD Zen 5 (family 1Ah)",
	{ 4, 2, 2, 2 }, { 2, 1, 1, 1 },
	"Software Optimization Guide for the AMD Zen5 microarchitecture (pub. 58455), "
	"load-store unit: four memory operations per cycle, up to four loads and two stores "
	"of general registers; vectors two loads and one store of up to 512 bits (the "
	"desktop and server data path; mobile parts have a narrower one and stay below)"
};
static const struct lsu_row intel_snb = {
	"Intel Sandy Bridge/Ivy Bridge",
	{ 2, 2, 1, 0.5 }, { 1, 1, 0.5, 0.25 },
	"Intel 64 and IA-32 Architectures Optimization Reference Manual, Sandy Bridge "
	"microarchitecture, L1 data cache: two 16-byte loads and one 16-byte store per cycle, "
	"a 32-byte access taking two (ports 2 and 3 serve both loads and store addresses, so "
	"this is an upper bound)"
};
static const struct lsu_row intel_hsw = {
	"Intel Haswell to Skylake-SP/Cascade Lake",
	{ 2, 2, 2, 2 }, { 1, 1, 1, 1 },
	"Intel 64 and IA-32 Architectures Optimization Reference Manual, Haswell and Skylake "
	"Server microarchitectures, L1 data cache: two loads and one store per cycle of up to "
	"32 bytes (64 on Skylake-SP)"
};
static const struct lsu_row intel_icl = {
	"Intel Sunny Cove/Willow Cove/Cypress Cove (Ice Lake, Tiger Lake, Rocket Lake)",
	{ 2, 2, 2, 2 }, { 2, 2, 2, 1 },
	"Intel 64 and IA-32 Architectures Optimization Reference Manual, Ice Lake client "
	"microarchitecture, L1 data cache: two loads and two stores per cycle, one store at "
	"512 bits"
};
static const struct lsu_row intel_glc = {
	"Intel Golden Cove and later (Sapphire Rapids, Granite Rapids, Alder Lake P-core)",
	{ 3, 3, 3, 2 }, { 2, 2, 2, 1 },
	"Intel 64 and IA-32 Architectures Optimization Reference Manual, Golden Cove "
	"microarchitecture: three loads per cycle of up to 256 bits (two at 512 bits) and two "
	"stores (one at 512 bits)"
};
static const struct lsu_row fallback = {
	"not in fpulab's table",
	{ 2, 2, 2, 2 }, { 1, 1, 1, 1 },
	"no figures for this CPU: the Haswell-class default of two loads and one store per "
	"cycle at every width, which newer cores exceed"
};

static bool model_in(unsigned model, const unsigned *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

static const struct lsu_row *intel_row(const struct fpl_cpu *cpu)
{
	static const unsigned snb[] = { 0x2a, 0x2d, 0x3a, 0x3e };
	static const unsigned hsw[] = { 0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56, 0x4e,
					0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6, 0x66 };
	static const unsigned icl[] = { 0x7d, 0x7e, 0x6a, 0x6c, 0x8c, 0x8d, 0xa7 };
	static const unsigned glc[] = { 0x97, 0x9a, 0xb7, 0xba, 0xbf, 0x8f, 0xcf, 0xad, 0xae,
					0xaa, 0xac, 0xc5, 0xc6, 0xbd };

	if (cpu->family != 6)
		return &fallback;
	/*
	 * A hypervisor may present another model (the project's Sapphire Rapids
	 * guest says model 0xA7, Rocket Lake): AMX and AVX512-FP16 exist from
	 * Golden Cove on, so they decide first.
	 */
	if (fpl_cpu_has_cpuid(cpu, FPL_FEAT_AMX_TILE) ||
	    fpl_cpu_has_cpuid(cpu, FPL_FEAT_AVX512FP16) ||
	    model_in(cpu->model, glc, FPL_ARRAY_SIZE(glc)))
		return &intel_glc;
	if (model_in(cpu->model, icl, FPL_ARRAY_SIZE(icl)))
		return &intel_icl;
	if (model_in(cpu->model, hsw, FPL_ARRAY_SIZE(hsw)))
		return &intel_hsw;
	if (model_in(cpu->model, snb, FPL_ARRAY_SIZE(snb)))
		return &intel_snb;
	return &fallback;
}

static const struct lsu_row *lsu_row(const struct fpl_cpu *cpu)
{
	if (!strcmp(cpu->vendor, "HygonGenuine") && cpu->family == 0x18)
		return &amd_zen1;
	if (!strcmp(cpu->vendor, "AuthenticAMD")) {
		if (cpu->family == 0x17)
			return cpu->model < 0x30 ? &amd_zen1 : &amd_zen2;
		if (cpu->family == 0x19)
			return &amd_zen34;
		if (cpu->family == 0x1a)
			return &amd_zen5;
		return &fallback;
	}
	if (!strcmp(cpu->vendor, "GenuineIntel"))
		return intel_row(cpu);
	return &fallback;
}

int fpl_cpu_lsu(const struct fpl_cpu *cpu, unsigned width, struct fpl_cpu_lsu *out)
{
	const struct lsu_row *row;
	int i = width == 8 ? 0 : width == 16 ? 1 : width == 32 ? 2 : width == 64 ? 3 : -1;

	if (!cpu || !out || i < 0)
		return -EINVAL;
	row = lsu_row(cpu);
	*out = (struct fpl_cpu_lsu){
		.loads = row->loads[i], .stores = row->stores[i], .width = width,
		.core = row->core, .source = row->source, .known = row != &fallback,
	};
	return 0;
}
