"""The Python API (python/memlens): its documents are the CLI's --json byte for
byte, its tables are the profile's, its errors are exceptions naming the file
and the byte, and it keeps nothing between calls.

memlens must be importable: tests/cli_python.sh builds the extension in place
(setup.py build_ext --inplace) and puts python/ on PYTHONPATH; without it
every test here skips.  The CLI compared against is $MEMLENS (build/memlens).
"""
import gzip
import io
import json
import os
import subprocess

import pytest

memlens = pytest.importorskip("memlens", reason="the extension is not built (tests/cli_python.sh builds it)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("MEMLENS_DATA") or os.path.join(ROOT, "..", "shared", "data")
CLI = os.environ.get("MEMLENS") or os.path.join(ROOT, "build", "memlens")
if not os.path.isabs(CLI):
    CLI = os.path.join(ROOT, CLI)

need_data = pytest.mark.skipif(not os.path.isdir(DATA), reason="../shared/data is absent")
need_cli = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="no memlens program to compare with (make)")


def cli(*args, ok=(0,)):
    r = subprocess.run([CLI, *args], capture_output=True)
    assert r.returncode in ok, r.stderr.decode()
    return r.stdout.decode()


def data(*parts):
    return os.path.join(DATA, *parts)


# One input of every format the shared data holds.
INPUTS = [
    ("kineto", "hta_sampled_rank-0.json.gz"),
    ("kineto", "particle_transformer_A100_fwd_bs128_profile_memory.pt.trace.json"),
    ("kineto", "tbplugin_resnet50_w0.pt.trace.json.gz"),
    ("kineto", "hta_cpu_only.pt.trace.json.gz"),
    ("snapshot", "cs336_memory_ctx128_forward.pickle"),
    ("memory_timeline", "hta_memory_timeline.raw.json.gz"),
    ("ascend", "text_level1"),
    ("ascend", "db_level1"),
]


@need_data
@need_cli
@pytest.mark.parametrize("parts", INPUTS, ids=lambda p: p[-1])
def test_summary_is_the_cli_json_byte_for_byte(parts):
    path = data(*parts)
    run = memlens.load(path)
    assert run.json("summary") == cli("summary", "--json", path)
    assert run.json("summary", "--by", "category", "--top", "3") == cli("summary", "--json", "--by", "category",
                                                                         "--top", "3", path)
    doc = run.summary(by="category", top=3)
    assert doc == json.loads(cli("summary", "--json", "--by", "category", "--top", "3", path))
    assert doc["memlens"] == memlens.version()


@need_data
@need_cli
@pytest.mark.parametrize("parts", INPUTS[:4] + INPUTS[6:7], ids=lambda p: p[-1])
def test_perf_is_the_cli_json_byte_for_byte(parts):
    path = data(*parts)
    run = memlens.load(path)
    assert run.json("perf") == cli("perf", "--json", path)
    assert run.perf(view="kernels") == json.loads(cli("perf", "--json", "--view", "kernels", path))


@need_data
@need_cli
def test_rank_of_a_directory():
    d = data("ascend", "text_level1")
    one = memlens.load(d, rank=1)
    assert one.json("summary") == cli("summary", "--json", "--rank", "1", d)
    assert [r for r, _, _ in one.ranks()] == [1]
    assert sorted(r for r, _, _ in memlens.load(d).ranks()) == [0, 1]


