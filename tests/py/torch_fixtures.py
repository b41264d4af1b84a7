#!/usr/bin/env python3
"""torch_fixtures.py — real PyTorch 2.x profiler files, written at test time, and
PyTorch's own answers about them (the oracle the tests hold memlens to).

    python tests/py/torch_fixtures.py OUTDIR      # writes everything, prints a listing

Nothing it writes is committed: tests/py/conftest.py calls generate() once per
pytest session into a temporary folder.  It trains small real models on the CPU
the way users profile them — schedule(wait, warmup, active, repeat),
on_trace_ready, prof.step(), profile_memory, record_shapes, with_stack,
with_modules — and writes every export PyTorch offers on a CPU build:

  OUTDIR/
    mlp_adam/trace.json           export_chrome_trace, first profiling cycle
    mlp_adam/trace2.json.gz       export_chrome_trace, second cycle (a Kineto
                                  result can be saved once only, so .json and
                                  .json.gz come from two cycles of one run)
    mlp_adam/timeline.json(.gz), timeline.raw.json.gz, timeline.html
                                  export_memory_timeline(device="cpu")
    mlp_cold/trace.json, timeline.raw.json.gz, oracle.json: profiled from
                                  before the model exists (no schedule), first
                                  of the runs in this process
    mlp_adam/oracle.json          key_averages (plain and by input shape), the
                                  module tree with call counts, and
                                  MemoryProfileTimeline's categories at its peak
    logdir/cnn_sgd/*.pt.trace.json     tensorboard_trace_handler, SGD+momentum
    logdir/mlp_adamw/*.pt.trace.json.gz  tensorboard_trace_handler(use_gzip), AdamW
    (each run folder has its oracle in OUTDIR/oracle_<run>.json, outside the logdir)
    ddp2/, ddp4/                  a 2- and a 4-process DDP job on gloo (fork), one
                                  tensorboard_trace_handler trace per rank, with
                                  an all_to_all_single after each step;
                                  oracle_ddpN.json: world size, parameter bytes
    compile/trace.json, oracle.json  a torch.compile'd model, only with
                                  MEMLENS_TORCH_COMPILE=1: inductor's first
                                  compile costs ~35 CPU seconds here (5 minutes
                                  of wall time on 2 shared cores)
    timing.json                   CPU seconds per part

Every model is seeded, single-threaded (torch.set_num_threads(1)), and tiny.
CPU cost beyond importing torch, measured here: the single-process runs ~6 s
(most of it PyTorch's own _memory_profile and the Python tracer), each DDP
rank ~1.5 s (9 s for the six; timing.json has the figures of a run).
export_memory_timeline's .html needs matplotlib (pinned in
python/requirements-test.txt): without it PyTorch prints a line and writes
nothing, so no timeline.html is there (test_torch_memory then fails, saying so).
"""
import gzip
import json
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

PROFILE_ARGS = dict(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                    with_stack=True, with_modules=True)


# ---- models ------------------------------------------------------------------

