// SPDX-License-Identifier: GPL-3.0-or-later
/* Extended-state components from CPUID 0xD, their layouts, and component-mask parsing. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpulab/amx.h"
#include "fpulab/image.h"
#include "fpulab/xstate.h"

static const char *const xfeature_names[FPL_XFEATURE_MAX] = {
	"x87", "SSE", "AVX", "MPX_BNDREGS", "MPX_BNDCSR", "AVX512_OPMASK",
	"AVX512_ZMM_Hi256", "AVX512_Hi16_ZMM", "PT", "PKRU", "PASID", "CET_U",
	"CET_S", "HDC", "UINTR", "LBR", "HWP", "AMX_TILECFG", "AMX_TILEDATA", "APX",
};

const char *fpl_xfeature_name(unsigned id)
{
	return id < FPL_XFEATURE_MAX ? xfeature_names[id] : "?";
}

char *fpl_xfeature_mask_names(uint64_t mask, char *buf, size_t n)
{
	size_t len = 0;

	if (!n)
		return buf;
	buf[0] = 0;
	if (!mask)
		snprintf(buf, n, "none");
	for (unsigned i = 0; i < 64 && len < n; i++) {
		if (!(mask >> i & 1))
			continue;
		if (i < FPL_XFEATURE_MAX)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "|" : "",
						xfeature_names[i]);
		else
			len += (size_t)snprintf(buf + len, n - len, "%sbit%u", len ? "|" : "", i);
	}
	return buf;
}

/* The legacy area holds x87 (with its pointers) at 0 and the XMM registers at 160. */
#define FP_SIZE		160
#define SSE_OFFSET	160
#define SSE_SIZE	256

int fpl_xstate_init(struct fpl_xstate *xs, const struct fpl_cpu *cpu)
{
	uint32_t r[4];
	uint64_t all;

	memset(xs, 0, sizeof(*xs));
	xs->live = cpu->live;
	xs->comp[FPL_XFEATURE_FP] = (struct fpl_xcomp){ true, false, false, false, FP_SIZE, 0 };
	xs->comp[FPL_XFEATURE_SSE] =
		(struct fpl_xcomp){ true, false, false, false, SSE_SIZE, SSE_OFFSET };
	if (!fpl_cpu_has(cpu, FPL_FEAT_XSAVE)) {
		xs->xcr0 = xs->user = FPL_XFEATURE_MASK_FPSSE;
		xs->size_std_xcr0 = xs->size_std_max = xs->size_compacted_xss =
			FPL_XSAVE_LEGACY_SIZE;
		return 0;
	}
	xs->xsave = true;
	xs->xgetbv1 = cpu->live && fpl_cpu_has(cpu, FPL_FEAT_XGETBV1);
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	xs->user = ((uint64_t)r[3] << 32 | r[0]) & ((1ull << FPL_XFEATURE_MAX) - 1);
	xs->size_std_xcr0 = r[1];
	xs->size_std_max = r[2];
	fpl_cpu_cpuid(cpu, 0xd, 1, r);
	xs->supervisor = ((uint64_t)r[3] << 32 | r[2]) & ((1ull << FPL_XFEATURE_MAX) - 1);
	xs->size_compacted_xss = r[1];
	xs->xcr0 = cpu->xcr0 & xs->user;
	xs->perm_known = !cpu->live && cpu->xcomp_perm_known;
	xs->perm = cpu->xcomp_perm & xs->xcr0;

	all = xs->user | xs->supervisor;
	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		struct fpl_xcomp *c = &xs->comp[i];

		if (!(all >> i & 1))
			continue;
		fpl_cpu_cpuid(cpu, 0xd, i, r);
		c->enumerated = true;
		c->size = r[0];
		/* The 0xD.1 mask decides, also for a dump that lacks the subleaf. */
		c->supervisor = (xs->supervisor >> i & 1) || (r[2] & 1);
		c->align64 = r[2] >> 1 & 1;
		c->xfd = r[2] >> 2 & 1;
		c->offset = c->supervisor ? 0 : r[1];
	}
	/* Without AMX-TILE (or a sane palette 1) xs->amx stays invalid: no TILECFG is ever built. */
	fpl_amx_palette(cpu, &xs->amx, NULL);
	return 0;
}

static bool in_layout(const struct fpl_xstate *xs, uint64_t mask, unsigned id)
{
	return id < FPL_XFEATURE_MAX && (mask >> id & 1) && xs->comp[id].enumerated;
}

uint32_t fpl_xstate_size_std(const struct fpl_xstate *xs, uint64_t mask)
{
	uint32_t size = FPL_XSAVE_LEGACY_SIZE + (xs->xsave ? FPL_XSAVE_HDR_SIZE : 0);

	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *c = &xs->comp[i];

		if (in_layout(xs, mask, i) && !c->supervisor && c->offset + c->size > size)
			size = c->offset + c->size;
	}
	return size;
}

