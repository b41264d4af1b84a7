"""`pip install .` in a fresh venv, from a clean copy of the repository (what
git tracks, no build/): the `memlens` command and `import memlens` work from
anywhere, and give what build/memlens gives.  Then the sdist of that copy
carries the generated web UI, so that its tree builds without npm.

Builds must not download: the test interpreter's setuptools builds the
package, without build isolation and without an index.  One compile of the
library: a couple of minutes on two cores.
"""
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("MEMLENS_DATA") or os.path.join(ROOT, "..", "shared", "data")
CLI = os.path.join(ROOT, os.environ.get("MEMLENS") or "build/memlens")
UPLOT = os.path.join(ROOT, "web", "node_modules", "uplot", "dist", "uPlot.iife.min.js")

# make SAN=1 test runs the C under the sanitizers; this test compiles the
# package again without them and would check nothing new there
pytestmark = pytest.mark.skipif(os.environ.get("SAN") == "1", reason="pip install . is checked in the normal pass (SAN=1)")


def sh(*args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s\n%s\n%s" % (" ".join(map(str, args)), r.stdout[-3000:], r.stderr[-3000:])
    return r.stdout


def clean_copy(dest):
    """The files a clone has (tracked, and new ones not ignored), npm's packages beside them."""
    files = sh("git", "ls-files", "-co", "--exclude-standard", "-z", cwd=ROOT).split("\0")
    for f in filter(None, files):
        src = os.path.join(ROOT, f)
        if os.path.isfile(src) and not os.path.islink(src):
            os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, f))
    os.symlink(os.path.realpath(os.path.join(ROOT, "web", "node_modules")), os.path.join(dest, "web", "node_modules"))


def can_build_wheels():
    """Whether this interpreter's setuptools makes wheels offline: setuptools
    70.1 and later has bdist_wheel, older ones need the wheel package
    (python/requirements-test.txt pins both; a bare venv has neither)."""
    try:
        from setuptools.command import bdist_wheel  # noqa: F401
        return True
    except ImportError:
        try:
            import wheel  # noqa: F401
            return True
        except ImportError:
            return False


@pytest.mark.skipif(not can_build_wheels(), reason="this interpreter's setuptools cannot build wheels offline "
                    "(install python/requirements-test.txt: setuptools, wheel)")
@pytest.mark.skipif(not os.path.exists(UPLOT), reason="web/node_modules is absent (scripts/setup): a clone cannot build the report")
@pytest.mark.skipif(shutil.which("git") is None or not os.path.isdir(os.path.join(ROOT, ".git")) and
                    not os.path.isfile(os.path.join(ROOT, ".git")), reason="not a git checkout")
def test_pip_install_in_a_fresh_venv(tmp_path):
    src, venv, away = tmp_path / "src", tmp_path / "venv", tmp_path / "elsewhere"
    clean_copy(src)
    away.mkdir()
    sh(sys.executable, "-m", "venv", str(venv))
    py, pip = str(venv / "bin" / "python"), str(venv / "bin" / "pip")
    env = dict(os.environ, MEMLENS_BUILD_JOBS=os.environ.get("MEMLENS_BUILD_JOBS", "2"), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    # the build backend: this interpreter's setuptools (ensurepip's 65.5 has no bdist_wheel
    # without the wheel package), seen alone through PYTHONPATH during the install only
    import setuptools

    backend = tmp_path / "backend"
    backend.mkdir()
    site = os.path.dirname(os.path.dirname(setuptools.__file__))
    for name in os.listdir(site):
        if name.split("-")[0] in ("setuptools", "pkg_resources", "_distutils_hack"):
            os.symlink(os.path.join(site, name), backend / name)
    sh(pip, "install", "-q", "--no-build-isolation", "--no-index", str(src), env=dict(env, PYTHONPATH=str(backend)),
       cwd=str(away))

    # the command: the same CLI
    exe = str(venv / "bin" / "memlens")
    version = sh(exe, "--version", cwd=str(away), env=env)
    assert version == sh(CLI, "--version")
    assert "summary" in sh(exe, "--help", cwd=str(away), env=env)
    r = subprocess.run([exe, "summary", "/nonexistent.json"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("memlens: /nonexistent.json")
    # import memlens: the installed one, not the repository's
    where = sh(py, "-c", "import memlens, memlens._memlens as m; print(memlens.__file__); print(m.__file__)",
               cwd=str(away), env=env)
    assert all(str(venv) in line for line in where.splitlines()), where
    trace = os.path.join(DATA, "kineto", "hta_sampled_rank-0.json.gz")
    if os.path.exists(trace) and os.access(CLI, os.X_OK):
        got = sh(py, "-c", "import memlens, sys; sys.stdout.write(memlens.load(sys.argv[1]).json('summary'))", trace,
                 cwd=str(away), env=env)
        assert got == sh(CLI, "summary", "--json", trace)
        assert sh(exe, "perf", "--json", trace, cwd=str(away), env=env) == sh(CLI, "perf", "--json", trace)

    # the sdist carries web/dist/web_assets.c, and its tree builds it without npm
    sh(sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist"), cwd=str(src))
    (tarball,) = os.listdir(tmp_path / "dist")
    with tarfile.open(tmp_path / "dist" / tarball) as t:
        names = t.getnames()
        top = names[0].split("/")[0]
        assert top + "/web/dist/web_assets.c" in names
        assert top + "/python/memlens/_memlens.c" in names and top + "/src/cli/dispatch.c" in names
        assert not any("/node_modules/" in n for n in names)
        t.extractall(tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked" / top
    plan = sh("make", "-n", "build/gen/web_assets.o", cwd=str(unpacked))
    assert "web/dist/web_assets.c" in plan and "embed" not in plan
