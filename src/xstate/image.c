// SPDX-License-Identifier: GPL-3.0-or-later
/* XSAVE images: format detection and validation by XRSTOR's rules and the kernel's. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/image.h"

static const char *const format_names[FPL_IMAGE_FORMAT_NR] = {
	[FPL_IMAGE_AUTO] = "auto",
	[FPL_IMAGE_STANDARD] = "raw",
	[FPL_IMAGE_COMPACTED] = "compacted",
	[FPL_IMAGE_SIGNAL] = "signal",
	[FPL_IMAGE_PTRACE] = "ptrace",
};

const char *fpl_image_format_name(enum fpl_image_format f)
{
	return (unsigned)f < FPL_IMAGE_FORMAT_NR ? format_names[f] : "?";
}

int fpl_image_format_by_name(const char *name)
{
	if (!strcmp(name, "standard"))
		return FPL_IMAGE_STANDARD;
	for (int i = 0; i < FPL_IMAGE_FORMAT_NR; i++)
		if (!strcmp(name, format_names[i]))
			return i;
	return -1;
}

static const char *const tracee_names[FPL_TRACEE_NR] = { "no-perm", "perm-unused",
							  "tiles-used" };

const char *fpl_ptrace_tracee_name(enum fpl_ptrace_tracee t)
{
	return (unsigned)t < FPL_TRACEE_NR ? tracee_names[t] : "?";
}

int fpl_ptrace_tracee_by_name(const char *name)
{
	for (int i = 0; i < FPL_TRACEE_NR; i++)
		if (!strcmp(name, tracee_names[i]))
			return i;
	return -1;
}

const char *fpl_ptrace_tracee_words(enum fpl_ptrace_tracee t)
{
	switch (t) {
	case FPL_TRACEE_NO_PERM:
		return "a tracee without AMX permission";
	case FPL_TRACEE_PERM_UNUSED:
		return "a tracee with AMX permission that has not used its tiles";
	case FPL_TRACEE_USED:
		return "a tracee that has used its tiles";
	default:
		return "?";
	}
}

/* The tracee's fpstate user_xfeatures: XCR0 without the XFD components until it used them. */
static uint64_t tracee_features(const struct fpl_xstate *xs, enum fpl_ptrace_tracee t)
{
	return t == FPL_TRACEE_USED ? xs->xcr0 : xs->xcr0 & ~fpl_xstate_xfd_mask(xs);
}

const char *fpl_image_severity_name(enum fpl_image_severity s)
{
	switch (s) {
	case FPL_IMAGE_NOTE:
		return "note";
	case FPL_IMAGE_KERNEL:
		return "kernel";
	case FPL_IMAGE_FAULT:
		return "fault";
	}
	return "?";
}

/* The MXCSR bits FXRSTOR/XRSTOR accept, as FXSAVE reports them in MXCSR_MASK. */
static uint32_t live_mxcsr_mask(void)
{
	uint8_t area[512] __attribute__((aligned(16)));
	uint32_t mask;

	memset(area, 0, sizeof(area));
	__asm__ volatile("fxsave64 %0" : "=m"(area));
	memcpy(&mask, area + 28, 4);
	/* A zero MXCSR_MASK means the original 0xffbf (SDM 11.6.6). */
	return mask ? mask : 0xffbf;
}

