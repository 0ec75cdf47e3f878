// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: option values as typed on the command line, checked against every benchmark's options. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/bench.h"
#include "fpulab/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fpl_diag diag;
	char *s = malloc(size + 1);
	long long v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	(void)fpl_parse_int(s, &v);
	(void)fpl_feature_by_name(s);
	for (size_t i = 0; i < fpl_nbenches; i++) {
		const struct fpl_bench *b = fpl_benches[i];

		for (const struct fpl_opt *o = b->opts; o && o->name; o++) {
			struct fpl_optval ov = { o->name, s };

			if (fpl_bench_check_opts(b, &ov, 1, &diag) && !diag.msg[0])
				abort();	/* rejected without saying why */
		}
	}
	free(s);
	return 0;
}
