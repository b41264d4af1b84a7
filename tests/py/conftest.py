"""pytest fixtures shared by tests/py: the memlens binary, and the PyTorch
fixtures (tests/py/torch_fixtures.py) generated once per session, in a
process of their own."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def memlens_path():
    return os.path.join(ROOT, os.environ.get("MEMLENS") or "build/memlens")


@pytest.fixture(scope="session")
def memlens_cli():
    """run(*args) -> stdout of the CLI; json(*args) -> its --json document."""
    exe = memlens_path()
    if not os.access(exe, os.X_OK):
        pytest.skip("%s not built" % exe)

    class Cli:
        path = exe

        def run(self, *args, check=True):
            r = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True)
            if check and r.returncode != 0:
                raise AssertionError("memlens %s: exit %d: %s" % (" ".join(map(str, args)), r.returncode,
                                                                   r.stderr.strip()))
            return r

        def json(self, *args):
            return json.loads(self.run(*(args + ("--json",))).stdout)

    return Cli()


@pytest.fixture(scope="session")
def torch_fx(tmp_path_factory):
    """The folder `torch_fixtures.py DIR` wrote (skips without torch).
    MEMLENS_TORCH_FIXTURES=DIR reuses a folder it wrote before."""
    import importlib.util
    from pathlib import Path
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    if os.environ.get("MEMLENS_TORCH_FIXTURES"):
        return Path(os.environ["MEMLENS_TORCH_FIXTURES"])
    out = tmp_path_factory.mktemp("torch_fixtures")
    # A process of its own: PyTorch's CPU memory count is per process and keeps
    # what any earlier profiling in it left (another test's), which would show
    # in these traces' Total Allocated.
    r = subprocess.run([sys.executable, os.path.join(HERE, "torch_fixtures.py"), str(out)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("torch_fixtures.py failed (exit %d):\n%s" % (r.returncode, r.stderr[-3000:]))
    return out


def oracle(fx, name):
    with open(os.path.join(fx, name)) as f:
        return json.load(f)
