#!/usr/bin/env python3
"""Print JMH results as Markdown tables: one table per benchmark class and mode, one row per benchmark and
parameter set, with JMH's score and error (99.9 % confidence interval), the allocation per operation when the run
used ``-prof gc``, and p50 / p99 / p99.9 for SampleTime. Standard library only.

    python3 jmh/scripts/tables.py jmh/results/2026-11-26/*.json > jmh/results/2026-11-26/tables.md

The first line of each table names the run's JDK, VM, forks, warm-up and measurement, read from the JSON.
"""

import json
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chart  # noqa: E402  one way to print a figure, the chart's


def fmt(v):
    return "—" if v is None else chart.fmt(v)


def params_of(run):
    p = run.get("params") or {}
    return ", ".join("%s=%s" % kv for kv in sorted(p.items()))


def main(paths):
    groups = OrderedDict()
    for path in paths:
        with open(path) as f:
            for run in json.load(f):
                cls, method = run["benchmark"].rsplit(".", 1)
                groups.setdefault((cls.rsplit(".", 1)[-1], run["mode"]), []).append((method, run))
    modes = {"thrpt": "throughput", "avgt": "average time", "sample": "sample time", "ss": "single shot"}
    for (cls, mode), runs in groups.items():
        first = runs[0][1]
        print("### %s, %s" % (cls, modes.get(mode, mode)))
        print()
        print(
            "JDK %s (%s), %d fork(s), %d × %s warm-up, %d × %s measurement"
            % (
                first["jdkVersion"],
                first["vmName"],
                first["forks"],
                first["warmupIterations"],
                first["warmupTime"],
                first["measurementIterations"],
                first["measurementTime"],
            )
        )
        print()
        alloc = any("gc.alloc.rate.norm" in r.get("secondaryMetrics", {}) for _, r in runs)
        header = ["benchmark", "params", "threads", "score", "± error", "unit"]
        if mode == "sample":
            header += ["p50", "p99", "p99.9"]
        if alloc:
            header += ["B/op"]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for method, r in runs:
            m = r["primaryMetric"]
            row = [method, params_of(r) or "—", str(r["threads"]), fmt(m["score"]), fmt(m["scoreError"]), m["scoreUnit"]]
            if mode == "sample":
                pct = m.get("scorePercentiles", {})
                row += [fmt(pct.get("50.0")), fmt(pct.get("99.0")), fmt(pct.get("99.9"))]
            if alloc:
                norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
                row += [fmt(norm["score"]) if norm else "—"]
            print("| " + " | ".join(row) + " |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
