// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * AMX in use: the first use (tile data loaded once, outside any timed region)
 * and TILERELEASE. Above regs.c, which loads the tiles, and amx.c, which says
 * whether they may be loaded.
 */
#include <errno.h>
#include <string.h>

#include "fpulab/amx.h"
#include "xstate_internal.h"

static int not_supported(const struct fpl_xstate *xs, struct fpl_diag *diag)
{
	const char *why;

	if (fpl_amx_supported(xs, &why))
		return 0;
	return fpl_diag_set(diag, -ENOTSUP, "%s", why);
}

int fpl_amx_release(const struct fpl_xstate *xs)
{
	int err = not_supported(xs, NULL);

	if (err)
		return err;
	if (!fpl_amx_permitted(xs))
		return fpl_regs_init(xs, FPL_XFEATURE_MASK_XTILE_CFG);
	fpl_tilerelease();
	return 0;
}

int fpl_amx_first_use(const struct fpl_xstate *xs, struct fpl_diag *diag)
{
	uint64_t inuse = FPL_XFEATURE_MASK_XTILE;
	int err = not_supported(xs, diag);

	if (err)
		return err;
	if (!xs->live)
		return fpl_diag_set(diag, -EINVAL, "the CPU snapshot is a dump: no tile to touch");
	if (!fpl_amx_permitted(xs))
		return fpl_diag_set(diag, -EPERM,
				    "AMX tile data is not permitted (ARCH_REQ_XCOMP_PERM not asked "
				    "or refused): using it would be SIGILL");
	err = fpl_regs_set(xs, FPL_XFEATURE_MASK_XTILE, 0x7117);
	if (!err && xs->xgetbv1)
		inuse = fpl_xgetbv(1);
	if (!err)
		fpl_tilerelease();
	if (err)
		return fpl_diag_set(diag, err, "loading tile data failed: %s", strerror(-err));
	if ((inuse & FPL_XFEATURE_MASK_XTILE) != FPL_XFEATURE_MASK_XTILE)
		return fpl_diag_set(diag, -EIO,
				    "tiles loaded but XINUSE 0x%llx does not show TILECFG|TILEDATA",
				    (unsigned long long)inuse);
	return 0;
}
