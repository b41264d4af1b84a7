"""memlens beside torch.profiler: the trace handler and the memory recorder.

trace_handler(dir) is a drop-in for torch.profiler.tensorboard_trace_handler:
the same files (DIR/WORKER.TIMESTAMP.pt.trace.json[.gz], WORKER defaulting to
HOSTNAME_PID, TIMESTAMP time.time_ns()), so TensorBoard, HTA and
`memlens serve DIR` read them as before; per cycle it can also print the
one-screen summary or write the report beside the trace.

record_memory(path) records the CUDA caching allocator's history for the
block it wraps and dumps the snapshot (a .pickle memlens reads) at its end.
"""
import contextlib
import os
import socket
import time

from . import Error, _run, load


def trace_handler(dir_name, worker_name=None, use_gzip=False, summary=False, report=False,
                  use_python_export=False):
    """on_trace_ready=memlens.profiler.trace_handler("log/run1").  summary=True prints
    `memlens summary` of each cycle's trace; report=True writes TRACE.html beside it.
    The handler keeps the last trace's path in .last_trace."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        # nanoseconds, as torch's handler: no two cycles share a name
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name = file_name + ".gz"
        path = os.path.join(dir_name, file_name)
        prof.export_chrome_trace(path, use_python_export=use_python_export)
        handler_fn.last_trace = path
        if summary:
            print(_run(["summary", path], [path])[1], end="", flush=True)
        if report:
            load(path).report(_report_path(path))

    handler_fn.last_trace = None
    return handler_fn


def _report_path(trace):
    for ext in (".json.gz", ".json"):
        if trace.endswith(ext):
            return trace[: -len(ext)] + ".html"
    return trace + ".html"


@contextlib.contextmanager
def record_memory(path, max_entries=100000, stacks="all", context="all"):
    """with record_memory("snap.pickle"): ... — torch.cuda.memory._record_memory_history
    (max_entries) for the block, _dump_snapshot(path) at its end (even on an exception),
    recording stopped after.  memlens.Error where CUDA is not available."""
    try:
        import torch
    except ImportError as e:
        raise Error("record_memory needs PyTorch (import torch failed: %s)" % e) from e
    if not torch.cuda.is_available():
        raise Error("record_memory records the CUDA caching allocator: CUDA is not available here "
                    "(torch %s%s)" % (torch.__version__, "" if torch.version.cuda else ", a build without CUDA"))
    torch.cuda.memory._record_memory_history(enabled="all", context=context, stacks=stacks,
                                              max_entries=max_entries)
    try:
        yield path
    finally:
        try:
            torch.cuda.memory._dump_snapshot(os.fspath(path))
        finally:
            torch.cuda.memory._record_memory_history(enabled=None)
