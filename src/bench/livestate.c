// SPDX-License-Identifier: GPL-3.0-or-later
/* Live register states for the kernel-facing benchmarks: images prepared once, loaded by XRSTOR. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/result.h"
#include "livestate.h"

/* State a task cannot simply load: protection keys, AMX (needs permission first), APX (GPRs). */
#define NOT_LOADABLE	(FPL_XFEATURE_MASK_PKRU | FPL_XFEATURE_MASK_XTILE | \
			 FPL_XFEATURE_MASK(APX))

static uint64_t loadable(const struct fpl_xstate *xs)
{
	return xs->xcr0 & ~NOT_LOADABLE;
}

/* AMX tile state, where the CPU and the OS have it: offered, permission asked at init. */
static uint64_t amx_offered(const struct fpl_xstate *xs, const char **why)
{
	if (!fpl_amx_supported(xs, why))
		return 0;
	return xs->xcr0 & FPL_XFEATURE_MASK_XTILE;
}

uint64_t fpl_live_offered(const struct fpl_xstate *xs)
{
	return loadable(xs) | amx_offered(xs, NULL);
}

int fpl_live_parse(const struct fpl_xstate *xs, const char *s, bool *none, uint64_t *mask,
		   struct fpl_diag *diag)
{
	const char *why = NULL;
	uint64_t offered;
	int err;

	*none = false;
	*mask = 0;
	if (!strcmp(s, "none")) {
		*none = true;
		return 0;
	}
	if (!strcmp(s, "init"))
		return 0;
	err = fpl_xstate_parse_mask(xs, s, mask, diag);
	if (err)
		return err;
	offered = loadable(xs) | amx_offered(xs, &why);
	if ((*mask & FPL_XFEATURE_MASK_XTILE) && !(offered & FPL_XFEATURE_MASK_XTILE))
		return fpl_diag_set(diag, -ENOTSUP, "state '%s': %s", s,
				    why ? why : "no AMX tile state here (XCR0 bits 17 and 18)");
	if (*mask & ~offered)
		return fpl_diag_set(diag, -ENOTSUP,
				    "state '%s': mask 0x%" PRIx64 " has components this task cannot "
				    "make live here (usable: 0x%" PRIx64 "; PKRU and APX are not "
				    "offered)", s, *mask, offered);
	return 0;
}

/* Ask for tile data once, before any alternate stack is installed (ENOSPC otherwise). */
static int amx_permission(struct fpl_live *l, struct fpl_diag *diag)
{
	struct fpl_diag d = { "" };
	int err = fpl_amx_request_perm(&l->xs, &l->perm_before, &l->perm_after, &d);

	if (err == -ENOMEM)
		return fpl_diag_set(diag, err, "%s", d.msg);
	if (err)
		return fpl_diag_set(diag, -ENOTSUP, "AMX permission: %s", d.msg);
	return 0;
}

int fpl_live_first_use(const struct fpl_live *l, struct fpl_diag *diag)
{
	/* The XFD trap: the kernel enlarges this task's fpstate and disarms XFD. */
	return l->amx ? fpl_amx_first_use(&l->xs, diag) : 0;
}

int fpl_live_init(struct fpl_live *l, const struct fpl_cpu *cpu, const uint64_t *masks,
		  unsigned n, struct fpl_diag *diag)
{
	uint64_t want = 0;
	int err;

	memset(l, 0, sizeof(*l));
	err = fpl_xstate_init(&l->xs, cpu);
	if (err)
		return fpl_diag_set(diag, err, "xstate: CPUID leaf 0xD unreadable");
	if (!l->xs.xsave)
		return fpl_diag_set(diag, -ENOTSUP, "live state needs XSAVE (this CPU or OS lacks it)");
	l->rfbm = loadable(&l->xs);
	l->xinuse = fpl_cpu_has(cpu, FPL_FEAT_XGETBV1);
	for (unsigned i = 0; i < n && i < FPL_LIVE_MAX; i++)
		want |= masks[i];
	if (want & FPL_XFEATURE_MASK_XTILE) {
		const char *why = NULL;

		if (!amx_offered(&l->xs, &why))
			return fpl_diag_set(diag, -ENOTSUP, "%s", why ? why : "no AMX here");
		/* Every state then loads the tile components too: init where not live. */
		l->amx = true;
		l->rfbm |= l->xs.xcr0 & FPL_XFEATURE_MASK_XTILE;
		err = amx_permission(l, diag);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < n && i < FPL_LIVE_MAX; i++) {
		if (masks[i] & ~l->rfbm) {
			fpl_live_free(l);
			return fpl_diag_set(diag, -ENOTSUP, "state 0x%" PRIx64 " not loadable here",
					    masks[i]);
		}
		l->img[i] = fpl_xstate_alloc(l->xs.size_std_max);
		if (!l->img[i]) {
			fpl_live_free(l);
			return fpl_diag_set(diag, -ENOMEM, "out of memory for an XSAVE image");
		}
		fpl_xstate_pattern(&l->xs, masks[i], 0x5eed0000u + i, l->img[i]);
		l->mask[i] = masks[i];
		l->n++;
	}
	/* First tile use here, outside every timed region (and again in each new task). */
	if (l->amx) {
		struct fpl_diag d = { "" };

		err = fpl_live_first_use(l, &d);
		if (err) {
			fpl_live_free(l);
			return fpl_diag_set(diag, err == -ENOMEM ? err : -ENOTSUP,
					    "AMX first use: %s", d.msg);
		}
	}
	return 0;
}

void fpl_live_free(struct fpl_live *l)
{
	for (unsigned i = 0; i < FPL_LIVE_MAX; i++) {
		free(l->img[i]);
		l->img[i] = NULL;
	}
	l->n = 0;
}

const char *fpl_live_mask_str(uint64_t mask, char *buf, unsigned len)
{
	if (!mask)
		snprintf(buf, len, "init");
	else
		snprintf(buf, len, "0x%" PRIx64, mask);
	return buf;
}

bool fpl_live_extra_ok(uint64_t and_seen, uint64_t others)
{
	return !(and_seen & others & ~FPL_XFEATURE_MASK_FPSSE);
}

void fpl_live_obs_extra(struct fpl_run *run, const char *key, uint64_t and_seen,
			uint64_t or_seen, uint64_t others)
{
	char names[160], buf[220];

	if (!(or_seen & others))
		return;
	fpl_xfeature_mask_names(or_seen & others, names, sizeof(names));
	snprintf(buf, sizeof(buf), "0x%" PRIx64 " (%s) %s", or_seen & others, names,
		 (and_seen & others) == (or_seen & others) ? "at every check" : "at some checks");
	fpl_run_obs_str(run, key, buf);
}

const char *fpl_live_diff_words(uint64_t missing, uint64_t extra, char *buf, size_t n)
{
	char a[160], b[160];
	int k = 0;

	buf[0] = 0;
	if (missing)
		k = snprintf(buf, n, "; set up but found in init: %s (0x%" PRIx64 ")",
			     fpl_xfeature_mask_names(missing, a, sizeof(a)), missing);
	if (extra && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "; in use though not set up: %s (0x%" PRIx64 ")",
			 fpl_xfeature_mask_names(extra, b, sizeof(b)), extra);
	return buf;
}
