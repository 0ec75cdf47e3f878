#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# No function longer than LIMIT lines (STYLE: ~80), counted from its opening
# "{" to its closing "}" (kernel style: both alone at the start of a line).
#
# Usage: scripts/funclen.sh [LIMIT [DIR...]]   (default 80, src tests)
# Prints "file:line: N lines: signature" for each longer one and exits 1,
# else a one-line count and exits 0.
set -u
cd "$(dirname "$0")/.." || exit 2
LIMIT=${1:-80}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- src tests
awk -v lim="$LIMIT" '
FNR == 1 { start = 0 }
/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0 }
/^\{$/ { start = FNR; name = sig; next }
/^\}/ && start {
	n = FNR - start + 1; nf++;
	if (n > lim) { printf "%s:%d: %d lines: %s\n", FILENAME, start, n, name; bad++ }
	start = 0
}
END {
	if (bad)
		exit 1;
	printf "funclen: %d functions, none over %d lines\n", nf, lim;
}' $(find "$@" -name '*.[ch]' | sort)
