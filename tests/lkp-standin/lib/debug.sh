#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Stand-in for lkp-tests' lib/debug.sh in fpulab's tests: die() as LKP has it
# (message on stderr, exit 99). Written for fpulab, not copied from LKP.

die()
{
	echo "$@" >&2
	exit 99
}
