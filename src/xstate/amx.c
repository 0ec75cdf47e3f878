// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX: permission, the palette (CPUID 0x1D/0x1E), TILECFG checks, TILEDATA summaries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/sysinfo.h"
#include "xstate_internal.h"

static int get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

int fpl_amx_palette(const struct fpl_cpu *cpu, struct fpl_amx_palette *p, struct fpl_diag *diag)
{
	uint32_t r[4];

	memset(p, 0, sizeof(*p));
	if (!fpl_cpu_has_cpuid(cpu, FPL_FEAT_AMX_TILE))
		return fpl_diag_set(diag, -ENOTSUP,
				    "no AMX on this CPU (CPUID.7.0:EDX[24] AMX-TILE clear)");
	fpl_cpu_cpuid(cpu, 0x1d, 0, r);
	p->max_palette = r[0];
	fpl_cpu_cpuid(cpu, 0x1d, 1, r);
	p->total_tile_bytes = r[0] & 0xffff;
	p->bytes_per_tile = r[0] >> 16;
	p->bytes_per_row = r[1] & 0xffff;
	p->max_names = r[1] >> 16;
	p->max_rows = r[2] & 0xffff;
	fpl_cpu_cpuid(cpu, 0x1e, 0, r);
	p->tmul_maxk = r[1] & 0xff;
	p->tmul_maxn = (r[1] >> 8) & 0xffff;
	if (p->max_palette < 1 || !p->max_names || p->max_names > FPL_AMX_TILES_MAX ||
	    !p->max_rows || p->max_rows > 64 || !p->bytes_per_row || p->bytes_per_row > 64 ||
	    p->bytes_per_tile < p->max_rows * p->bytes_per_row ||
	    p->total_tile_bytes < p->max_names * p->bytes_per_tile)
		return fpl_diag_set(
		    diag, -EINVAL,
		    "CPUID 0x1D does not describe a usable palette 1 (max palette %u, "
		    "%u tiles, %u rows x %u bytes, %u bytes per tile, %u in all)",
		    p->max_palette, p->max_names, p->max_rows, p->bytes_per_row, p->bytes_per_tile,
		    p->total_tile_bytes);
	p->valid = true;
	return 0;
}

int fpl_amx_supported(const struct fpl_xstate *xs, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!xs->xsave || !xs->comp[FPL_XFEATURE_XTILE_DATA].enumerated) {
		*why = "no AMX on this CPU";
		return 0;
	}
	if ((xs->xcr0 & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE) {
		*why = "AMX tile state not enabled by the OS (XCR0 bits 17/18)";
		return 0;
	}
	if (!xs->amx.valid) {
		*why = "no usable AMX palette 1 in CPUID 0x1D";
		return 0;
	}
	return 1;
}

/* Permission is per process and never revoked: once seen, it stays. */
static int perm_seen;

bool fpl_amx_permitted(const struct fpl_xstate *xs)
{
	/* A dump's permitted mask is the default: never tile data (and the cache is this process's). */
	if (!xs->live)
		return false;
	if (__atomic_load_n(&perm_seen, __ATOMIC_RELAXED))
		return true;
	if (!fpl_amx_supported(xs, NULL) ||
	    !(fpl_xstate_permitted(xs) & FPL_XFEATURE_MASK_XTILE_DATA))
		return false;
	__atomic_store_n(&perm_seen, 1, __ATOMIC_RELAXED);
	return true;
}

/* What the requests for this process answered (fpl_amx_perm_log). */
static struct fpl_amx_perm_log perm_log;

/* The request itself: b is the permitted mask now, *after gets it afterwards. */
static int request(const struct fpl_xstate *xs, uint64_t b, uint64_t *after,
		   struct fpl_diag *diag)
{
	int err;

