#!/usr/bin/env python3
"""Expected time-side figures of the real Kineto traces in ../shared/data, and
of the Ascend rank0 trace_view.json (lanes typed by process name: Ascend
Hardware tasks are kernels, MEMCPY* memcpys, and those whose args "Task Type"
is a stream sync (EVENT_WAIT_SQE, EVENT_RECORD_SQE, PLACE_HOLDER_SQE) other;
CANN calls runtime, linked by connection_id), for test_trace.c (real_traces_match_trace_expected_py).  Reads each trace with gzip + json, independently
of memlens, and prints per file:

  slices per kind  X events, and B/E pairs matched per (pid, tid) by Chrome's
                   rule (an E closes the latest open B there), by cat:
                   cpu_op/Operator, user_annotation, python_function,
                   cuda_runtime/Runtime, cuda_driver, kernel/Kernel,
                   gpu_memcpy/Memcpy, gpu_memset/Memset, gpu_user_annotation,
                   ProfilerStep#N (any host cat), other
  tracks           distinct (pid, tid) of slices, counters, instants, flow points
  stream tracks    tracks holding GPU work (kernel, memcpy, memset, gpu annotation)
  launched         GPU work and cuda_sync events whose correlation equals a runtime/driver call's
  flows            one per "t"/"f" point, and one per "s" nothing follows in
                   its (cat, id) chain; bound = both ends inside a slice
  instants         "i" events other than [memory]/[OutOfMemory]
  counters         one per numeric arg of a "C" event

Usage: python3 tests/trace_expected.py [DATA_DIR]
"""
import bisect
import collections
import decimal
import gzip
import json
import os
import sys

FILES = ["hta_nccl_data.json.gz", "hta_sampled_rank-0.json.gz", "hta_sampled_rank-1.json.gz",
         "tbplugin_resnet50_w0.pt.trace.json.gz", "param_linear_kineto.json.gz", "hta_alexnet.json.gz"]
KINDS = ["cpu_op", "user_annotation", "python", "runtime", "driver", "kernel", "memcpy", "memset",
         "gpu_annotation", "profiler_step", "other", "cuda_sync", "cuda_profiler_range"]
CAT = {"cpu_op": 0, "Operator": 0, "user_annotation": 1, "python_function": 2, "cuda_runtime": 3,
       "Runtime": 3, "cuda_driver": 4, "kernel": 5, "Kernel": 5, "gpu_memcpy": 6, "Memcpy": 6,
       "gpu_memset": 7, "Memset": 7, "gpu_user_annotation": 8, "cuda_sync": 11, "cuda_profiler_range": 12}


def kind_of(e):
    k = CAT.get(e.get("cat"), 10)
    if k in (0, 1, 10) and str(e.get("name", "")).startswith("ProfilerStep#") and len(e["name"]) > 13:
        return 9
    return k


def us(v):
    """µs (number or string) as integer ns, truncated as memlens reads them."""
    return int(decimal.Decimal(str(v).strip()) * 1000)


ASCEND_SYNCS = {"EVENT_WAIT", "EVENT_RECORD", "EVENT_WAIT_SQE", "EVENT_RECORD_SQE", "PLACE_HOLDER_SQE", "STARS_COMMON"}


def ascend_kind_of(pnames):
    """torch_npu's trace_view.json: lanes by their process name (see ascend.h)."""
    def kind(e):
        p = pnames.get(e.get("pid"))
        if p == "Ascend Hardware":
            if (e.get("args") or {}).get("Task Type") in ASCEND_SYNCS:
                return 10
            return 6 if str(e.get("name", "")).startswith("MEMCPY") else 5
        if p == "CANN":
            return 3
        return kind_of(e)
    return kind


def corr_of(args):
    return args.get("correlation", args.get("connection_id"))


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MEMLENS_DATA", "../shared/data")
    for f in FILES:
        d = json.load(gzip.open(os.path.join(data, "kineto", f)), parse_float=decimal.Decimal)
        ev = d["traceEvents"] if isinstance(d, dict) else d
        report(f, ev, kind_of, lambda tr: False)
    f = "ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
    ev = json.load(open(os.path.join(data, f)), parse_float=decimal.Decimal)
    pnames = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    report(f, ev, ascend_kind_of(pnames), lambda tr: pnames.get(int(tr[0])) == "Ascend Hardware")


