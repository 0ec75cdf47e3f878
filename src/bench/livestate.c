// SPDX-License-Identifier: GPL-3.0-or-later
/* Live register states for the kernel-facing benchmarks: images prepared once, loaded by XRSTOR. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/result.h"
#include "livestate.h"

/* State a task cannot simply load: protection keys, AMX (needs permission), APX (GPRs). */
#define NOT_LOADABLE	(FPL_XFEATURE_MASK_PKRU | FPL_XFEATURE_MASK_XTILE | \
			 FPL_XFEATURE_MASK(APX))

static uint64_t loadable(const struct fpl_xstate *xs)
{
	return xs->xcr0 & ~NOT_LOADABLE;
}

int fpl_live_parse(const struct fpl_xstate *xs, const char *s, bool *none, uint64_t *mask,
		   struct fpl_diag *diag)
{
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
	if (*mask & ~loadable(xs))
		return fpl_diag_set(diag, -ENOTSUP,
				    "state '%s': mask 0x%" PRIx64 " has components this task cannot "
				    "make live here (usable: 0x%" PRIx64 "; PKRU, AMX and APX are not "
				    "offered)", s, *mask, loadable(xs));
	return 0;
}

int fpl_live_init(struct fpl_live *l, const struct fpl_cpu *cpu, const uint64_t *masks,
		  unsigned n, struct fpl_diag *diag)
{
	int err;

	memset(l, 0, sizeof(*l));
	err = fpl_xstate_init(&l->xs, cpu);
	if (err)
		return fpl_diag_set(diag, err, "xstate: CPUID leaf 0xD unreadable");
	if (!l->xs.xsave)
		return fpl_diag_set(diag, -ENOTSUP, "live state needs XSAVE (this CPU or OS lacks it)");
	l->rfbm = loadable(&l->xs);
	l->xinuse = fpl_cpu_has(cpu, FPL_FEAT_XGETBV1);
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
