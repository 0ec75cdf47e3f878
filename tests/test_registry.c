// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/bench/registry.c: the benchmarks' shared option parsers (sizes lists). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/bench.h"

static void test_parse_sizes(void **state)
{
	struct fpl_diag diag = { "" };
	size_t v[4], n = 0;

	assert_int_equal(fpl_parse_sizes("64,1k,0x100", 64, 65536, 64, v, 4, &n, &diag), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 64);
	assert_int_equal(v[1], 1024);
	assert_int_equal(v[2], 256);
	assert_int_equal(fpl_parse_sizes("1000", 64, 65536, 64, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "1000"));
	assert_non_null(strstr(diag.msg, "multiple of 64"));
	assert_int_equal(fpl_parse_sizes("128k", 64, 65536, 64, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "outside"));
	assert_int_equal(fpl_parse_sizes("64,,128", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("64,", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_int_equal(fpl_parse_sizes("big", 64, 65536, 1, v, 4, &n, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "'big'"));
	assert_int_equal(fpl_parse_sizes("64,64,64,64,64", 64, 65536, 1, v, 4, &n, &diag),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