@need_data
@need_cli
def test_diff_and_check_are_the_cli_json():
    a, b = data("kineto", "hta_sampled_rank-0.json.gz"), data("kineto", "hta_sampled_rank-1.json.gz")
    assert memlens.diff(a, b) == json.loads(cli("diff", "--json", a, b))
    assert memlens.diff(memlens.load(a), memlens.load(b), top=2) == json.loads(cli("diff", "--json", "--top", "2", a, b))
    p = data("kineto", "particle_transformer_A100_fwd_bs128_profile_memory.pt.trace.json")
    r = memlens.check(p, max_peak="1GiB")
    expected = json.loads(cli("check", "--json", p, "--max-peak", "1GiB", "--no-oom", ok=(1,)))
    assert r.document == expected
    assert not r.passed and not r
    assert [x["rule"] for x in r.broken] == ["--max-peak"]
    assert r.broken[0]["measured"] == 3314761728  # 3.09 GiB on cuda:0
    assert [c["name"] for c in r.broken[0]["contributors"]] == ["aten::softmax", "aten::layer_norm", "aten::linear"]
    ok = memlens.check(p, max_peak="4GiB")
    assert ok.passed and ok.broken == [] and [x["rule"] for x in ok.rules] == ["--max-peak", "--no-oom"]
    # against a base: the default rules (30GiB, 5% growth, no OOM) on two snapshots
    base, new = data("snapshot", "cs336_memory_ctx128_forward.pickle"), data("snapshot", "cs336_memory_ctx256_fullstep_.pickle")
    grown = memlens.check(new, base=base)
    assert grown.document == json.loads(cli("check", "--json", new, "--base", base, "--max-peak", "30GiB",
                                            "--max-peak-growth", "5%", "--no-oom", ok=(1,)))
    assert [x["rule"] for x in grown.broken] == ["--max-peak", "--max-peak-growth"]
    assert "grew 183.3% (18.02 GiB -> 51.06 GiB)" in grown.broken[1]["message"]


@need_data
def test_tables_are_the_profile():
    p = data("kineto", "particle_transformer_A100_fwd_bs128_profile_memory.pt.trace.json")
    run = memlens.load(p)
    ops, ks, allocs = run.operators(), run.kernels(), run.allocations()
    assert list(ops.columns) == ["rank", "name", "ts_ns", "dur_ns", "thread", "kind"]
    assert len(ops) == 2851 and (ops.dur_ns >= 0).all()
    assert ops.name.iloc[0] == "aten::to" and ops.ts_ns.iloc[0] == 1733769847177669667
    assert len(ks) == 560 and set(ks.kind) <= {"kernel", "gpu_memcpy", "gpu_memset"}
    # one row per allocation event the summary counts on cuda:0 (643), and 19 on the CPU
    assert allocs.device.value_counts().to_dict() == {"cuda:0": 643, "cpu": 19}
    assert run.summary()["devices"][0]["alloc_events"] == 643
    # at the peak's time: the allocations the summary counts at its peak, less those from
    # before the trace (not rows of the table), and 72 bytes allocated in the same ns after
    # the peak's event (live_at is by time, the peak by event)
    dev = run.summary()["devices"][0]
    at_peak = run.live_at(dev["peak_allocated_time_ns"])
    assert at_peak["size"].sum() == dev["peak_allocated_bytes"] - dev["before_trace_bytes_at_peak"] + 72 == 3296073288
    t = int(allocs.t_alloc_ns.dropna().iloc[100])
    live = run.live_at(t)
    expect = allocs[(allocs.t_alloc_ns.isna() | (allocs.t_alloc_ns <= t)) & (allocs.t_free_ns.isna() | (allocs.t_free_ns > t))]
    assert len(live) == len(expect) == 30 and live["size"].sum() == expect["size"].sum()


@need_data
def test_bytes_and_file_objects_load_like_the_file():
    p = data("kineto", "hta_sampled_rank-0.json.gz")
    with open(p, "rb") as f:
        raw = f.read()
    by_path = memlens.load(p).summary()
    for src in (raw, io.BytesIO(raw), gzip.decompress(raw)):
        doc = memlens.load(src).summary()
        assert doc["devices"] == by_path["devices"] and doc["inputs"] != by_path["inputs"]
    with open(p, "rb") as f:
        assert len(memlens.load(f).operators()) == len(memlens.load(p).operators())


