#!/usr/bin/env python3
"""gen_check.py — checks a gen_trace output against its own ground truth,
independently of memlens (plain json.load, nothing shared with the C code).

    python3 tests/gen_check.py TRACE.json EXPECT.json

Verifies that the trace is valid JSON in the PyTorch 2.x shape, that every
[memory] event is consistent (Total Allocated moves by Bytes, Total Reserved
never below it on CUDA, live blocks never overlap, freed addresses get reused),
that allocations sit inside an op on their thread, and that the per-device
numbers recomputed from the events equal the generator's --expect file.
Prints one line per problem and exits 1 if there was any.
"""
import gzip
import json
import sys

problems = []


def bad(msg):
    problems.append(msg)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


trace, expect = load(sys.argv[1]), load(sys.argv[2])
for key in ("schemaVersion", "deviceProperties", "distributedInfo", "baseTimeNanoseconds",
            "displayTimeUnit", "traceEvents", "traceName"):
    if key not in trace:
        bad("missing top-level key " + key)
base = trace["baseTimeNanoseconds"]
events = trace["traceEvents"]
if expect["events"] != len(events):
    bad("event count %d, expect file says %d" % (len(events), expect["events"]))


def ns(ts):  # "12.345" µs -> int ns, exactly
    s = repr(ts) if isinstance(ts, float) else str(ts)
    whole, _, frac = s.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


# Ops per thread, to check that allocations happen inside one.
ops = {}
for e in events:
    if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation"):
        ops.setdefault(e["tid"], []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))

mem = [(ns(e["ts"]), i, e) for i, e in enumerate(events) if e.get("name") == "[memory]"]
mem.sort(key=lambda m: (m[0], m[1]))
if expect["memory_events"] != len(mem):
    bad("memory event count %d, expect says %d" % (len(mem), expect["memory_events"]))
devname = lambda a: "cpu" if a["Device Type"] == 0 else "cuda:%d" % a["Device Id"]

stats = {}
reused = 0
for t, _, e in mem:
    a = e["args"]
    d = stats.setdefault(devname(a), {"live": {}, "freed": set(), "alloc": 0, "free": 0, "unmatched": 0,
                                       "peak": None, "peak_t": None, "res": None, "prev": None, "pre_at_peak": 0})
    if d["prev"] is not None and a["Total Allocated"] != d["prev"] + a["Bytes"]:
        bad("%s ts %d: Total Allocated %d != previous %d + Bytes %d"
            % (devname(a), t, a["Total Allocated"], d["prev"], a["Bytes"]))
    d["prev"] = a["Total Allocated"]
    if a["Device Type"] == 1 and a["Total Reserved"] < a["Total Allocated"]:
        bad("ts %d: Total Reserved below Total Allocated" % t)
    addr, nbytes = a["Addr"], a["Bytes"]
    if nbytes > 0:
        d["alloc"] += 1
        if addr in d["live"]:
            bad("%s: address %d allocated twice" % (devname(a), addr))
        if addr in d["freed"]:
            reused += 1
        d["live"][addr] = nbytes
        if not any(s <= t < en for s, en in ops.get(e["tid"], ())):
            bad("allocation at ts %d is inside no op" % t)
    else:
        d["free"] += 1
        if addr in d["live"]:
            if d["live"].pop(addr) != -nbytes:
                bad("free of %d with a different size" % addr)
            d["freed"].add(addr)
        else:
            d["unmatched"] += 1
    if d["peak"] is None or a["Total Allocated"] > d["peak"]:
        d["peak"], d["peak_t"] = a["Total Allocated"], base + t
        d["pre_at_peak"] = a["Total Allocated"] - sum(d["live"].values())
    if d["res"] is None or a["Total Reserved"] > d["res"]:
        d["res"] = a["Total Reserved"]

# Live blocks must not overlap (the caching allocator never hands out the same bytes twice).
for name, d in stats.items():
    spans = sorted(d["live"].items())
    for (a1, b1), (a2, _) in zip(spans, spans[1:]):
        if a1 + b1 > a2:
            bad("%s: live blocks at %d and %d overlap at the end" % (name, a1, a2))
if reused == 0:
    bad("no address was ever reused")

for x in expect["devices"]:
    d = stats.get(x["id"])
    if d is None:
        bad("device %s has no memory events" % x["id"])
        continue
    got = {"peak_allocated_bytes": d["peak"], "peak_allocated_time_ns": d["peak_t"],
           "peak_reserved_bytes": d["res"], "alloc_events": d["alloc"], "free_events": d["free"],
           "unmatched_frees": d["unmatched"], "never_freed": len(d["live"]),
           "never_freed_bytes": sum(d["live"].values()), "before_trace_bytes_at_peak": d["pre_at_peak"]}
    for k, v in got.items():
        if x[k] != v:
            bad("%s %s: trace says %d, expect file says %d" % (x["id"], k, v, x[k]))

for p in problems[:30]:
    print("gen_check:", p)
sys.exit(1 if problems else 0)
