#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 14's goals on this CPU, whatever it is: the figures that were set as
# goals on the Intel machine, printed next to the goal with the command that
# measured them, so that a session on any machine can check them at once.
#
#   1. ChaCha20 in modelled sections (section --workload chacha20): no row may
#      price a save+restore pair below zero beyond chance (observed.anomaly:
#      an impossible figure, judged).
#   2. xor do_2..do_5 at 4 KiB: the best routine's share of the L1 bound,
#      per arity (goal 90%; printed, not judged: timing depends on the load).
#   3. xsave --runs 5: cells within 2% across runs, p90 (goal: every cell,
#      p90 within 1%; printed with the runs' quiet shares, not judged).
#
#   scripts/goals-check.sh [--quick]
# Exit 0: the judged facts hold; 1: one failed (FAIL lines, logs under
# $GOALS_CHECK_DIR, default build/goals-check); 2: usage.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${FPL_BIN:-build/fpulab}
OUT=${GOALS_CHECK_DIR:-build/goals-check}
quick=0
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	-h | --help) sed -n '3,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "goals-check: unknown option '$a' (--quick)" >&2; exit 2 ;;
	esac
done
if [ ! -x "$BIN" ]; then
	make -j2 >/dev/null 2>&1 || { echo "goals-check: the build failed (make -j2)" >&2; exit 1; }
fi
command -v python3 >/dev/null 2>&1 || { echo "goals-check: python3 is needed to read the results" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
fail=0
if [ $quick = 1 ]; then RUNS=3 B_SEC=2 B_XOR=2; else RUNS=5 B_SEC=6 B_XOR=6; fi
printf 'goals-check: CPU %s\n' "$("$BIN" info 2>/dev/null | sed -n 's/^CPU  *//p')"
printf 'goals-check: load average %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
run() {
	name=$1
	shift
	"$BIN" "$@" -q -o "$OUT/$name.json" >"$OUT/$name.log" 2>&1
	rc=$?
	# 77: nothing of it runs on this CPU (the reason is in the log)
	if [ $rc != 0 ] && [ $rc != 77 ]; then
		printf 'FAIL fpulab %s (exit %s; %s)\n' "$*" "$rc" "$OUT/$name.log"
		fail=1
	fi
}
run section section --workload chacha20 --impl avx2,avx512 --chunks 1k,4k --budget $B_SEC
run xor xor --sizes 4k --budget $B_XOR
run xsave xsave --part matrix --runs $RUNS

python3 - "$OUT" "$(pwd)/scripts" <<'EOF' || fail=1
import json, os, statistics, sys

sys.path.insert(0, sys.argv[-1])
import fplresults

out = sys.argv[1]
failed = False

def load(name):
    return fplresults.load(out, name)

metric = fplresults.metric

print("\n1. ChaCha20 in modelled sections (fpulab section --workload chacha20 --impl avx2,avx512 --chunks 1k,4k)")
sec = load("section") or {"runs": []}
rows = 0
for r in sec["runs"]:
    if r.get("skipped"):
        print("   skipped: %s %s: %s" % (r["params"].get("impl"), r["params"].get("chunk"), r.get("skip_reason")))
        continue
    p, m = r["params"], metric(r, "section_cycles")
    if not m or not m.get("extra"):
        continue
    e = m["extra"]
    sp = metric(r, "speedup_pct")
    # fpulab judges "below zero" over all the run's cost intervals (sign test, Holm):
    # one interval of many below zero by chance is not an impossible figure
    anomaly = (r.get("observed") or {}).get("anomaly")
    ok = not anomaly
    rows += 1
    print("   %s %-13s %5d B  cycles/section %7.0f [%.0f, %.0f]  speedup %+6.1f%%  %s" % (
        "ok  " if ok else "FAIL", p["impl"] + " " + p["policy"], p["chunk"], e["estimate"],
        e["ci95_lo"], e["ci95_hi"], sp["extra"]["estimate"] if sp and sp.get("extra") else float("nan"),
        "(interval below zero, within chance over the run's intervals)" if ok and e.get("ci95_hi", 0) < 0
        else "" if ok else "(an impossible figure: " + anomaly + ")"))
    failed |= not ok
if not rows:
    print("   no rows measured here (no AVX2?)")

print("\n2. xor at 4 KiB: the best routine per arity, % of the L1 bound (goal 90%)")
xo = load("xor") or {"runs": []}
best = {}
for r in xo["runs"]:
    p = r["params"]
    if r.get("skipped") or p.get("mode") != "sweep" or p.get("template") == "memcpy":
        continue
    mb, pct = metric(r, "speed"), metric(r, "bound_pct")
    if not mb or not pct:
        continue
    v = mb["summary"]["median"]
    a = p["arity"]
    if a not in best or v > best[a][0]:
        best[a] = (v, p["template"], pct["summary"]["median"])
for a in sorted(best):
    v, t, pct = best[a]
    print("   do_%d  %-14s %8.0f MB/s  %5.1f%% of the bound  %s" % (a, t, v, pct,
          "meets 90%" if pct >= 90 else "below 90%"))

print("\n3. xsave --part matrix --runs N: cells (cycles) within 2% of the median of their runs")
xs = load("xsave") or {"runs": []}
cells, shares = {}, {}
for r in xs["runs"]:
    if r.get("skipped") or r["bench"] != "xsave":
        continue
    m = metric(r, "cycles")
    if not m or not m.get("samples"):
        continue
    idx = r["observed"].get("run_index", 0)
    cells.setdefault(json.dumps(r["params"], sort_keys=True), []).append(statistics.median(m["samples"]))
    q = r["observed"].get("interference", {}).get("quiet_share")
    if q is not None:
        shares[idx] = q
devs = []
for vals in cells.values():
    med = statistics.median(vals)
    if len(vals) > 1 and med > 0:
        devs.append(max(abs(v - med) for v in vals) / med * 100)
devs.sort()
if devs:
    print("   %d of %d cells within 2%%; median %.2f%%, p90 %.2f%%, worst %.2f%% (goal: all, p90 <= 1%%)" % (
        sum(d <= 2 for d in devs), len(devs), statistics.median(devs),
        # type 7 (linear interpolation), as fpulab's Repeatability table
        statistics.quantiles(devs, n=10, method="inclusive")[8] if len(devs) > 1 else devs[0],
        devs[-1]))
    print("   quiet shares of the FXSAVE64 reference per run: %s (under 0.5: a suspect run)" %
          ", ".join("%.2f" % shares[k] for k in sorted(shares)))
sys.exit(1 if failed else 0)
EOF
exit $fail
