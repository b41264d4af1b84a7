"""memlens in Python: where did the accelerator memory and time go.

A thin layer over memlens's C library, in this process (the extension
memlens._memlens; no subprocess, no CLI binary):

    >>> import memlens
    >>> run = memlens.load("logdir/run1")          # a file, a directory of ranks, a logdir
    >>> run.summary()["ranks"][0]["devices"][0]["peak_allocated"]
    >>> run.perf(view="kernels")                   # the document of `perf --json --view kernels`
    >>> df = run.operators()                       # a pandas DataFrame (a list of dicts without pandas)
    >>> memlens.diff("base/", "new/")              # `diff --json`
    >>> memlens.check("new/", base="base/", max_peak="30GiB").passed
    >>> run                                        # in Jupyter: the report, inline

The documents (summary, perf, diff, check) are those of the CLI's --json,
byte for byte: the same C function (ml_cli_run) writes them, into memory
instead of stdout.  docs/json-schema.md describes them.  Errors are
memlens.Error, with .file, .byte (where the input says so) and .message;
the library never exits the process and prints nothing on its own.

load() reads no event: it checks that the inputs exist and remembers them.
Each document is computed by the streaming pipeline the CLI runs, so
load(p).summary() costs what `memlens summary --json p` does; the tables
(operators, kernels, allocations, live_at) load the profiles whole once, on
first use, and keep them until the Run is garbage-collected.
"""
import html
import json
import os
import re
import tempfile
import warnings

from . import _memlens

__all__ = ["Error", "Run", "CheckResult", "load", "diff", "check", "version"]


