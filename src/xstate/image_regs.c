// SPDX-License-Identifier: GPL-3.0-or-later
/* XSAVE images: component placement, registers in readable form, standard <-> compacted. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/image.h"

#define LEGACY_XMM_OFFSET 160

/* Components XCOMP_BV may place: enumerated ones only, whatever else it claims. */
static uint64_t placeable(const struct fpl_xstate *xs, uint64_t mask)
{
	uint64_t known = 0;

	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++)
		if (i < 2 || xs->comp[i].enumerated)
			known |= 1ull << i;
	return mask & known;
}

int64_t fpl_image_offset(const struct fpl_image *img, unsigned id)
{
	const struct fpl_xstate *xs = img->xs;

	if (id >= FPL_XFEATURE_MAX)
		return -1;
	if (id < 2)
		return 0;
	if (!xs->comp[id].enumerated || !xs->comp[id].size)
		return -1;
	if (!img->compacted)
		return xs->comp[id].supervisor ? -1 : (int64_t)xs->comp[id].offset;
	if (!(img->xcomp_bv >> id & 1))
		return -1;
	return fpl_xstate_offset_compacted(xs, placeable(xs, img->xcomp_bv), id);
}

const uint8_t *fpl_image_component(const struct fpl_image *img, unsigned id, uint32_t *size)
{
	int64_t off;
	uint32_t sz;

	if (id >= FPL_XFEATURE_MAX || !(img->xstate_bv >> id & 1))
		return NULL;
	off = fpl_image_offset(img, id);
	sz = id < 2 ? FPL_XSAVE_LEGACY_SIZE : img->xs->comp[id].size;
	if (off < 0 || (uint64_t)off + sz > img->len)
		return NULL;
	if (size)
		*size = sz;
	return img->buf + off;
}

const char *fpl_x87_tag_name(enum fpl_x87_tag t)
{
	static const char *const names[] = { "valid", "zero", "special", "empty" };

	return (unsigned)t < FPL_ARRAY_SIZE(names) ? names[t] : "?";
}

/* The tag FSTENV would report for a non-empty register (SDM 8.1.7). */
static enum fpl_x87_tag classify(const uint8_t v[10])
{
	uint64_t mant;
	uint16_t se;

	memcpy(&mant, v, 8);
	memcpy(&se, v + 8, 2);
	if ((se & 0x7fff) == 0x7fff)
		return FPL_X87_SPECIAL;
	if ((se & 0x7fff) == 0)
		return mant ? FPL_X87_SPECIAL : FPL_X87_ZERO;
	return mant >> 63 ? FPL_X87_VALID : FPL_X87_SPECIAL;
}

void fpl_image_x87(const struct fpl_image *img, struct fpl_x87 *x)
{
	const uint8_t *b = fpl_image_component(img, FPL_XFEATURE_FP, NULL);

	memset(x, 0, sizeof(*x));
	if (!b) {
		/* XRSTOR's init state for x87: FNINIT's. */
		x->init = true;
		x->fcw = 0x037f;
		for (unsigned i = 0; i < 8; i++)
			x->tag[i] = FPL_X87_EMPTY;
		return;
	}
	memcpy(&x->fcw, b, 2);
	memcpy(&x->fsw, b + 2, 2);
	x->ftw_abridged = b[4];
	memcpy(&x->fop, b + 6, 2);
	memcpy(&x->fip, b + 8, 8);
	memcpy(&x->fdp, b + 16, 8);
	x->top = (x->fsw >> 11) & 7;
	/* The image holds ST(i) in stack order, the tag word by physical register. */
	for (unsigned i = 0; i < 8; i++) {
		unsigned phys = (x->top + i) & 7;

		memcpy(x->st[i], b + 32 + 16 * i, 10);
		x->tag[i] = x->ftw_abridged >> phys & 1 ? classify(x->st[i]) : FPL_X87_EMPTY;
	}
}

/* Copy a piece of component id (at byte off within it, n bytes) or zeros when init. */
static void piece(const struct fpl_image *img, unsigned id, size_t off, size_t n, uint8_t *out)
{
	uint32_t size;
	const uint8_t *c = fpl_image_component(img, id, &size);

	if (c && off + n <= size)
		memcpy(out, c + off, n);
	else
		memset(out, 0, n);
}

