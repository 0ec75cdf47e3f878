#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# On an Intel CPU with AMX: run what fpulab cannot check anywhere else (the
# hardware tests, the facts docs/amx-status.md lists "to verify on AMX
# hardware") and print each AMX figure of ../shared/METHOD.md ("AMX and XFD")
# next to the one measured here, with the command that measured it.
#
# Exit 0: every check passed; 1: a check failed (see the FAIL lines and the
# logs under $AMX_CHECK_DIR); 2: usage; 77: no AMX on this CPU (the reason on
# stderr). Figures are printed, never judged: timing here depends on the
# machine's load. Facts (frame sizes, errno values, states verified) are judged.
#
#   scripts/amx-check.sh [--quick] [--no-tests] [--no-asan]
#     --quick     short budgets, no ASan build, no repro
#     --no-tests  skip `make test` (the figures and fact checks only)
#     --no-asan   skip `make asan`
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${FPL_BIN:-build/fpulab}
OUT=${AMX_CHECK_DIR:-build/amx-check}
quick=0 tests=1 asan=1

usage() {
	sed -n '3,17s/^# \{0,1\}//p' "$0"
}

for a in "$@"; do
	case $a in
	--quick) quick=1 asan=0 ;;
	--no-tests) tests=0 ;;
	--no-asan) asan=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "amx-check: unknown option '$a' (--quick, --no-tests, --no-asan)" >&2; exit 2 ;;
	esac
done

if [ ! -x "$BIN" ]; then
	make -j2 >/dev/null 2>&1 || { echo "amx-check: the build failed (make -j2)" >&2; exit 1; }
fi
info=$("$BIN" info 2>&1) || { echo "amx-check: $BIN info failed: $info" >&2; exit 1; }

# fpulab's own judgement: CPUID AMX-TILE, XCR0 bits 17 and 18, a usable palette 1.
amx=$(printf '%s\n' "$info" | sed -n 's/^AMX  *//p')
case $amx in
palette*) ;;
*)
	echo "amx-check: nothing to check here: fpulab info says '${amx:-no AMX line}'" >&2
	exit 77 ;;
esac
if ! printf '%s\n' "$info" | grep -Eq '^ +18 +AMX_TILEDATA .* yes$'; then
	echo "amx-check: AMX tile data is not XFD-armed here (CPUID 0xD.18 ECX[2]): no first-use trap, not the machine METHOD.md describes" >&2
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "amx-check: python3 is needed to read the results" >&2; exit 1; }

