#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes torch.cuda.memory_summary() tables with PyTorch's own formatting code on a machine
without CUDA: the allocator statistics are provided here (memory_stats and the device lookup
are replaced), the table is what torch/cuda/memory.py prints for them. Run with the
distribution's python3-torch:  /usr/bin/python3 make_summaries.py
The statistics are in STATS below; tst_torchmemory reads the tables and checks them against
these numbers."""
import json
import torch
import torch.cuda.memory as memory

GIB = 1 << 30
MIB = 1 << 20

# A training run's allocator at its peak: 20.11 GiB allocated, 23.5 GiB reserved (3.39 GiB the
# allocator holds but no tensor uses), 2 OOMs and 3 cudaMalloc retries.
STATS = {
    "allocated_bytes": {"current": 14 * GIB + 5 * MIB, "peak": 20 * GIB + 113 * MIB, "allocated": 900 * GIB, "freed": 886 * GIB},
    "active_bytes": {"current": 14 * GIB + 9 * MIB, "peak": 20 * GIB + 120 * MIB, "allocated": 900 * GIB, "freed": 886 * GIB},
    "reserved_bytes": {"current": 23 * GIB + 512 * MIB, "peak": 23 * GIB + 512 * MIB, "allocated": 30 * GIB, "freed": 6 * GIB + 512 * MIB},
    "inactive_split_bytes": {"current": 700 * MIB, "peak": 2 * GIB + 300 * MIB, "allocated": 400 * GIB, "freed": 399 * GIB},
}
COUNTS = ["allocation", "active", "segment", "inactive_split"]


def stats():
    s = {"num_ooms": 2, "num_alloc_retries": 3}
    for key, values in STATS.items():
        for pool, share in (("all", 1.0), ("large_pool", 0.99), ("small_pool", 0.01)):
            for what, v in values.items():
                s[f"{key}.{pool}.{what}"] = int(v * share) if pool != "all" else v
    for key in COUNTS:
        for pool in ("all", "large_pool", "small_pool"):
            for what in ("current", "peak", "allocated", "freed"):
                s[f"{key}.{pool}.{what}"] = 1234
    for key in ("oversize_allocations", "oversize_segments"):
        for what in ("current", "peak", "allocated", "freed"):
            s[f"{key}.{what}"] = 0
    return s


memory.memory_stats = lambda device=None: stats()
memory._get_device_index = lambda device, optional=False: 0
with open("memory-summary-torch-1.13-generated.txt", "w") as f:
    f.write(memory.memory_summary())
with open("memory-summary-torch-1.13-generated.json", "w") as f:
    json.dump({"torch": torch.__version__, "stats": STATS, "num_ooms": 2, "num_alloc_retries": 3}, f, indent=1)