/* Walk the mask upwards from the end of the header; returns the end of the last component. */
static uint32_t walk_compacted(const struct fpl_xstate *xs, uint64_t mask, unsigned stop,
			       uint32_t *offset)
{
	uint32_t off = FPL_XSAVE_LEGACY_SIZE + FPL_XSAVE_HDR_SIZE;

	for (unsigned i = 2; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *c = &xs->comp[i];

		if (!in_layout(xs, mask, i))
			continue;
		if (c->align64)
			off = (off + 63) & ~63u;
		if (i == stop) {
			*offset = off;
			return off + c->size;
		}
		off += c->size;
	}
	return off;
}

uint32_t fpl_xstate_size_compacted(const struct fpl_xstate *xs, uint64_t mask)
{
	uint32_t unused;

	if (!xs->xsave)
		return FPL_XSAVE_LEGACY_SIZE;
	return walk_compacted(xs, mask, FPL_XFEATURE_MAX, &unused);
}

int64_t fpl_xstate_offset_std(const struct fpl_xstate *xs, unsigned id)
{
	if (id >= FPL_XFEATURE_MAX || !xs->comp[id].enumerated || xs->comp[id].supervisor)
		return -1;
	return xs->comp[id].offset;
}

int64_t fpl_xstate_offset_compacted(const struct fpl_xstate *xs, uint64_t mask, unsigned id)
{
	uint32_t off;

	if (!in_layout(xs, mask, id))
		return -1;
	if (id < 2)
		return xs->comp[id].offset;
	walk_compacted(xs, mask, id, &off);
	return off;
}

/* The ia32 sigframe (the largest), FRAME_ALIGNMENT - 1, MAX_XSAVE_PADDING, struct fregs_state. */
#define SIGFRAME_IA32		736u
#define FRAME_PADDING		15u
#define XSAVE_PADDING		63u
#define FREGS_STATE		112u

uint32_t fpl_xstate_sigframe_max(const struct fpl_xstate *xs)
{
	uint32_t fpstate = xs->xsave ? fpl_xstate_size_std(xs, fpl_xstate_xcr0(xs)) +
					       FPL_FP_XSTATE_MAGIC2_SIZE
				     : FPL_XSAVE_LEGACY_SIZE;
	uint32_t n = SIGFRAME_IA32 + FRAME_PADDING + fpstate + FREGS_STATE + XSAVE_PADDING;

	return (n + 15) & ~15u;
}

uint32_t fpl_xstate_altstack_min(const struct fpl_xstate *xs)
{
	uint32_t need = fpl_xstate_sigframe_max(xs);

	return need > FPL_KERNEL_MINSIGSTKSZ ? need : FPL_KERNEL_MINSIGSTKSZ;
}

/* Names accepted by fpl_xstate_parse_mask besides the canonical ones. */
static const struct {
	const char *name;
	uint64_t mask;
} mask_aliases[] = {
	{ "fp", FPL_XFEATURE_MASK_FP },
	{ "ymm", FPL_XFEATURE_MASK_YMM },
	{ "bndregs", 1ull << FPL_XFEATURE_BNDREGS },
	{ "bndcsr", 1ull << FPL_XFEATURE_BNDCSR },
	{ "mpx", 3ull << FPL_XFEATURE_BNDREGS },
	{ "opmask", FPL_XFEATURE_MASK_OPMASK },
	{ "zmm_hi256", FPL_XFEATURE_MASK_ZMM_Hi256 },
	{ "hi16_zmm", FPL_XFEATURE_MASK_Hi16_ZMM },
	{ "avx512", FPL_XFEATURE_MASK_AVX512 },
	{ "fpsse", FPL_XFEATURE_MASK_FPSSE },
	{ "cet", 3ull << FPL_XFEATURE_CET_USER },
	{ "tilecfg", FPL_XFEATURE_MASK_XTILE_CFG },
	{ "tiledata", FPL_XFEATURE_MASK_XTILE_DATA },
	{ "amx", FPL_XFEATURE_MASK_XTILE },
	{ "none", 0 },
};

const char *fpl_xstate_widest(uint64_t have, uint64_t *mask)
{
	static const struct {
		const char *name;
		uint64_t mask;
	} order[] = {
		{ "avx512", FPL_XFEATURE_MASK_AVX512 },
		{ "avx", FPL_XFEATURE_MASK_YMM },
		{ "sse", FPL_XFEATURE_MASK_SSE },
	};

	for (unsigned i = 0; i < FPL_ARRAY_SIZE(order); i++)
		if ((have & order[i].mask) == order[i].mask) {
			*mask = order[i].mask;
			return order[i].name;
		}
	*mask = FPL_XFEATURE_MASK_FP;
	return "x87";
}

bool fpl_xstate_names_widest(const char *s)
{
	for (const char *p = s; p && *p;) {
		size_t n = strcspn(p, ",+");

		if (n == 6 && !strncasecmp(p, "widest", 6))
			return true;
		p += n + (p[n] != 0);
	}
	return false;
}

