// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: compare's will-it-scale log reader ("average:" lines), statistics, emitters. */
#include "cmp_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* "testcase:" makes the content will-it-scale output whatever follows. */
	return cmp_fuzz_one(data, size, "testcase:fuzz\n");
}
