#!/usr/bin/env python3
"""Checks a `memlens export … -o FILE.trace.json` against `memlens summary --json`.

    trace_export_check.py TRACE.json SUMMARY.json

The trace must be valid JSON with a process_name for each counter's pid;
"bytes by category" counters whose args are memory category names with
integer bytes, "allocated" and "reserved" counters of {"bytes": N}, ts
non-decreasing per process and counter, and, for every device of the
summary that has a peak, a "bytes by category" counter and an "allocated"
counter at or before the peak time that add up to the summary's
peak_allocated_bytes.  ts is absolute µs with the ns as three decimals, the
slices' own clock, so it converts back exactly; the slices (X), flows (s/f)
and the allocator events ("[memory]" instants) may be there too.  Prints
"ok" and the number of counters, or what is wrong (exit 1).
"""
import json
import sys
from decimal import Decimal

CATEGORIES = {"PARAMETER", "OPTIMIZER_STATE", "PARAMETER_OR_STATE", "INPUT", "TEMPORARY",
              "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"}


def main(trace_path, summary_path):
    trace = json.load(open(trace_path), parse_float=Decimal)  # absolute µs.ns: more digits than a double holds
    summary = json.load(open(summary_path))
    names, counters, problems = {}, {}, []
    for e in trace["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            names[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "C":
            t = int(Decimal(str(e["ts"])) * 1000)
            counters.setdefault((e["pid"], e["name"]), []).append((t, e["args"]))
            if e["name"] == "bytes by category":
                bad = [k for k, v in e["args"].items() if k not in CATEGORIES or not isinstance(v, int)]
            elif e["name"] in ("allocated", "reserved"):
                bad = [] if list(e["args"]) == ["bytes"] and isinstance(e["args"]["bytes"], int) else list(e["args"])
            else:
                bad = ["counter " + e["name"]]
            if bad:
                problems.append("pid %d: unexpected args %s" % (e["pid"], bad))
        elif e["ph"] not in ("M", "X", "s", "f") and not (e["ph"] == "i" and e["name"] == "[memory]"):
            problems.append("unexpected event %s" % e)
    for (pid, _), cs in counters.items():
        if pid not in names:
            problems.append("pid %d has no process_name" % pid)
        if any(cs[i][0] < cs[i - 1][0] for i in range(1, len(cs))):
            problems.append("pid %d: ts goes backwards" % pid)
    for d in summary["devices"]:
        if d["peak_allocated_bytes"] is None:
            continue
        want = ("rank %d %s memory" % (d["rank"], d["id"])) if d["rank"] is not None else "%s memory" % d["id"]
        pids = [p for p, n in names.items() if n == want]
        if len(pids) != 1:
            problems.append("%s: %d processes named so" % (want, len(pids)))
            continue
        for counter, add in (("bytes by category", lambda a: sum(a.values())), ("allocated", lambda a: a["bytes"])):
            at = [args for t, args in counters.get((pids[0], counter), []) if t <= d["peak_allocated_time_ns"]]
            got = add(at[-1]) if at else None
            if got != d["peak_allocated_bytes"]:
                problems.append("%s: %s adds up to %s at the peak, summary says %d" %
                                (want, counter, got, d["peak_allocated_bytes"]))
    if problems:
        print("\n".join(problems[:10]))
        return 1
    print("ok %d counters" % sum(len(c) for c in counters.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