void fpl_image_cfg_init(struct fpl_image_cfg *cfg, const struct fpl_cpu *cpu,
			const struct fpl_xstate *xs)
{
	uint32_t r[4];

	memset(cfg, 0, sizeof(*cfg));
	cfg->xs = xs;
	cfg->amd = !strcmp(cpu->vendor, "AuthenticAMD") || !strcmp(cpu->vendor, "HygonGenuine");
	fpl_cpu_cpuid(cpu, 0xd, 1, r);
	cfg->xsavec = xs->xsave && (r[0] & 2);
	if (cpu->live) {
		cfg->mxcsr_mask = live_mxcsr_mask();
		cfg->mxcsr_mask_source = "FXSAVE MXCSR_MASK of this CPU";
	} else {
		fpl_cpu_cpuid(cpu, 0x80000001, 0, r);
		/* MXCSR.MM (bit 17) exists on AMD parts with MisAlignSse (ECX[7]). */
		if (cfg->amd && (r[2] & (1u << 7))) {
			cfg->mxcsr_mask = 0x2ffff;
			cfg->mxcsr_mask_source = "AMD with MisAlignSse: MXCSR.MM writable";
		} else {
			cfg->mxcsr_mask = 0xffff;
			cfg->mxcsr_mask_source = cfg->amd ? "AMD without MisAlignSse" :
							    "Intel and others: DAZ, no MM";
		}
	}
	cfg->format = FPL_IMAGE_AUTO;
	cfg->rfbm = ~0ull;
	cfg->task_mask = cpu->live ? fpl_xstate_active(xs) : fpl_xstate_xcr0(xs);
}

/* The kernel's fpstate->user_size of the restoring task. */
static uint32_t task_user_size(const struct fpl_image *img)
{
	return fpl_xstate_size_std(img->xs, img->task_mask & img->xcr0);
}

static void add(struct fpl_image *img, enum fpl_image_severity sev, const char *rule,
		size_t offset, const char *fmt, ...) FPL_PRINTF(5, 6);

static void add(struct fpl_image *img, enum fpl_image_severity sev, const char *rule,
		size_t offset, const char *fmt, ...)
{
	struct fpl_image_finding *f;
	va_list ap;

	if (sev == FPL_IMAGE_FAULT)
		img->xrstor_faults = true;
	if (sev == FPL_IMAGE_KERNEL)
		img->kernel_rejects = true;
	if (img->nfindings >= FPL_IMAGE_MAX_FINDINGS) {
		img->findings_dropped = true;
		return;
	}
	f = &img->findings[img->nfindings++];
	f->severity = sev;
	f->rule = rule;
	f->offset = offset;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
}

/* Offset of the lowest set bit of a 64-bit field at field_off (the byte holding it). */
static size_t bit_offset(size_t field_off, uint64_t bits)
{
	return field_off + (bits ? (unsigned)__builtin_ctzll(bits) / 8 : 0);
}

/* First non-zero byte in [from, to) of the buffer, or 0 if none. */
static size_t first_nonzero(const struct fpl_image *img, size_t from, size_t to)
{
	for (size_t i = from; i < to && i < img->len; i++)
		if (img->buf[i])
			return i;
	return 0;
}

/* End of the bytes XRSTOR reads for the components it loads. */
static size_t xrstor_extent(const struct fpl_image *img, uint64_t load)
{
	size_t end = FPL_XSAVE_HDR_OFFSET + FPL_XSAVE_HDR_SIZE;

	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		int64_t off;

		if (!(load >> i & 1))
			continue;
		off = fpl_image_offset(img, i);
		if (off >= 0 && (size_t)off + img->xs->comp[i].size > end)
			end = (size_t)off + img->xs->comp[i].size;
	}
	return end;
}

static void check_mxcsr(struct fpl_image *img, const struct fpl_image_cfg *cfg,
			enum fpl_image_severity sev, const char *rule, const char *when)
{
	uint32_t bad = img->mxcsr & ~cfg->mxcsr_mask;

	if (bad)
		add(img, sev, rule, FPL_MXCSR_OFFSET,
		    "MXCSR 0x%08" PRIx32 " sets reserved bits 0x%08" PRIx32
		    " (this CPU accepts 0x%" PRIx32 ") and %s loads it",
		    img->mxcsr, bad, cfg->mxcsr_mask, when);
}

