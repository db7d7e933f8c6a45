#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn measure_peaks.py's JSON lines into headroom-measurement cases (one file per reading).

    python3 tests/measure/to_cases.py runs.jsonl tests/data/measured/

The split is fixed mechanically before any error is looked at: holdout when the last hex digit
of sha1(id) is 0-7, as for the published cases.
"""
import hashlib
import json
import os
import sys

PRESETS = {"gpt2": "gpt2", "llama-1b": "llama-3.2-1b"}


def case(run, reading, measured_bytes):
    ident = "measured-{model}-{method}-b{micro_batch}-s{seq_len}-{attention}-ckpt-{checkpointing}-{reading}".format(
        reading=reading, **run)
    train = {"method": run["method"], "micro_batch": run["micro_batch"], "seq_len": run["seq_len"],
             "optimizer": "adamw", "gradient_checkpointing": run["checkpointing"]}
    if run["method"] == "lora":
        train["lora"] = {"rank": 16, "targets": ["q", "k", "v", "o"], "dropout": 0.05, "dtype": "fp32"}
    scenario = {"format": "headroom-scenario", "version": 1, "name": ident,
                "model": {"preset": PRESETS[run["model"]]}, "task": "train", "train": train,
                "precision": {"weights": "bf16", "compute": "bf16"},
                "kernels": {"attention": run["attention"], "loss": "standard", "profile": "huggingface"}}
    digit = hashlib.sha1(ident.encode()).hexdigest()[-1]
    return ident, {
        "format": "headroom-measurement", "version": 1, "id": ident, "scenario": scenario,
        "reading": reading, "measured": {"value": measured_bytes, "unit": "B"},
        "measured_bytes": measured_bytes, "hardware": run["gpu"],
        "source": {"repo": "this project", "path": "tests/measure/measure_peaks.py",
                   "section": "torch %s, CUDA %s, %s" % (run["torch"], run["cuda"], run["time"])},
        "verified": True, "verification_note": "measured by tests/measure/measure_peaks.py",
        "assumptions": ["random weights built from the configuration; 3 steps; AdamW foreach"],
        "not_modelled": [], "confidence": "high",
        "split": "holdout" if digit in "01234567" else "train"}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as lines:
        for line in lines:
            run = json.loads(line)
            if run["outcome"] != "fits":
                continue
            readings = {"allocated": run["allocated_bytes"], "reserved": run["reserved_bytes"]}
            if run.get("nvidia_smi_mib"):
                readings["device"] = run["nvidia_smi_mib"] * 1048576
            for reading, value in readings.items():
                ident, doc = case(run, reading, value)
                with open(os.path.join(sys.argv[2], ident + ".json"), "w") as out:
                    json.dump(doc, out, indent=2)
                    out.write("\n")


if __name__ == "__main__":
    main()
