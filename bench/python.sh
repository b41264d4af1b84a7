#!/bin/sh
# bench/python.sh — the Python API (python/memlens) beside the CLI on the
# realistic trace of bench/run: load(T).summary() against `summary --json`,
# and operators() as a DataFrame per 100,000 rows (bench/python_api.py says
# how; goals of issue 34: within 10%, under a second).  Needs .venv/ and the
# extension built in place (tests/cli_python.sh or setup.py build_ext
# --inplace); skips otherwise.  Reports; does not gate.
PY=${MEMLENS_PYTHON:-.venv/bin/python}
TRACE=${BENCH_TRACE:-}
if [ -z "$TRACE" ] || [ ! -s "$TRACE" ]; then echo "python: no BENCH_TRACE (run by bench/run)"; exit 0; fi
if ! PYTHONPATH=python "$PY" -c 'import memlens, pandas' 2>/dev/null; then
    echo "python: skipped (memlens or pandas not importable: setup.py build_ext --inplace)"; exit 0
fi
PYTHONPATH=python MEMLENS=${MEMLENS:-build/memlens} "$PY" bench/python_api.py "$TRACE" "${RUNS:-5}"