static void check_xrstor_standard(struct fpl_image *img, const struct fpl_image_cfg *cfg)
{
	uint64_t outside = img->xstate_bv & ~img->xcr0;
	size_t nz;
	char names[128];

	if (outside) {
		fpl_xfeature_mask_names(outside, names, sizeof(names));
		add(img, FPL_IMAGE_FAULT, "xrstor.xstate_bv", bit_offset(512, outside),
		    "XSTATE_BV 0x%" PRIx64 " has %s, not enabled in XCR0 0x%" PRIx64
		    " (checked whatever RFBM is)", img->xstate_bv, names, img->xcr0);
	}
	if (img->xcomp_bv)
		add(img, FPL_IMAGE_FAULT, "xrstor.xcomp_bv", bit_offset(520, img->xcomp_bv),
		    "XCOMP_BV 0x%" PRIx64 " is not zero while bit 63 (compacted) is clear: "
		    "the standard form needs header bytes 8..23 zero", img->xcomp_bv);
	nz = first_nonzero(img, 528, 536);
	if (nz)
		add(img, FPL_IMAGE_FAULT, "xrstor.header_16_23", nz,
		    "header byte %zu is 0x%02x: the standard form needs header bytes 8..23 zero",
		    nz - 512, img->buf[nz]);
	nz = first_nonzero(img, 536, 576);
	if (nz)
		add(img, FPL_IMAGE_NOTE, "xrstor.header_24_63", nz,
		    "header byte %zu is 0x%02x: reserved, but the standard form of XRSTOR checks "
		    "only bytes 8..23 (SDM 13.8.1%s); PTRACE_SETREGSET refuses it", nz - 512,
		    img->buf[nz], cfg->amd ? ", and so measured on AMD family 1Ah" :
		    "; measured on AMD, the SDM's rule for Intel");
	/* The standard form loads MXCSR whenever RFBM has SSE or AVX, even if XSTATE_BV does not. */
	if (img->rfbm & (FPL_XFEATURE_MASK_SSE | FPL_XFEATURE_MASK_YMM))
		check_mxcsr(img, cfg, FPL_IMAGE_FAULT, "xrstor.mxcsr",
			    "the standard form with SSE or AVX in RFBM");
}

static void check_xrstor_compacted(struct fpl_image *img, const struct fpl_image_cfg *cfg)
{
	uint64_t comp = img->xcomp_bv & ~FPL_XCOMP_BV_COMPACTED;
	uint64_t outside = comp & ~img->xcr0;
	uint64_t missing = img->xstate_bv & ~comp;
	size_t nz;
	char names[128];

	if (!cfg->xsavec) {
		add(img, FPL_IMAGE_FAULT, "xrstor.compacted_unsupported", 527,
		    "XCOMP_BV[63] asks for the compacted form, which this CPU lacks (no XSAVEC)");
		return;
	}
	if (outside) {
		fpl_xfeature_mask_names(outside, names, sizeof(names));
		add(img, FPL_IMAGE_FAULT, "xrstor.xcomp_bv", bit_offset(520, outside),
		    "XCOMP_BV 0x%" PRIx64 " has %s, not enabled in XCR0 0x%" PRIx64,
		    img->xcomp_bv, names, img->xcr0);
	}
	if (missing) {
		fpl_xfeature_mask_names(missing, names, sizeof(names));
		add(img, FPL_IMAGE_FAULT, "xrstor.xstate_bv_not_in_xcomp_bv",
		    bit_offset(512, missing),
		    "XSTATE_BV 0x%" PRIx64 " has %s, missing from XCOMP_BV 0x%" PRIx64
		    " (checked whatever RFBM is)", img->xstate_bv, names, img->xcomp_bv);
	}
	nz = first_nonzero(img, 528, 576);
	if (nz)
		add(img, FPL_IMAGE_FAULT, "xrstor.header_16_63", nz,
		    "header byte %zu is 0x%02x: the compacted form needs header bytes 16..63 zero",
		    nz - 512, img->buf[nz]);
	/* The compacted form loads MXCSR only with the SSE component itself. */
	if (img->rfbm & img->xstate_bv & FPL_XFEATURE_MASK_SSE)
		check_mxcsr(img, cfg, FPL_IMAGE_FAULT, "xrstor.mxcsr",
			    "the compacted form with SSE in RFBM and XSTATE_BV");
}

