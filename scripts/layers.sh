#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The layer rules, checked on a build: no call or include points up a layer,
# no two files of src/ call each other, directly or round a cycle, the
# command layer (src/cli) stays thinner in lines than src/report and calls
# neither the clock, the summaries nor the JSON builders, and src/report
# never parses a metric's method text (it reads the typed facts:
# fpl_metric_method_parts, fpl_metric_kind, fpl_metric_family).
#
# Usage: scripts/layers.sh [BUILD]   (BUILD: the build folder, default build)
# Prints one line per breach and exits 1 when there is any, else exits 0
# with a one-line summary. Calls are read from the objects (nm: what each
# defines and what it uses), includes from the sources.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 2

# The layers, lowest first: a file may use its own layer and those below.
RANKS="base:0 cpu:0 stats:0 result:0 ktrace:1 clock:1 xstate:1 kernels:2 model:2
bench:3 report:4 cli:5"

srcs=$(find src -name '*.c' | sort)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# "D file sym": file defines the function sym; "U file sym": file uses sym
for f in $srcs; do
	o=$BUILD/${f%.c}.o
	[ -e "$o" ] || { echo "layers: no $o: build first" >&2; exit 2; }
	nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 == "T" { print "D", f, $3 }'
done > "$tmp/syms" || exit 2

# "file includes header", the header as src/... or include/...
for c in $(find src -name '*.c' -o -name '*.h' | sort); do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$c" |
	while read -r h; do
		# where the compiler looks: the file's folder, then -Iinclude -Isrc
		if [ -e "$(dirname "$c")/$h" ]; then echo "$c $(dirname "$c")/$h";
		elif [ -e "include/$h" ]; then echo "$c include/$h";
		elif [ -e "src/$h" ]; then echo "$c src/$h"; fi
	done
done > "$tmp/incs"

# "header declares sym" for the public headers: what gives one its layer
for h in include/fpulab/*.h; do
	grep -v '^[[:space:]]*\(\*\|/\*\|//\)' "$h" | grep -o 'fpl_[a-z0-9_]*(' | sed "s|^|H $h |; s|($||"
done > "$tmp/decls"

# The command layer measures, summarises and builds JSON through the library only.
for o in "$BUILD"/src/cli/*.o; do
	nm "$o" | awk -v f="$o" '$1 == "U" && $2 ~ /^(fpl_clock_|fpl_summarize|fpl_metric_summary|json_object_set|json_object_update|json_object_del|json_array_(append|extend|insert|remove|set)|json_pack)/ { print "cli builds what the library should: " f " uses " $2 }'
done > "$tmp/clibad"

# a string search in anything named method: the sentence read as data
prose=$(grep -nE '(strstr|strcasestr|strncmp|strncasecmp|strchr|strrchr|strpbrk|strspn|strcspn|sscanf|memmem|strtok|regexec)[[:space:]]*\([^;]*method' \
	$(find src/report -name '*.[ch]' | sort) | tr '\n' '\036')

cli=$(find src/cli -name '*.[ch]' -exec cat {} + | wc -l)
report=$(find src/report -name '*.[ch]' -exec cat {} + | wc -l)

awk -v ranks="$RANKS" -v cli="$cli" -v report="$report" -v clibad="$tmp/clibad" -v prose="$prose" '
function layer(f,   p) {
	if (f ~ /^include\//)
		return hlayer[f];
	split(f, p, "/");
	return p[2];
}
function rank(l) { return l in rk ? rk[l] : -1 }
BEGIN {
	n = split(ranks, r, /[ \n]+/);
	for (i = 1; i <= n; i++) { split(r[i], kv, ":"); rk[kv[1]] = kv[2] }
}
FILENAME ~ /syms$/ && $1 == "D" { def[$3] = $2; next }
FILENAME ~ /syms$/ && $1 == "U" { use[++nu] = $2 " " $3; next }
FILENAME ~ /incs$/ { inc[++ni] = $1 " " $2; next }
FILENAME ~ /decls$/ { decl[++nd] = $2 " " $3; next }
END {
	# calls: file -> the file that defines what it uses
	for (i = 1; i <= nu; i++) {
		split(use[i], u, " ");
		if (!(u[2] in def) || def[u[2]] == u[1])
			continue;
		e = u[1] " " def[u[2]];
		if (!(e in edge)) { edge[e] = u[2]; nodes[u[1]]; nodes[def[u[2]]] }
	}
	# a public header is of the highest layer whose functions it declares
	for (i = 1; i <= nd; i++) {
		split(decl[i], p, " ");
		if (!(p[2] in def))
			continue;
		l = layer(def[p[2]]);
		if (!(p[1] in hlayer) || rank(l) > rank(hlayer[p[1]]))
			hlayer[p[1]] = l;
	}
	bad = 0;
	for (e in edge) {
		split(e, p, " ");
		if (rank(layer(p[1])) < rank(layer(p[2]))) {
			printf "up-call: %s -> %s (%s)\n", p[1], p[2], edge[e];
			bad++;
		}
	}
	for (i = 1; i <= ni; i++) {
		split(inc[i], p, " ");
		if (p[1] !~ /^src\// || (p[2] ~ /^include\// && !(p[2] in hlayer)))
			continue;
		if (rank(layer(p[1])) < rank(layer(p[2]))) {
			printf "up-include: %s includes %s\n", p[1], p[2];
			bad++;
		}
	}
	# file cycles: a pair of files that reach each other
	for (a in nodes) {
		delete seen; top = 0;
		for (e in edge) { split(e, p, " "); if (p[1] == a) stack[++top] = p[2] }
		while (top > 0) {
			b = stack[top--];
			if (b in seen) continue;
			seen[b];
			for (e in edge) { split(e, p, " "); if (p[1] == b && !(p[2] in seen)) stack[++top] = p[2] }
		}
		for (b in seen)
			if (b != a) reach[a " " b];
	}
	for (e in reach) {
		split(e, p, " ");
		if (p[1] < p[2] && ((p[2] " " p[1]) in reach)) {
			printf "cycle: %s <-> %s\n", p[1], p[2];
			bad++;
		}
	}
	while ((getline line < clibad) > 0) {
		print line;
		bad++;
	}
	np = split(prose, pl, "\036");
	for (i = 1; i <= np; i++)
		if (pl[i] != "") {
			printf "method text parsed in report: %s\n", pl[i];
			bad++;
		}
	if (cli + 0 >= report + 0) {
		printf "thick cli: src/cli has %d lines, src/report %d\n", cli, report;
		bad++;
	}
	nf = 0; for (a in nodes) nf++;
	ne = 0; for (e in edge) ne++;
	if (bad)
		exit 1;
	printf "layers: %d files in calls, %d call edges, %d includes: no up-call, no up-include, no file cycle, no method text parsed in src/report; src/cli %d lines < src/report %d\n", nf, ne, ni, cli, report;
}' "$tmp/syms" "$tmp/incs" "$tmp/decls"
