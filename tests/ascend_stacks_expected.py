#!/usr/bin/env python3
"""Independent expected shares for `memlens summary --by stack` on the Ascend
exports (tests/cli_accept_memory.sh): of the operator_memory / OP_MEMORY rows
live at the peak (PTA+GE Total Allocated, its first maximum), how many bytes
can be given the call stack of the operator that allocated them, from the
files alone (Python's csv, json, sqlite3, decimal):
  1. the row's operator: the call of the row's name whose [start, end] holds
     the allocation time (the innermost, if several);
  2. its stack: its own ("Call stack" / PYTORCH_CALLCHAINS), else the
     innermost enclosing operator's on its thread that has one, else, under a
     backward function node (an op with "Fwd thread id" > 0), the stack of the
     first forward operator with that node's sequence number, as PyTorch's
     EventList._set_backward_stacktraces does (unlinked if forward operators
     of that number run on several threads).
Rows whose name no CPU operator has (cann::* GE allocations) are counted
apart, and what the task queue would give them is printed (for information:
the Dequeue event on the queue thread holding the allocation time, its
Enqueue by correlation id, the operator holding the Enqueue).
Prints per export and rank: "<kind> rank <r>: live <MiB> with <MiB> without <MiB> ..."
Run: python3 tests/ascend_stacks_expected.py
"""
import csv
import json
import os
import sqlite3
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import quote

DATA = os.path.join(os.environ.get("MEMLENS_DATA", "../shared/data"), "ascend")
MIB = 1048576


