#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark (not a test): fpulab compare on N samples per case (default 10^6), two cases,
# untrimmed and 10% trimmed, 3 runs each. Prints wall, user and system seconds per run.
set -eu
N=${1:-1000000}
BIN=${FPL_BIN:-build/fpulab}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk -v n="$N" -v m=1000 'BEGIN { srand(1); for (i = 0; i < n; i++) {
	u = rand(); v = rand(); printf "%.4f\n", m + 20 * sqrt(-2 * log(1 - u)) * cos(6.283185307 * v) } }' > "$dir/a"
awk -v n="$N" -v m=1000.5 'BEGIN { srand(2); for (i = 0; i < n; i++) {
	u = rand(); v = rand(); printf "%.4f\n", m + 20 * sqrt(-2 * log(1 - u)) * cos(6.283185307 * v) } }' > "$dir/b"
echo "fpulab compare, 2 cases x $N samples (plain numbers), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
for trim in 0 10; do
	for run in 1 2 3; do
		/usr/bin/env time -f "trim $trim run $run: %e s wall, %U s user, %S s sys, %M KB" \
			"$BIN" compare --trim "$trim" "$dir/a" "$dir/b" > /dev/null
	done
done