class Error(Exception):
    """A memlens error: .message is the one-line text ("FILE: byte N: why"),
    .file the input it names (or None), .byte the offset in it (or None)."""

    def __init__(self, message, file=None, byte=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.byte = byte


_POSITION = re.compile(r"^(?P<file>.+?): byte (?P<byte>\d+): ")


def _error(text, inputs=()):
    """The Error of a command's messages (its last "memlens: ..." line)."""
    lines = [l for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith("memlens:") and not l.startswith("memlens: warning:")]
    line = (errors or lines or ["memlens: failed"])[-1]
    msg = line[len("memlens: "):] if line.startswith("memlens: ") else line
    m = _POSITION.match(msg)
    if m:
        return Error(msg, m.group("file"), int(m.group("byte")))
    for path in sorted(inputs, key=len, reverse=True):
        if msg.startswith(path + ":"):
            return Error(msg, path)
    return Error(msg)


_memlens._set_error(Error)


def _run(args, inputs=(), ok=(0,)):
    """A command line in-process: (status, output text); Error unless ok."""
    rc, out, err = _memlens.run([str(a) for a in args])
    text = err.decode("utf-8", "replace")
    if rc not in ok:
        raise _error(text, inputs)
    for line in text.splitlines():
        if line.startswith("memlens: warning: "):
            warnings.warn(line[len("memlens: warning: "):], stacklevel=3)
    return rc, out.decode("utf-8")


def version():
    return _run(["--version"])[1].split()[-1]


def _suffix_for(data):
    if data[:2] == b"\x1f\x8b":
        return ".json.gz"
    if data[:16] == b"SQLite format 3\x00":
        return ".db"
    if data[:1] == b"\x80":
        return ".pickle"
    return ".json"


class Run:
    """One run's inputs (files, directories of ranks, logdirs), as the CLI takes them."""

    def __init__(self, inputs, rank=None, _tmp=None):
        self.inputs = [os.fspath(p) for p in inputs]
        self.rank = rank
        self._tmp = _tmp  # a TemporaryDirectory holding bytes/file-object inputs
        self._profiles = None

    def __repr__(self):
        rank = "" if self.rank is None else ", rank=%d" % self.rank
        return "memlens.Run(%r%s)" % (self.inputs[0] if len(self.inputs) == 1 else self.inputs, rank)

    def _rank_args(self):
        return [] if self.rank is None else ["--rank", str(self.rank)]

    # ---- documents: the CLI's --json --------------------------------------

    def json(self, command, *options):
        """The text `memlens COMMAND --json OPTIONS... INPUTS` writes."""
        return _run([command, "--json", *options, *self._rank_args(), *self.inputs], self.inputs)[1]

    def summary(self, by=None, top=None, group_by=None, all=False):
        """The document of `summary --json` (by: toplevel, innermost, stack, frame, size, category)."""
        opts = []
        if by is not None:
            opts += ["--by", by]
        if top is not None:
            opts += ["--top", str(top)]
        if group_by is not None:
            opts += ["--group-by", group_by]
        if all:
            opts += ["--all"]
        return json.loads(self.json("summary", *opts))

    def perf(self, view=None, top=None, group_by=None):
        """The document of `perf --json` (view: overview, operators, kernels, distributed, modules,
        critical-path or all; a list of them too)."""
        opts = []
        for v in [view] if isinstance(view, str) else view or []:
            opts += ["--view", v]
        if top is not None:
            opts += ["--top", str(top)]
        if group_by is not None:
            opts += ["--group-by", group_by]
        return json.loads(self.json("perf", *opts))

    def report(self, path, max_allocs=None):
        """Writes the self-contained HTML report to path (returns path)."""
        opts = [] if max_allocs is None else ["--max-allocs", str(max_allocs)]
        _run(["report", "-o", os.fspath(path), *opts, *self._rank_args(), *self.inputs], self.inputs)
        return path

    def _repr_html_(self):
        """The report, inline in a notebook: an iframe holding the whole page (offline)."""
        with tempfile.TemporaryDirectory(prefix="memlens-") as d:
            path = os.path.join(d, "report.html")
            self.report(path)
            with open(path, encoding="utf-8") as f:
                page = f.read()
        return ('<iframe style="width:100%;height:720px;border:0" sandbox="allow-scripts allow-downloads" '
                'srcdoc="{}"></iframe>'.format(html.escape(page, quote=True)))

    # ---- tables: the loaded profiles --------------------------------------

    def _loaded(self):
        if self._profiles is None:
            try:
                self._profiles = _memlens.load(self.inputs, -1 if self.rank is None else self.rank)
            except Error as e:  # the C side's one line: the file and byte parsed out of it
                raise _error("memlens: " + e.message, self.inputs) from None
        return self._profiles

    def ranks(self):
        """[(rank, format, path)] of the profiles (-1: a profile that says no rank)."""
        return _memlens.ranks(self._loaded())

    def _table(self, name, *args):
        return _frame(_memlens.table(self._loaded(), name, *args))

    def operators(self):
        """Every operator (rank, name, ts_ns, dur_ns, thread, kind): absolute ns where the input allows."""
        return self._table("operators")

    def kernels(self):
        """Every GPU kernel, memcpy and memset (rank, name, ts_ns, dur_ns, kind, device, stream, correlation)."""
        return self._table("kernels")

    def allocations(self):
        """Every allocation (rank, device, size, addr, t_alloc_ns, t_free_ns, op, op_top, category);
        t_alloc_ns None: before the trace began, t_free_ns None: never freed."""
        return self._table("allocations")

    def live_at(self, t):
        """The allocations live at time t (ns, as in allocations()): allocated at or before, freed after."""
        return self._table("live_at", int(t))


_NA = -(2 ** 63)  # the C side's "absent" in an int64 column


def _frame(cols):
    """A DataFrame of the columns (int64 columns as numpy arrays, nullable Int64 where a value
    is absent), or a list of row dicts without pandas (absent values None)."""
    try:
        import numpy
        import pandas
    except ImportError:
        names = list(cols)
        lists = [_ints_list(cols[n]) if isinstance(cols[n], bytes) else cols[n] for n in names]
        return [dict(zip(names, row)) for row in zip(*lists)]
    data = {}
    for name, col in cols.items():
        if isinstance(col, bytes):
            v = numpy.frombuffer(col, dtype=numpy.int64)
            na = v == _NA
            col = pandas.arrays.IntegerArray(v.copy(), na) if na.any() else v
        data[name] = col
    return pandas.DataFrame(data, copy=False)


def _ints_list(raw):
    import array

    a = array.array("q")
    a.frombytes(raw)
    return [None if x == _NA else x for x in a]


def load(path_or_dir, rank=None):
    """A Run: a file, a directory (every profile below it a rank), a TensorBoard logdir,
    a list of them, bytes, or a binary file object.  rank: keep only that rank."""
    tmp = None
    if isinstance(path_or_dir, (bytes, bytearray, memoryview)) or hasattr(path_or_dir, "read"):
        data = path_or_dir.read() if hasattr(path_or_dir, "read") else bytes(path_or_dir)
        if isinstance(data, str):
            data = data.encode("utf-8")
        tmp = tempfile.TemporaryDirectory(prefix="memlens-")
        name = getattr(path_or_dir, "name", None)
        base = os.path.basename(name) if isinstance(name, str) and name else "input" + _suffix_for(data)
        path = os.path.join(tmp.name, base)
        with open(path, "wb") as f:
            f.write(data)
        inputs = [path]
    elif isinstance(path_or_dir, (list, tuple)):
        inputs = [os.fspath(p) for p in path_or_dir]
    else:
        inputs = [os.fspath(path_or_dir)]
    for p in inputs:
        # RUN@SPAN: one profiling window of a TensorBoard logdir's run (docs/logdirs.md)
        if not os.path.exists(p) and not ("@" in p and os.path.isdir(p.rsplit("@", 1)[0])):
            raise Error("%s: no such file or directory" % p, p)
    return Run(inputs, rank, tmp)


def _inputs(x):
    if isinstance(x, Run):
        return x.inputs
    return load(x).inputs


def diff(base, new, top=None, rank=None):
    """The document of `diff --json BASE NEW` (Runs or paths)."""
    b, n = _inputs(base), _inputs(new)
    if len(b) != 1 or len(n) != 1:
        raise Error("diff compares one input with one input (a directory holds several ranks)")
    opts = ([] if top is None else ["--top", str(top)]) + ([] if rank is None else ["--rank", str(rank)])
    return json.loads(_run(["diff", "--json", *opts, b[0], n[0]], b + n)[1])


class CheckResult:
    """What `check --json` said: .passed, .rules (every rule), .broken (those that failed,
    each with its "message" and "contributors"), .document (the whole document)."""

    def __init__(self, document):
        self.document = document
        self.passed = bool(document["passed"])
        self.rules = document["rules"]
        self.broken = [r for r in self.rules if r.get("evaluated") and not r.get("passed")]

    def __bool__(self):
        return self.passed

    def __repr__(self):
        if self.passed:
            return "<memlens check: passed (%d rules)>" % len(self.rules)
        return "<memlens check: FAILED\n%s>" % "\n".join(r["message"] for r in self.broken)


_RULES = {"max_peak": "--max-peak", "max_reserved": "--max-reserved", "max_peak_growth": "--max-peak-growth",
          "max_step_time": "--max-step-time", "max_step_time_growth": "--max-step-time-growth",
          "max_unused_reserved": "--max-unused-reserved"}
_NEEDS_BASE = {"max_peak_growth", "max_step_time_growth"}


def check(new, base=None, max_peak="30GiB", max_peak_growth="5%", no_oom=True, rank=None, **rules):
    """`check --json`: the rules on NEW (against BASE where given).  A rule set to None is not
    checked; the growth rules need a base and are left out without one.  Other rules:
    max_reserved, max_step_time, max_step_time_growth, max_unused_reserved."""
    unknown = set(rules) - set(_RULES)
    if unknown:
        raise TypeError("check() got unknown rules: %s" % ", ".join(sorted(unknown)))
    given = dict(rules, max_peak=max_peak, max_peak_growth=max_peak_growth)
    n = _inputs(new)
    b = None if base is None else _inputs(base)
    if len(n) != 1 or (b is not None and len(b) != 1):
        raise Error("check takes one input (and one base)")
    args = ["check", "--json", n[0]] + ([] if b is None else ["--base", b[0]])
    for name, value in given.items():
        if value is None or (name in _NEEDS_BASE and b is None):
            continue
        args += [_RULES[name], str(value)]
    if no_oom:
        args.append("--no-oom")
    if rank is not None:
        args += ["--rank", str(rank)]
    _, out = _run(args, n + (b or []), ok=(0, 1))
    return CheckResult(json.loads(out))