/*
 * XRSTOR does not check TILECFG: an invalid one loads silently as the init
 * configuration (tilecfg-truth.txt, measured on Sapphire Rapids), tile data
 * still loads, and TILESTORED then raises #UD. Not a fault: notes.
 */
static void check_tilecfg(struct fpl_image *img)
{
	struct fpl_image_tiles t;

	if (fpl_image_tiles(img, &t) || !t.cfg_restored)
		return;
	if (t.cfg_in_bv && t.cfg_readable && t.cfg_check < 0)
		add(img, FPL_IMAGE_NOTE, "xrstor.tilecfg",
		    (size_t)fpl_image_offset(img, FPL_XFEATURE_XTILE_CFG),
		    "TILECFG is invalid (%s): XRSTOR loads this as init (no fault; LDTILECFG "
		    "would raise #GP)", t.cfg_why);
	if (t.data_unconfigured)
		add(img, FPL_IMAGE_NOTE, "xrstor.tiles_unconfigured",
		    (size_t)fpl_image_offset(img, FPL_XFEATURE_XTILE_DATA),
		    "TILEDATA is restored but TILECFG goes to init (%s): no tile is configured, "
		    "so the next tile instruction (TILESTORED) raises #UD (SIGILL) until a valid "
		    "LDTILECFG, which zeroes the tile data",
		    !t.cfg_in_bv ? "not in XSTATE_BV" : t.cfg_check == 0 ? "palette 0" :
		    "invalid");
}

/* The processor's rules for XRSTOR of this buffer with img->rfbm. */
static void check_xrstor(struct fpl_image *img, const struct fpl_image_cfg *cfg)
{
	size_t need;

	if (!img->xs->xsave) {
		add(img, FPL_IMAGE_FAULT, "xrstor.unsupported", 0,
		    "this CPU has no usable XSAVE: XRSTOR raises #UD (SIGILL)");
		return;
	}
	if (cfg->check_align && ((uintptr_t)img->buf & (FPL_XSAVE_ALIGN - 1)))
		add(img, FPL_IMAGE_FAULT, "xrstor.align", 0,
		    "the buffer at %p is not 64-byte aligned", (const void *)img->buf);
	if (img->compacted)
		check_xrstor_compacted(img, cfg);
	else
		check_xrstor_standard(img, cfg);
	check_tilecfg(img);
	need = xrstor_extent(img, img->rfbm & img->xstate_bv);
	if (need > img->len)
		add(img, FPL_IMAGE_FAULT, "image.truncated", img->len,
		    "XRSTOR with RFBM 0x%" PRIx64 " reads up to byte %zu; the image has %zu",
		    img->rfbm, need, img->len);
}

static uint32_t rd32(const struct fpl_image *img, size_t off)
{
	uint32_t v = 0;

	if (off + 4 <= img->len)
		memcpy(&v, img->buf + off, 4);
	return v;
}

static uint64_t rd64(const struct fpl_image *img, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= img->len)
		memcpy(&v, img->buf + off, 8);
	return v;
}

/* The kernel's check_xstate_in_sigframe(): when it fails, sigreturn restores x87/SSE only. */
static void parse_sw(struct fpl_image *img)
{
	struct fpl_image_sw *sw = &img->sw;
	uint32_t user_size = task_user_size(img);

	sw->magic1 = rd32(img, 464);
	sw->extended_size = rd32(img, 468);
	sw->xfeatures = rd64(img, 472);
	sw->xstate_size = rd32(img, 480);
	sw->magic2_found = (size_t)sw->xstate_size + 4 <= img->len &&
			   rd32(img, sw->xstate_size) == FPL_FP_XSTATE_MAGIC2;
	sw->valid = sw->magic1 == FPL_FP_XSTATE_MAGIC1 &&
		    sw->xstate_size >= FPL_XSAVE_HDR_OFFSET + FPL_XSAVE_HDR_SIZE &&
		    sw->xstate_size <= user_size && sw->xstate_size <= sw->extended_size &&
		    sw->magic2_found;
}

