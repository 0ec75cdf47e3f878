#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Stand-in for lkp-tests' lib/reproduce-log.sh in fpulab's tests: log_echo()
# echoes a command with a time stamp on stdout (as LKP's does, so parse must
# skip such lines) and appends it to $TMP_RESULT_ROOT/reproduce.sh; log_cmd()
# does that and runs it. Written for fpulab, not copied from LKP.

. "$LKP_SRC/lib/debug.sh"

log_echo()
{
	echo "$(date +'%F %T') $*"
	echo "$*" >>"${TMP_RESULT_ROOT:?}/reproduce.sh"
}

log_cmd()
{
	log_echo "$@"
	"$@"
}
