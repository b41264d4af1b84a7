"""memlens.profiler.trace_handler in a real torch 2.13 CPU training loop: the
files torch's own handler would write (names and content), read back by
memlens.load(dir), with the per-cycle summary and report."""
import os
import re

import pytest

memlens = pytest.importorskip("memlens", reason="the extension is not built (tests/cli_python.sh builds it)")
torch = pytest.importorskip("torch")
from memlens.profiler import trace_handler  # noqa: E402


def train(on_trace_ready, steps=6):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    sched = torch.profiler.schedule(wait=1, warmup=1, active=1, repeat=2)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=on_trace_ready, profile_memory=True, record_shapes=True) as prof:
        for _ in range(steps):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            prof.step()


def test_trace_handler_writes_what_torch_writes_and_memlens_reads_it(tmp_path, capsys):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    handler = trace_handler(str(ours), worker_name="w0")
    train(handler)
    train(torch.profiler.tensorboard_trace_handler(str(theirs), worker_name="w0"))
    names = sorted(os.listdir(ours))
    assert len(names) == 2 == len(os.listdir(theirs))  # repeat=2: two cycles
    for n in names + os.listdir(theirs):
        assert re.fullmatch(r"w0\.\d{19}\.pt\.trace\.json", n), n
    assert handler.last_trace == str(ours / names[-1])
    assert capsys.readouterr().out == ""  # summary=False prints nothing

    run = memlens.load(str(ours))
    assert len(run.ranks()) == 2  # two spans of one worker
    ops = run.operators()
    for name in ("aten::addmm", "aten::relu", "aten::mm", "Optimizer.step#SGD.step"):
        assert name in set(ops.name), name
    # the oracle: the cpu_op events of the files torch wrote, by name
    import collections
    import json

    want = collections.Counter()
    for n in names:
        with open(ours / n) as f:
            want.update(e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "cpu_op")
    got = collections.Counter(ops[ops.kind == "cpu_op"].name)
    assert got == want
    assert got["aten::relu"] == 2  # one forward relu per step, one step per active cycle, two cycles
    allocs = run.allocations()
    assert len(allocs) > 0 and set(allocs.device) == {"cpu"}
    # two profiling windows of one worker: a TensorBoard logdir, whose summary lists its spans
    doc = run.summary()
    spans = doc["runs"][0]["workers"][0]["spans"]
    assert [s["span"] for s in spans] == [1, 2] and [os.path.basename(s["path"]) for s in spans] == names
    assert all(s["device"] == "cpu" and s["peak_allocated_bytes"] > 0 for s in spans)
    doc = memlens.load(str(ours) + "@2").summary()  # one span of it
    assert [d["id"] for d in doc["devices"]] == ["cpu"]
    assert doc["devices"][0]["alloc_events"] > 0


def test_trace_handler_gzip_summary_and_report(tmp_path, capsys):
    d = tmp_path / "log"
    train(trace_handler(str(d), worker_name="w1", use_gzip=True, summary=True, report=True), steps=3)
    names = sorted(os.listdir(d))
    traces = [n for n in names if n.endswith(".pt.trace.json.gz")]
    reports = [n for n in names if n.endswith(".pt.trace.html")]
    assert len(traces) == 1 and len(reports) == 1 and len(names) == 2
    assert reports[0] == traces[0][: -len(".json.gz")] + ".html"
    with open(d / traces[0], "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    out = capsys.readouterr().out
    assert traces[0] in out and "cpu" in out
    assert len(out.splitlines()) <= 40  # one screen
    with open(d / reports[0], encoding="utf-8") as f:
        assert "<html" in f.read(2000).lower()
