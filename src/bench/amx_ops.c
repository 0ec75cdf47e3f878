// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX for the benchmarks: permission through arch_prctl, palette 1 from CPUID 0x1D, a valid TILECFG. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fpulab/xstate.h"
#include "amx_ops.h"

int fpl_amxb_usable(const struct fpl_cpu *cpu, const char **why)
{
	struct fpl_amxb_palette p;

	if (!fpl_cpu_has_cpuid(cpu, FPL_FEAT_AMX_TILE)) {
		*why = "no AMX on this CPU (CPUID.7.0:EDX[24] AMX-TILE clear)";
		return 0;
	}
	if ((cpu->xcr0 & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE ||
	    !fpl_cpu_has(cpu, FPL_FEAT_AMX_TILE)) {
		*why = "AMX tile state not enabled by the OS (XCR0 bits 17 and 18)";
		return 0;
	}
	if (fpl_amxb_palette(cpu, &p)) {
		*why = "AMX palette 1 not enumerated (CPUID 0x1D.1)";
		return 0;
	}
	return 1;
}

bool fpl_amxb_xfd(const struct fpl_cpu *cpu)
{
	uint32_t r[4];

	return fpl_cpu_has(cpu, FPL_FEAT_XFD) && fpl_cpu_cpuid(cpu, 0xd, FPL_XFEATURE_XTILE_DATA, r) &&
	       (r[2] >> 2 & 1);
}

int fpl_amxb_palette(const struct fpl_cpu *cpu, struct fpl_amxb_palette *p)
{
	uint32_t r[4];

	memset(p, 0, sizeof(*p));
	if (!fpl_cpu_cpuid(cpu, 0x1d, 0, r) || r[0] < 1 || !fpl_cpu_cpuid(cpu, 0x1d, 1, r))
		return -ENOTSUP;
	p->total_bytes = r[0] & 0xffff;
	p->tile_bytes = r[0] >> 16;
	p->colsb = r[1] & 0xffff;
	p->tiles = r[1] >> 16;
	p->rows = r[2] & 0xffff;
	if (!p->tiles || !p->rows || !p->colsb)
		return -ENOTSUP;
	return 0;
}

/* The 64-byte format: palette, start_row, 14 reserved, colsb[16] (u16), rows[16] (u8). */
bool fpl_amxb_tilecfg(const struct fpl_amxb_palette *p, unsigned char cfg[64])
{
	memset(cfg, 0, 64);
	if (p->tiles > 16 || p->rows > 255 || p->colsb > 0xffff || !p->tiles)
		return false;
	cfg[0] = 1;
	for (unsigned i = 0; i < p->tiles; i++) {
		cfg[16 + 2 * i] = (unsigned char)(p->colsb & 0xff);
		cfg[17 + 2 * i] = (unsigned char)(p->colsb >> 8);
		cfg[48 + i] = (unsigned char)p->rows;
	}
	return true;
}

bool fpl_amxb_tilecfg_valid(const struct fpl_amxb_palette *p, const unsigned char cfg[64])
{
	if (cfg[0] != 1 || cfg[1])
		return false;
	for (unsigned i = 2; i < 16; i++)
		if (cfg[i])
			return false;
	for (unsigned i = 0; i < 16; i++) {
		unsigned colsb = cfg[16 + 2 * i] | (unsigned)cfg[17 + 2 * i] << 8, rows = cfg[48 + i];

		if (i >= p->tiles && (colsb || rows))
			return false;
		if (colsb > p->colsb || rows > p->rows || !colsb != !rows)
			return false;
	}
	return true;
}

int fpl_amxb_get_perm(uint64_t *mask)
{
	unsigned long m = 0;

	if (syscall(SYS_arch_prctl, FPL_ARCH_GET_XCOMP_PERM, &m))
		return -errno;
	*mask = m;
	return 0;
}

int fpl_amxb_req_perm(void)
{
	if (syscall(SYS_arch_prctl, FPL_ARCH_REQ_XCOMP_PERM, FPL_XFEATURE_XTILE_DATA))
		return -errno;
	return 0;
}
