#!/usr/bin/env python3
"""Independent computation of the `operators` rows of `memlens diff --json`,
and their check against memlens' output (and against a gold file made by
HolisticTraceAnalysis itself, tests/hta_diff_gold.py).

The rows follow HTA's TraceDiff.compare_traces over every iteration (its
add_iteration): a host event counts when its start lies in a ProfilerStep#N
event's [ts, ts + dur); GPU work (kernel, gpu_memcpy, gpu_memset) counts when
the runtime call with its correlation id does.  Per (kind, name): the calls
and the summed durations in µs.  Kinds: cpu_op -> operator, cuda_runtime and
cuda_driver -> runtime, kernel, gpu_memcpy -> memcpy, gpu_memset -> memset
(and the older Operator, Runtime, Kernel, Memcpy, Memset).
A trace without ProfilerStep# counts every event.  Reads the traces with
Python's json module and exact decimals (no memlens code).

Usage:
  tests/diff_expected.py BASE NEW MEMLENS_DIFF_JSON [GOLD_JSON]
prints "ok N rows" or one "FAIL ..." line per difference (exit 1).  memlens
must agree with this script exactly (ns); with the gold file, calls exactly
and durations within 2 µs or 0.2 % (HTA rounds times to whole µs), row for
row by name.
"""
import gzip
import json
import re
import sys
from decimal import Decimal

KINDS = {"cpu_op": "operator", "cuda_runtime": "runtime", "cuda_driver": "runtime",
         "kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset",
         # PyTorch 1.8/1.9 traces
         "Operator": "operator", "Runtime": "runtime", "Kernel": "kernel", "Memcpy": "memcpy", "Memset": "memset"}
GPU = {"kernel", "memcpy", "memset"}
STEP = re.compile(r"ProfilerStep\s*#\s*\d+")


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    d = json.loads(raw, parse_float=Decimal)
    return d if isinstance(d, dict) else {"traceEvents": d}


def rows_of(path):
    ev = [e for e in load(path)["traceEvents"] if e.get("ph") == "X" and "dur" in e]
    steps = [(Decimal(e["ts"]), Decimal(e["ts"]) + Decimal(e["dur"])) for e in ev if STEP.match(str(e.get("name", "")))]

    def in_step(ts):
        return not steps or any(b <= ts < e for b, e in steps)

    launch_in = {}  # correlation -> whether its runtime call is in a step
    for e in ev:
        if KINDS.get(e.get("cat")) == "runtime":
            c = (e.get("args") or {}).get("correlation")
            if c is not None and c not in launch_in:
                launch_in[c] = in_step(Decimal(e["ts"]))
    rows = {}
    for e in ev:
        kind = KINDS.get(e.get("cat"))
        if not kind or STEP.match(str(e.get("name", ""))):  # the steps themselves are no rows
            continue
        if kind in GPU:
            c = (e.get("args") or {}).get("correlation")
            ok = not steps or launch_in.get(c, False)
        else:
            ok = in_step(Decimal(e["ts"]))
        if not ok:
            continue
        r = rows.setdefault((kind, e["name"]), [0, Decimal(0)])
        r[0] += 1
        r[1] += Decimal(e["dur"])
    return rows


def change(a, b):
    if a == 0:
        return "added"
    if b == 0:
        return "deleted"
    return "increased" if b > a else "decreased" if b < a else "unchanged"


def main():
    base, new, mine_path = sys.argv[1:4]
    gold_path = sys.argv[4] if len(sys.argv) > 4 else None
    exp = [rows_of(base), rows_of(new)]
    mine = json.load(open(mine_path))["pairs"][0]["operators"]
    fails = []
    got = {}
    for o in mine:
        k = (o["kind"], o["name"])
        if k in got:
            fails.append("row twice: %s %s" % k)
        got[k] = o
    keys = set(exp[0]) | set(exp[1])
    for k in sorted(keys):
        o = got.get(k)
        if o is None:
            fails.append("missing row %s %.80s" % k)
            continue
        e = [exp[s].get(k, [0, Decimal(0)]) for s in (0, 1)]
        if (o["base_calls"], o["new_calls"]) != (e[0][0], e[1][0]):
            fails.append("%s %.80s: calls %s/%s, expected %s/%s" % (k + (o["base_calls"], o["new_calls"], e[0][0], e[1][0])))
        for s, key in ((0, "base_us"), (1, "new_us")):
            if abs(Decimal(str(o[key])) - e[s][1]) > Decimal("0.0015"):
                fails.append("%s %.80s: %s %s, expected %s" % (k + (key, o[key], e[s][1])))
        if o["change"] != change(e[0][0], e[1][0]):
            fails.append("%s %.80s: change %s, expected %s" % (k + (o["change"], change(e[0][0], e[1][0]))))
        if set(o) != {"kind", "name", "base_calls", "new_calls", "base_us", "new_us", "change"}:
            fails.append("row keys %s" % sorted(o))
    for k in got:
        if k not in keys:
            fails.append("extra row %s %.80s" % k)
    n_gold, dev = 0, 0.0
    if gold_path:
        by_name = {}
        for o in mine:
            r = by_name.setdefault(o["name"], [0, 0, 0.0, 0.0])
            r[0] += o["base_calls"]; r[1] += o["new_calls"]; r[2] += o["base_us"]; r[3] += o["new_us"]
        gold = json.load(open(gold_path))["operators"]
        n_gold = len(gold)
        if len(gold) != len(by_name):
            fails.append("%d names, the gold has %d" % (len(by_name), len(gold)))
        for g in gold:
            r = by_name.get(g["name"])
            if r is None:
                fails.append("gold row missing: %.80s" % g["name"])
                continue
            if (r[0], r[1]) != (g["base_calls"], g["new_calls"]):
                fails.append("gold %.80s: calls %d/%d, HTA %d/%d" % (g["name"], r[0], r[1], g["base_calls"], g["new_calls"]))
            for v, key in ((r[2], "base_us"), (r[3], "new_us")):
                d = abs(v - g[key])
                dev = max(dev, d)
                if d > 2 and d > 0.002 * abs(g[key]):
                    fails.append("gold %.80s: %s %s, HTA %s" % (g["name"], key, v, g[key]))
    for f in fails[:20]:
        print("FAIL " + f)
    if fails:
        sys.exit(1)
    print("ok %d rows%s" % (len(keys), " (HTA: %d names, max deviation %.3f us)" % (n_gold, dev) if gold_path else ""))


if __name__ == "__main__":
    main()
