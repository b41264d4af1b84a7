#!/usr/bin/env python3
"""snapshot_expected.py — expected values for tests/test_snapshot.c and
tests/cli_snapshot.sh, computed independently of memlens from the real
snapshots in ../shared/data/snapshot.

Loads each pickle with a restricted Unpickler that refuses every global (so
nothing named by the file is imported or run), then replays each device's
trace the way MemoryViz does (torch/utils/viz/MemoryViz.js: annotate_snapshot
and process_alloc_data):
  - a free_requested directly followed by the free_completed of the same
    address is one free; "free" (early snapshots) and free_completed free;
  - initially allocated ("allocated before the trace") = frees of addresses
    with no recorded alloc, at the free's size, + blocks whose state is
    active_allocated and whose address (walking address += size through the
    segment's blocks) has no alloc still open at the end, at requested_size;
    active_pending_free blocks are not counted;
  - live bytes start at that amount, an alloc adds its size, a free subtracts
    the size of the element it frees; the peak is the maximum after any action
    (and the time_us of the first action reaching it);
  - reserved at the start = final segments' total - net segment change in the
    trace; reserved is replayed from segment_alloc/free/map/unmap.

Usage:
  python3 tests/snapshot_expected.py [DATA_DIR]       expected values per file
  python3 tests/snapshot_expected.py --tiny           tests/snapshot_tiny.h
  python3 tests/snapshot_expected.py --convert SRC DIR
        writes SRC re-pickled at protocols 2 and 5 and saved as JSON into DIR
        (p2.pickle, p5.pickle, snapshot.json), for cli_snapshot.sh
"""
import collections
import io
import json
import os
import pickle
import sys


class NoGlobals(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} refused")


def load(path):
    with open(path, "rb") as f:
        return NoGlobals(io.BytesIO(f.read())).load()


def memoryviz_allocated(trace, segs):
    """MemoryViz's process_alloc_data for one device: (initially allocated
    bytes and count, peak, time_us of the peak, live bytes at the end)."""
    actions = []
    for t in trace:  # annotate_snapshot's elision of free_requested + free_completed
        if (t["action"] == "free_completed" and actions and actions[-1]["action"] == "free_requested"
                and actions[-1]["addr"] == t["addr"]):
            actions[-1] = dict(actions[-1], action="free")
            continue
        actions.append(t)
    sizes, initially, steps, open_at = [], [], [], {}
    for e in actions:
        if e["action"] == "alloc":
            sizes.append(e["size"])
            open_at[e["addr"]] = len(sizes) - 1
            steps.append((len(sizes) - 1, e))
        elif e["action"] in ("free", "free_completed"):
            if e["addr"] in open_at:
                steps.append((open_at.pop(e["addr"]), e))
            else:
                sizes.append(e["size"])
                initially.append(len(sizes) - 1)
                steps.append((len(sizes) - 1, e))
    for s in segs:
        addr = s["address"]
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and addr not in open_at:
                sizes.append(b["requested_size"])
                initially.append(len(sizes) - 1)
            addr += b["size"]
    live_set = set(initially)
    live = before = sum(sizes[i] for i in initially)
    peak, peak_t = None, None
    for elem, e in steps:
        if elem in live_set:
            live_set.remove(elem)
            live -= sizes[elem]
        else:
            live_set.add(elem)
            live += sizes[elem]
        if peak is None or live > peak:
            peak, peak_t = live, e.get("time_us")
    return before, len(initially), peak, peak_t, live


