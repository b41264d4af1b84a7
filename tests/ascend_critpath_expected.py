#!/usr/bin/env python3
"""Independent expected values for the NPU critical path (tests/cli_ascend_time.sh):
the path of ProfilerStep#50 in ../shared/data/ascend/text_level1/rank0 and of
ProfilerStep#1 in ascend_older/trace_view_2024, from trace_view.json with json
and decimal only, by the rules of src/analysis/critpath.h (HTA's graph) in the
NPU's words:
  - host events: cpu_op and CANN slices of at least 1 ns starting in the step;
    a CANN lane is walked with the Python thread of its tid that has cpu_ops,
    the backward thread ("autograd") with the forward one ("forward");
    along each walk, previous node -> next (0 into the end of a CANN wait:
    aclrtSynchronize*, aclrtMemcpy; 0 from one outermost call to the next)
  - tasks: Ascend Hardware slices that are not stream syncs (EVENT_WAIT ...),
    launched by the CANN call of their connection_id (the older vintage: by
    the CANN call its HostToDevice flow starts in) inside the step's events
  - launch: call start -> task start when the stream's queue (HTA's queue
    length over the whole trace) is 1 at the launch and 0 at the start and the
    stream's previous task ended before the call; else kernel-kernel: the
    previous task's end -> this start when the gap is under 1.5 ms
  - a CANN wait: each stream's last task (by end) that ended by the wait's end
    and was launched before it began -> the wait's end
Prints per input: the path's length and its launch time in ns (the longest
path of a DAG: its length is the same whichever path is taken among equals;
the launch time of the one path found by walking back the first maximum).
Run: python3 tests/ascend_critpath_expected.py
"""
import json
import os
from collections import defaultdict
from decimal import Decimal

DATA = os.environ.get("MEMLENS_DATA", "../shared/data")
SYNC_TASKS = {"EVENT_WAIT", "EVENT_RECORD", "EVENT_WAIT_SQE", "EVENT_RECORD_SQE", "PLACE_HOLDER_SQE", "STARS_COMMON"}
WAITS = {"aclrtSynchronizeStream", "aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeDevice",
         "aclrtSynchronizeDeviceWithTimeout", "aclrtSynchronizeEvent", "aclrtSynchronizeEventWithTimeout",
         "aclrtMemcpy"}
KK_MAX = 1500000


def ns(v):
    """µs text -> ns, digits past the third decimal dropped (as memlens reads them)."""
    return int(Decimal(str(v)) * 1000)


def is_wait(name):
    return (name[9:] if name.startswith("AscendCL@") else name) in WAITS


