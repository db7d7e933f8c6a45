#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The first-seen ledger of the serving start-up logs (tests/data/serving/ledger/first-seen.json).

When a log is added, its errors against the estimate are recorded here BEFORE anything in the
engines' physics changes, so that later fixes cannot quietly rewrite how the case first looked.
Entries are only ever appended: each carries the SHA-256 of its case file and a chain hash over
the previous entry, and tst_servinglogs recomputes both (an edited entry, or a case edited
after it was first seen without a new entry, fails the test).

  scripts/serving_ledger.py HEADROOM [--reason TEXT] [--not-blind]
      appends an entry for every case that has none, and for every case whose file changed
      since its last entry (then --reason is required: what changed in the case, and why).
  scripts/serving_ledger.py HEADROOM --summary
      prints the first-seen errors per figure (median and p90), next to the current ones.
"""
import argparse
import datetime
import hashlib
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "serving"
LEDGER = CASES / "ledger" / "first-seen.json"
MEMORY = {"kv_cache", "weights", "activation", "non_torch", "cuda_graph"}


def canonical(entry):
    """The text the chain hash covers (tst_servinglogs builds the same)."""
    first = ",".join(f"{k}={entry['first_seen'][k]}" for k in sorted(entry["first_seen"]))
    return "|".join([entry["id"], entry["case_sha256"], entry["recorded"], entry["headroom_commit"],
                     "1" if entry["blind"] else "0", entry.get("reason", ""), first])


def chain(previous, entry):
    return hashlib.sha256((previous + "\n" + canonical(entry)).encode()).hexdigest()


def errors_of(case):
    """Integers only, so the canonical text is the same in every language: relative errors in
    basis points (x 10,000), memory errors in MiB, the start-up 1 (predicted) or 0 (missed)."""
    out = {}
    for fig in case["figures"]:
        if fig["relative_error"] is not None:
            out[fig["figure"] + "_bp"] = round(fig["relative_error"] * 10000)
        if fig["gib_error"] is not None:
            out[fig["figure"] + "_mib"] = round(fig["gib_error"] * 1024)
    if case["printed_started"] is not None:
        out["starts"] = 1 if case["printed_started"] == case["estimated_starts"] else 0
    return out


def validate(headroom):
    run = subprocess.run([headroom, "validate", str(CASES), "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"headroom validate failed: {run.stderr.strip()}")
    return {c["id"]: c for c in json.loads(run.stdout)["cases"]}


def load():
    if LEDGER.exists():
        return json.loads(LEDGER.read_text())
    return {"format": "headroom-serving-first-seen", "version": 1,
            "about": "Each case's errors as first seen, before any physics change made for it; "
                     "append-only (scripts/serving_ledger.py, checked by tst_servinglogs). "
                     "Relative errors in basis points (x 10,000), memory errors in MiB, starts 1 = "
                     "the estimate starts or refuses as the engine did. blind: recorded before any "
                     "change was tuned on the case.",
            "entries": []}


def summary(ledger, current):
    first = {}
    for e in ledger["entries"]:
        first.setdefault(e["id"], e["first_seen"])
    keys = sorted({k for f in first.values() for k in f})
    print(f"{'figure':22} {'n':>3} {'first median':>13} {'first p90':>10} {'now median':>11} {'now p90':>9}")
    for k in keys:
        a = sorted(abs(f[k]) for f in first.values() if k in f)
        b = sorted(abs(v) for v in (errors_of(current[i]).get(k) for i in first if i in current) if v is not None)
        scale = 100.0 if k.endswith("_bp") else (1024.0 if k.endswith("_mib") else 1.0)
        unit = "%" if k.endswith("_bp") else (" GiB" if k.endswith("_mib") else "")
        def p90(v):
            return v[max(0, -(-len(v) * 9 // 10) - 1)] if v else 0
        fmt = (lambda x: f"{x / scale:.2f}{unit}") if scale != 1.0 else (lambda x: f"{x}")
        if k == "starts":
            print(f"{k:22} {len(a):>3} predicted first {sum(a)}, now {sum(b)}")
            continue
        print(f"{k:22} {len(a):>3} {fmt(statistics.median(a)):>13} {fmt(p90(a)):>10} "
              f"{fmt(statistics.median(b)) if b else '-':>11} {fmt(p90(b)) if b else '-':>9}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("headroom")
    parser.add_argument("--reason", default="")
    parser.add_argument("--not-blind", action="store_true")
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    current = validate(args.headroom)
    ledger = load()
    if args.summary:
        summary(ledger, current)
        return
    last = {}
    for e in ledger["entries"]:
        last[e["id"]] = e
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    previous = ledger["entries"][-1]["chain"] if ledger["entries"] else ""
    added = 0
    for path in sorted(CASES.glob("*.json")):
        if path.name == LEDGER.name:
            continue
        cid = path.stem
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if cid in last and last[cid]["case_sha256"] == digest:
            continue
        if cid in last and not args.reason:
            sys.exit(f"{path.name} changed since it was first seen: give --reason")
        if cid not in current:
            sys.exit(f"{path.name}: not in headroom's report")
        entry = {"id": cid, "case_sha256": digest, "recorded": datetime.date.today().isoformat(),
                 "headroom_commit": commit, "blind": not args.not_blind and cid not in last,
                 "first_seen": errors_of(current[cid])}
        if cid in last:
            entry["reason"] = args.reason
        entry["chain"] = chain(previous, entry)
        previous = entry["chain"]
        ledger["entries"].append(entry)
        added += 1
    LEDGER.parent.mkdir(exist_ok=True)
    LEDGER.write_text(json.dumps(ledger, indent=1, ensure_ascii=False) + "\n")
    print(f"{added} entries added, {len(ledger['entries'])} in the ledger")


if __name__ == "__main__":
    main()
