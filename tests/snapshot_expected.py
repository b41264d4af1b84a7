#!/usr/bin/env python3
"""snapshot_expected.py — expected values for tests/test_snapshot.c, computed
independently of memlens from the real snapshots in ../shared/data/snapshot.

Loads each pickle with a restricted Unpickler that refuses every global (so
nothing named by the file is imported or run), then replays the trace the way
MemoryViz does:
  - allocated before the trace = frees (free_completed) of addresses the trace
    never allocated + blocks active at the end (active_allocated or
    active_pending_free) whose address is not live at the end of the replay;
  - live bytes start at that amount, alloc adds, free_completed subtracts;
    the peak is the maximum after any event (and the start);
  - reserved at the start = final segments' total - net segment change in the
    trace; reserved is replayed from segment_alloc/free/map/unmap.

Usage: python3 tests/snapshot_expected.py [DATA_DIR]
"""
import collections
import io
import os
import pickle
import sys


class NoGlobals(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} refused")


def expected(path):
    with open(path, "rb") as f:
        snap = NoGlobals(io.BytesIO(f.read())).load()
    out = {}
    for dev, trace in enumerate(snap["device_traces"]):
        segs = [s for s in snap["segments"] if s["device"] == dev]
        if not trace and not segs:
            continue
        counts = collections.Counter(e["action"] for e in trace)
        live_addr = {}
        before = 0
        n_before = 0
        for e in trace:
            if e["action"] == "alloc":
                live_addr[e["addr"]] = e["size"]
            elif e["action"] == "free_completed":
                if e["addr"] in live_addr:
                    del live_addr[e["addr"]]
                else:
                    before += e["size"]
                    n_before += 1
        for s in segs:
            for b in s["blocks"]:
                if b["state"] in ("active_allocated", "active_pending_free") and b["address"] not in live_addr:
                    before += b["size"]
                    n_before += 1
        live = peak = before
        peak_t = trace[0].get("time_us") if trace else None
        for e in trace:
            if e["action"] == "alloc":
                live += e["size"]
            elif e["action"] == "free_completed":
                live -= e["size"]
            if live > peak:
                peak, peak_t = live, e.get("time_us")
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
        out[dev] = dict(stacks=len(stacks), first_alloc_depth=len(first_alloc["frames"]),
                        first_alloc_outer=first_alloc["frames"][-1]["name"] if first_alloc["frames"] else "",
                        counts=dict(counts), before=before, n_before=n_before, peak=peak,
                        peak_time_us=peak_t, live_end=live, reserved_end=final_reserved,
                        peak_reserved=peak_reserved, segments=len(segs),
                        blocks=sum(len(s["blocks"]) for s in segs))
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


if __name__ == "__main__":
    if sys.argv[1:] == ["--tiny"]:
        sys.stdout.write(tiny())
        sys.exit(0)
    data = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MEMLENS_DATA", "../shared/data")
    for name in sorted(os.listdir(os.path.join(data, "snapshot"))):
        for dev, r in expected(os.path.join(data, "snapshot", name)).items():
            print(name, f"cuda:{dev}", r)
