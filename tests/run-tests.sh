#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Run every cmocka test binary, then print one closing line with the totals.
set -u
pass=0 fail=0 skip=0 broken=""
for t in "$@"; do
	# A bound on every test binary: a hung child or wait fails the run instead
	# of holding CI. Minutes, where a binary needs seconds even on a busy box.
	out=$(timeout -k 10 "${FPL_TEST_TIMEOUT:-300}" "$t" 2>&1); rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && out="$out
$(basename "$t"): timed out after ${FPL_TEST_TIMEOUT:-300} s"
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ $rc -ne 0 ] && [ -z "$f" ]; then
		# Crashed or exited before cmocka's summary: count it as a failure.
		fail=$((fail + 1)); broken="$broken $(basename "$t")"
	fi
done
[ -n "$broken" ] && echo "tests that did not finish:$broken"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