def test_bad_input_raises_with_file_and_byte(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}')
    for call in (lambda r: r.summary(), lambda r: r.perf(), lambda r: r.operators(), lambda r: r.report(tmp_path / "x.html")):
        with pytest.raises(memlens.Error) as e:
            call(memlens.load(str(bad)))
        assert e.value.file == str(bad)
        assert e.value.byte == 58, e.value.message
        assert e.value.message.startswith(str(bad) + ": byte 58: ")
    assert not (tmp_path / "x.html").exists()
    with pytest.raises(memlens.Error) as e:
        memlens.load(tmp_path / "absent.json")
    assert e.value.file == str(tmp_path / "absent.json")
    with pytest.raises(memlens.Error) as e:
        memlens.load(b"\x00\x01 not a profile").summary()
    assert "input.json" in e.value.file and e.value.byte == 0


def test_errors_print_nothing(tmp_path, capfd):
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [}')
    with pytest.raises(memlens.Error):
        memlens.load(str(bad)).summary()
    with pytest.raises(memlens.Error):
        memlens.load(str(bad)).operators()
    with pytest.raises(memlens.Error):
        memlens.load(str(tmp_path)).summary()  # a folder with no profile
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@need_data
def test_report_and_repr_html(tmp_path):
    p = data("kineto", "hta_sampled_rank-0.json.gz")
    run = memlens.load(p)
    out = run.report(tmp_path / "r.html")
    page = open(out, encoding="utf-8").read()
    assert page.startswith("<!doctype html>") or page.lower().startswith("<!doctype html>")
    frame = run._repr_html_()
    assert frame.startswith("<iframe ") and 'srcdoc="' in frame
    assert "http://" not in frame.split('srcdoc="', 1)[0]
    import html as h

    assert h.unescape(frame.split('srcdoc="', 1)[1].rsplit('"></iframe>', 1)[0]) == page


def test_output_to_dash_comes_back_on_the_callers_stream(tmp_path, capfd):
    # `report -o -` / `export -o -` wrote to descriptor 1: the page reached the
    # process's stdout and the caller got nothing back
    trace = tmp_path / "t.json"
    trace.write_text('{"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,'
                     '"Device Id":0,"Addr":99,"Bytes":1024,"Total Allocated":1024,"Total Reserved":2048}}]}')
    rc, out, err = memlens._memlens.run(["report", "-o", "-", str(trace)])
    assert (rc, err) == (0, b"")
    assert out.startswith(b"<!doctype html>") and out.endswith(b"</html>\n")
    rc, out, err = memlens._memlens.run(["export", str(trace), "-o", "-", "--format", "trace.gz"])
    assert (rc, err) == (0, b"")
    assert b'"traceEvents"' in gzip.decompress(out)
    printed, warned = capfd.readouterr()
    assert printed == "" and warned == ""


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


@need_data
def test_a_thousand_loads_keep_memory_flat():
    p = data("kineto", "hta_sampled_rank-0.json.gz")

    def cycle():
        r = memlens.load(p)
        r.json("summary")
        r.operators()

    for _ in range(50):  # allocator pools, pandas' first frames
        cycle()
    before = rss_kib()
    for _ in range(1000):
        cycle()
    grown = rss_kib() - before
    # a leak of one profile per call would be >100 MiB: 1000 x (the 124 KB .gz's profile)
    assert grown < 16 * 1024, "RSS grew by %d KiB over 1000 load+summary+operators" % grown


def test_no_pandas_gives_lists_of_dicts(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    import struct

    ints = struct.pack("=3q", 7, -(2 ** 63), 2 ** 62)
    rows = memlens._frame({"a": ints, "b": ["x", None, "z"]})
    assert rows == [{"a": 7, "b": "x"}, {"a": None, "b": None}, {"a": 2 ** 62, "b": "z"}]


def test_record_memory_without_cuda_says_so(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("CUDA is here: the no-CUDA error does not apply")
    from memlens.profiler import record_memory

    with pytest.raises(memlens.Error, match="CUDA is not available"):
        with record_memory(tmp_path / "s.pickle"):
            pass
    assert not (tmp_path / "s.pickle").exists()