def num(cell, mul):
    cell = str(cell).strip()
    if cell == "":
        return None
    return int((Decimal(cell) * mul).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def first_max(points):
    best = None
    for t, v in points:
        if v is not None and (best is None or v > best[0]):
            best = (v, t)
    return best


class Op:
    def __init__(self, name, ts, end, tid, stack, seq=-1, fwd=0, kind="op", corr=None):
        self.name, self.ts, self.end, self.tid, self.stack = name, ts, end, tid, stack
        self.seq, self.fwd, self.kind, self.corr = seq, fwd, kind, corr
        self.parent, self.eff = None, None


def resolve(ops):
    """Sets op.parent (innermost enclosing op on its thread) and op.eff (the stack it is given)."""
    cpu = [o for o in ops if o.kind == "op"]
    by_tid = defaultdict(list)
    for o in cpu:
        by_tid[o.tid].append(o)
    for lst in by_tid.values():
        lst.sort(key=lambda o: (o.ts, -o.end))
        open_ = []
        for o in lst:
            while open_ and open_[-1].end < o.end:
                open_.pop()
            o.parent = open_[-1] if open_ else None
            open_.append(o)
    for lst in by_tid.values():
        for o in lst:  # parents come first
            o.eff = o.stack or (o.parent.eff if o.parent else None)

    def bw_node(o):
        while o is not None:
            if o.fwd > 0 and o.seq >= 0:
                return o
            o = o.parent
        return None

    fwd = {}
    for o in sorted(cpu, key=lambda o: (o.ts, -o.end)):
        if o.seq >= 0 and o.eff and bw_node(o) is None:
            fwd.setdefault(o.seq, {}).setdefault(o.tid, o.eff)
    for o in cpu:
        if o.eff is None:
            b = bw_node(o)
            if b is not None and len(fwd.get(b.seq, {})) == 1:
                o.eff = next(iter(fwd[b.seq].values()))


def shares(label, peak_t, rows, ops):
    resolve(ops)
    calls = defaultdict(list)
    for o in ops:
        if o.kind == "op":
            calls[o.name].append(o)
    deq = [o for o in ops if o.kind == "dequeue"]
    enq = {o.corr: o for o in ops if o.kind == "enqueue"}
    cpu_by_tid = defaultdict(list)
    for o in ops:
        if o.kind == "op":
            cpu_by_tid[o.tid].append(o)
    live = [r for r in rows if r[2] <= peak_t and (r[3] is None or peak_t < r[3])]
    acc = defaultdict(int)
    for name, size, t, _ in live:
        hold = [o for o in calls.get(name, []) if o.ts <= t <= o.end]
        if hold:
            o = max(hold, key=lambda o: (o.ts, -o.end))
            acc["with" if o.eff else "without"] += size
            continue
        acc["noop"] += size
        d = [o for o in deq if o.ts <= t <= o.end]
        e = enq.get(d[0].corr) if len(d) == 1 else None
        if e is not None:
            h = [o for o in cpu_by_tid[e.tid] if o.ts <= e.ts and e.end <= o.end]
            if h and max(h, key=lambda o: (o.ts, -o.end)).eff:
                acc["queue"] += size
    m = lambda b: f"{b / MIB:.2f}"
    print(f"{label}: live {m(sum(r[1] for r in live))} with {m(acc['with'])} "
          f"without {m(acc['without'] + acc['noop'])} (of which no CPU operator of that name {m(acc['noop'])}, "
          f"the task queue would give a stack to {m(acc['queue'])})")


def text_rank(r):
    base = os.path.join(DATA, "text_level1", f"rank{r}_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    with open(os.path.join(base, "memory_record.csv"), newline="") as f:
        pts = [(num(x["Timestamp(us)"], 1000), num(x["Total Allocated(MB)"], MIB))
               for x in csv.DictReader(f) if x["Component"] == "PTA+GE"]
    peak_t = first_max(pts)[1]
    with open(os.path.join(base, "operator_memory.csv"), newline="") as f:
        rows = [(x["Name"], num(x["Size(KB)"], 1024), num(x["Allocation Time(us)"], 1000),
                 num(x["Release Time(us)"], 1000)) for x in csv.DictReader(f)]
    ops = []
    tv = os.path.join(base, "trace_view.json")
    if os.path.exists(tv):
        ev = json.load(open(tv))
        ev = ev["traceEvents"] if isinstance(ev, dict) else ev
        for e in ev:
            if e.get("ph") != "X" or "dur" not in e:
                continue
            ts = num(e["ts"], 1000)
            end = ts + num(e["dur"], 1000)
            a = e.get("args", {})
            tid = (str(e.get("pid")), str(e.get("tid")))
            if e.get("cat") == "cpu_op":
                st = tuple(s.strip() for s in a.get("Call stack", "").split(";") if s.strip()) or None
                ops.append(Op(e["name"], ts, end, tid, st, int(a.get("Sequence number", -1)),
                              int(a.get("Fwd thread id", 0))))
            elif e.get("cat") in ("enqueue", "dequeue"):
                ops.append(Op(e["name"], ts, end, tid, None, kind=e["cat"], corr=a.get("correlation_id")))
    else:
        print(f"text rank {r}: no trace_view.json: no CPU operators, no call stacks in the files")
    shares(f"text rank {r}", peak_t, rows, ops)


def db_rank(r):
    path = os.path.join(DATA, "db_level1", f"rank{r}_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                        f"ascend_pytorch_profiler_{r}.db")
    c = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1", uri=True)
    s = dict(c.execute("SELECT id, value FROM STRING_IDS"))
    pts = [(t, a) for comp, t, a in c.execute("SELECT component, timestamp, totalAllocated FROM MEMORY_RECORD ORDER BY rowid")
           if s[comp] == "PTA+GE"]
    peak_t = first_max(pts)[1]
    rows = [(s[n] if sp is not None or s[n].startswith("cann::") else "cann::" + s[n], size, ta, tr)
            for n, size, ta, tr, sp in c.execute(
                "SELECT name, size, allocationTime, releaseTime, streamPtr FROM OP_MEMORY ORDER BY rowid")]
    chains = defaultdict(list)
    for cid, depth, frame in c.execute("SELECT id, stackDepth, stack FROM PYTORCH_CALLCHAINS"):
        chains[cid].append((depth, s[frame]))
    chains = {k: tuple(f for _, f in sorted(v)) for k, v in chains.items()}
    conn = defaultdict(list)
    for i, cn in c.execute("SELECT id, connectionId FROM CONNECTION_IDS"):
        conn[i].append(cn)
    types = dict(c.execute("SELECT id, name FROM ENUM_API_TYPE"))
    ops = []
    for t0, t1, tid, cid, name, seq, fwd, chain, typ in c.execute(
            "SELECT startNs, endNs, globalTid, connectionId, name, sequenceNumber, fwdThreadId, callchainId, type FROM PYTORCH_API"):
        t0, t1, typ, name = int(t0), int(t1), types.get(typ), s[name]
        if typ == "op":
            ops.append(Op(name, t0, t1, tid, chains.get(chain) or None,
                          seq if seq is not None else -1, fwd or 0))
        elif typ == "queue" and cid is not None:
            kind = "enqueue" if name == "Enqueue" else "dequeue" if name.startswith("Dequeue") else None
            if kind and conn.get(cid):
                ops.append(Op(name, t0, t1, tid, None, kind=kind, corr=conn[cid][0]))
    shares(f"db rank {r}", peak_t, rows, ops)


if __name__ == "__main__":
    for r in (0, 1):
        text_rank(r)
    for r in (0, 1):
        db_rank(r)
