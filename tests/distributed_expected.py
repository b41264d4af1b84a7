#!/usr/bin/env python3
"""Expected distributed figures of the real NCCL traces in ../shared/data, for
test_distributed.c, computed from the raw JSON the TensorBoard plugin's way
(overall_parser.py, communication.py):

  per step (ProfilerStep#N):  computation = |step ∩ union(non-NCCL kernels)|,
      communication = |step ∩ union(NCCL kernels)|, overlap = |step ∩ both|,
      other = step duration + overlap - computation - communication
  collectives: each NCCL kernel goes to the collective op around its launch
      (the cuda_runtime call with the same correlation; the innermost
      nccl:*/gloo: annotation enclosing it on its thread, else c10d::*, else
      the kernel's "Collective name", else its name); calls = distinct ops;
      bytes = In msg nelems (else Out) x dtype size from the kernel or the
      enclosing record_param_comms, else the op's Input Dims x Input type;
      total = union of the kernels' intervals

Usage: python3 tests/distributed_expected.py [DATA_DIR]
"""
import collections
import decimal
import gzip
import json
import os
import sys

SIZES = {"Byte": 1, "Char": 1, "Bool": 1, "unsigned char": 1, "signed char": 1, "bool": 1,
         "Short": 2, "Half": 2, "BFloat16": 2, "c10::Half": 2, "c10::BFloat16": 2, "short": 2,
         "Int": 4, "Float": 4, "float": 4, "int": 4,
         "Long": 8, "Double": 8, "long int": 8, "long": 8, "double": 8}


def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)


def union(spans):
    out = []
    for b, e in sorted(spans):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out


def covered(spans, b, e):
    return sum(max(0, min(y, e) - max(x, b)) for x, y in spans)


def intersect(a, b):
    out = []
    for x, y in a:
        for u, v in b:
            lo, hi = max(x, u), min(y, v)
            if hi > lo:
                out.append([lo, hi])
    return union(out)


def rank_figures(ev, rank):
    xs = [e for e in ev if e.get("ph") == "X"]
    for e in xs:
        e["_b"] = ns(e["ts"])
        e["_e"] = e["_b"] + ns(e.get("dur", 0))
        e["_t"] = (str(e.get("pid")), str(e.get("tid")))
    kernels = [e for e in xs if e.get("cat") in ("kernel", "Kernel")]
    comm_k = [e for e in kernels if "nccl" in e["name"].lower()]
    comp = union([(e["_b"], e["_e"]) for e in kernels if "nccl" not in e["name"].lower()])
    comm = union([(e["_b"], e["_e"]) for e in comm_k])
    both = intersect(comp, comm)
    steps = sorted((e["_b"], e["_e"], e["name"]) for e in xs if e["name"].startswith("ProfilerStep#"))
    for b, e, name in steps:
        c, m, o = covered(comp, b, e), covered(comm, b, e), covered(both, b, e)
        print(f"step|{rank}|{name}|{e - b}|{c}|{m}|{o}|{e - b + o - c - m}")
    runtime = {}
    for e in xs:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("cat") in ("cuda_runtime", "Runtime", "cuda_driver") and corr is not None:
            runtime.setdefault(corr, e)
    host = collections.defaultdict(list)
    for e in xs:
        if e.get("cat") in ("cpu_op", "user_annotation", "Operator"):
            host[e["_t"]].append(e)
    rows = {}
    for k in comm_k:
        args = k.get("args") or {}
        rt = runtime.get(args.get("correlation"))
        around = []
        if rt is not None:
            around = sorted((h for h in host[rt["_t"]] if h["_b"] <= rt["_b"] and rt["_e"] <= h["_e"]),
                            key=lambda h: (-h["_b"], h["_e"]))  # innermost first
        op = next((h for h in around if h["name"].startswith(("nccl:", "gloo:"))), None)
        if op is None:
            op = next((h for h in around if h["name"].startswith("c10d::")), None)
        cargs = args if ("In msg nelems" in args or "Out msg nelems" in args or "Collective name" in args) else None
        if cargs is None:
            rpc = next((h for h in around if h["name"] == "record_param_comms"), None)
            cargs = (rpc.get("args") or {}) if rpc else None
        name = op["name"] if op else (cargs or {}).get("Collective name") or k["name"]
        row = rows.setdefault(name, {"calls": 0, "bytes": -1, "spans": [], "last": None})
        if op is None or op is not row["last"]:
            row["calls"] += 1
            row["last"] = op
            nb = -1
            if cargs:
                n = cargs.get("In msg nelems", cargs.get("Out msg nelems"))
                size = SIZES.get(cargs.get("dtype"), 0)
                if n is not None and size:
                    nb = int(n) * size
            if nb < 0 and op is not None:
                oa = op.get("args") or {}
                dims, types = oa.get("Input Dims"), oa.get("Input type")
                if dims is not None and types is not None:
                    tot, anyv = 0, False
                    for i, shape in enumerate(dims):
                        size = SIZES.get(types[i] if i < len(types) else "", 0)
                        cnt = 1
                        for v in shape:
                            cnt *= int(v)
                        if size:
                            tot += cnt * size
                            anyv = True
                    nb = tot if anyv else -1
            if nb >= 0:
                row["bytes"] = max(row["bytes"], 0) + nb
        row["spans"].append((k["_b"], k["_e"]))
    for name in sorted(rows):
        r = rows[name]
        total = sum(e - b for b, e in union(r["spans"]))
        print(f"coll|{rank}|{name}|{r['calls']}|{r['bytes']}|{total}|{total // r['calls']}")
    return sum(covered(comp, b, e) for b, e, _ in steps) / max(1, len(steps))


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MEMLENS_DATA", "../shared/data")
    for group in (["hta_nccl_data.json.gz"], ["hta_sampled_rank-0.json.gz", "hta_sampled_rank-1.json.gz"]):
        print("#", " ".join(group))
        most, slowest = -1, -1
        for f in group:
            doc = json.load(gzip.open(os.path.join(data, "kineto", f)), parse_float=decimal.Decimal)
            rank = doc.get("distributedInfo", {}).get("rank", -1)
            c = rank_figures(doc["traceEvents"], rank)
            if c > most:
                most, slowest = c, rank
        print(f"slowest|{slowest}")


if __name__ == "__main__":
    main()
