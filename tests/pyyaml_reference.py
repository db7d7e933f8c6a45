#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The independent reader for tst_yamltext: reads a JSON list of YAML texts on stdin, loads each
# with PyYAML's yaml.safe_load (as Axolotl, Accelerate and LitGPT's configs are read) and prints
# a JSON list of what it built, scalars typed so that 8 and 8.0 stay apart:
#   {"ok": VALUE} or {"error": "ExceptionType"}, where a scalar VALUE is ["int", "8"],
#   ["float", "1.5"], ["str", "x"], ["bool", true], ["null"] or ["date", "2001-12-14"], and a
#   mapping's keys are named as Python prints them (str(key)).
import datetime
import json
import math
import sys

import yaml


def typed(value):
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            return ["float", repr(value)]
        return ["float", repr(value)]
    if isinstance(value, str):
        return ["str", value]
    if value is None:
        return ["null"]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return ["date", str(value)]
    if isinstance(value, list):
        return [typed(item) for item in value]
    if isinstance(value, dict):
        return {str(key): typed(item) for key, item in value.items()}
    return ["other", type(value).__name__]


def main():
    results = []
    for text in json.load(sys.stdin):
        try:
            results.append({"ok": typed(yaml.safe_load(text))})
        except Exception as error:  # noqa: BLE001 - every refusal is a result here
            results.append({"error": type(error).__name__})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
