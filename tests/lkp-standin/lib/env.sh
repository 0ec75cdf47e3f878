#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Stand-in for lkp-tests' lib/env.sh in fpulab's tests: the two command
# look-ups the fpulab program uses. Written for fpulab, not copied from LKP.

. "$LKP_SRC/lib/debug.sh"

has_cmd()
{
	command -v "$1" >/dev/null
}

cmd_path()
{
	command -v "$1"
}
