#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Make sure fpulab's build dependencies are present: install the missing
# Debian packages when running as root, otherwise print the exact command.
set -u

# package:probe pairs; a probe is a pkg-config module or a command.
NEED="gcc:cmd:gcc make:cmd:make pkg-config:cmd:pkg-config
libjansson-dev:pc:jansson libgsl-dev:pc:gsl libhwloc-dev:pc:hwloc
libcmocka-dev:pc:cmocka"
# Used when present; their absence only skips what needs them.
OPTIONAL="gnuplot-nox:cmd:gnuplot ministat:cmd:ministat qemu-user:cmd:qemu-x86_64
clang:cmd:clang ruby:cmd:ruby"

have() {
	case "$2" in
	cmd) command -v "$3" >/dev/null 2>&1 ;;
	pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$3" ;;
	esac
}

missing() {
	for item in $1; do
		pkg=${item%%:*}; rest=${item#*:}
		have "$pkg" "${rest%%:*}" "${rest#*:}" || printf '%s ' "$pkg"
	done
}

need=$(missing "$NEED")
want=""
[ "${FPL_DEPS_OPTIONAL:-1}" = 1 ] && want=$(missing "$OPTIONAL")
[ -z "$need$want" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing $need$want" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get update -qq >&2 && apt-get install -y -qq $need $want >&2; then
		exit 0
	fi
	# The optional ones may be unavailable; the required ones may not.
	if [ -n "$need" ] && apt-get install -y -qq $need >&2; then
		need=""
	fi
	[ -z "$need" ] && exit 0
fi
if [ -n "$need" ]; then
	echo "deps: missing build dependencies: $need" >&2
	echo "deps: install them with: sudo apt-get install -y $need" >&2
	exit 1
fi
echo "deps: optional tools missing (plots, ministat cross-check, CPU-model tests, the LKP parser test): $want" >&2
echo "deps: install them with: sudo apt-get install -y $want" >&2
exit 0