def path_of(path, step_name):
    with open(path) as f:
        doc = json.load(f, parse_float=Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    sl = []  # dicts: kind, ts, end, name, track, conn, stream
    for e in ev:
        if e.get("ph") != "X":
            continue
        p = pname.get(e["pid"])
        ts, dur = ns(e["ts"]), ns(e.get("dur", 0))
        args = e.get("args", {})
        if e["name"].startswith("ProfilerStep#"):
            kind = "step"
        elif p == "Python":
            kind = {"cpu_op": "cpu_op", "user_annotation": "ann"}.get(e.get("cat"), "other")
        elif p == "CANN":
            kind = "runtime"
        elif p == "Ascend Hardware":
            kind = "other" if args.get("Task Type") in SYNC_TASKS else "task"
        else:
            kind = "other"
        sl.append(dict(kind=kind, ts=ts, end=ts + dur, dur=dur, name=e["name"], track=(p, e["pid"], e["tid"]),
                       conn=args.get("connection_id"), stream=e["tid"]))
    # slices in memlens's order: by track (first seen), then start, longer first
    order = {}
    for x in sl:
        order.setdefault(x["track"], len(order))
    sl.sort(key=lambda x: (order[x["track"]], x["ts"], -x["dur"]))
    for i, x in enumerate(sl):
        x["i"] = i
    # launchers: connection_id, else the HostToDevice flow
    call_of = {}
    for x in sl:
        if x["kind"] == "runtime" and x["conn"] is not None:
            call_of.setdefault(x["conn"], x)
    for x in sl:
        if x["kind"] == "task":
            x["launcher"] = call_of.get(x["conn"])

    def innermost(track, t):
        best = None
        for y in sl:
            if y["track"] == track and y["ts"] <= t < y["end"] and (best is None or y["ts"] >= best["ts"]):
                best = y
        return best

    flows = defaultdict(dict)
    for e in ev:
        if e.get("cat") == "HostToDevice":
            flows[e["id"]][e["ph"]] = e
    for fl in flows.values():
        if "s" in fl and "f" in fl:
            s, f = fl["s"], fl["f"]
            call = innermost((pname.get(s["pid"]), s["pid"], s["tid"]), ns(s["ts"]))
            task = innermost((pname.get(f["pid"]), f["pid"], f["tid"]), ns(f["ts"]))
            if call and task and call["kind"] == "runtime" and task["kind"] == "task" and not task.get("launcher"):
                task["launcher"] = call
    tasks = [x for x in sl if x["kind"] == "task" and x.get("launcher")]

    # HTA's queue length per stream over the whole trace
    queue_ok = set()
    by_stream = defaultdict(list)
    for x in tasks:
        by_stream[x["track"]].append(x)
    for lst in by_stream.values():
        launches = sorted(lst, key=lambda x: (x["launcher"]["ts"], x["i"]))
        starts = sorted(lst, key=lambda x: x["i"])
        i = j = q = 0
        at_launch = set()
        while i < len(launches) or j < len(starts):
            if i < len(launches) and (j >= len(starts) or launches[i]["launcher"]["ts"] <= starts[j]["ts"]):
                q += 1
                if q == 1:
                    at_launch.add(launches[i]["i"])
                i += 1
            else:
                q -= 1
                if q == 0 and starts[j]["i"] in at_launch:
                    queue_ok.add(starts[j]["i"])
                j += 1

    step = [x for x in sl if x["kind"] == "step" and x["name"] == step_name][0]
    ws, we = step["ts"], step["end"]
    host = [x for x in sl if x["kind"] in ("cpu_op", "runtime") and x["dur"] > 0 and ws <= x["ts"] <= we]
    host_ids = {x["i"] for x in host}
    # which tracks are walked together
    has = defaultdict(set)
    for x in sl:
        if x["track"][0] in ("Python", "CANN"):
            has[x["track"]].add("op" if x["kind"] == "cpu_op" else "rt" if x["kind"] == "runtime" else "x")
    fwd = {x["track"] for x in sl if x["dur"] > 0 and ws <= x["ts"] <= we and x["kind"] in ("cpu_op", "ann", "step")
           and "forward" in x["name"]}
    bwd = {x["track"] for x in sl if x["dur"] > 0 and ws <= x["ts"] <= we and x["kind"] in ("cpu_op", "ann", "step")
           and "autograd" in x["name"]}
    group = {tr: tr for tr in has}
    if len(fwd) == 1 and len(bwd) == 1 and fwd != bwd:
        group[next(iter(bwd))] = next(iter(fwd))
    for a in has:
        if has[a] == {"rt"}:
            for b in sorted(has, key=lambda t: order[t]):
                if b != a and "op" in has[b] and b[2] == a[2]:
                    group[a] = group[b]
                    break
    edges = []  # (from node, to node, weight, kind); node = (slice index, 0 start / 1 end)
    node_ts = {}

    def add(a, b, kind, zero=False):
        w = 0 if zero or kind in ("dep", "sync") else max(0, node_ts[b] - node_ts[a])
        edges.append((a, b, w, kind))

    for x in host + tasks:
        node_ts[(x["i"], 0)], node_ts[(x["i"], 1)] = x["ts"], x["end"]
    walks = defaultdict(list)
    for x in host:
        walks[group[x["track"]]].append(x)
    for evs in walks.values():
        evs.sort(key=lambda x: (x["ts"], -x["end"], x["i"]))
        stack, last = [], None
        for k in range(len(evs) + 1):
            while stack and (k == len(evs) or stack[-1]["end"] <= evs[k]["ts"]):
                e = stack.pop()
                if last:
                    add(last, (e["i"], 1), "cpu", zero=e["kind"] == "runtime" and is_wait(e["name"]))
                last = (e["i"], 1)
            if k == len(evs):
                break
            e = evs[k]
            if last:
                add(last, (e["i"], 0), "cpu" if stack else "dep")
            last = (e["i"], 0)
            stack.append(e)
    gpu = sorted((x for x in tasks if ws <= x["launcher"]["ts"] <= we and x["launcher"]["i"] in host_ids),
                 key=lambda x: (x["ts"], x["i"]))
    prev = {}
    for x in gpu:
        add((x["i"], 0), (x["i"], 1), "npu")
        p = prev.get(x["stream"])
        call = x["launcher"]
        if x["i"] in queue_ok and (p is None or p["end"] < call["ts"]):
            add((call["i"], 0), (x["i"], 0), "launch")
        elif p is not None and x["ts"] - p["end"] < KK_MAX:
            add((p["i"], 1), (x["i"], 0), "kk")
        prev[x["stream"]] = x
    streams = {x["stream"] for x in gpu}
    by_end = sorted(gpu, key=lambda x: (x["end"], x["i"]))
    for h in host:
        if h["kind"] != "runtime" or not is_wait(h["name"]):
            continue
        seen = set()
        for x in reversed([y for y in by_end if y["end"] <= h["end"]]):
            if len(seen) == len(streams):
                break
            if x["launcher"]["ts"] > h["ts"] or x["stream"] in seen:
                continue
            seen.add(x["stream"])
            add((x["i"], 1), (h["i"], 1), "sync")
    # the longest path (Kahn's order)
    out, indeg = defaultdict(list), defaultdict(int)
    for a, b, w, kind in edges:
        out[a].append((b, w, kind))
        indeg[b] += 1
    nodes = set(node_ts)
    dist = {n: 0 for n in nodes}
    via = {}
    ready = [n for n in nodes if indeg[n] == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for b, w, kind in out[n]:
            if dist[n] + w > dist[b]:
                dist[b], via[b] = dist[n] + w, (n, w, kind)
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    assert seen == len(nodes), "cycle"
    end = max(nodes, key=lambda n: dist[n])
    by_kind = defaultdict(int)
    n = end
    while n in via:
        n, w, kind = via[n]
        by_kind[kind] += w
    return dist[end], by_kind


def main():
    for rel, step in (("ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", "ProfilerStep#50"),
                      ("ascend_older/trace_view_2024/trace_view.json", "ProfilerStep#1")):
        length, by_kind = path_of(os.path.join(DATA, rel), step)
        print(f"{rel}: {step} path_ns {length} launch_ns {by_kind['launch']} kinds {dict(by_kind)}")


if __name__ == "__main__":
    main()
