#!/bin/sh
# cli_logdir.sh — TensorBoard logdirs (importers/logdir.h): runs → workers →
# spans.  summary/perf list a logdir's runs; diff/check take RUN or RUN@SPAN
# and refuse a logdir of several runs or spans, naming them; a directory of
# one job (one window per worker, or one worker name over the ranks of one
# distributedInfo) stays a job.  The real logdir is written by
# tensorboard_trace_handler (tests/tb_logdir.py, PyTorch in .venv); the
# others by tools/gen_trace, named as the handler names its files.
. "$(dirname "$0")/lib.sh"
: "${BUILD:=build}"
GEN=$BUILD/tools/gen_trace
PY=${PYTHON:-.venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- a real logdir, written by torch.profiler.tensorboard_trace_handler ----
if "$PY" -c 'import torch' 2>/dev/null; then
    "$PY" tests/tb_logdir.py "$tmp/tb" >/dev/null 2>&1
    out=$($MEMLENS summary "$tmp/tb")
    t_eq "logdir summary status" $? 0
    t_contains "logdir named" "$out" "a TensorBoard logdir of 2 runs"
    t_contains "run_a: one worker, two spans" "$out" "run run_a  ($tmp/tb/run_a)  1 worker, 2 spans"
    t_contains "run_b: one span" "$out" "run run_b  ($tmp/tb/run_b)  1 worker, 1 span"
    # the spans' own peaks (x of 2^18, then 2^19 floats, and 2^20 in run_b: twice x each, x*2 live)
    t_eq "span peaks in order" "$(printf '%s\n' "$out" | sed -n 's/^    span \([0-9]\) *cpu peak \([^,]*\) allocated.*/\1 \2/p' | tr '\n' ';')" \
        "1 2.00 MiB;2 4.00 MiB;1 8.00 MiB;"
    t_contains "how to pick" "$out" "memlens summary $tmp/tb/run_a@2"
    one=$(ls "$tmp/tb/run_a" | sort | tail -1)
    t_eq "a span's summary is its file's" "$($MEMLENS summary "$tmp/tb/run_a@2")" "$($MEMLENS summary "$tmp/tb/run_a/$one")"
    stamp=$(printf '%s' "$one" | sed 's/^worker0\.\([0-9]*\)\.pt\.trace\.json$/\1/')
    t_eq "a span by its timestamp" "$($MEMLENS summary "$tmp/tb/run_a@$stamp")" "$($MEMLENS summary "$tmp/tb/run_a/$one")"
    j=$($MEMLENS summary --json "$tmp/tb")
    t_eq "--json: runs, workers, spans" "$(printf '%s' "$j" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print([(r["name"], [(w["name"], [s["span"] for s in w["spans"]]) for w in r["workers"]]) for r in d["runs"]], d["runs"][1]["workers"][0]["spans"][0]["peak_allocated_bytes"])')" \
        "[('run_a', [('worker0', [1, 2])]), ('run_b', [('worker0', [1])])] 8388620"
    p=$($MEMLENS perf "$tmp/tb")
    t_contains "perf lists the runs too" "$p" "memlens perf $tmp/tb/run_a@2"
else
    t_skip "no PyTorch in $PY: the tensorboard_trace_handler logdir"
fi

# ---- a logdir of GPU traces: diff and check of RUN and RUN@SPAN ----
mkdir -p "$tmp/lg/run_a" "$tmp/lg/run_b"
$GEN --steps 2 --seed 1 --out "$tmp/lg/run_a/host_7.1700000000100.pt.trace.json" >/dev/null 2>&1
$GEN --steps 3 --seed 2 --out "$tmp/lg/run_a/host_7.1700000000200.pt.trace.json" >/dev/null 2>&1
$GEN --steps 4 --seed 3 --out "$tmp/lg/run_b/host_9.1700000000300.pt.trace.json" >/dev/null 2>&1
A2=$tmp/lg/run_a/host_7.1700000000200.pt.trace.json B=$tmp/lg/run_b/host_9.1700000000300.pt.trace.json
err=$($MEMLENS diff "$tmp/lg/run_a" "$tmp/lg/run_b" 2>&1 >/dev/null)
t_eq "diff of a run of two spans: refused" $? 2
t_contains "the spans named" "$err" "run run_a has 2 spans (profiling windows) per worker: name one, as $tmp/lg/run_a@N (N from 1 to 2)"
err=$($MEMLENS diff "$tmp/lg" "$B" 2>&1 >/dev/null)
t_contains "diff of a logdir of runs: refused" "$err" "a TensorBoard logdir of 2 runs (run_a, run_b): name one"
# the same comparison as of the two files (but for the names of the inputs)
same() { "$MEMLENS" diff --json "$1" "$2" | grep -v '^  "base"\|^  "new"\|"path"' | cksum; }
want=$(same "$A2" "$B")
t_eq "diff RUN@2 RUN = diff of the files" "$(same "$tmp/lg/run_a@2" "$tmp/lg/run_b")" "$want"
t_eq "diff RUN@TIMESTAMP" "$(same "$tmp/lg/run_a@1700000000200" "$tmp/lg/run_b")" "$want"
case "$($MEMLENS diff "$tmp/lg/run_a@1" "$tmp/lg/run_b" | head -3)" in
    *host_7.1700000000100.pt.trace.json*) t_pass ;; *) t_fail "diff RUN@1: not span 1" ;; esac
