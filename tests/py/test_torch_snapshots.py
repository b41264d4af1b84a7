"""memlens on the shared CUDA allocator snapshots (../shared/data/snapshot)
held to torch 2.13's own torch/cuda/_memory_viz.py: segments() and memory()
(flamegraph lines per block and state), compare() (segments only before /
only after) and trace() (the allocator's action listing).  The pickles are
loaded with tests/snapshot_expected.py's loader, which refuses every global."""
import contextlib
import io
import os
import re
import sys

import pytest

from conftest import ROOT

# MEMLENS_DATA names the shared data folder as for every other test (an installed
# copy's tests run outside the checkout)
DATA = os.path.join(os.environ.get("MEMLENS_DATA") or os.path.join(ROOT, "..", "shared", "data"), "snapshot")
FILES = sorted(f for f in os.listdir(DATA) if f.endswith(".pickle")) if os.path.isdir(DATA) else []
pytestmark = pytest.mark.skipif(not FILES, reason="../shared/data/snapshot absent")


@pytest.fixture(scope="module")
def viz():
    pytest.importorskip("torch")
    from torch.cuda import _memory_viz
    return _memory_viz


def load(name):
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import snapshot_expected
    return snapshot_expected.load(os.path.join(DATA, name))


def folded(text, with_seg=True):
    """flamegraph lines 'stream_S;seg_A;state;frames... SIZE' (memory(): no
    seg_A) -> (seg or None, state, size)."""
    for line in text.splitlines():
        stack, size = line.rsplit(" ", 1)
        parts = stack.split(";")
        if with_seg:
            yield parts[1], parts[2], int(size)
        else:
            yield None, parts[1], int(size)


def test_segments_equal_memory_viz(viz, memlens_cli):
    """Every segment's total, allocated and active bytes and its block count, as
    memlens diff --json reports them (no segment is in both: all are listed),
    equal what _memory_viz.segments() draws for it."""
    for name in FILES:
        snap = load(name)
        per = {}
        for seg, state, size in folded(viz.segments(snap, format_flamegraph=lambda s: s)):
            d = per.setdefault(int(seg[len("seg_"):]), {})
            d[state] = d.get(state, 0) + size
        blocks = {s["address"]: len(s["blocks"]) for s in snap["segments"]}
        # against another snapshot (no segment in common), every segment is "only in new"
        path = os.path.join(DATA, name)
        doc = memlens_cli.json("diff", os.path.join(DATA, FILES[0] if name != FILES[0] else FILES[1]), path)
        rows = doc["pairs"][0]["segments"]["only_new"]
        common = doc["pairs"][0]["segments"]["common"]
        got = {int(r["address"], 16): r for r in rows}
        assert common == 0 and set(got) == set(per), name
        for addr, states in per.items():
            r = got[addr]
            assert r["total_size"] == sum(states.values()), (name, addr)
            assert r["allocated_size"] == states.get("active_allocated", 0), (name, addr)
            assert r["active_size"] == states.get("active_allocated", 0) + states.get("active_pending_free", 0)
            assert r["blocks"] == blocks[addr]


def test_memory_totals_equal_memory_viz(viz, memlens_cli):
    """memory(): bytes by state; memlens snapshot segments' header says the
    same reserved and allocated (in its 2-decimal binary units)."""
    for name in FILES:
        snap = load(name)
        by_state = {}
        for _seg, state, size in folded(viz.memory(snap, format_flamegraph=lambda s: s), with_seg=False):
            by_state[state] = by_state.get(state, 0) + size
        out = memlens_cli.run("snapshot", "segments", os.path.join(DATA, name)).stdout
        head = out.splitlines()[0]
        n = len(snap["segments"])
        reserved = sum(by_state.values())
        alloc = by_state.get("active_allocated", 0)

        def fmt(b):
            for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
                if b >= scale:
                    return "%.2f %s" % (b / scale, unit)
            return "%d B" % b
        assert head.startswith("cuda:0: %d segments, reserved %s, allocated %s" % (n, fmt(reserved), fmt(alloc))), \
            (name, head)


def test_compare_equals_memory_viz(viz, memlens_cli):
    """compare(before, after): the segments only before and only after = diff's."""
    a, b = os.path.join(DATA, FILES[0]), os.path.join(DATA, FILES[1])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        viz.compare(load(FILES[0])["segments"], load(FILES[1])["segments"], format_flamegraph=lambda s: s)
    text = buf.getvalue()
    only_before = set(map(int, re.search(r"only_before = \[(.*?)\]", text).group(1).replace(" ", "").split(",")))
    only_after = set(map(int, re.search(r"only_after = \[(.*?)\]", text).group(1).replace(" ", "").split(",")))
    seg = memlens_cli.json("diff", a, b)["pairs"][0]["segments"]
    assert {int(r["address"], 16) for r in seg["only_base"]} == only_before
    assert {int(r["address"], 16) for r in seg["only_new"]} == only_after


def test_trace_equals_memory_viz(viz, memlens_cli):
    """trace(): per device the entries, and in order the cudaMalloc / alloc /
    del / free-completed / cudaFree lines = memlens snapshot trace's
    segment_alloc / alloc / free_requested / free_completed / segment_free."""
    kinds = [("cudaMalloc(", "segment_alloc"), ("cudaFree(", "segment_free"), ("del ", "free_requested"),
             ("# free completed", "free_completed")]
    for name in FILES:
        snap = load(name)
        text = viz.trace(snap)
        want = []
        for line in text.splitlines():
            if line.startswith("Device ") or line.endswith(" entries") or line.startswith("TOTAL MEM"):
                continue
            kind = next((k for p, k in kinds if p in line), "alloc" if re.match(r"\w+ = \w+\[", line) else line)
            want.append(kind)
        out = memlens_cli.run("snapshot", "trace", os.path.join(DATA, name)).stdout.splitlines()
        got = []
        for line in out:
            words = line.split()
            dev = next((i for i, w in enumerate(words) if w.startswith("cuda:")), None)
            if dev is not None and dev + 1 < len(words):
                got.append(words[dev + 1])
        # memlens lists the snapshot's external_annotations (START/END of
        # Optimizer.step#... record_function ranges) in time order with the
        # actions; trace() prints device_traces only
        notes = [k for k in got if k == "annotate"]
        assert len(notes) == len(snap.get("external_annotations") or [])
        got = [k for k in got if k != "annotate"]
        assert got == want, (name, len(got), len(want))
        entries = sum(int(m) for m in re.findall(r"^(\d+) entries$", text, re.M))
        assert len(got) == entries