int fpl_image_vector(const struct fpl_image *img, unsigned n, unsigned width, uint8_t *out)
{
	uint64_t xcr0 = img->xcr0;
	uint8_t z[64];

	if (n >= 32 || (width != 16 && width != 32 && width != 64))
		return -EINVAL;
	if (width >= 32 && !(xcr0 & FPL_XFEATURE_MASK_YMM))
		return -ENOENT;
	if ((width == 64 || n >= 16) &&
	    (xcr0 & FPL_XFEATURE_MASK_AVX512) != FPL_XFEATURE_MASK_AVX512)
		return -ENOENT;
	if (n >= 16) {
		piece(img, FPL_XFEATURE_Hi16_ZMM, 64 * (n - 16), 64, z);
	} else {
		piece(img, FPL_XFEATURE_SSE, LEGACY_XMM_OFFSET + 16 * n, 16, z);
		piece(img, FPL_XFEATURE_YMM, 16 * n, 16, z + 16);
		piece(img, FPL_XFEATURE_ZMM_Hi256, 32 * n, 32, z + 32);
	}
	memcpy(out, z, width);
	return 0;
}

int fpl_image_opmask(const struct fpl_image *img, unsigned k, uint64_t *val)
{
	if (k >= 8)
		return -EINVAL;
	if (!(img->xcr0 & FPL_XFEATURE_MASK_OPMASK))
		return -ENOENT;
	piece(img, FPL_XFEATURE_OPMASK, 8 * k, 8, (uint8_t *)val);
	return 0;
}

int fpl_image_pkru(const struct fpl_image *img, uint32_t *val)
{
	if (!(img->xcr0 & FPL_XFEATURE_MASK_PKRU))
		return -ENOENT;
	piece(img, FPL_XFEATURE_PKRU, 0, 4, (uint8_t *)val);
	return 0;
}

static int move_components(const struct fpl_image *img, uint8_t *dst, bool to_compacted,
			   uint64_t comp, struct fpl_diag *diag)
{
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		const uint8_t *src;
		uint32_t size;
		int64_t off;

		if (!(img->xstate_bv >> i & 1))
			continue;
		src = fpl_image_component(img, i, &size);
		off = to_compacted ? fpl_xstate_offset_compacted(img->xs, comp, i) :
				     fpl_xstate_offset_std(img->xs, i);
		if (!src || off < 0)
			return fpl_diag_set(diag, -EINVAL, "component %u (%s) is %s", i,
					    fpl_xfeature_name(i),
					    src ? "not in the target layout" : "cut off by the end");
		memcpy(dst + off, src, size);
	}
	return 0;
}

/*
 * MXCSR as XRSTOR of the source would leave it. The compacted form loads it
 * only with SSE in XSTATE_BV (else 0x1f80); the standard form loads it
 * whenever RFBM has SSE or AVX, so a compacted source without SSE must not
 * hand its unloaded (maybe invalid) MXCSR to a standard image, and a
 * standard source's MXCSR survives the compacted form only with SSE set.
 */
static void keep_mxcsr(const struct fpl_image *img, uint8_t *dst, bool to_compacted,
		       uint64_t comp, uint64_t *xstate_bv)
{
	const uint32_t init = 0x1f80;

	if (img->xstate_bv & FPL_XFEATURE_MASK_SSE)
		return;
	if (img->compacted) {
		memcpy(dst + FPL_MXCSR_OFFSET, &init, 4);
		memcpy(dst + FPL_MXCSR_OFFSET + 4, &img->mxcsr_mask, 4);
	} else if (to_compacted && img->mxcsr != init && (comp & FPL_XFEATURE_MASK_SSE) &&
		   !(img->mxcsr & ~img->mxcsr_mask)) {
		memset(dst + LEGACY_XMM_OFFSET, 0, 16 * 16);
		*xstate_bv |= FPL_XFEATURE_MASK_SSE;
	}
}