peak=$($MEMLENS summary --json "$A2" | sed -n 's/.*"peak_allocated_bytes": *\([0-9]*\).*/\1/p' | head -1)
$MEMLENS check "$tmp/lg/run_a@2" --max-peak "${peak}B" >/dev/null 2>&1
t_eq "check RUN@SPAN: the span's peak passes" $? 0
$MEMLENS check "$tmp/lg/run_a@2" --max-peak "$((peak - 1))B" >/dev/null 2>&1
t_eq "check RUN@SPAN: one byte less fails" $? 1
err=$($MEMLENS check "$tmp/lg/run_a@3" --max-peak 1GiB 2>&1)
t_eq "no such span: status" $? 2
t_contains "no such span" "$err" "no span 3 in $tmp/lg/run_a (a span is a number from 1 to 2"
out=$($MEMLENS summary "$tmp/lg")
t_contains "GPU logdir listed" "$out" "cuda:0 peak"
# export and a report of one span: RUN@SPAN as anywhere else; a logdir of several runs is refused
$MEMLENS export "$tmp/lg/run_a@2" -o "$tmp/a2.trace.json"
t_eq "export RUN@SPAN: that span" "$($MEMLENS summary --json "$tmp/a2.trace.json" | sed -n 's/.*"peak_allocated_bytes": *\([0-9]*\).*/\1/p' | head -1)" "$peak"
err=$($MEMLENS export "$tmp/lg" -o "$tmp/x.trace.json" 2>&1)
t_eq "export of a logdir of runs: refused" $? 2
t_contains "export of a logdir of runs: names them" "$err" "a TensorBoard logdir of 2 runs (run_a, run_b)"
$MEMLENS report "$tmp/lg/run_a@1" -o "$tmp/a1.html"
t_eq "report RUN@SPAN" $? 0
# the report of a logdir: each rank's run and span, for the page's run picker
$MEMLENS report "$tmp/lg" -o "$tmp/lg.html"
t_eq "report: runs and spans of the ranks" "$(grep -o '"run":"[^"]*","worker":"[^"]*","span":[0-9]*,"spans":[0-9]*' "$tmp/lg.html" | tr '\n' ' ')" \
    '"run":"run_a","worker":"host_7","span":1,"spans":2 "run":"run_a","worker":"host_7","span":2,"spans":2 "run":"run_b","worker":"host_9","span":1,"spans":1 '
# serve lists them the same way (its own listing is ml_units_list too)
if command -v curl >/dev/null 2>&1; then
    : >"$tmp/out"
    $MEMLENS serve --port 0 --no-follow "$tmp/lg" >"$tmp/out" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/out")
    t_eq "serve: runs and spans of the ranks" "$(curl -s -m 10 "${url}api/meta" | python3 -c 'import json,sys; print([(r["run"], r["worker"], r["span"]) for r in json.load(sys.stdin)["ranks"]])')" \
        "[('run_a', 'host_7', 1), ('run_a', 'host_7', 2), ('run_b', 'host_9', 1)]"
    t_eq "serve: no Cluster view of a logdir's runs and spans" "$(curl -s -m 10 "${url}api/meta" | python3 -c 'import json,sys; print("cluster" in json.load(sys.stdin))')" False
    kill -INT $spid; wait $spid
fi

# ---- one job stays a job ----
mkdir -p "$tmp/job" "$tmp/job2"
$GEN --steps 2 --rank 0 --world-size 2 --out "$tmp/job/trainer.1700000000100.pt.trace.json" >/dev/null 2>&1
$GEN --steps 2 --rank 1 --world-size 2 --out "$tmp/job/trainer.1700000000200.pt.trace.json" >/dev/null 2>&1
out=$($MEMLENS summary "$tmp/job")
case "$out" in *"TensorBoard logdir"*) t_fail "one worker name over two ranks read as spans: $out" ;; *) t_pass ;; esac
t_contains "the ranks of one distributedInfo: a job" "$out" "rank 1"
$GEN --steps 2 --out "$tmp/job2/host_1.1700000000100.pt.trace.json" >/dev/null 2>&1
$GEN --steps 2 --seed 5 --out "$tmp/job2/host_2.1700000000200.pt.trace.json" >/dev/null 2>&1
out=$($MEMLENS summary "$tmp/job2")
case "$out" in *"TensorBoard logdir"*) t_fail "one window per worker read as a logdir" ;; *) t_pass ;; esac
t_done