const char *fpl_xstate_widest_note(uint64_t have, const char *what, char *buf, size_t n)
{
	uint64_t m;
	const char *name = fpl_xstate_widest(have, &m);
	int k = snprintf(buf, n, "state 'widest' here: %s (0x%" PRIx64 ")", name, m);

	if (k >= 0 && (size_t)k < n && strcmp(name, "avx512"))
		snprintf(buf + k, n - (size_t)k, ": no AVX-512%s in %s 0x%" PRIx64,
			 strcmp(name, "avx") ? " or AVX" : "", what, have);
	return buf;
}

static int parse_name(const struct fpl_xstate *xs, const char *s, size_t n, uint64_t *mask)
{
	if (n == 3 && !strncasecmp(s, "all", 3)) {
		*mask = fpl_xstate_permitted(xs);
		return 0;
	}
	if (n == 6 && !strncasecmp(s, "widest", 6)) {
		fpl_xstate_widest(fpl_xstate_xcr0(xs), mask);
		return 0;
	}
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		if (strlen(xfeature_names[i]) == n && !strncasecmp(s, xfeature_names[i], n)) {
			*mask = 1ull << i;
			return 0;
		}
	}
	for (unsigned i = 0; i < FPL_ARRAY_SIZE(mask_aliases); i++) {
		if (strlen(mask_aliases[i].name) == n && !strncasecmp(s, mask_aliases[i].name, n)) {
			*mask = mask_aliases[i].mask;
			return 0;
		}
	}
	return -EINVAL;
}

int fpl_xstate_parse_mask(const struct fpl_xstate *xs, const char *s, uint64_t *mask,
			  struct fpl_diag *diag)
{
	uint64_t m = 0, one;
	const char *p = s, *e;
	char *end;

	if (!s || !*s)
		return fpl_diag_set(diag, -EINVAL, "empty component mask");
	if (isdigit((unsigned char)s[0])) {
		errno = 0;
		m = strtoull(s, &end, 0);
		if (errno || *end)
			return fpl_diag_set(diag, -EINVAL, "component mask '%s' is not a number", s);
		if (m >> FPL_XFEATURE_MAX)
			return fpl_diag_set(diag, -EINVAL,
					    "component mask '%s' has bits above component %d", s,
					    FPL_XFEATURE_MAX - 1);
		*mask = m;
		return 0;
	}
	for (;;) {
		e = p + strcspn(p, ",+");
		if (e == p || parse_name(xs, p, (size_t)(e - p), &one))
			return fpl_diag_set(diag, -EINVAL,
					    "unknown component '%.*s' in mask '%s' (x87, sse, avx, "
					    "opmask, zmm_hi256, hi16_zmm, avx512, pkru, tilecfg, "
					    "tiledata, amx, apx, all, widest, or a number)",
					    (int)(e - p), p, s);
		m |= one;
		if (!*e)
			break;
		p = e + 1;
	}
	*mask = m;
	return 0;
}

void *fpl_xstate_alloc(size_t size)
{
	void *p;

	size = (size + FPL_XSAVE_ALIGN - 1) & ~(size_t)(FPL_XSAVE_ALIGN - 1);
	if (!size || posix_memalign(&p, FPL_XSAVE_ALIGN, size))
		return NULL;
	memset(p, 0, size);
	return p;
}

static const char *const insn_names[FPL_INSN_NR] = {
	"fxsave", "xsave", "xsaveopt", "xsavec", "xsaves",
};

const char *fpl_save_insn_name(enum fpl_save_insn insn)
{
	return (unsigned)insn < FPL_INSN_NR ? insn_names[insn] : "?";
}

int fpl_save_insn_by_name(const char *name)
{
	for (unsigned i = 0; i < FPL_INSN_NR; i++)
		if (!strcasecmp(name, insn_names[i]))
			return (int)i;
	return -1;
}

int fpl_save_insn_supported(const struct fpl_cpu *cpu, enum fpl_save_insn insn,
			    const char **why)
{
	static const enum fpl_feature feat[FPL_INSN_NR] = {
		FPL_FEAT_FXSR, FPL_FEAT_XSAVE, FPL_FEAT_XSAVEOPT, FPL_FEAT_XSAVEC, FPL_FEAT_XSAVES,
	};
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if ((unsigned)insn >= FPL_INSN_NR) {
		*why = "unknown instruction";
		return 0;
	}
	if (!fpl_cpu_has_cpuid(cpu, feat[insn]) ||
	    (insn != FPL_INSN_FXSAVE && !fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVE))) {
		*why = "not on this CPU";
		return 0;
	}
	if (insn == FPL_INSN_XSAVES) {
		*why = "ring 0 only: the kernel's; not measurable here";
		return 0;
	}
	if (insn != FPL_INSN_FXSAVE && !fpl_cpu_has(cpu, feat[insn])) {
		*why = "XSAVE not enabled by the OS (CR4.OSXSAVE clear)";
		return 0;
	}
	return 1;
}
