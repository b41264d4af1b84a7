#!/usr/bin/env python3
"""memlens's GPU-time rules (README "GPU time, as HTA measures it";
src/analysis/gputimeline.h and the headers it names) in plain Python, worked
out from HolisticTraceAnalysis's source, not from memlens's C: what
`memlens perf --json` should write in runs[0] for a Kineto trace.

usage: hta_rules.py [--exact] TRACE.json[.gz]   prints the expected fields as JSON
As a module: expected(path, exact=False) -> dict with temporal,
idle_by_stream, kernel_types, comm_comp_overlap_pct, launches,
queue_length, memory_bw: what `memlens perf --json --hta-rules` writes.

exact=True: what `memlens perf --json` (the default, exact) writes: the
same rules on the times as the trace's text writes them, in integer ns
(the number read as a Decimal, times 1000, truncated: no float64, no
rounding to whole µs); the *_us fields are then exact Decimals (ns / 1000).

Where HTA and memlens part (tests/hta_agree.py lists them), these rules are
memlens's:
  - GPU events are kernels, memcpys and memsets whose args "stream" is not
    -1, and the other events drawn on their (pid, tid) (Stream Sync, Stream
    Wait Event); a CPU operator with a "stream" arg (Triton launches) and a
    device-wide sync with "stream": 4294967295 (Context Sync in older
    Kineto) are not GPU time
  - at one µs, the end of a copy comes before the start of the next in the
    bandwidth sum, and a launch before a kernel start in the queue
  - ROCm's launches (hipLaunchKernel ...) and XPU's (urEnqueueKernelLaunch ...)
    count in the launch statistics
  - kernels that overlap on one stream are one busy stretch before the idle
    gaps are measured (HTA measures from the previous kernel's end and goes
    negative): no idle time is negative
  - every accelerator's cats Kineto writes are device work: mtia_ccp_events
    kernels, mtia_/xpu_/privateuse1_ runtime calls
"""
import collections
import decimal
import gzip
import json
import math
import re
import sys

COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEM = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)"
    r"|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
TYPES = ["COMPUTATION", "COMMUNICATION", "MEMORY"]
LAUNCH_STATS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel",
                "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
                "runFunction - job_prep_and_submit_for_execution",
                "urEnqueueKernelLaunch", "urEnqueueUSMMemcpy", "urEnqueueUSMFill"}
LAUNCH_QUEUE = LAUNCH_STATS | {"cuLaunchKernel", "cuLaunchKernelEx"}
GPU_WORK_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
HOST_CALL_CATS = {"cuda_runtime", "Runtime", "cuda_driver", "mtia_runtime", "xpu_runtime", "xpu_driver",
                  "privateuse1_runtime", "privateuse1_driver", "hpu_op"}
NOT_OTHER = {"cpu_op", "Operator", "user_annotation", "python_function", "gpu_user_annotation"} | HOST_CALL_CATS


def ktype(name):
    if COMM.match(name):
        return "COMMUNICATION"
    if MEM.match(name):
        return "MEMORY"
    if not NOT_COMPUTE.match(name):
        return "COMPUTATION"
    return "OTHER"


def number(v, default=-1):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return int(float(v))
        except (TypeError, ValueError):
            return default