class Block(nn.Module):
    """A residual MLP block: nested modules, so the module tree has depth."""

    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class MLP(nn.Module):
    def __init__(self, width=64, depth=2, classes=10):
        super().__init__()
        self.embed = nn.Linear(32, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.blocks(self.embed(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def mlp_batch(n=16):
    return torch.randn(n, 32), torch.randint(0, 10, (n,))


def cnn_batch(n=8):
    return torch.randn(n, 3, 16, 16), torch.randint(0, 10, (n,))


def train_step(model, opt, batch):
    x, y = batch
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


# ---- PyTorch's answers ------------------------------------------------------------

def op_table(prof, by_shape=False):
    """key_averages as plain rows: PyTorch's per-operator counts, times (µs) and
    self CPU memory (bytes)."""
    rows = []
    for e in prof.key_averages(group_by_input_shape=by_shape):
        rows.append({"name": e.key, "count": e.count, "self_us": e.self_cpu_time_total,
                     "total_us": e.cpu_time_total, "self_mem": e.self_cpu_memory_usage,
                     "mem": e.cpu_memory_usage, "shapes": str(e.input_shapes) if by_shape else None})
    return rows


def memory_by_op(trace_path, ops):
    """PyTorch's attribution of each CPU [memory] record to an event (the rule
    of torch/autograd/profiler.py _parse_kineto_results behind key_averages'
    self CPU memory: every event whose [start, end] holds the record's time,
    on any thread, counts it; self = own minus children's, so the record is the
    innermost such event's; none: the "[memory]" row), applied to the written
    trace: per name, allocations, bytes allocated and freed, and the net, which
    must equal key_averages' self_cpu_memory_usage (ops: op_table rows) — that
    equality, checked for every name, is what makes this PyTorch's answer and
    not a reading of ours.  (Reading the Kineto result's events() a second
    time instead returns freed memory as names in torch 2.13: a
    UnicodeDecodeError, seen in one of three runs.)"""
    import bisect
    evs = load(trace_path)["traceEvents"]
    spans = sorted(((e["ts"], e["ts"] + e.get("dur", 0), e["name"]) for e in evs
                    if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation", "python_function")),
                   key=lambda x: (x[0], -x[1]))
    starts = [x[0] for x in spans]
    out = {}
    for e in evs:
        if e.get("name") != "[memory]" or e["args"].get("Device Type") != 0:
            continue
        t, nbytes = e["ts"], e["args"]["Bytes"]
        name = "[memory]"
        best = None
        for k in range(bisect.bisect_right(starts, t) - 1, -1, -1):
            s0, s1, nm = spans[k]
            if s1 >= t and (best is None or s0 > best[0] or (s0 == best[0] and s1 < best[1])):
                best = spans[k]
        if best is not None:   # key_averages' name: ProfilerStep#3 is ProfilerStep*
            name = "ProfilerStep*" if best[2].startswith("ProfilerStep#") else best[2]
        r = out.setdefault(name, {"allocs": 0, "alloc_bytes": 0, "frees": 0, "free_bytes": 0})
        if nbytes > 0:
            r["allocs"] += 1
            r["alloc_bytes"] += nbytes
        else:
            r["frees"] += 1
            r["free_bytes"] -= nbytes
    ka = {row["name"]: row["self_mem"] for row in ops}
    for name, r in out.items():
        r["net"] = r["alloc_bytes"] - r["free_bytes"]
        r["key_averages_self"] = ka.get(name)
    return out


def module_tree(model):
    """Every nn.Module of the model by its qualified name, with its class and parent."""
    out = []
    for name, m in model.named_modules():
        parent = name.rsplit(".", 1)[0] if "." in name else ("" if name else None)
        out.append({"name": name, "type": type(m).__name__, "parent": parent})
    return out


def count_module_calls(model):
    """Forward calls per module while the profiler is active (hooks count them)."""
    calls = {}
    handles = []
    for name, m in model.named_modules():
        def hook(mod, args, name=name):
            if torch.autograd.profiler._is_profiler_enabled:
                calls[name] = calls.get(name, 0) + 1
        handles.append(m.register_forward_pre_hook(hook))
    return calls, handles


def timeline_peak(prof, device="cpu"):
    """MemoryProfileTimeline (the data behind export_memory_timeline): the coalesced
    timeline's peak, its bytes per category, and every tensor live then."""
    from torch.profiler._memory_profiler import (_CATEGORY_TO_INDEX, Action, Category,
                                                 MemoryProfileTimeline)
    mem_tl = MemoryProfileTimeline(prof._memory_profile())
    times, sizes = mem_tl._coalesce_timeline(device)
    totals = [sum(s) for s in sizes]
    i = max(range(len(totals)), key=totals.__getitem__)
    names = ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
             "AUTOGRAD_DETAIL", "Unknown"]
    # sizes[i][0] is unused by PyTorch's own plot (categories start at index 1)
    by_cat = {names[k]: int(sizes[i][k + 1]) for k in range(8)}

    def name_of(cat):
        return names[_CATEGORY_TO_INDEX[cat]]

    # The live tensors at the peak, from the raw timeline (the same events the
    # coalesced one sums): (storage ptr, allocation id) -> bytes, category
    live = {}
    peak_t = times[i]
    for t, action, (key, version), nbytes in mem_tl.timeline:
        if key.device != torch.device(device):
            continue
        if t != -1 and int(t / 1000) > peak_t:   # the coalesced timeline's µs
            break
        # a Key that is no TensorKey: memory PyTorch could not tie to a tensor
        k = (key.storage.ptr, key.id) if hasattr(key, "storage") else (None, id(key))
        if action in (Action.PREEXISTING, Action.CREATE):
            live[k] = [nbytes, name_of(mem_tl.categories.get(key, version)), t == -1]
        elif action == Action.INCREMENT_VERSION and k in live:
            live[k][1] = name_of(mem_tl.categories.get(key, version + 1))
        elif action == Action.DESTROY:
            live.pop(k, None)
    tensors = [{"addr": ptr, "bytes": b, "category": c, "preexisting": pre}
               for (ptr, _id), (b, c, pre) in live.items()]
    return {"time_us": times[i], "total_bytes": int(totals[i]), "by_category": by_cat,
            "tensors": tensors, "Category": [c.name for c in Category]}


class memory_profile_once:
    """with memory_profile_once(prof): PyTorch's MemoryProfile of the cycle
    built once (0.8 CPU s for mlp_adam), where export_memory_timeline and
    timeline_peak would each build it again from the same Kineto result (it
    is only read from); the profiler's own method again afterwards."""

    def __init__(self, prof):
        self.prof = prof

    def __enter__(self):
        mp = type(self.prof)._memory_profile(self.prof)
        self.prof._memory_profile = lambda: mp

    def __exit__(self, *exc):
        del self.prof._memory_profile


# ---- the runs ------------------------------------------------------------------

def run_mlp_adam(out):
    """One run, two profiling cycles: cycle 1 exports .json and every memory
    timeline file, cycle 2 exports .json.gz; the oracle is cycle 1's."""
    d = os.path.join(out, "mlp_adam")
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [mlp_batch() for _ in range(3)]
    train_step(model, opt, batches[0])   # Adam's state exists before the trace
    calls, handles = count_module_calls(model)
    cycle = [0]
    oracle = {}

    def ready(prof):
        cycle[0] += 1
        if cycle[0] == 1:
            with memory_profile_once(prof):
                oracle.update(ops=op_table(prof), ops_by_shape=op_table(prof, True),
                              modules=module_tree(model), module_calls=dict(calls),
                              peak=timeline_peak(prof), steps=2, optimizer="Adam")
                prof.export_chrome_trace(os.path.join(d, "trace.json"))
                oracle["memory_by_op"] = memory_by_op(os.path.join(d, "trace.json"), oracle["ops"])
                # .html needs matplotlib (absent: PyTorch prints a line and writes nothing);
                # its device="cpu" curve is the one the other three files hold
                for name in ("timeline.json", "timeline.json.gz", "timeline.raw.json.gz", "timeline.html"):
                    prof.export_memory_timeline(os.path.join(d, name), device="cpu")
        else:
            prof.export_chrome_trace(os.path.join(d, "trace2.json.gz"))
        calls.clear()

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready,
                 **PROFILE_ARGS) as prof:
        for i in range(8):
            train_step(model, opt, batches[i % 3])
            prof.step()
    for h in handles:
        h.remove()
    with open(os.path.join(d, "oracle.json"), "w") as f:
        json.dump(oracle, f)


def run_mlp_cold(out):
    """The profiler started before the model exists: parameters, gradients and
    the SGD momentum buffers are all created inside the trace, so the trace
    alone can tell every category (the scheduled run's parameters and Adam
    state predate its trace, and a CPU trace's Total Allocated starts at 0)."""
    d = os.path.join(out, "mlp_cold")
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(3)
    batches = [mlp_batch() for _ in range(2)]
    oracle = {"optimizer": "SGD"}

    def ready(prof):
        # PyTorch's answers inside on_trace_ready (called by the profiler's stop
        # even without a schedule) and before the export.  In this run (the
        # model built while recording) key_averages meets freed memory as an
        # event name in about one run of two, here or after the profiler's
        # exit alike (UnicodeDecodeError in torch/autograd/profiler.py:625,
        # torch 2.13 CPU): generate() tries again in a new child (TRIES).
        with memory_profile_once(prof):
            oracle.update(ops=op_table(prof), peak=timeline_peak(prof))
            prof.export_chrome_trace(os.path.join(d, "trace.json"))
            prof.export_memory_timeline(os.path.join(d, "timeline.raw.json.gz"), device="cpu")

    with profile(on_trace_ready=ready, **PROFILE_ARGS) as prof:
        model = MLP(width=48)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        for i in range(3):
            train_step(model, opt, batches[i % 2])
            prof.step()
    oracle["memory_by_op"] = memory_by_op(os.path.join(d, "trace.json"), oracle["ops"])
    with open(os.path.join(d, "oracle.json"), "w") as f:
        json.dump(oracle, f)


def in_child(fn, *args):
    """Runs fn(*args) in a forked child: a fresh CPU-allocator count (a CPU
    trace's Total Allocated carries what earlier profiling sessions of the
    process left, see run_mlp_cold) and a fresh try when PyTorch's key_averages
    fails on a freed event name.  Raises UnicodeDecodeError for the latter."""
    import multiprocessing as mp

    def child():
        try:
            fn(*args)
        except UnicodeDecodeError:
            os._exit(3)
    p = mp.get_context("fork").Process(target=child)
    p.start()
    p.join(300)
    if p.exitcode == 3:
        raise UnicodeDecodeError("utf-8", b"", 0, 1, "PyTorch's key_averages read a freed event name")
    if p.exitcode != 0:
        raise RuntimeError("%s: exited with %s" % (fn.__name__, p.exitcode))


def run_logdir(out, run, make_model, make_opt, batch, use_gzip):
    """A tensorboard_trace_handler logdir run: one profiling cycle."""
    logdir = os.path.join(out, "logdir", run)
    torch.manual_seed(1)
    model = make_model()
    opt = make_opt(model.parameters())
    batches = [batch() for _ in range(2)]
    calls, handles = count_module_calls(model)
    handler = tensorboard_trace_handler(logdir, worker_name="worker0", use_gzip=use_gzip)
    oracle = {}

    def ready(prof):
        oracle.update(ops=op_table(prof), ops_by_shape=op_table(prof, True), modules=module_tree(model),
                      module_calls=dict(calls), optimizer=type(opt).__name__)
        handler(prof)

    with profile(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=ready,
                 **PROFILE_ARGS) as prof:
        for i in range(4):
            train_step(model, opt, batches[i % 2])
            prof.step()
    for h in handles:
        h.remove()
    oracle["trace"] = os.path.relpath(os.path.join(logdir, os.listdir(logdir)[0]), out)
    oracle["memory_by_op"] = memory_by_op(os.path.join(out, oracle["trace"]), oracle["ops"])
    with open(os.path.join(out, "oracle_%s.json" % run), "w") as f:
        json.dump(oracle, f)


def _ddp_worker(rank, world, port, job, seed):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(seed)
    model = DDP(MLP(width=32, depth=1))
    if rank == 0:
        with open(os.path.join(job, "..", "oracle_%s.json" % os.path.basename(job)), "w") as f:
            json.dump({"world_size": world, "param_bytes": sum(p.numel() * p.element_size()
                                                               for p in model.parameters()),
                       "all_to_all_bytes": world * 16 * 4, "steps": 2}, f)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    torch.manual_seed(seed + rank)
    batches = [mlp_batch(8) for _ in range(2)]
    handler = tensorboard_trace_handler(job, worker_name="rank%d" % rank)
    with profile(schedule=schedule(wait=0, warmup=1, active=2), on_trace_ready=handler,
                 **PROFILE_ARGS) as prof:
        for i in range(3):
            train_step(model, opt, batches[i % 2])
            # an all_to_all of world x 16 floats: one 64-byte chunk to every rank
            t = torch.arange(world * 16, dtype=torch.float32) + rank
            dist.all_to_all_single(torch.empty_like(t), t)
            prof.step()
    dist.destroy_process_group()


def run_ddp(out, name, world, seed=0):
    """A world-process DDP job on gloo, one trace per rank in out/name/ (fork: the
    children share the parent's imported torch, so they cost no import)."""
    import multiprocessing as mp
    import socket

    import torch.distributed  # noqa: F401  imported once here, not in each child
    import torch.nn.parallel  # noqa: F401
    job = os.path.join(out, name)
    os.makedirs(job, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_ddp_worker, args=(r, world, port, job, seed)) for r in range(world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        if p.exitcode != 0:
            raise RuntimeError("%s: rank process exited with %s" % (name, p.exitcode))


def run_compile(out):
    """torch.compile (inductor) on a tiny MLP, profiled after compiling."""
    d = os.path.join(out, "compile")
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(2)
    model = MLP(width=32, depth=1)
    cmodel = torch.compile(model)
    x, _ = mlp_batch()
    cmodel(x).sum().backward()         # compile outside the trace
    with profile(**PROFILE_ARGS) as prof:
        for _ in range(2):
            cmodel(x).sum().backward()
    ops = op_table(prof)
    prof.export_chrome_trace(os.path.join(d, "trace.json"))
    with open(os.path.join(d, "oracle.json"), "w") as f:
        json.dump({"ops": ops}, f)


# Tries of a part that PyTorch's freed-name defect fails (measured: 6 of 13
# cold runs, so 8 tries leave about 1 in 400 sessions failing).
TRIES = 8


def cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def generate(out, compile_model=None, only=None):
    """Writes every fixture into out; returns {part: CPU seconds}.  compile_model:
    True/False, or None for the MEMLENS_TORCH_COMPILE environment variable (1 = on)."""
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    timing = {}
    parts = [
        # the forked jobs first, while this process has no profiler threads
        ("ddp2", lambda: run_ddp(out, "ddp2", 2)),
        ("ddp4", lambda: run_ddp(out, "ddp4", 4)),
        # the cold run first: a CPU trace's Total Allocated is a process-wide count
        # that carries what earlier profiling sessions left (see run_mlp_cold)
        ("mlp_cold", lambda: in_child(run_mlp_cold, out)),
        ("mlp_adam", lambda: run_mlp_adam(out)),
        ("cnn_sgd", lambda: run_logdir(out, "cnn_sgd", CNN,
                                       lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9),
                                       cnn_batch, False)),
        ("mlp_adamw", lambda: run_logdir(out, "mlp_adamw", MLP,
                                         lambda ps: torch.optim.AdamW(ps, lr=1e-3), mlp_batch, True)),
    ]
    if compile_model is None:
        compile_model = os.environ.get("MEMLENS_TORCH_COMPILE") == "1"
    if compile_model:
        parts.append(("compile", lambda: run_compile(out)))
    for name, fn in parts:
        if only and name not in only:
            continue
        c0 = cpu_seconds()
        for attempt in range(TRIES):
            try:
                fn()
                break
            except UnicodeDecodeError:   # PyTorch's own (see run_mlp_cold)
                if attempt == TRIES - 1:
                    raise
                timing[name + " retried"] = attempt + 1
        timing[name] = round(cpu_seconds() - c0, 3)
    with open(os.path.join(out, "timing.json"), "w") as f:
        json.dump(timing, f)
    return timing


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: torch_fixtures.py OUTDIR [PART,PART...]")
    t0 = time.time()
    timing = generate(sys.argv[1], only=sys.argv[2].split(",") if len(sys.argv) == 3 else None)
    for root, _dirs, files in sorted(os.walk(sys.argv[1])):
        for f in sorted(files):
            p = os.path.join(root, f)
            print("%9d  %s" % (os.path.getsize(p), os.path.relpath(p, sys.argv[1])))
    print("CPU seconds per part:", timing, " wall %.1fs" % (time.time() - t0))