static void check_signal(struct fpl_image *img, const struct fpl_image_cfg *cfg)
{
	const struct fpl_image_sw *sw = &img->sw;
	uint32_t user_size = task_user_size(img);
	uint64_t xfd = fpl_xstate_xfd_mask(img->xs);
	const char *fx = "sigreturn would ignore the extended state and FXRSTOR x87/SSE only";
	char names[128];

	if (sw->magic1 != FPL_FP_XSTATE_MAGIC1)
		add(img, FPL_IMAGE_KERNEL, "sigframe.magic1", 464,
		    "magic1 0x%08" PRIx32 " is not 0x%08x: %s", sw->magic1,
		    FPL_FP_XSTATE_MAGIC1, fx);
	else if (sw->xstate_size < 576 || sw->xstate_size > user_size)
		add(img, FPL_IMAGE_KERNEL, "sigframe.xstate_size", 480,
		    "xstate_size %" PRIu32 " is outside 576..%" PRIu32 " (the standard size of "
		    "the restoring task's features 0x%" PRIx64 "%s): %s", sw->xstate_size,
		    user_size, img->task_mask & img->xcr0,
		    (xfd & ~img->task_mask) ? ", XFD-armed components left out" : "", fx);
	else if (sw->xstate_size > sw->extended_size)
		add(img, FPL_IMAGE_KERNEL, "sigframe.extended_size", 468,
		    "extended_size %" PRIu32 " is below xstate_size %" PRIu32 ": %s",
		    sw->extended_size, sw->xstate_size, fx);
	else if (!sw->magic2_found)
		add(img, FPL_IMAGE_KERNEL, "sigframe.magic2", sw->xstate_size,
		    "no magic2 0x%08x at byte %" PRIu32 " (xstate_size)%s: %s",
		    FPL_FP_XSTATE_MAGIC2, sw->xstate_size,
		    sw->xstate_size + 4 > img->len ? ", past the end of the file" : "", fx);
	if (!sw->valid)
		return;
	if (sw->extended_size != sw->xstate_size + FPL_FP_XSTATE_MAGIC2_SIZE)
		add(img, FPL_IMAGE_NOTE, "sigframe.extended_size", 468,
		    "extended_size %" PRIu32 " is not xstate_size + 4 as the kernel writes it",
		    sw->extended_size);
	if (sw->xfeatures & ~img->xcr0) {
		fpl_xfeature_mask_names(sw->xfeatures & ~img->xcr0, names, sizeof(names));
		add(img, FPL_IMAGE_NOTE, "sigframe.xfeatures", 472,
		    "xfeatures 0x%" PRIx64 " has %s outside XCR0: sigreturn ignores them",
		    sw->xfeatures, names);
	}
	if ((img->xstate_bv & FPL_XFEATURE_MASK_FPSSE) != FPL_XFEATURE_MASK_FPSSE)
		add(img, FPL_IMAGE_NOTE, "sigframe.fpsse", 512,
		    "XSTATE_BV 0x%" PRIx64 " lacks x87 or SSE, which the kernel always sets in "
		    "the frames it writes", img->xstate_bv);
	if (sw->xstate_size < user_size)
		add(img, FPL_IMAGE_NOTE, "sigframe.xstate_size", 480,
		    "xstate_size %" PRIu32 " is smaller than the restoring task's %" PRIu32
		    "%s", sw->xstate_size, user_size,
		    (xfd & ~sw->xfeatures) ? " (written by a task with XFD-armed components "
		    "unused, e.g. AMX tile data before its first use)" : "");
	/* A frame with XFD components restores fully only in a task that has used them. */
	if ((xfd & sw->xfeatures) &&
	    sw->xstate_size > fpl_xstate_size_std(img->xs, img->xcr0 & ~xfd))
		add(img, FPL_IMAGE_NOTE, "sigframe.xfd", 480,
		    "xstate_size %" PRIu32 " includes XFD components: a task that has not used "
		    "them (XFD armed, e.g. a fresh fork) has a %" PRIu32 "-byte fpstate and "
		    "sigreturn would restore x87/SSE only there", sw->xstate_size,
		    fpl_xstate_size_std(img->xs, img->xcr0 & ~xfd));
}

