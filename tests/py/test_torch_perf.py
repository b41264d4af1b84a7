"""memlens perf held to PyTorch 2.13's own answers on real CPU training traces
(tests/py/torch_fixtures.py): operators against prof.key_averages() (plain and
by input shape), the Modules view against the model's nn.Module tree and the
forward calls a hook counted, and the Distributed view of gloo DDP jobs."""
import gzip
import json
import os

import pytest

from conftest import oracle

RUNS = [("mlp_adam/oracle.json", "mlp_adam/trace.json"), ("oracle_cnn_sgd.json", None),
        ("oracle_mlp_adamw.json", None)]


def trace_of(fx, run, trace):
    return str(fx / (trace or oracle(fx, run)["trace"]))


def cpu_op_names(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return {e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "cpu_op"}


def close(ours_ns, theirs_us):
    return abs(ours_ns / 1000 - theirs_us) <= max(5.0, 0.02 * abs(theirs_us))


def test_operators_equal_key_averages(torch_fx, memlens_cli):
    """Every cpu_op name key_averages lists is in perf's operators and nothing
    else is; calls equal, and for the ten busiest (host self time) self and
    total time within 2% or 5 µs (measured: all 61, 76 and 61 operators of the
    three runs, 3664 calls, have exactly PyTorch's calls, self and total times)."""
    for run, trace in RUNS:
        o = oracle(torch_fx, run)
        path = trace_of(torch_fx, run, trace)
        ops = cpu_op_names(path)
        ka = {r["name"]: r for r in o["ops"] if r["name"] in ops}
        doc = memlens_cli.json("perf", path)
        ours = {r["name"]: r for r in doc["ranks"][0]["operators"]["by_name"]}
        assert set(ours) == set(ka), run
        assert {n: r["calls"] for n, r in ours.items()} == {n: r["count"] for n, r in ka.items()}, run
        busiest = sorted(ka.values(), key=lambda r: -r["self_us"])[:10]
        for r in busiest:
            m = ours[r["name"]]
            assert close(m["host_self_ns"], r["self_us"]), (run, r["name"], m["host_self_ns"], r["self_us"])
            assert close(m["host_total_ns"], r["total_us"]), (run, r["name"], m["host_total_ns"], r["total_us"])


def test_shapes_equal_key_averages_by_input_shape(torch_fx, memlens_cli):
    for run, trace in RUNS:
        o = oracle(torch_fx, run)
        path = trace_of(torch_fx, run, trace)
        ops = cpu_op_names(path)
        want = {(r["name"], r["shapes"]): r["count"] for r in o["ops_by_shape"] if r["name"] in ops}
        doc = memlens_cli.json("perf", path)
        # an op with no Input Dims (autograd::engine::evaluate_function: ...):
        # memlens says null (none recorded), PyTorch prints its empty list
        got = {(r["name"], r["input_shape"] if r["input_shape"] is not None else "[]"): r["calls"]
               for r in doc["ranks"][0]["operators"]["by_shape"]}
        assert got == want, (run, set(got) ^ set(want))


def module_rows(doc):
    """perf's modules as (type, depth, parent type, occurrences) in their order."""
    mods = doc["ranks"][0]["modules"]
    out = []
    for m in mods:
        parent = mods[m["parent"]]["name"].rsplit("_", 1)[0] if m["parent"] >= 0 else None
        out.append((m["name"].rsplit("_", 1)[0], m["depth"], parent, m["occurrences"]))
    return out


def test_modules_equal_the_model(torch_fx, memlens_cli):
    """Every nn.Module of the model, in PyTorch's hierarchy (named_modules, which
    is call order for these models), with the forward calls counted while the
    profiler recorded."""
    for run, trace in RUNS:
        o = oracle(torch_fx, run)
        mods = o["modules"]
        types = {m["name"]: m["type"] for m in mods}
        want = [(m["type"], m["name"].count(".") + 1 if m["name"] else 0,
                 types[m["parent"]] if m["parent"] is not None else None, o["module_calls"][m["name"]])
                for m in mods]
        doc = memlens_cli.json("perf", trace_of(torch_fx, run, trace))
        assert module_rows(doc) == want, run
        # names are PyTorch's: the class and its instance number per class
        names = [m["name"] for m in doc["ranks"][0]["modules"]]
        assert len(set(names)) == len(names) == len(mods)


def job(fx, name):
    return str(fx / name)


def test_distributed_ddp_jobs(torch_fx, memlens_cli):
    """Both jobs read as their ranks with world size and backend; the gloo
    collectives have PyTorch's sizes (all_reduce: one DDP bucket of every
    parameter per step; all_to_all: world x 16 floats) and their group size,
    the world's (torch 2.13's CPU traces have no record_param_comms and gloo's
    spans no "Group size": distributedInfo's pg_count 1 and pg_config[0].pg_size
    say it); every step's overlap is within both its computation and its
    communication."""
    for name in ("ddp2", "ddp4"):
        o = oracle(torch_fx, "oracle_%s.json" % name)
        world = o["world_size"]
        doc = memlens_cli.json("perf", job(torch_fx, name))
        assert sorted(r["rank"] for r in doc["runs"]) == list(range(world))
        d = doc["distributed"]
        assert d["backend"] == "gloo" and d["world_size"] == world
        rank0 = sorted(f for f in os.listdir(job(torch_fx, name)) if f.startswith("rank0."))[0]
        with open(os.path.join(job(torch_fx, name), rank0)) as f:
            info = json.load(f)["distributedInfo"]
        assert info["pg_count"] == 1 and info["pg_config"][0]["pg_size"] == world, info
        assert {c["group_size"] for c in d["collectives"]} == {world}
        rows = {(c["rank"], c["name"]): c for c in d["collectives"]}
        for rank in range(world):
            ar = rows[(rank, "gloo:all_reduce")]
            assert ar["calls"] == o["steps"] and ar["bytes"] == o["steps"] * o["param_bytes"], ar
            a2a = rows[(rank, "gloo:all_to_all")]
            assert a2a["calls"] == o["steps"] and a2a["bytes"] == o["steps"] * o["all_to_all_bytes"], a2a
        steps = d["steps"]
        assert len(steps) == world * o["steps"]
        for s in steps:
            assert s["communication_us"] > 0 and s["computation_us"] > 0
            assert 0 <= s["overlap_us"] <= min(s["communication_us"], s["computation_us"])
        sm = memlens_cli.json("summary", job(torch_fx, name))
        assert len({d["rank"] for d in sm["devices"]}) == world


def test_check_and_diff_of_two_jobs(torch_fx, memlens_cli):
    """check of the 4-rank job against the 2-rank one (step-time rules; memory
    rules on a CPU job judge the CPU peak: every rank's summary peak, the worst
    deciding), and diff: ranks paired by number, the extra ranks noted."""
    a, b = job(torch_fx, "ddp2"), job(torch_fx, "ddp4")
    r = memlens_cli.run("check", b, "--base", a, "--max-step-time-growth", "100000%", check=False)
    assert r.returncode == 0 and r.stdout.startswith("PASS --max-step-time-growth"), (r.stdout, r.stderr)
    r = memlens_cli.run("check", b, "--max-step-time", "1us", check=False)
    assert r.returncode == 1 and "FAIL --max-step-time 1us" in r.stdout, (r.stdout, r.stderr)
    peaks = {}
    for name in ("ddp2", "ddp4"):
        for dev in memlens_cli.json("summary", job(torch_fx, name))["devices"]:
            assert dev["id"] == "cpu"
            peaks.setdefault(name, {})[dev["rank"]] = dev["peak_allocated_bytes"]
    worst = max(peaks["ddp2"], key=lambda k: (peaks["ddp2"][k], -k))
    r = memlens_cli.run("check", a, "--max-peak", "1GiB", check=False)
    assert r.returncode == 0 and r.stdout.startswith("PASS --max-peak 1GiB"), (r.stdout, r.stderr)
    assert "on cpu of rank %d (no accelerator memory in the run: the CPU's peak)" % worst in r.stdout, r.stdout
    doc = json.loads(memlens_cli.run("check", a, "--max-peak", "%dB" % (peaks["ddp2"][worst] - 1), "--json",
                                     check=False).stdout)
    rule = doc["rules"][0]
    assert not rule["passed"] and rule["measured"] == peaks["ddp2"][worst], rule
    r = memlens_cli.run("check", b, "--base", a, "--max-peak-growth", "1000%", check=False)
    assert r.returncode == 0 and "on cpu of rank" in r.stdout, (r.stdout, r.stderr)
    d = memlens_cli.json("diff", a, b)
    assert [(p["base"]["rank"], p["new"]["rank"]) for p in d["pairs"]] == [(0, 0), (1, 1)]
    for p in d["pairs"]:
        dev = [x for x in p["devices"] if x["id"] == "cpu"][0]
        assert dev["peak_allocated_bytes"]["base"] > 0 and dev["peak_allocated_bytes"]["new"] > 0
    r = memlens_cli.run("diff", a, b)
    assert "rank 2 only in" in r.stdout + r.stderr and "step time (average)" in r.stdout


def test_compiled_model_operators(torch_fx, memlens_cli):
    """torch.compile (inductor) on the CPU, written only with MEMLENS_TORCH_COMPILE=1
    (its compile costs ~35 CPU seconds): the compiled regions
    (Torch-Compiled Region: 0/0, CompiledFunction, CompiledFunctionBackward)
    are operators with PyTorch's calls."""
    if not (torch_fx / "compile/trace.json").exists():
        pytest.skip("no torch.compile fixture (MEMLENS_TORCH_COMPILE=1 writes it)")
    o = oracle(torch_fx, "compile/oracle.json")
    path = str(torch_fx / "compile/trace.json")
    ops = cpu_op_names(path)
    want = {r["name"]: r["count"] for r in o["ops"] if r["name"] in ops}
    got = {r["name"]: r["calls"] for r in memlens_cli.json("perf", path)["ranks"][0]["operators"]["by_name"]}
    assert got == want
    assert got.get("Torch-Compiled Region: 0/0") == 2 and "CompiledFunctionBackward" in got
