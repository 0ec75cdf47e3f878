#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Shorten a results document fpulab wrote by dropping whole runs, byte for byte.
#
# Usage: trim.py IN.json OUT.json
#
# fpulab writes its documents with jansson's JSON_INDENT(1): top-level keys
# at one space, each run of "runs" an object opening with "  {" and closing
# with "  }" at two spaces. The runs kept (keep() below) are copied as the
# old program wrote them, character for character, and so is everything
# outside "runs" (host, warnings); only the runs left out are gone. The
# script checks that: the output parses, its host and warnings equal the
# input's, and each run kept equals its original.
import json
import sys


def keep(run):
    """The runs fpulab run's summary is made of, and the skipped amx run."""
    b, p = run["bench"], run.get("params", {})
    if b == "xsave":
        return p.get("mask") == "0xe7"          # the summary's full-state rows
    if b == "xor":
        return p.get("size") == 4096             # the best routine as calibrated
    if b == "section":
        return p.get("chunk") == 4096 and p.get("impl") in ("avx512", "avx2")
    return True                                  # ctxsw, signal, amx: all


def run_spans(text):
    """(start, end) character offsets of each run object inside "runs"."""
    head = text.index('\n "runs": [\n') + len('\n "runs": [\n')
    spans, pos = [], head
    while text.startswith("  {\n", pos):
        end = text.index("\n  }", pos) + len("\n  }")
        spans.append((pos, end))
        if text.startswith(",\n", end):
            pos = end + 2
        else:
            break
    return head, spans, end


def main():
    src, dst = sys.argv[1], sys.argv[2]
    text = open(src, encoding="utf-8").read()
    doc = json.loads(text)
    head, spans, tail = run_spans(text)
    assert len(spans) == len(doc["runs"]), "a run not where jansson puts it"
    kept = [i for i, r in enumerate(doc["runs"]) if keep(r)]
    out = text[:head] + ",\n".join(text[s:e] for s, e in (spans[i] for i in kept)) + text[tail:]
    new = json.loads(out)
    assert new["host"] == doc["host"] and new.get("warnings") == doc.get("warnings")
    assert new["runs"] == [doc["runs"][i] for i in kept]
    open(dst, "w", encoding="utf-8").write(out)
    print(f"{src}: kept {len(kept)} of {len(spans)} runs, {len(out)} of {len(text)} bytes")


if __name__ == "__main__":
    main()
