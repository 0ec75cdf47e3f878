/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * assert_near(a, b, eps): |a - b| <= eps in double precision, both values
 * printed on failure. cmocka 1.1.5's assert_float_equal casts to float (a
 * 1e-12 epsilon becomes float precision) and, being a macro without
 * parentheses, casts only the first operand of an expression argument.
 */
#ifndef FPL_TESTS_NEAR_H
#define FPL_TESTS_NEAR_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

static inline void near_check(double a, double b, double eps, const char *ea, const char *eb,
			      const char *file, int line)
{
	if (fabs(a - b) <= eps || (a == b))
		return;
	print_error("%s = %.17g, %s = %.17g: differ by %.3g, more than %.3g\n", ea, a, eb, b,
		    fabs(a - b), eps);
	_fail(file, line);
}

#define assert_near(a, b, eps) near_check((a), (b), (eps), #a, #b, __FILE__, __LINE__)

#endif
