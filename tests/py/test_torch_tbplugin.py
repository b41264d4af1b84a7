"""memlens perf held to the TensorBoard PyTorch profiler plugin
(torch-tb-profiler 0.4.3, its loader driven from Python as the plugin's
RunLoader does: RunProfileData.parse, then RunGenerator) on the
tensorboard_trace_handler logdirs torch 2.13 wrote (tests/py/torch_fixtures.py).
The plugin's own rules: step parts in float32 µs, operator durations summed
from events truncated to whole µs (so a row may differ by up to one µs a
call), memory per operator counted on the op's own thread.  The 2021 gold
(tests/perf_gold.py, shared/data/kineto/tbplugin_resnet50_w0.expected.jsonl)
is the same comparison for a CUDA trace."""
import csv
import tempfile

import pytest

from conftest import oracle
from test_torch_memory import load_trace

RUNS = ("oracle_cnn_sgd.json", "oracle_mlp_adamw.json")


@pytest.fixture(scope="module")
def plugin_runs(torch_fx):
    pytest.importorskip("torch_tb_profiler")
    from torch_tb_profiler.profiler.data import RunProfileData
    from torch_tb_profiler.profiler.run_generator import RunGenerator
    out = {}
    for run in RUNS:
        path = str(torch_fx / oracle(torch_fx, run)["trace"])
        data = RunProfileData.parse("worker0", None, path, tempfile.mkdtemp())
        out[run] = (path, RunGenerator("worker0", None, data).generate_run_profile())
    return out


def union_us(spans, lo, hi):
    """Length of the union of spans clipped to [lo, hi)."""
    total, cur = 0.0, None
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in spans if b > lo and a < hi):
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            total += cur[1] - cur[0] if cur else 0
            cur = [a, b]
    return total + (cur[1] - cur[0] if cur else 0)


def test_steps_equal_the_plugin_overview(plugin_runs, memlens_cli):
    """Step names and totals, DataLoader: equal.  CPU Exec: the plugin drops CPU
    user annotations (Optimizer.step#SGD.step, Optimizer.zero_grad#...: its
    trace.py keeps a user_annotation only for ProfilerStep# and gloo/nccl
    names), so the optimizer's Python time between its ops is Other there and
    CPU Exec in memlens; the difference is exactly the time those annotations
    cover outside every cpu_op, computed here from the trace."""
    for run, (path, prof) in plugin_runs.items():
        cols = [c.get("name") for c in prof.overview["steps"]["columns"]]
        rows = prof.overview["steps"]["rows"]
        ours = memlens_cli.json("perf", path)["runs"][0]["steps"]
        assert [r[0] for r in rows] == [s["name"] for s in ours], run
        evs = load_trace(path)["traceEvents"]
        ops = [(e["ts"], e["ts"] + e["dur"]) for e in evs if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
        notes = [(e["ts"], e["ts"] + e["dur"]) for e in evs if e.get("ph") == "X" and e.get("cat") == "user_annotation"
                 and not e["name"].startswith("ProfilerStep#")]
        steps = {e["name"][len("ProfilerStep#"):]: (e["ts"], e["ts"] + e["dur"]) for e in evs
                 if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")}
        for r, s in zip(rows, ours):
            want = {name: r[i] for i, name in enumerate(cols) if name not in (None, "Step")}
            lo, hi = steps[r[0]]
            only_notes = union_us(ops + notes, lo, hi) - union_us(ops, lo, hi)
            got = {"DataLoader": s["dataloader_us"], "CPU Exec": s["cpu_exec_us"] - only_notes,
                   "Other": s["other_us"] + only_notes}
            assert set(want) == set(got), (run, cols)
            for k in want:   # float32 µs in the plugin
                assert abs(got[k] - want[k]) <= 0.01 + 1e-6 * want[k], (run, r[0], k, got[k], want[k])
            assert abs(s["total_us"] - (hi - lo)) < 0.002


def test_operators_equal_the_plugin_table(plugin_runs, memlens_cli):
    for run, (path, prof) in plugin_runs.items():
        table = {r["name"]: r for r in prof.operation_table_by_name["data"]}
        ours = {r["name"]: r for r in memlens_cli.json("perf", path)["ranks"][0]["operators"]["by_name"]}
        assert set(table) == set(ours), (run, set(table) ^ set(ours))
        for name, r in table.items():
            m = ours[name]
            assert m["calls"] == r["calls"], (run, name)
            for ns, us in ((m["host_self_ns"], r["host_self_duration"]),
                           (m["host_total_ns"], r["host_total_duration"])):
                assert abs(ns / 1000 - us) <= r["calls"] + 1, (run, name, ns, us)


def test_memory_per_operator_equals_the_plugin(plugin_runs, memlens_cli, tmp_path):
    """The plugin's self allocation count and size per operator = memlens'
    allocations by innermost operator (export's op column)."""
    for run, (path, prof) in plugin_runs.items():
        stats = prof.memory_snapshot.get_memory_statistics(prof.tid2tree)["CPU"]
        out = tmp_path / "m.csv"
        memlens_cli.run("export", path, "-o", out)
        got = {}
        with open(out, newline="") as f:
            for r in csv.DictReader(f):
                if r["alloc_time_ns"] and r["op"]:
                    g = got.setdefault(r["op"], [0, 0])
                    g[0] += 1
                    g[1] += int(r["size_bytes"])
        want = {name: [v[2], v[1]] for name, v in stats.items() if v[2]}
        assert got == want, run


def test_modules_equal_the_plugin(plugin_runs, memlens_cli):
    """The plugin's module view (name, occurrences, children) = perf's modules."""
    for run, (path, prof) in plugin_runs.items():
        def flat(nodes, depth, acc):
            for n in nodes:
                acc.append((n[0], depth, n[2]))
                flat(n[9], depth + 1, acc)
            return acc
        want = flat(prof.module_stats, 0, [])
        got = [(m["name"], m["depth"], m["occurrences"]) for m in memlens_cli.json("perf", path)["ranks"][0]["modules"]]
        assert got == want, run