/* PTRACE_SETREGSET NT_X86_XSTATE: the kernel's validate_user_xstate_header() and MXCSR check. */
static void check_ptrace(struct fpl_image *img, const struct fpl_image_cfg *cfg)
{
	uint32_t size = fpl_xstate_size_std(img->xs, img->xcr0);
	uint64_t outside = img->xstate_bv & ~img->xcr0;
	uint64_t unused = img->xstate_bv & img->xcr0 & ~img->ptrace_features;
	char names[128];
	size_t nz;

	/* The whole XCR0-sized image, whatever the tracee (fpu_user_cfg.max_size). */
	if (img->len < size)
		add(img, FPL_IMAGE_KERNEL, "ptrace.size", img->len,
		    "%zu bytes: PTRACE_SETREGSET needs the whole %" PRIu32 "-byte standard image "
		    "(EFAULT)", img->len, size);
	if (outside)
		add(img, FPL_IMAGE_KERNEL, "ptrace.xstate_bv", bit_offset(512, outside),
		    "XSTATE_BV 0x%" PRIx64 " has bits outside XCR0 0x%" PRIx64 " (EINVAL)",
		    img->xstate_bv, img->xcr0);
	if (unused) {
		fpl_xfeature_mask_names(unused, names, sizeof(names));
		add(img, FPL_IMAGE_KERNEL, "ptrace.xstate_bv_unused", bit_offset(512, unused),
		    "XSTATE_BV 0x%" PRIx64 " has %s, which %s (%s) has not used: its fpstate "
		    "takes 0x%" PRIx64 " only (EINVAL), whatever its permission, until its first "
		    "tile use", img->xstate_bv, names, fpl_ptrace_tracee_words(img->tracee),
		    fpl_ptrace_tracee_name(img->tracee), img->ptrace_features);
	}
	if (img->xcomp_bv)
		add(img, FPL_IMAGE_KERNEL, "ptrace.xcomp_bv", bit_offset(520, img->xcomp_bv),
		    "XCOMP_BV 0x%" PRIx64 " is not zero: ptrace takes the standard form only "
		    "(EINVAL)", img->xcomp_bv);
	nz = first_nonzero(img, 528, 576);
	if (nz)
		add(img, FPL_IMAGE_KERNEL, "ptrace.header_16_63", nz,
		    "header byte %zu is 0x%02x: the kernel needs header bytes 16..63 zero (EINVAL)",
		    nz - 512, img->buf[nz]);
	if (img->xstate_bv & (FPL_XFEATURE_MASK_FPSSE | FPL_XFEATURE_MASK_YMM))
		check_mxcsr(img, cfg, FPL_IMAGE_KERNEL, "ptrace.mxcsr",
			    "PTRACE_SETREGSET with x87, SSE or AVX in XSTATE_BV (EINVAL)");
	if (img->ptrace_xcr0 != img->xcr0)
		add(img, FPL_IMAGE_NOTE, "ptrace.xcr0", 464,
		    "the dump's XCR0 0x%" PRIx64 " differs from this CPU's 0x%" PRIx64
		    ": layout and rules follow this CPU", img->ptrace_xcr0, img->xcr0);
}

/* A ptrace dump: XCR0 at 464 (x87 and SSE set, known bits only), zeros up to 512. */
static bool looks_ptrace(const struct fpl_image *img)
{
	uint64_t x = rd64(img, 464);

	if ((x & FPL_XFEATURE_MASK_FPSSE) != FPL_XFEATURE_MASK_FPSSE ||
	    x >> FPL_XFEATURE_MAX)
		return false;
	return !first_nonzero(img, 472, 512);
}

