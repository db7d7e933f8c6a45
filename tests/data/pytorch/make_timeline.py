#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a memory timeline in the shape torch.profiler's export_memory_timeline(path.json) writes
(torch/profiler/_memory_profiler.py, MemoryProfileTimeline.export_memory_timeline:
json.dump([times, sizes]); each row of sizes is a zero baseline and then the bytes of
_CATEGORY_TO_COLORS's categories: PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION,
GRADIENT, AUTOGRAD_DETAIL, None). The profiler needs PyTorch 2.1+, which is not installed here:
the rows follow one training step of a model with 1 GiB of bf16 parameters by hand.
Expected figures: timeline-expected.json."""
import json

GIB = 1 << 30
MIB = 1 << 20
P = GIB                # parameters
OPT = 4 * GIB          # AdamW's two fp32 moments of 0.5 G parameters
times, sizes = [], []


def row(t, param=P, opt=OPT, inp=0, temp=0, act=0, grad=0, detail=0, unknown=0):
    times.append(t)
    sizes.append([0, param, opt, inp, temp, act, grad, detail, unknown])


row(0)
row(10, inp=4 * MIB)
for k in range(1, 9):                        # forward: 8 layers of 300 MiB activations
    row(10 + 10 * k, inp=4 * MIB, act=300 * MIB * k, detail=20 * MIB * k, temp=64 * MIB)
for k in range(8, 0, -1):                    # backward: activations freed, gradients made
    row(200 - 10 * k + 100, inp=4 * MIB, act=300 * MIB * (k - 1), detail=20 * MIB * (k - 1),
        grad=P * (9 - k) // 8, temp=128 * MIB)
row(400, grad=P, temp=2 * GIB, unknown=16 * MIB)  # the optimizer step's foreach temporaries
row(410, grad=0)
with open("timeline-generated.json", "w") as f:
    json.dump([times, sizes], f)
peak_at = max(range(len(sizes)), key=lambda i: sum(sizes[i]))
with open("timeline-expected.json", "w") as f:
    json.dump({"points": len(times), "peak_index": peak_at, "peak_time": times[peak_at],
               "peak_bytes": sum(sizes[peak_at]), "at_peak": sizes[peak_at][1:]}, f, indent=1)
