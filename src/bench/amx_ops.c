// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX for the benchmarks: permission through raw arch_prctl, asked and read as often as timed. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fpulab/xstate.h"
#include "amx_ops.h"

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