int fpl_image_convert(const struct fpl_image *img, bool to_compacted, uint64_t mask,
		      void **out, size_t *out_len, struct fpl_diag *diag)
{
	uint64_t comp = to_compacted ? mask & img->xcr0 : img->xcr0;
	uint64_t xcomp_bv = to_compacted ? comp | FPL_XCOMP_BV_COMPACTED : 0;
	uint64_t xstate_bv = img->xstate_bv;
	char names[128];
	uint8_t *dst;
	size_t size;
	int err;

	*out = NULL;
	*out_len = 0;
	/*
	 * Without XSAVE the layout is FXSAVE's 512 bytes: no room for a header.
	 * A signal frame the kernel would read as fx_only gets here with no
	 * XRSTOR finding.
	 */
	if (!img->xs->xsave)
		return fpl_diag_set(diag, -EINVAL, "this CPU has no XSAVE: there is no standard or "
				    "compacted XSAVE form to convert to");
	if (img->xrstor_faults)
		return fpl_diag_set(diag, -EINVAL, "XRSTOR would reject this image (%s, byte %zu)",
				    img->nfindings ? img->findings[0].rule : "?",
				    img->nfindings ? img->findings[0].offset : 0);
	if (img->xstate_bv & ~comp) {
		fpl_xfeature_mask_names(img->xstate_bv & ~comp, names, sizeof(names));
		return fpl_diag_set(diag, -EINVAL, "XSTATE_BV 0x%" PRIx64 " has %s, outside the "
				    "target mask 0x%" PRIx64 ": converting would lose it",
				    img->xstate_bv, names, comp);
	}
	size = to_compacted ? fpl_xstate_size_compacted(img->xs, comp) :
			      fpl_xstate_size_std(img->xs, comp);
	dst = fpl_xstate_alloc(size);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, img->buf, FPL_SW_BYTES_OFFSET);
	keep_mxcsr(img, dst, to_compacted, comp, &xstate_bv);
	memcpy(dst + 512, &xstate_bv, 8);
	memcpy(dst + 520, &xcomp_bv, 8);
	err = move_components(img, dst, to_compacted, comp, diag);
	if (err) {
		free(dst);
		return err;
	}
	*out = dst;
	*out_len = size;
	return 0;
}

int fpl_image_tiles(const struct fpl_image *img, struct fpl_image_tiles *t)
{
	const struct fpl_amx_palette *p = img->xs->amx.valid ? &img->xs->amx : NULL;
	static const uint8_t init_cfg[FPL_TILECFG_SIZE];
	const uint8_t *cfg, *data;
	uint32_t size = 0;
	int n;

	memset(t, 0, sizeof(*t));
	if (!img->xs->comp[FPL_XFEATURE_XTILE_CFG].enumerated &&
	    !img->xs->comp[FPL_XFEATURE_XTILE_DATA].enumerated)
		return -ENOENT;
	t->cfg_in_bv = img->xstate_bv & FPL_XFEATURE_MASK_XTILE_CFG;
	t->data_in_bv = img->xstate_bv & FPL_XFEATURE_MASK_XTILE_DATA;
	cfg = fpl_image_component(img, FPL_XFEATURE_XTILE_CFG, &size);
	t->cfg_readable = cfg && size >= FPL_TILECFG_SIZE;
	if (!t->cfg_readable)
		cfg = init_cfg;
	fpl_tilecfg_decode(cfg, &t->cfg);
	t->cfg_check = fpl_tilecfg_check(p, cfg, &t->cfg_why);
	t->cfg_restored = img->rfbm & FPL_XFEATURE_MASK_XTILE_CFG;
	t->cfg_loads = t->cfg_restored && t->cfg_in_bv && t->cfg_readable && t->cfg_check > 0;
	t->data_unconfigured = t->cfg_restored && !t->cfg_loads &&
			       (img->rfbm & img->xstate_bv & FPL_XFEATURE_MASK_XTILE_DATA);
	data = fpl_image_component(img, FPL_XFEATURE_XTILE_DATA, &size);
	t->data_readable = data != NULL;
	if (data) {
		n = fpl_tiledata_summarise(p, data, size, t->tile, FPL_AMX_TILES_MAX);
		t->ntiles = n > 0 ? n : 0;
	}
	return 0;
}
