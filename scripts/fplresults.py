# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading fpulab results files (schema fpulab/2) in the check scripts."""
import json
import os


def load(out, name):
    """The document OUT/NAME.json, or None when it is missing or not JSON."""
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def metric(run, name):
    """The metric NAME of a run (None for no run or no such metric)."""
    for m in run.get("metrics", []) if run else []:
        if m["name"] == name:
            return m
    return None
