# The pytest tests (tests/py/test_*.py): the Python package and its API, and
# memlens held to real PyTorch (fixtures written at test time by torch 2.13,
# torch's own answers as the oracle).  The extension is built in place first
# (setup.py build_ext --inplace) and python/ put on PYTHONPATH.  They run in
# .venv/ (scripts/setup makes it with python/requirements-test.txt); without
# it, one skip.
. tests/lib.sh
PY=${MEMLENS_PYTHON:-.venv/bin/python}
if [ ! -x "$PY" ] || ! "$PY" -c 'import pytest' 2>/dev/null; then
    t_skip "$PY with pytest absent (run scripts/setup)"; t_done; exit
fi
if ! ls tests/py/test_*.py >/dev/null 2>&1; then
    t_skip "no tests in tests/py"; t_done; exit
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Under SAN=1 only the tests that drive the CLI (test_torch_*: real PyTorch
# output through build-san/memlens) run again: the extension the API tests
# import is built by setup.py without sanitizers, so running them twice
# checks nothing new (one SKIP line says so).
files=tests/py
if [ "${SAN:-0}" = 1 ]; then
    files=$(ls tests/py/test_torch_*.py)
    echo "SKIP cli_python.sh: tests/py/test_api*.py: the Python extension is not built with sanitizers; they run in the normal pass only (SAN=1)"
fi
# The package's extension (memlens._memlens), built in place into python/memlens/
# from the sources build/ has (setup.py; again only when one is newer than it),
# then python/ first on the path: the tests import the tree's memlens.
if [ "${SAN:-0}" != 1 ] && ! MEMLENS_BUILD_JOBS=${MEMLENS_BUILD_JOBS:-2} "$PY" setup.py -q build_ext --inplace >"$log" 2>&1; then
    t_fail "setup.py build_ext --inplace failed: $(grep -E 'error|Error' "$log" | head -5)"
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
MEMLENS=$MEMLENS "$PY" -m pytest -q -rfEs -p no:cacheprovider $files >"$log" 2>&1
rc=$?
# pytest's closing line, e.g. "3 failed, 40 passed, 2 skipped in 9.1s"
last=$(grep -E '[0-9]+ (passed|failed|skipped|error)' "$log" | tail -1)
n() { printf '%s' "$last" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
T_PASS=$(n passed); T_FAIL=$(($(n failed) + $(n error))); T_SKIP=$(($(n skipped) + ${SAN:-0}))
grep -E '^(FAILED|ERROR|SKIPPED)' "$log" | sed 's/^/FAIL-or-SKIP pytest: /' | sed 's/^FAIL-or-SKIP pytest: SKIPPED/SKIP cli_python.sh:/; s/^FAIL-or-SKIP pytest: /FAIL cli_python.sh: /'
if [ "$rc" -ne 0 ] && [ "$T_FAIL" -eq 0 ]; then
    # pytest exit 5: no test collected; anything else: it stopped before counting
    [ "$rc" -eq 5 ] && t_skip "pytest collected no test" || { T_FAIL=1; tail -20 "$log"; }
fi
t_done
