#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes memory-snapshot pickles like torch.cuda.memory._dump_snapshot() (which pickles the dict
torch.cuda.memory._snapshot() returns; taking one needs CUDA, so the dict is written out here with
the keys PyTorch 2.x gives it), in pickle protocols 2 to 5, and the pickles the restricted reader
must refuse: a real torch tensor (GLOBAL/REDUCE), an OrderedDict, protocol 0, a cut-off file.
The expected sums are computed here and kept in snapshot-expected.json.
Run with the distribution's python3-torch:  /usr/bin/python3 make_snapshots.py"""
import collections
import json
import pickle

import torch

MIB = 1 << 20


def block(size, state, requested=None):
    b = {"size": size, "requested_size": requested if requested is not None else size, "state": state,
         "frames": [{"filename": "train.py", "line": 42, "name": "forward"}]}
    return b


SEGMENTS = [
    {"device": 0, "address": 139_000_000_000, "total_size": 20 * MIB, "allocated_size": 14 * MIB,
     "active_size": 14 * MIB, "requested_size": 14 * MIB - 512, "stream": 0, "segment_type": "large",
     "segment_pool_id": (0, 0), "is_expandable": False,
     "blocks": [block(8 * MIB, "active_allocated"), block(6 * MIB, "active_allocated", 6 * MIB - 512),
                block(6 * MIB, "inactive")]},
    {"device": 0, "address": 139_100_000_000, "total_size": 2 * MIB, "allocated_size": 512 * 1024,
     "active_size": 512 * 1024, "requested_size": 512 * 1024, "stream": 0, "segment_type": "small",
     "segment_pool_id": (0, 0), "is_expandable": False,
     "blocks": [block(512 * 1024, "active_allocated"), block(1536 * 1024, "inactive")]},
    {"device": 1, "address": 140_000_000_000, "total_size": 40 * MIB, "allocated_size": 40 * MIB,
     "active_size": 40 * MIB, "requested_size": 40 * MIB, "stream": 0, "segment_type": "large",
     "segment_pool_id": (0, 0), "is_expandable": True, "blocks": [block(40 * MIB, "active_allocated")]},
]
# Device 0's trace: 30 MiB allocated and freed before the snapshot's state (a forward peak),
# then the blocks that are still there.
TRACE0 = [
    {"action": "segment_alloc", "addr": 139_000_000_000, "size": 20 * MIB, "stream": 0},
    {"action": "alloc", "addr": 1, "size": 8 * MIB, "stream": 0},
    {"action": "alloc", "addr": 2, "size": 10 * MIB, "stream": 0},
    {"action": "free_requested", "addr": 2, "size": 10 * MIB, "stream": 0},
    {"action": "free_completed", "addr": 2, "size": 10 * MIB, "stream": 0},
    {"action": "alloc", "addr": 3, "size": 6 * MIB, "stream": 0},
    {"action": "alloc", "addr": 4, "size": 512 * 1024, "stream": 0},
    {"action": "oom", "addr": 0, "size": 1 << 40, "stream": 0},
]
SNAPSHOT = {"segments": SEGMENTS, "device_traces": [TRACE0, []]}


def expected():
    mine = [s for s in SEGMENTS if s["device"] == 0]
    level, peak, peak_at = 0, 0, None
    for i, e in enumerate(TRACE0):
        if e["action"] == "alloc":
            level += e["size"]
        elif e["action"] == "free_completed":
            level -= e["size"]
        if level > peak:
            peak, peak_at = level, i
    allocated = sum(s["allocated_size"] for s in mine)
    start = allocated - level  # what was allocated before the trace began
    return {"device": 0, "segments": len(mine), "blocks": sum(len(s["blocks"]) for s in mine),
            "reserved_bytes": sum(s["total_size"] for s in mine), "allocated_bytes": allocated,
            "active_bytes": sum(s["active_size"] for s in mine),
            "largest_free_block": max(b["size"] for s in mine for b in s["blocks"] if b["state"] == "inactive"),
            "trace_peak_allocated_bytes": start + peak, "trace_peak_entry": peak_at, "trace_entries": len(TRACE0),
            "trace_ooms": 1}


for protocol in (2, 3, 4, 5):
    with open(f"snapshot-protocol{protocol}.pickle", "wb") as f:
        pickle.dump(SNAPSHOT, f, protocol=protocol)
with open("snapshot-expected.json", "w") as f:
    json.dump(expected(), f, indent=1)
with open("refused-torch-tensor.pickle", "wb") as f:
    pickle.dump({"segments": [], "weights": torch.zeros(3)}, f, protocol=2)
with open("refused-ordereddict.pickle", "wb") as f:
    pickle.dump(collections.OrderedDict(segments=[]), f, protocol=4)
with open("refused-protocol0.pickle", "wb") as f:
    pickle.dump({"segments": []}, f, protocol=0)
with open("refused-cut.pickle", "wb") as f:
    f.write(pickle.dumps(SNAPSHOT, protocol=4)[:-40])
# The same dict as Python's json module writes it (tuples become lists): what the reader must give.
with open("snapshot.json", "w") as f:
    json.dump(SNAPSHOT, f)