mkdir -p "$OUT" || exit 1
fail=0
note() { printf 'amx-check: %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; fail=1; }

note "CPU: $(printf '%s\n' "$info" | sed -n 's/^CPU  *//p')"
note "AMX: $amx"
note "logs and results in $OUT"

# 1. The test suite, where the hardware tests run instead of skipping.
if [ $tests = 1 ]; then
	note "make test (the hardware tests run here; about 3 minutes)"
	make test >"$OUT/test.log" 2>&1 || bad "make test: $(tail -1 "$OUT/test.log") ($OUT/test.log)"
	for t in test_amx_lifecycle_hw test_amx_states_hw test_xsave_amx_cells_hw \
		test_tilecfg_check_agrees_hw test_amx_permitted; do
		if ! grep -q "^\[       OK \] $t\$" "$OUT/test.log"; then
			bad "$t did not pass on AMX hardware ($OUT/test.log)"
		fi
	done
	tail -1 "$OUT/test.log"
	if [ $asan = 1 ]; then
		note "make asan (slow)"
		make asan >"$OUT/asan.log" 2>&1 || bad "make asan: $(tail -1 "$OUT/asan.log") ($OUT/asan.log)"
		tail -1 "$OUT/asan.log"
	fi
fi

# 2. The measurements. Each a fresh process; only those that need it ask for AMX.
if [ $quick = 1 ]; then
	B_AMX=0.5 B_XS=2 B_CTX=1 B_SIG=0.5 RUNS=1
else
	B_AMX=2 B_XS=7.5 B_CTX=4 B_SIG=1.5 RUNS=3
fi
run() {
	name=$1
	shift
	"$BIN" "$@" -q -o "$OUT/$name.json" >"$OUT/$name.log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		bad "fpulab $* (exit $rc; $OUT/$name.log)"
		rm -f "$OUT/$name.json"
	fi
}
note "measuring (a few minutes)"
# No --amx: its children must start without permission.
run amx amx --budget $B_AMX
run xsave-rfbm --amx xsave --part rfbm --budget $B_XS
run xsave-all --amx xsave --part matrix --mask all --method throughput --budget $B_XS
run xsave-e7 --amx xsave --part matrix --mask 0xe7 --method throughput --state live --budget $B_XS
run xsave-noperm xsave --part matrix --mask all --insn xsaveopt --state live --budget 1
run ctxsw-amx ctxsw --ab init,amx --budget $B_CTX
run ctxsw-amx512 ctxsw --ab init,amx+avx512 --budget $B_CTX
run ctxsw-avx512 ctxsw --ab init,avx512 --budget $B_CTX
run ctxsw-threads ctxsw --state amx --mode threads --budget 1
i=1
while [ $i -le $RUNS ]; do
	run "signal-init-$i" signal --state init --budget $B_SIG
	run "signal-amx-$i" signal --state amx --budget $B_SIG
	i=$((i + 1))
done
run signal-alt signal --state amx --budget 0.5 --altstack \
	"$(printf '%s\n' "$info" | sed -n 's/^ *AT_MINSIGSTKSZ *\([0-9]*\).*/\1/p')"
run section-amx section --owner amx --workload xor --chunks 1k,4k --budget 2
if [ $quick = 0 ]; then
	note "repro rfbm --quick (the AMX tables)"
	"$BIN" repro rfbm --quick >"$OUT/repro.txt" 2>&1
	rc=$?
	[ $rc = 0 ] || bad "fpulab repro rfbm --quick (exit $rc; $OUT/repro.txt)"
	grep -q "XSAVE with AMX_TILEDATA in RFBM or not" "$OUT/repro.txt" ||
		bad "repro rfbm printed no AMX_TILEDATA table ($OUT/repro.txt)"
fi

# 3. Expected (METHOD.md) against measured, and the facts judged.
python3 - "$OUT" "$RUNS" "$(pwd)/scripts" <<'EOF' || fail=1
import json, os, statistics, sys

sys.path.insert(0, sys.argv[-1])
import fplresults

out, runs = sys.argv[1], int(sys.argv[2])
failed = False

def load(name):
    return fplresults.load(out, name)

metric = fplresults.metric

def median(run, name):
    m = metric(run, name)
    return m["summary"]["median"] if m and m.get("summary") else None

def obs(run, key):
    return (run or {}).get("observed", {}).get(key)

def first(doc, **params):
    for r in (doc or {}).get("runs", []):
        if not r.get("skipped") and all(r["params"].get(k) == v for k, v in params.items()):
            return r
    return None

rows = []
def fig(what, expect, got, how, fmt="%.0f"):
    rows.append((what, expect, "n/a" if got is None else fmt % got, how))

def fact(what, ok, detail):
    global failed
    print("%s %s: %s" % ("ok  " if ok else "FAIL", what, detail))
    failed |= not ok

amx = load("amx")
a = first(amx) if amx else None
H = "fpulab amx: one fresh child per sample, lfence;rdtsc around the one operation"
fig("first_use (first TILELOADD, XFD trap), ns", "16800 (43754 ticks)", median(a, "first_use"), H)
fig("first_use, TSC ticks", "43754", median(a, "first_use_tsc"), H)
fig("second_use, TSC ticks", "58", median(a, "second_use_tsc"), H)
fig("fork_first_use (forked child), ns", "17400", median(a, "fork_first_use"), H)
fig("ARCH_REQ_XCOMP_PERM first, TSC ticks", "418", median(a, "perm_request_tsc"), H)
fig("ARCH_REQ_XCOMP_PERM repeated, TSC ticks", "184", median(a, "perm_request_again_tsc"), H)
fig("LDTILECFG before first use, TSC ticks", "152", median(a, "ldtilecfg_tsc"), H)
fig("TILERELEASE, tiles live, TSC ticks", "(not in METHOD.md)", median(a, "tilerelease_live_tsc"), H)
for key, want in (("frame_xstate_size_noperm", 2816), ("frame_xstate_size_perm_unused", 2816),
                  ("frame_xstate_size_tiles_used", 11008)):
    fact("amx " + key, obs(a, key) == want, "%s (METHOD.md %d)" % (obs(a, key), want))
for key, want in (("perm_with_small_altstack", "ENOSPC"), ("altstack_small_after_perm", "ENOMEM"),
                  ("altstack_min_after_perm", "ok"), ("altstack_small_before_perm", "ok")):
    fact("amx " + key, obs(a, key) == want, "%s (METHOD.md %s)" % (obs(a, key), want))
fact("amx permitted_in_child", obs(a, "permitted_in_child") == "0x600e7",
     "%s (METHOD.md 0x600e7 after the request)" % obs(a, "permitted_in_child"))

rf = load("xsave-rfbm")
H = "fpulab --amx xsave --part rfbm: with/without TILEDATA (init) in RFBM, interleaved; diff_cycles median"
for insn, expect in (("xsave", "+227 (+149 ticks)"), ("xsavec", "~0"), ("xsaveopt", "~0"),
                     ("xrstor", "~0"), ("xrstor-c", "~0")):
    r = first(rf, experiment="rfbm", insn=insn, component="AMX_TILEDATA")
    fact("xsave rfbm row %s AMX_TILEDATA" % insn, r is not None,
         "present" if r else "missing (tile data not permitted?)")
    fig("%s TILEDATA in RFBM while init, cycles" % insn.upper(), expect, median(r, "diff_cycles"), H,
        "%+.1f")

xa, xe = load("xsave-all"), load("xsave-e7")
H = "fpulab --amx xsave --part matrix --mask all|0xe7 --method throughput: back-to-back, core cycles"
table = (("xsave", "live", "392"), ("xsave", "released", "393"),
         ("xsaveopt", "modified", "391 (tiles live)"), ("xsaveopt", "unmodified", "391 (tiles live)"),
         ("xsaveopt", "released", "178"), ("xsavec", "live", "389"), ("xsavec", "released", "179"),
         ("xrstor", "live", "586"), ("xrstor", "released", "197"), ("xrstor", "tilecfg", "~389 (197 + 126 ticks)"))
for insn, state, expect in table:
    r = first(xa, insn=insn, state=state, mask_name="all", method="throughput")
    fig("%s RFBM %s, %s, cycles" % (insn.upper(), r["params"]["mask"] if r else "0x600e7", state),
        expect, median(r, "cycles"), H)
for insn, expect in (("xsave", "166"), ("xsaveopt", "178"), ("xsavec", "179"), ("xrstor", "196")):
    state = "modified" if insn == "xsaveopt" else "live"
    r = first(xe, insn=insn, state=state, method="throughput")
    fig("%s RFBM 0xe7, AVX-512 live, cycles" % insn.upper(), expect, median(r, "cycles"), H)
for doc, name in ((xa, "xsave --mask all --amx"), (xe, "xsave --mask 0xe7 --amx"),
                  (load("xsave-noperm"), "xsave --mask all (no permission: LDTILECFG cells)")):
    runs_ = (doc or {}).get("runs", [])
    skipped = [r for r in runs_ if r.get("skipped")]
    warned = [w for r in runs_ for w in r.get("warnings", []) if "XINUSE" in w]
    fact(name, doc is not None and runs_ and not skipped and not warned,
         "no result" if doc is None else "%d runs, %d skipped, %d XINUSE warnings%s" %
         (len(runs_), len(skipped), len(warned), (": " + warned[0]) if warned else ""))

H = "fpulab ctxsw --ab init,B: same-CPU pipe ping-pong, B - A per round trip, median of paired batches"
for name, what, expect in (("ctxsw-amx", "tiles live", "+221"),
                           ("ctxsw-amx512", "tiles + AVX-512 live", "+259"),
                           ("ctxsw-avx512", "AVX-512 live", "+35")):
    d = load(name)
    r = first(d)
    fig("context switch round trip, %s, ns" % what, expect, median(r, "difference"), H, "%+.0f")
    fact("ctxsw %s state_verified" % what, obs(r, "state_verified") == "yes",
         str(obs(r, "state_verified")))
    if "amx" in name:
        fact("ctxsw %s amx_first_use_echo" % what, obs(r, "amx_first_use_echo") == "ok",
             str(obs(r, "amx_first_use_echo")))
        for who in ("initiator", "echo"):
            k = "frame_xstate_size_" + who
            fact("ctxsw %s %s" % (what, k), obs(r, k) == 11008, "%s (11008)" % obs(r, k))
r = first(load("ctxsw-threads"))
fact("ctxsw --state amx --mode threads", obs(r, "state_verified") == "yes" and
     obs(r, "amx_first_use_echo") == "ok",
     "state_verified %s, amx_first_use_echo %s (a new thread traps again)" %
     (obs(r, "state_verified"), obs(r, "amx_first_use_echo")))

H = "fpulab signal --state S, separate processes alternating, round_trip_ns: median of the runs' medians"
init = [median(first(load("signal-init-%d" % i)), "round_trip_ns") for i in range(1, runs + 1)]
tiles = [median(first(load("signal-amx-%d" % i)), "round_trip_ns") for i in range(1, runs + 1)]
init, tiles = [v for v in init if v], [v for v in tiles if v]
mi = statistics.median(init) if init else None
mt = statistics.median(tiles) if tiles else None
fig("signal round trip, init, ns", "942", mi, H)
fig("signal round trip, tiles live minus init, ns", "+433", mt - mi if mi and mt else None, H,
    "%+.0f")
for i in range(1, runs + 1):
    ri, ra = first(load("signal-init-%d" % i)), first(load("signal-amx-%d" % i))
    fact("signal --state init frame (run %d)" % i, obs(ri, "frame_xstate_size") == 2816,
         "%s (2816: no permission in that process)" % obs(ri, "frame_xstate_size"))
    fact("signal --state amx frame (run %d)" % i, obs(ra, "frame_xstate_size") == 11008 and
         obs(ra, "state_verified") == "yes",
         "%s (11008), state_verified %s" % (obs(ra, "frame_xstate_size"), obs(ra, "state_verified")))
r = first(load("signal-alt"))
fact("signal --state amx on an AT_MINSIGSTKSZ alternate stack", obs(r, "state_verified") == "yes"
     and not (r or {}).get("warnings"), "state_verified %s, frame %s bytes of %s" %
     (obs(r, "state_verified"), obs(r, "frame_bytes"), obs(r, "at_minsigstksz")))

d = load("section-amx")
runs_ = (d or {}).get("runs", [])
lost = [w for r in runs_ for w in r.get("warnings", []) if "owner amx" in w]
fact("section --owner amx", bool(runs_) and not lost and all(not r.get("skipped") for r in runs_),
     "no result" if d is None else "%d runs, tile state survived%s" %
     (len(runs_), "" if not lost else " NOT: " + lost[0]))

print()
w = max(len(r[0]) for r in rows)
print("%-*s  %-24s  %s" % (w, "figure", "METHOD.md", "measured"))
how_shown = None
for what, expect, got, how in rows:
    if how != how_shown:
        print("  (%s)" % how)
        how_shown = how
    print("%-*s  %-24s  %s" % (w, what, expect, got))
sys.exit(1 if failed else 0)
EOF

if [ $fail = 0 ]; then
	note "all checks passed; compare the figures above with ../shared/METHOD.md and note them in the issue"
else
	note "some checks FAILED (above)"
fi
exit $fail
