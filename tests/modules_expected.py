#!/usr/bin/env python3
"""The nn.Module tree of a Kineto trace, computed the TensorBoard plugin's way
(module_op.py): module parents from the "Python parent id" chain of the
python_function events, not from time nesting as memlens does.  Prints one
line per row, sorted, for test_modules.c to compare with ml_modules_compute():

    path|occurrences|operators|host_ns|device_ns

path: the module names from the root, joined by "/" ("GPT_0/Block_0/MLP_0"),
each "name#module_id" when the event has a "Python module id".
operators: cpu_op / user_annotation events whose innermost enclosing op or
module on their thread (by time) is the module.  device_ns: kernels, memcpy
and memset whose runtime call (same "correlation") lies inside the module.

Usage: python3 tests/modules_expected.py TRACE.json
"""
import collections
import decimal
import json
import sys

PREFIX = "nn.Module: "


def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)


def main():
    doc = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    xs = [e for e in ev if e.get("ph") == "X"]
    for e in xs:
        e["_b"] = ns(e["ts"])
        e["_e"] = e["_b"] + ns(e.get("dur", 0))
        e["_t"] = (str(e.get("pid")), str(e.get("tid")))
    py = {e["args"]["Python id"]: e for e in xs
          if e.get("cat") == "python_function" and "Python id" in (e.get("args") or {})}
    modules = [e for e in xs if e.get("cat") == "python_function" and e["name"].startswith(PREFIX)]

    def label(m):
        mid = (m.get("args") or {}).get("Python module id")
        return m["name"][len(PREFIX):] + ("" if mid is None else f"#{mid}")

    def parent_module(m):
        e = py.get((m.get("args") or {}).get("Python parent id"))
        while e is not None:
            if e["name"].startswith(PREFIX):
                return e
            e = py.get((e.get("args") or {}).get("Python parent id"))
        return None

    def path(m):
        parts = []
        while m is not None:
            parts.append(label(m))
            m = parent_module(m)
        return "/".join(reversed(parts))

    rows = collections.defaultdict(lambda: [0, 0, 0, 0])
    for m in modules:
        r = rows[path(m)]
        r[0] += 1
        r[2] += m["_e"] - m["_b"]

    by_thread = collections.defaultdict(list)
    for e in xs:
        if e.get("cat") in ("cpu_op", "user_annotation") or e in modules:
            by_thread[e["_t"]].append(e)

    def innermost(e, pool):
        best = None
        for c in pool:
            if c is e or not (c["_b"] <= e["_b"] and e["_e"] <= c["_e"]):
                continue
            if c["_b"] == e["_b"] and c["_e"] == e["_e"] and id(c) > id(e):
                continue
            if best is None or (c["_b"], -c["_e"]) > (best["_b"], -best["_e"]):
                best = c
        return best

    for e in xs:
        if e.get("cat") not in ("cpu_op", "user_annotation"):
            continue
        c = innermost(e, by_thread[e["_t"]])
        if c is not None and c["name"].startswith(PREFIX) and c.get("cat") == "python_function":
            rows[path(c)][1] += 1

    runtime = {}
    for e in xs:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and corr is not None:
            runtime.setdefault(corr, e)
    for e in xs:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset") or corr not in runtime:
            continue
        rt = runtime[corr]
        for m in modules:
            if m["_t"] == rt["_t"] and m["_b"] <= rt["_b"] and rt["_e"] <= m["_e"]:
                rows[path(m)][3] += e["_e"] - e["_b"]
    for line in sorted("|".join([p] + [str(v) for v in r]) for p, r in rows.items()):
        print(line)


if __name__ == "__main__":
    main()