def expected(path):
    snap = load(path)
    out = {}
    annotations = collections.Counter(a["device"] for a in snap.get("external_annotations") or [])
    for dev, trace in enumerate(snap["device_traces"]):
        segs = [s for s in snap["segments"] if s["device"] == dev]
        if not trace and not segs:
            continue
        counts = collections.Counter(e["action"] for e in trace)
        before, n_before, peak, peak_t, live_end = memoryviz_allocated(trace, segs)
        open_end = set()
        for e in trace:
            if e["action"] == "alloc":
                open_end.add(e["addr"])
            elif e["action"] in ("free", "free_completed"):
                open_end.discard(e["addr"])
        pending = [b for s in segs for b in s["blocks"]
                   if b["state"] == "active_pending_free" and b["address"] not in open_end]
        final_reserved = sum(s["total_size"] for s in segs)
        net = 0
        for e in trace:
            if e["action"] in ("segment_alloc", "segment_map"):
                net += e["size"]
            elif e["action"] in ("segment_free", "segment_unmap"):
                net -= e["size"]
        reserved = peak_reserved = final_reserved - net
        for e in trace:
            if e["action"] in ("segment_alloc", "segment_map"):
                reserved += e["size"]
            elif e["action"] in ("segment_free", "segment_unmap"):
                reserved -= e["size"]
            peak_reserved = max(peak_reserved, reserved)
        # Distinct non-empty call stacks (files "??" and "" both mean unknown).
        def key(frames):
            return tuple((f["name"], "" if f["filename"] in ("??", "") else f["filename"], f["line"]) for f in frames)
        stacks = {key(e["frames"]) for e in trace} | {key(s["frames"]) for s in segs} | \
                 {key(b["frames"]) for s in segs for b in s["blocks"]}
        stacks.discard(())
        first_alloc = next(e for e in trace if e["action"] == "alloc")
        ooms = [(e.get("time_us"), e["size"], e.get("device_free")) for e in trace if e["action"] == "oom"]
        out[dev] = dict(stacks=len(stacks), first_alloc_depth=len(first_alloc["frames"]),
                        first_alloc_outer=first_alloc["frames"][-1]["name"] if first_alloc["frames"] else "",
                        counts=dict(counts), entries=len(trace), annotations=annotations[dev],
                        before=before, n_before=n_before, peak=peak, peak_time_us=peak_t, live_end=live_end,
                        pending_free=len(pending), pending_free_bytes=sum(b["size"] for b in pending),
                        reserved_end=final_reserved, peak_reserved=peak_reserved, segments=len(segs),
                        blocks=sum(len(s["blocks"]) for s in segs), oom=ooms)
    return out


def tiny():
    """The tiny snapshot of tests/test_snapshot.c, as a C header."""
    F = [{"name": "f", "filename": "a.py", "line": 3}, {"name": "g", "filename": "??", "line": 0}]
    d = {"segments": [{"device": 1, "address": 4096, "total_size": 2048, "allocated_size": 512,
                       "active_size": 512, "requested_size": 500, "stream": 0, "segment_type": "small",
                       "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                       "blocks": [{"address": 4096, "size": 512, "requested_size": 500,
                                   "state": "active_allocated", "frames": F},
                                  {"address": 4608, "size": 1536, "requested_size": 1536,
                                   "state": "inactive", "frames": []}]}],
         "device_traces": [[], [
             {"action": "segment_alloc", "addr": 4096, "size": 2048, "stream": 0, "frames": F},
             {"action": "alloc", "addr": 8192, "size": 256, "stream": 0, "frames": F},
             {"action": "free_requested", "addr": 9000, "size": 128, "stream": 0, "frames": F},
             {"action": "free_completed", "addr": 9000, "size": 128, "stream": 0, "frames": F},
             {"action": "oom", "size": 1 << 40, "device_free": 777, "stream": 0, "frames": []}]],
         "allocator_settings": {"expandable_segments": False}}
    b = pickle.dumps(d, protocol=4)
    lines = ["/* snapshot_tiny.h — written by tests/snapshot_expected.py --tiny; see test_snapshot.c. */",
             "static const unsigned char tiny_pickle[] = {"]
    for i in range(0, len(b), 16):
        lines.append("    " + ", ".join("0x%02x" % c for c in b[i:i + 16]) + ",")
    lines.append("};")
    return "\n".join(lines) + "\n"


def convert(src, dst):
    snap = load(src)
    for proto in (2, 5):
        with open(os.path.join(dst, f"p{proto}.pickle"), "wb") as f:
            pickle.dump(snap, f, protocol=proto)
    with open(os.path.join(dst, "snapshot.json"), "w") as f:
        json.dump(snap, f)


if __name__ == "__main__":
    if sys.argv[1:] == ["--tiny"]:
        sys.stdout.write(tiny())
        sys.exit(0)
    if sys.argv[1:2] == ["--convert"] and len(sys.argv) == 4:
        convert(sys.argv[2], sys.argv[3])
        sys.exit(0)
    data = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MEMLENS_DATA", "../shared/data")
    for name in sorted(os.listdir(os.path.join(data, "snapshot"))):
        for dev, r in expected(os.path.join(data, "snapshot", name)).items():
            print(name, f"cuda:{dev}", r)
