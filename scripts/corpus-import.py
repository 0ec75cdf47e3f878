#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copy an AIDA64-format CPUID dump (libcpuid's tests/*.test, InstLatx64's
*_CPUID.txt) into tests/data/corpus/, as the corpus test reads it: the CPUID
lines of some logical CPUs, unchanged, under a header naming the source.

  scripts/corpus-import.py NAME SRC REPO PATH COMMIT [--blocks 0,1,-1] [--leaves] "what it is"

--blocks picks logical CPUs by index (-1 is the last); --leaves keeps only
the leaves fpulab reads (0, 1, 4, 7, 0xB, 0xD, 0x1D, 0x1E, 0x40000000-1,
0x80000000-0x80000008, 0x8000001D), for files too large to carry whole.
Values are never changed: a line is copied or left out.
"""
import re
import sys

KEEP = {0x0, 0x1, 0x4, 0x7, 0xB, 0xD, 0x1D, 0x1E, 0x40000000, 0x40000001,
        0x8000001D} | set(range(0x80000000, 0x80000009))


def blocks_of(lines):
    out, cur, hdr = [], None, None
    for l in lines:
        m = re.match(r"-+\[ CPUID Registers / Logical CPU #(\d+) \]-+", l)
        if m:
            hdr = l
            cur = None
            continue
        if l.startswith("CPUID ") and re.match(r"CPUID [0-9A-Fa-f]{8}:", l):
            leaf = int(l[6:14], 16)
            if cur is None or (leaf == 0 and cur["lines"]):
                cur = {"hdr": hdr, "lines": []}
                out.append(cur)
                hdr = None
            cur["lines"].append(l)
    return out


def main():
    a = sys.argv[1:]
    blocks = "all"
    leaves = False
    if "--blocks" in a:
        i = a.index("--blocks")
        blocks = a[i + 1]
        del a[i:i + 2]
    if "--leaves" in a:
        leaves = True
        a.remove("--leaves")
    name, src, repo, path, commit, what = a
    bl = blocks_of(open(src, errors="replace").read().splitlines())
    n = len(bl)
    idx = list(range(n)) if blocks == "all" else \
        sorted({(int(x) % n) for x in blocks.split(",") if int(x) < n})
    with open("tests/data/corpus/%s.aida" % name, "w") as f:
        f.write("# %s\n" % what)
        f.write("# Source: github %s, %s, commit %s (AIDA64 format).\n" % (repo, path, commit))
        f.write("# Kept: logical CPUs %s of %d%s; values unchanged.\n" % (
            ", ".join("#%d" % i for i in idx), n,
            ", only the leaves fpulab reads" if leaves else ", every leaf"))
        for i in idx:
            b = bl[i]
            f.write((b["hdr"] or "------[ CPUID Registers / Logical CPU #%d ]------" % i) + "\n")
            for l in b["lines"]:
                if not leaves or int(l[6:14], 16) in KEEP:
                    f.write(l.rstrip() + "\n")


main()
