#!/usr/bin/env python3
"""Independent expected values for the older trace_view.json's launches
(tests/cli_ascend_time.sh): ../shared/data/ascend_older/trace_view_2024.

That vintage's CANN calls carry another connection_id than the tasks they
launch (a task's is its call's minus one), so correlation pairs nothing; its
HostToDevice flows do: the 's' lies inside the launching CANN call (the
innermost CANN slice of its thread enclosing ts), the 'f' (bp 'e') inside
the task on an Ascend Hardware lane.  A launch is a work task (not a stream
sync: EVENT_WAIT / EVENT_RECORD ...) with no CANN call of its connection_id
that one flow joins to a CANN call.  Prints the launch count and the sum of
the launching calls' and of the tasks' durations (ns), which
`memlens perf --view kernels` writes as "Kernel launches: N (calls X, kernels Y".
Times are µs strings with 3 decimals (durations floats): read exactly with
decimal.  Run: python3 tests/ascend_older_launches.py
"""
import json
import os
from decimal import Decimal

DATA = os.path.join(os.environ.get("MEMLENS_DATA", "../shared/data"), "ascend_older", "trace_view_2024")
SYNC = {"EVENT_WAIT", "EVENT_RECORD", "EVENT_WAIT_SQE", "EVENT_RECORD_SQE", "PLACE_HOLDER_SQE", "STARS_COMMON"}


def ns(v):
    """µs (a string or a float as the file writes it) -> ns, as memlens reads them: 3 decimals."""
    return int((Decimal(str(v)) * 1000).to_integral_value())


def main():
    with open(os.path.join(DATA, "trace_view.json")) as f:
        ev = json.load(f)
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    x = [e for e in ev if e.get("ph") == "X"]
    cann = [e for e in x if pname.get(e["pid"]) == "CANN"]
    tasks = [e for e in x if pname.get(e["pid"]) == "Ascend Hardware"]
    call_ids = {e["args"].get("connection_id") for e in cann}

    def innermost(slices, pid, tid, t):
        best = None
        for e in slices:
            b = ns(e["ts"])
            if e["pid"] == pid and e["tid"] == tid and b <= t < b + ns(e["dur"]):
                if best is None or ns(best["ts"]) <= b:
                    best = e
        return best

    flows = {}
    for e in ev:
        if e.get("cat") == "HostToDevice":
            flows.setdefault(e["id"], {})[e["ph"]] = e
    launched = {}
    for fl in flows.values():
        if "s" not in fl or "f" not in fl:
            continue
        call = innermost(cann, fl["s"]["pid"], fl["s"]["tid"], ns(fl["s"]["ts"]))
        task = innermost(tasks, fl["f"]["pid"], fl["f"]["tid"], ns(fl["f"]["ts"]))
        if call is None or task is None:
            continue
        if task["args"].get("connection_id") in call_ids or task["args"].get("Task Type") in SYNC:
            continue
        launched[id(task)] = (call, task)
    calls = sum(ns(c["dur"]) for c, _ in launched.values())
    kernels = sum(ns(t["dur"]) for _, t in launched.values())
    print(f"flows {len(flows)} launches {len(launched)} calls_ns {calls} kernels_ns {kernels}")


if __name__ == "__main__":
    main()