def load(path):
    """The events, their numbers read as Decimal (float64 is only what HTA's grid goes through)."""
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    doc = json.load(f, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def on_grid(e):
    """HTA's round_down_time_stamps: start up, end down, to whole µs, in float64."""
    ts, dur = float(e["ts"]), float(e.get("dur", 0))
    return math.ceil(ts), math.floor(ts + dur)


def ns_of(v):
    """µs as the text writes them -> integer ns, truncated past the ns (memlens's importer)."""
    return int(decimal.Decimal(str(v)) * 1000)


def exact_interval(e):
    start = ns_of(e["ts"])
    return start, start + max(0, ns_of(e.get("dur", 0)))


def merge(intervals):
    """HTA's merge_kernel_intervals on (start, end) pairs."""
    out = []
    for s, e in sorted(intervals, key=lambda x: x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def expected(path, exact=False):
    interval = exact_interval if exact else on_grid
    unit = 1000 if exact else 1  # one µs in the unit of interval()
    events = [e for e in load(path) if e.get("ph") == "X" and "ts" in e]
    # the stream tracks: (pid, tid) with GPU work, numbered by its first event's args stream
    track_stream = {}
    for e in events:
        if e.get("cat") in GPU_WORK_CATS or e.get("cat") == "gpu_user_annotation":
            key = (str(e.get("pid")), str(e.get("tid")))
            if key not in track_stream:
                s = number((e.get("args") or {}).get("stream", -1))
                if s < 0:
                    m = re.search(r"(\d+)\s*$", str(e.get("tid")))
                    s = int(m.group(1)) if m else -1
                track_stream[key] = s
    host = {}
    for e in events:
        a = e.get("args") or {}
        if e.get("cat") in HOST_CALL_CATS and number(a.get("correlation", -1)) >= 0:
            host.setdefault(number(a["correlation"]), e)
    steps = [e for e in events if re.match(r"^ProfilerStep#\d", str(e.get("name", "")))
             and e.get("cat") not in GPU_WORK_CATS]
    cut = None
    if len({e["name"] for e in steps}) >= 2:
        cut = max(interval(e)[0] for e in steps)

    gpu = []
    for e in events:
        a = e.get("args") or {}
        cat = e.get("cat")
        key = (str(e.get("pid")), str(e.get("tid")))
        if cat in GPU_WORK_CATS:
            stream, work = number(a.get("stream", -1)), True
        elif key in track_stream and cat not in NOT_OTHER:
            stream, work = track_stream[key], False
        else:
            continue
        if stream == -1:
            continue
        corr = number(a.get("correlation", -1))
        launcher = host.get(corr) if corr >= 0 else None
        start, end = interval(e)
        ev = dict(name=e.get("name", ""), start=start, end=end, stream=stream, work=work, corr=corr,
                  type=ktype(e.get("name", "")), bw=float(a.get("memory bandwidth (GB/s)", 0) or 0), launcher=None)
        if launcher is not None:
            ls, le = interval(launcher)
            ev["launcher"] = dict(name=launcher.get("name", ""), start=ls, end=le)
        if cut is not None and (ev["launcher"] is None or ev["launcher"]["start"] >= cut):
            continue
        gpu.append(ev)
    if not gpu:
        return dict(temporal=None, idle_by_stream=[], kernel_types=[], comm_comp_overlap_pct=None, launches=None,
                    queue_length=[], memory_bw=[])
    out = {}

    merged = merge([(g["start"], g["end"]) for g in gpu])
    span = merged[-1][1] - merged[0][0]
    idle = span - sum(e - s for s, e in merged)
    compute = sum(e - s for s, e in merge([(g["start"], g["end"]) for g in gpu if g["type"] == "COMPUTATION"]))
    out["temporal"] = dict(span_us=span, idle_us=idle, compute_us=compute, non_compute_us=span - compute - idle)

    idle_rows = []
    for stream in sorted({g["stream"] for g in gpu if g["work"]}):
        row = dict(stream=stream, host_wait_us=0, kernel_wait_us=0, other_us=0)
        ks = sorted((g for g in gpu if g["work"] and g["stream"] == stream), key=lambda g: g["start"])
        prev_end = None
        for g in ks:
            if prev_end is not None and g["start"] < prev_end:  # overlaps: one busy stretch, no gap
                prev_end = max(prev_end, g["end"])
                continue
            if prev_end is not None:
                gap = g["start"] - prev_end
                if g["launcher"] is not None and g["launcher"]["start"] > prev_end:
                    row["host_wait_us"] += gap
                elif gap < 30 * unit:
                    row["kernel_wait_us"] += gap
                else:
                    row["other_us"] += gap
            prev_end = g["end"]
        idle_rows.append(row)
    out["idle_by_stream"] = idle_rows

    busy = {t: merge([(g["start"], g["end"]) for g in gpu if g["type"] == t]) for t in TYPES}
    comm_us = sum(e - s for s, e in busy["COMMUNICATION"])
    points = []
    for bit, t in enumerate(TYPES):
        for s, e in busy[t]:
            if e > s:
                points += [(s, 1, 1 << bit), (e, 0, -(1 << bit))]
    points.sort()
    totals = collections.Counter()
    mask = 0
    for (t0, _, d), (t1, _, _) in zip(points, points[1:] + [(None, 0, 0)]):
        mask += d
        if mask and t1 is not None:
            totals[" overlapping ".join(t for b, t in enumerate(TYPES) if mask & (1 << b))] += t1 - t0
    out["kernel_types"] = [dict(type=k, total_us=v) for k, v in sorted(totals.items(), key=lambda x: -x[1]) if v > 0]
    both = totals["COMPUTATION overlapping COMMUNICATION"] + totals["COMPUTATION overlapping COMMUNICATION overlapping MEMORY"]
    out["comm_comp_overlap_pct"] = 100 * both / comm_us if comm_us > 0 else None

    pairs = [g for g in gpu if g["launcher"] is not None and g["launcher"]["name"] in LAUNCH_STATS]
    if pairs:
        delays = [max(0, g["start"] - g["launcher"]["end"]) for g in pairs]
        out["launches"] = dict(count=len(pairs), cpu_us=sum(g["launcher"]["end"] - g["launcher"]["start"] for g in pairs),
                               gpu_us=sum(g["end"] - g["start"] for g in pairs), delay_us=sum(delays),
                               delay_max_us=max(delays))
    else:
        out["launches"] = None

    queues = collections.defaultdict(list)
    for g in gpu:
        if g["launcher"] is not None and g["launcher"]["name"] in LAUNCH_QUEUE:
            queues[g["stream"]] += [(g["launcher"]["start"], 0, 1), (g["start"], 1, -1)]
    out["queue_length"] = []
    for stream in sorted(queues):
        q, values, blocked, prev = 0, [], 0, None
        for t, _, d in sorted(queues[stream]):
            if prev is not None and prev[1] >= 1024:
                blocked += t - prev[0]
            q += d
            values.append(q)
            prev = (t, q)
        out["queue_length"].append(dict(stream=stream, max=max(values), mean=sum(values) / len(values), blocked_us=blocked))

    bw = collections.defaultdict(list)
    for g in gpu:
        if g["type"] != "MEMORY":
            continue
        n = g["name"]
        kind = "Memset" if n[:6] == "Memset" else ("Memcpy Unknown" if n[:6] != "Memcpy" else n[:11])
        d = (g["end"] - g["start"]) or unit  # a 0 µs copy runs for 1 µs (HTA's fix)
        bw[kind] += [(g["start"], 1, g["bw"]), (g["start"] + d, 0, -g["bw"])]
    out["memory_bw"] = []
    for kind in sorted(bw):
        level, best = 0.0, 0.0
        for _, _, d in sorted(bw[kind], key=lambda p: (p[0], p[1])):
            level += d
            best = max(best, level)
        if best > 0:
            out["memory_bw"].append(dict(kind=kind, max_gbps=best))
    return in_us(out) if exact else out


def in_us(out):
    """The *_us fields of an exact answer, from ns to exact Decimal µs."""
    def conv(x):
        if isinstance(x, dict):
            return {k: (decimal.Decimal(v) / 1000 if k.endswith("_us") and isinstance(v, int) else conv(v))
                    for k, v in x.items()}
        if isinstance(x, list):
            return [conv(v) for v in x]
        return x
    return conv(out)


if __name__ == "__main__":
    exact = sys.argv[1] == "--exact"
    print(json.dumps(expected(sys.argv[-1], exact), indent=1, default=str))