static void detect(struct fpl_image *img)
{
	if (img->sw.valid) {
		img->format = FPL_IMAGE_SIGNAL;
		snprintf(img->why, sizeof(img->why),
			 "signal frame: magic1 at 464, magic2 at %" PRIu32, img->sw.xstate_size);
	} else if (img->sw.magic1 == FPL_FP_XSTATE_MAGIC1 && img->sw.magic2_found) {
		/* both magics: a frame, written where the task's state was another size */
		img->format = FPL_IMAGE_SIGNAL;
		snprintf(img->why, sizeof(img->why),
			 "signal frame: magic1 at 464, magic2 at %" PRIu32 "; its xstate_size %"
			 PRIu32 " does not fit this CPU's task (%" PRIu32 " bytes): a frame "
			 "from another CPU or XCR0", img->sw.xstate_size, img->sw.xstate_size,
			 task_user_size(img));
	} else if (img->compacted) {
		img->format = FPL_IMAGE_COMPACTED;
		snprintf(img->why, sizeof(img->why), "compacted: XCOMP_BV[63] set");
	} else if (looks_ptrace(img)) {
		img->format = FPL_IMAGE_PTRACE;
		snprintf(img->why, sizeof(img->why),
			 "ptrace NT_X86_XSTATE: XCR0 0x%" PRIx64 " at 464, zeros to 511",
			 rd64(img, 464));
	} else {
		img->format = FPL_IMAGE_STANDARD;
		snprintf(img->why, sizeof(img->why),
			 "raw standard: no signal-frame magics, no XCR0 at 464, XCOMP_BV[63] clear");
	}
}

int fpl_image_decode(const void *buf, size_t len, const struct fpl_image_cfg *cfg,
		     struct fpl_image *img, struct fpl_diag *diag)
{
	memset(img, 0, sizeof(*img));
	img->buf = buf;
	img->len = len;
	img->xs = cfg->xs;
	img->xcr0 = cfg->xs->xcr0;
	img->task_mask = cfg->task_mask;
	if (len < FPL_XSAVE_HDR_OFFSET + FPL_XSAVE_HDR_SIZE)
		return fpl_diag_set(diag, -EINVAL,
				    "%zu bytes: an XSAVE image has at least 576 (legacy area and header)",
				    len);
	img->xstate_bv = rd64(img, 512);
	img->xcomp_bv = rd64(img, 520);
	img->compacted = img->xcomp_bv & FPL_XCOMP_BV_COMPACTED;
	img->mxcsr = rd32(img, 24);
	img->mxcsr_mask_saved = rd32(img, 28);
	img->mxcsr_mask = cfg->mxcsr_mask;
	img->ptrace_xcr0 = rd64(img, 464);
	img->tracee = (unsigned)cfg->tracee < FPL_TRACEE_NR ? cfg->tracee : FPL_TRACEE_NO_PERM;
	img->ptrace_features = tracee_features(cfg->xs, img->tracee);
	parse_sw(img);

	img->format = cfg->format;
	if (img->format == FPL_IMAGE_AUTO)
		detect(img);
	else if ((unsigned)img->format >= FPL_IMAGE_FORMAT_NR)
		return fpl_diag_set(diag, -EINVAL, "unknown image format %d", img->format);
	else
		snprintf(img->why, sizeof(img->why), "as declared");

	img->rfbm = cfg->rfbm & img->xcr0;
	switch (img->format) {
	case FPL_IMAGE_SIGNAL:
		check_signal(img, cfg);
		if (!img->sw.valid) {
			/* fx_only: FXRSTOR of the legacy area, which checks MXCSR alone. */
			img->rfbm &= FPL_XFEATURE_MASK_FPSSE;
			check_mxcsr(img, cfg, FPL_IMAGE_FAULT, "fxrstor.mxcsr", "FXRSTOR");
			return 0;
		}
		img->rfbm &= img->sw.xfeatures;
		break;
	case FPL_IMAGE_PTRACE:
		check_ptrace(img, cfg);
		break;
	case FPL_IMAGE_COMPACTED:
		if (!img->compacted)
			add(img, FPL_IMAGE_NOTE, "format.compacted", 527,
			    "declared compacted, but XCOMP_BV[63] is clear: XRSTOR uses the "
			    "standard form");
		break;
	default:
		break;
	}
	check_xrstor(img, cfg);
	return 0;
}
