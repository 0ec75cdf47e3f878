/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the compare fuzz targets: two cases from one input, read, tested and emitted. */
#ifndef FPL_FUZZ_CMP_H
#define FPL_FUZZ_CMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fpulab/compare.h"

/*
 * The readers take paths, so each case is a memfd named by /proc/self/fd.
 * The input is split at its first NUL byte: case 1 before, case 2 after
 * (both the same without one). prefix, when set, starts both files.
 */
static int cmp_fuzz_one(const uint8_t *data, size_t size, const char *prefix)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];
	static FILE *devnull;
	const uint8_t *nul = memchr(data, 0, size);
	const uint8_t *part[2] = { data, nul ? nul + 1 : data };
	size_t len[2] = { nul ? (size_t)(nul - data) : size, nul ? size - (size_t)(nul - data) - 1 : size };
	char *paths[2] = { path[0], path[1] };
	struct fpl_cmp_opts opts = { .trim = 10, .confidence = 95 };
	struct fpl_diag diag = { "" };
	struct fpl_cmp *c = NULL;

	if (fd[0] < 0) {
		for (int i = 0; i < 2; i++) {
			fd[i] = memfd_create("case", 0);
			if (fd[i] < 0)
				abort();
			snprintf(path[i], sizeof(path[i]), "/proc/self/fd/%d", fd[i]);
		}
		devnull = fopen("/dev/null", "w");
	}
	for (int i = 0; i < 2; i++) {
		size_t plen = prefix ? strlen(prefix) : 0;

		if (ftruncate(fd[i], 0) || pwrite(fd[i], prefix ? prefix : "", plen, 0) != (ssize_t)plen ||
		    pwrite(fd[i], part[i], len[i], (off_t)plen) != (ssize_t)len[i])
			abort();
	}
	/* The first byte also picks the trimming: none, 10 % or 25 %. */
	if (size)
		opts.trim = data[0] % 3 == 0 ? 0 : data[0] % 3 == 1 ? 10 : 25;
	if (fpl_cmp_run(paths, 2, &opts, &c, &diag)) {
		if (!diag.msg[0] || c)
			abort();
		return 0;
	}
	/* One emitter per input, picked by the second byte: all five cost five times as much. */
	(void)fpl_cmp_emit(c, size > 1 ? data[1] % (FPL_CMP_MINISTAT + 1) : FPL_CMP_TABLE,
			   devnull);
	fpl_cmp_free(c);
	return 0;
}

#endif