def report(f, ev, kind_of, is_stream_track):
    if True:
        slices = []  # (track, ts, end, kind, corr)
        tracks = set()
        open_b = collections.defaultdict(list)
        points = []
        instants = counters = 0
        for e in ev:
            ph = e.get("ph")
            tr = (str(e.get("pid", "")), str(e.get("tid", "")))
            args = e.get("args") or {}
            if ph == "X":
                slices.append((tr, us(e["ts"]), us(e["ts"]) + us(e.get("dur", 0)), kind_of(e), corr_of(args)))
            elif ph == "B":
                open_b[tr].append(e)
            elif ph == "E":
                if open_b[tr]:
                    b = open_b[tr].pop()
                    bargs = b.get("args") or {}
                    slices.append((tr, us(b["ts"]), us(e["ts"]), kind_of(b), corr_of(bargs)))
            elif ph in ("i", "I"):
                if e.get("name") not in ("[memory]", "[OutOfMemory]"):
                    instants += 1
                    tracks.add(tr)
            elif ph == "C":
                counters += sum(1 for v in args.values() if isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool))
                tracks.add(tr)
            elif ph in ("s", "t", "f") and "id" in e:
                points.append((e.get("cat", ""), e["id"], us(e["ts"]), len(points), ph, e.get("bp") == "e", tr))
                tracks.add(tr)
        counts = [0] * len(KINDS)
        for s in slices:
            counts[s[3]] += 1
            tracks.add(s[0])
        streams = {s[0] for s in slices if s[3] in (5, 6, 7, 8)} | {tr for tr in tracks if is_stream_track(tr)}
        launch_corr = {s[4] for s in slices if s[3] in (3, 4) and s[4] is not None}
        launched = sum(1 for s in slices if s[3] in (5, 6, 7, 11) and s[4] is not None and s[4] in launch_corr)
        # binding: per track, slices by start with a running max of ends
        per = collections.defaultdict(list)
        for s in slices:
            per[s[0]].append((s[1], s[2]))
        index = {}
        for tr, lst in per.items():
            lst.sort()
            starts = [a for a, _ in lst]
            mx, run = [], -(1 << 63)
            for _, b in lst:
                run = max(run, b)
                mx.append(run)
            index[tr] = (starts, mx, lst)

        def encloses(tr, t):
            if tr not in index:
                return False
            starts, mx, lst = index[tr]
            i = bisect.bisect_right(starts, t)
            if i == 0:
                return False
            if mx[i - 1] > t:
                return True
            j = bisect.bisect_left(starts, t)
            return j < len(starts) and starts[j] == t

        def next_starts(tr, t):
            if tr not in index:
                return False
            starts = index[tr][0]
            return bisect.bisect_left(starts, t) < len(starts)

        def bound(p):
            return encloses(p[6], p[2]) if p[4] in ("s", "t") or p[5] else next_starts(p[6], p[2])

        points.sort(key=lambda p: (p[0], p[1], p[2], p[3]))
        flows = bound_both = 0
        groups = collections.defaultdict(list)
        for p in points:
            groups[(p[0], p[1])].append(p)
        for g in groups.values():
            prev = None
            for i, p in enumerate(g):
                if p[4] == "s":
                    if i + 1 == len(g) or g[i + 1][4] == "s":
                        flows += 1
                        prev = None
                    else:
                        prev = p
                else:
                    flows += 1
                    if prev is not None and bound(prev) and bound(p):
                        bound_both += 1
                    prev = p if p[4] == "t" else None
        print(f"{f}: slices {len(slices)} kinds " + " ".join(f"{k}={c}" for k, c in zip(KINDS, counts)))
        print(f"  tracks {len(tracks)} streams {len(streams)} launched {launched} flows {flows} "
              f"bound {bound_both} instants {instants} counters {counters}")


if __name__ == "__main__":
    main()