	if (!fpl_amx_supported(xs, NULL))
		return fpl_diag_set(diag, -EOPNOTSUPP, "ARCH_REQ_XCOMP_PERM: no AMX here (%s)",
				    xs->comp[FPL_XFEATURE_XTILE_DATA].enumerated
					? "tile state not enabled or no palette"
					: "no AMX on this CPU");
	if (b & FPL_XFEATURE_MASK_XTILE_DATA) {
		__atomic_store_n(&perm_seen, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (!xs->live)
		return fpl_diag_set(diag, -EINVAL,
				    "ARCH_REQ_XCOMP_PERM: the CPU snapshot is a dump");
	err = fpl_arch_req_xcomp_perm(FPL_XFEATURE_XTILE_DATA);
	*after = fpl_xstate_permitted(xs);
	if (err == -ENOSPC)
		return fpl_diag_set(diag, err,
				    "ARCH_REQ_XCOMP_PERM(18): a sigaltstack smaller than the AMX "
				    "signal frame is installed (ask before any sigaltstack)");
	if (err)
		return fpl_diag_set(diag, err, "ARCH_REQ_XCOMP_PERM(18): %s", strerror(-err));
	__atomic_store_n(&perm_seen, 1, __ATOMIC_RELAXED);
	return 0;
}

int fpl_amx_request_perm(const struct fpl_xstate *xs, uint64_t *before, uint64_t *after,
			 struct fpl_diag *diag)
{
	struct fpl_diag d = { "" };
	uint64_t b = fpl_xstate_permitted(xs), a = b;
	int err = request(xs, b, &a, &d);

	/* A dump's request is no request of this process. */
	if (xs->live) {
		if (!perm_log.calls)
			perm_log.before = b;
		perm_log.calls++;
		perm_log.err = err;
		perm_log.after = a;
		snprintf(perm_log.msg, sizeof(perm_log.msg), "%s", err ? d.msg : "granted");
	}
	if (before)
		*before = b;
	if (after)
		*after = a;
	return err ? fpl_diag_set(diag, err, "%s", d.msg) : 0;
}

void fpl_amx_perm_log(struct fpl_amx_perm_log *log)
{
	*log = perm_log;
}

void fpl_tilecfg_decode(const void *raw, struct fpl_tilecfg *cfg)
{
	const unsigned char *p = raw;

	memset(cfg, 0, sizeof(*cfg));
	cfg->palette = p[0];
	cfg->start_row = p[1];
	cfg->reserved_zero = true;
	for (unsigned i = 2; i < 16; i++)
		if (p[i])
			cfg->reserved_zero = false;
	for (unsigned i = 0; i < FPL_AMX_TILES_MAX; i++) {
		cfg->colsb[i] = (uint16_t)get16(p + 16 + 2 * i);
		cfg->rows[i] = p[48 + i];
	}
}

/* The one palette shipped so far (Sapphire Rapids to Granite Rapids). */
static const struct fpl_amx_palette palette1 = {
    .valid = true,
    .max_palette = 1,
    .total_tile_bytes = 8192,
    .bytes_per_tile = 1024,
    .bytes_per_row = 64,
    .max_names = 8,
    .max_rows = 16,
};

int fpl_tilecfg_check(const struct fpl_amx_palette *p, const void *raw, const char **why)
{
	static _Thread_local char msg[96];
	struct fpl_tilecfg c;
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!p || !p->valid)
		p = &palette1;
	fpl_tilecfg_decode(raw, &c);
	if (c.palette == 0) {
		/* Palette 0 is the init configuration; the rest is ignored. */
		return 0;
	}
	if (c.palette > p->max_palette) {
		snprintf(msg, sizeof(msg), "palette %u is reserved (max %u)", c.palette,
			 p->max_palette);
		*why = msg;
		return -EINVAL;
	}
	if (!c.reserved_zero) {
		*why = "reserved bytes 2..15 are not zero";
		return -EINVAL;
	}
	for (unsigned i = 0; i < FPL_AMX_TILES_MAX; i++) {
		if (i >= p->max_names && (c.rows[i] || c.colsb[i])) {
			snprintf(msg, sizeof(msg),
				 "tile %u configured but the palette has %u tiles", i,
				 p->max_names);
			*why = msg;
			return -EINVAL;
		}
		if (c.colsb[i] > p->bytes_per_row) {
			snprintf(msg, sizeof(msg), "tile %u: colsb %u > %u bytes per row", i,
				 c.colsb[i], p->bytes_per_row);
			*why = msg;
			return -EINVAL;
		}
		if (c.rows[i] > p->max_rows) {
			snprintf(msg, sizeof(msg), "tile %u: rows %u > %u", i, c.rows[i],
				 p->max_rows);
			*why = msg;
			return -EINVAL;
		}
		/* Measured on Sapphire Rapids: a tile has both rows and colsb, or neither. */
		if (!c.rows[i] != !c.colsb[i]) {
			snprintf(msg, sizeof(msg), "tile %u: rows %u with colsb %u (a tile has both "
				 "or neither)", i, c.rows[i], c.colsb[i]);
			*why = msg;
			return -EINVAL;
		}
	}
	return 1;
}

int fpl_tilecfg_make(const struct fpl_amx_palette *p, void *raw)
{
	unsigned char *b = raw;

	memset(b, 0, FPL_TILECFG_SIZE);
	if (!p || !p->valid)
		return -ENOTSUP;
	b[0] = 1;
	for (unsigned i = 0; i < p->max_names; i++) {
		b[16 + 2 * i] = (unsigned char)(p->bytes_per_row & 0xff);
		b[17 + 2 * i] = (unsigned char)(p->bytes_per_row >> 8);
		b[48 + i] = (unsigned char)p->max_rows;
	}
	return 0;
}

uint32_t fpl_fnv1a32(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

int fpl_tiledata_summarise(const struct fpl_amx_palette *p, const void *data, size_t n,
			   struct fpl_tile_summary *out, unsigned max)
{
	const unsigned char *d = data;
	unsigned tiles;

	if (!p || !p->valid)
		p = &palette1;
	if (n < p->bytes_per_tile)
		return -EINVAL;
	tiles = (unsigned)(n / p->bytes_per_tile);
	if (tiles > p->max_names)
		tiles = p->max_names;
	if (tiles > max)
		tiles = max;
	for (unsigned t = 0; t < tiles; t++) {
		const unsigned char *tile = d + (size_t)t * p->bytes_per_tile;
		struct fpl_tile_summary *s = &out[t];

		memset(s, 0, sizeof(*s));
		s->rows = p->max_rows;
		for (unsigned r = 0; r < p->max_rows && r < 64; r++)
			for (unsigned b = 0; b < p->bytes_per_row; b++)
				if (tile[r * p->bytes_per_row + b]) {
					s->nonzero_rows |= 1ull << r;
					break;
				}
		s->checksum = fpl_fnv1a32(tile, p->bytes_per_tile);
	}
	return (int)tiles;
}
