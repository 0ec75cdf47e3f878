// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: compare's plain-number reader (one number a line, ministat style), statistics, emitters. */
#include "cmp_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cmp_fuzz_one(data, size, NULL);
}
