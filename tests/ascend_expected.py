#!/usr/bin/env python3
"""Independent expected values for tests/test_ascend.c and tests/cli_ascend.sh.

Reads ../shared/data/ascend (or $MEMLENS_DATA/ascend) with Python's csv, sqlite3
and decimal modules only, and prints the figures the C tests assert:
peaks (first time a maximum is reached, file order for equal values), counts,
unreleased allocations and what operator_memory says was live at the peak.
MB in these files is MiB and KB is KiB; times are microseconds with 3 decimals.
Run: python3 tests/ascend_expected.py
"""
import csv
import json
import os
import sqlite3
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import quote

DATA = os.path.join(os.environ.get("MEMLENS_DATA", "../shared/data"), "ascend")
MIB, KIB = 1048576, 1024


def num(cell, mul):
    """Decimal cell times mul as an int, exact, or rounded to nearest (ties away
    from zero) when the decimal is finer than the unit (cells end in a tab)."""
    cell = cell.strip()
    if cell == "":
        return None
    return int((Decimal(cell) * mul).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def peak(points):
    """(value, time) of the first maximum of [(t, v)] in file order."""
    best = None
    for t, v in points:
        if v is not None and (best is None or v > best[0]):
            best = (v, t)
    return best


def live_at(ops, t):
    """Bytes and counts by name of operator_memory rows live at t: alloc <= t < release."""
    g = defaultdict(lambda: [0, 0])
    for name, size, ta, tr in ops:
        if ta <= t and (tr is None or t < tr):
            g[name][0] += size
            g[name][1] += 1
    return sorted(g.items(), key=lambda kv: (-kv[1][0], kv[0]))


def report(label, rec, ops, modules):
    """rec: {component: [(t, alloc, reserved, active)]}; ops: [(name, bytes, t_alloc, t_release)]."""
    print(f"== {label}")
    for comp in sorted(rec):
        rows = rec[comp]
        pa = peak([(t, a) for t, a, r, x in rows])
        pr = peak([(t, r) for t, a, r, x in rows])
        px = peak([(t, x) for t, a, r, x in rows])
        print(f"  {comp}: rows {len(rows)} peak_alloc {pa} peak_reserved {pr} peak_active {px}")
    head = "PTA+GE" if "PTA+GE" in rec else "PTA"
    pa = peak([(t, a) for t, a, r, x in rec[head]])
    print(f"  headline {head}: peak allocated {pa[0]} at {pa[1]}")
    unrel = [o for o in ops if o[3] is None]
    print(f"  ops {len(ops)} unreleased {len(unrel)} bytes {sum(o[1] for o in unrel)}")
    live = live_at(ops, pa[1])
    print(f"  live at peak: {len(live)} groups, {sum(v[0] for k, v in live)} bytes")
    for name, (b, n) in live[:5]:
        print(f"    {name} {b} {n}")
    for m in sorted(modules):
        p = peak(modules[m])
        if p[0] >= 100 * MIB:
            print(f"  module {m}: peak {p[0]} at {p[1]} ({len(modules[m])} rows)")


def text_rank(r):
    base = os.path.join(DATA, "text_level1", f"rank{r}_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    rec = defaultdict(list)
    with open(os.path.join(base, "memory_record.csv"), newline="") as f:
        for row in csv.DictReader(f):
            rec[row["Component"]].append((num(row["Timestamp(us)"], 1000),
                                          num(row["Total Allocated(MB)"], MIB),
                                          num(row["Total Reserved(MB)"], MIB),
                                          num(row["Total Active(MB)"], MIB)))
    ops = []
    with open(os.path.join(base, "operator_memory.csv"), newline="") as f:
        for row in csv.DictReader(f):
            ops.append((row["Name"], num(row["Size(KB)"], KIB),
                        num(row["Allocation Time(us)"], 1000), num(row["Release Time(us)"], 1000)))
    modules = defaultdict(list)
    with open(os.path.join(base, "npu_module_mem.csv"), newline="") as f:
        for row in csv.DictReader(f):
            modules[row["Component"]].append((num(row["Timestamp(us)"], 1000),
                                              num(row["Total Reserved(MB)"], MIB)))
    report(f"text rank {r}", rec, ops, modules)
    tv = os.path.join(base, "trace_view.json")
    if os.path.exists(tv):
        # "NPU MEM" counters: Device/Memory in KB (KiB), ts a string of µs
        events = json.load(open(tv))
        pid = [e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
               and e["args"].get("name") == "NPU MEM"][0]
        pts = [(num(e["ts"], 1000), num(str(e["args"]["KB"]), KIB)) for e in events
               if e.get("pid") == pid and e.get("ph") == "C" and e["name"] == "Device/Memory"]
        print(f"  trace_view Device/Memory: {len(pts)} points, peak {peak(pts)}")


def db_connect(r):
    """Read-only and immutable: a plain read-only open of a WAL-mode db would
    leave -wal/-shm files in the shared data folder."""
    path = os.path.join(DATA, "db_level1", f"rank{r}_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                        f"ascend_pytorch_profiler_{r}.db")
    return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1", uri=True)


def db_op_name(name, stream):
    """torch_npu's text export writes GE operators (rows without a stream) as
    "cann::" + name; its db does not: memlens names them as the text does."""
    return name if stream is not None or name.startswith("cann::") else "cann::" + name


def db_rank(r):
    c = db_connect(r)
    print(f"== db rank {r}: rank_device_map", c.execute("SELECT rankId, deviceId FROM RANK_DEVICE_MAP").fetchall())
    s = dict(c.execute("SELECT id, value FROM STRING_IDS"))
    rec = defaultdict(list)
    for comp, t, a, res, act in c.execute(
            "SELECT component, timestamp, totalAllocated, totalReserved, totalActive FROM MEMORY_RECORD ORDER BY rowid"):
        rec[s[comp]].append((t, a, res, act))
    for t, hbm, ddr in c.execute(
            "SELECT timestampNs, hbm, ddr FROM NPU_MEM WHERE type = (SELECT id FROM STRING_IDS WHERE value = 'app') ORDER BY rowid"):
        rec["APP"].append((t, None, hbm + ddr, None))
    ops = [(db_op_name(s[n], sp), size, ta, tr) for n, size, ta, tr, sp in c.execute(
        "SELECT name, size, allocationTime, releaseTime, streamPtr FROM OP_MEMORY ORDER BY rowid")]
    names = dict(c.execute("SELECT id, name FROM ENUM_MODULE"))
    modules = defaultdict(list)
    for m, t, v in c.execute("SELECT moduleId, timestampNs, totalReserved FROM NPU_MODULE_MEM ORDER BY rowid"):
        modules[names.get(m, str(m))].append((t, v))
    report(f"db rank {r}", rec, ops, modules)


def text_vs_db(r):
    """The text and db exports of rank r are two runs of the same script (their
    timestamps are 28 minutes apart and the stream pointers differ): which
    values are nevertheless equal, row by row, in file order."""
    base = os.path.join(DATA, "text_level1", f"rank{r}_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    t = defaultdict(list)
    with open(os.path.join(base, "memory_record.csv"), newline="") as f:
        for row in csv.DictReader(f):
            t[row["Component"]].append((num(row["Total Allocated(MB)"], MIB), num(row["Total Reserved(MB)"], MIB),
                                        num(row["Total Active(MB)"], MIB)))
    c = db_connect(r)
    s = dict(c.execute("SELECT id, value FROM STRING_IDS"))
    d = defaultdict(list)
    for comp, a, res, act in c.execute(
            "SELECT component, totalAllocated, totalReserved, totalActive FROM MEMORY_RECORD ORDER BY rowid"):
        d[s[comp]].append((a, res, act))
    # GE's Total Active: blank in every text row, 0 in every db row -> absent in both
    if all(x[2] == 0 for x in d["GE"]):
        d["GE"] = [(a, res, None) for a, res, x in d["GE"]]
    print(f"== text vs db rank {r}")
    for comp in ("PTA", "GE", "PTA+GE"):
        for k, kind in enumerate(("allocated", "reserved", "active")):
            tv = [x[k] for x in t[comp] if x[k] is not None]
            dv = [x[k] for x in d[comp] if x[k] is not None]
            same = sum(1 for a, b in zip(tv, dv) if a == b)
            print(f"  {comp} {kind}: points {len(tv)} {len(dv)} equal {same}")
    with open(os.path.join(base, "operator_memory.csv"), newline="") as f:
        tops = [(row["Name"], num(row["Size(KB)"], KIB), row["Release Time(us)"].strip() == "")
                for row in csv.DictReader(f)]
    dops = [(db_op_name(s[n], sp), size, rel is None) for n, size, rel, sp in c.execute(
        "SELECT name, size, releaseTime, streamPtr FROM OP_MEMORY ORDER BY rowid")]
    print(f"  ops {len(tops)} {len(dops)}: same name {sum(a[0] == b[0] for a, b in zip(tops, dops))}, "
          f"same name+size+released {sum(a == b for a, b in zip(tops, dops))}")
    tm = defaultdict(list)
    with open(os.path.join(base, "npu_module_mem.csv"), newline="") as f:
        for row in csv.DictReader(f):
            tm[row["Component"]].append(num(row["Total Reserved(MB)"], MIB))
    names = dict(c.execute("SELECT id, name FROM ENUM_MODULE"))
    dm = defaultdict(list)
    for m, v in c.execute("SELECT moduleId, totalReserved FROM NPU_MODULE_MEM ORDER BY rowid"):
        dm[names.get(m, str(m))].append(v)
    print(f"  modules {len(tm)} {len(dm)}: only in text {sorted(set(tm) - set(dm))}, only in db "
          f"{sorted(set(dm) - set(tm))}, same values {sum(tm[m] == dm[m] for m in tm if m in dm)}")


def static():
    path = os.path.join(DATA, "static", "test_rank_1", "ASCEND_PROFILER_OUTPUT", "static_op_mem.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    print("== static")
    for g in sorted({r["Graph ID"] for r in rows}):
        ops = [r for r in rows if r["Graph ID"] == g and r["Op Name"] != "TOTAL"]
        total = [num(r["Size(KB)"], KIB) for r in rows if r["Graph ID"] == g and r["Op Name"] == "TOTAL"]
        # Node indices: an op holds memory from its start node through its end
        # node (inclusive); 4294967295 = to the end of the graph.
        ivs = [(int(r["Node Index Start"]), int(r["Node Index End"]), num(r["Size(KB)"], KIB)) for r in ops]
        last = max(e for s_, e, b in ivs if e != 4294967295) + 1
        best = (0, None)
        for n in range(0, last + 1):
            v = sum(b for s_, e, b in ivs if s_ <= n and (e == 4294967295 or n <= e))
            if v > best[0]:
                best = (v, n)
        print(f"  graph {g}: ops {len(ops)} to_end {sum(1 for s_, e, b in ivs if e == 4294967295)} "
              f"total_row {total} peak {best[0]} at node {best[1]}")


if __name__ == "__main__":
    for r in (0, 1):
        text_rank(r)
    for r in (0, 1):
        db_rank(r)
    for r in (0, 1):
        text_vs_db(r)
    static()
