// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/base/diag.c: error detail for the caller to print. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/base.h"

static void test_set_and_prefix(void **state)
{
	struct fpl_diag d = { "" };

	(void)state;
	assert_int_equal(fpl_diag_set(&d, -EINVAL, "'%s' is not a state", "bogus"), -EINVAL);
	assert_string_equal(d.msg, "'bogus' is not a state");
	/* the option's name before a parse error, the message kept */
	assert_int_equal(fpl_diag_prefix(&d, -EINVAL, "--state"), -EINVAL);
	assert_string_equal(d.msg, "--state: 'bogus' is not a state");
	/* not a parse error: the message stands as it is */
	assert_int_equal(fpl_diag_prefix(&d, -ENOTSUP, "--ab"), -ENOTSUP);
	assert_string_equal(d.msg, "--state: 'bogus' is not a state");
	assert_int_equal(fpl_diag_prefix(NULL, -EINVAL, "--ab"), -EINVAL);
	assert_int_equal(fpl_diag_set(NULL, -ENOMEM, "x"), -ENOMEM);
	/* a message as long as the buffer is cut, never overrun */
	memset(d.msg, 'x', sizeof(d.msg) - 1);
	d.msg[sizeof(d.msg) - 1] = 0;
	assert_int_equal(fpl_diag_prefix(&d, -EINVAL, "--mask"), -EINVAL);
	assert_int_equal(strlen(d.msg), sizeof(d.msg) - 1);
	assert_memory_equal(d.msg, "--mask: xxx", 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
