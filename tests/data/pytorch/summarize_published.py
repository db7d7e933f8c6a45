#!/usr/bin/env python3
"""Sums of the published memory snapshots, computed by Python's own pickle module.

Independent of Headroom's restricted reader: pickle.load gives the dict, and the sums below
follow the snapshot's documented meaning (torch/cuda/memory.py, _snapshot): reserved is the
segments' total_size, allocated their allocated_size; the device trace replays alloc and
free_completed. Writes published-snapshots-expected.json.
"""
import json
import pickle

FILES = ["published-snapshot-eor-nn.pickle", "published-snapshot-cs336-a2.pickle"]


def summary(path):
    with open(path, "rb") as f:
        snap = pickle.load(f)
    mine = [s for s in snap["segments"] if s["device"] == 0]
    trace = snap["device_traces"][0]
    allocated = sum(s["allocated_size"] for s in mine)
    level, peak, peak_at = 0, None, None
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            level += e["size"]
        elif e["action"] == "free_completed":
            level -= e["size"]
        if peak is None or level > peak:
            peak, peak_at = level, i
    start = allocated - level  # what was allocated before the trace began
    return {"file": path, "segments": len(mine), "blocks": sum(len(s["blocks"]) for s in mine),
            "reserved_bytes": sum(s["total_size"] for s in mine), "allocated_bytes": allocated,
            "active_bytes": sum(s["active_size"] for s in mine),
            "expandable_segments": sum(1 for s in mine if s.get("is_expandable")),
            "largest_free_block": max([b["size"] for s in mine for b in s["blocks"] if b["state"] == "inactive"],
                                      default=0),
            "trace_peak_allocated_bytes": start + peak, "trace_peak_entry": peak_at, "trace_entries": len(trace),
            "trace_ooms": sum(1 for e in trace if e["action"] == "oom")}


with open("published-snapshots-expected.json", "w") as f:
    json.dump([summary(p) for p in FILES], f, indent=1)
