#!/bin/sh
# cli_categories.sh — `summary --by category`, categories_at_peak, `memlens export`
# in every format (checked against tests/torch_timeline.py, PyTorch's coalescing
# restated, and tests/trace_export_check.py), memory timelines as input, file
# modes and failures, and the category agreement with gen_trace's ground truth
# (tests/category_agreement.py).
. tests/lib.sh
GEN=${BUILD:-build}/tools/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PY=$(command -v python3)
json() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# A small generated trace: its truth says which category each allocation has.
if [ -x "$GEN" ]; then
    "$GEN" --out "$tmp/g.json" --steps 3 --layers 2 --truth "$tmp/truth.csv" --expect "$tmp/expect.json" 2>/dev/null
    out=$("$MEMLENS" summary --by category "$tmp/g.json")
    t_contains "by category" "$out" "live at the peak, by category (incl. memory from before the trace):"
    t_contains "activations" "$out" "ACTIVATION"
    t_contains "categories at the peak" "$out" "PARAMETER_OR_STATE"
    j=$("$MEMLENS" summary --json "$tmp/g.json")
    t_contains "json categories_at_peak" "$j" '"categories_at_peak": {'
    t_contains "json AUTOGRAD_DETAIL" "$j" '"AUTOGRAD_DETAIL": '
    printf '%s\n' "$j" >"$tmp/summary.json"
    for f in g.csv g.raw.json.gz g.timeline.json g.timeline.json.gz g.trace.json; do
        "$MEMLENS" export "$tmp/g.json" -o "$tmp/$f"
        t_eq "export $f" "$?" 0
    done
    t_eq "no temporary files left" "$(ls "$tmp" | grep -c '\.tmp\.')" 0
    t_contains "csv header" "$(head -1 "$tmp/g.csv")" "rank,device,addr,category,reason,op,top_level_op,stack_top"
    # exports read back as inputs
    for f in g.raw.json.gz g.timeline.json g.timeline.json.gz; do
        out=$("$MEMLENS" summary --json "$tmp/$f")
        t_eq "re-import $f" "$?" 0
        t_contains "re-import $f format" "$out" '"format": "torch-memory-timeline"'
    done
    if [ -n "$PY" ]; then
        j=$("$MEMLENS" summary --json --by category "$tmp/g.json")
        t_eq "by category: top_at_peak = categories_at_peak" "$(printf '%s' "$j" | json \
            'all({g["group"]: g["bytes"] for g in d["top_at_peak"]} == {k: v for k, v in d["categories_at_peak"].items() if v} for d in d["devices"])')" True
        # Agreement measured on this trace: 99.99% of all bytes (lenient), 99.93%
        # at the cuda peak; fail if it drops under 99%.
        res=$(python3 tests/category_agreement.py "$tmp/truth.csv" "$tmp/g.csv" "$tmp/expect.json" "$tmp/summary.json" --min 99)
        rc=$?
        t_eq "category agreement >= 99%" "$rc" 0
        [ "$rc" -eq 0 ] || printf '%s\n' "$res"
        # The Perfetto trace: valid, counters per device and category, adding up to the peak
        t_contains "trace counters" "$(python3 tests/trace_export_check.py "$tmp/g.trace.json" "$tmp/summary.json")" "ok"
        # ... on the slices' clock: the counters and the slices both in absolute µs
        t_eq "trace: counters and slices on one clock" "$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["traceEvents"]
x=[v["ts"] for v in e if v["ph"]=="X"]; c=[v["ts"] for v in e if v["ph"]=="C"]
print(bool(x) and bool(c) and abs(min(x)-min(c)) < 1e6 and min(c) > 1e15)' "$tmp/g.trace.json")" True
        # ... and memlens reads its own export back: the same peaks, at the same times
        t_eq "export read back: the peaks" "$("$MEMLENS" summary --json "$tmp/g.trace.json" | json '[(x["id"], x["peak_allocated_bytes"], x["peak_allocated_time_ns"], x["peak_reserved_bytes"]) for x in d["devices"]]')" \
            "$(json '[(x["id"], x["peak_allocated_bytes"], x["peak_allocated_time_ns"], x["peak_reserved_bytes"]) for x in d["devices"]]' <"$tmp/summary.json")"
        # .json alone is both PyTorch exports' name: --format says which
        err=$("$MEMLENS" export "$tmp/g.json" -o "$tmp/amb.json" 2>&1)
        t_eq "plain .json: refused" $? 2
        t_contains "plain .json: asks for --format" "$err" "say which with --format timeline or --format trace"
        "$MEMLENS" export "$tmp/g.json" -o "$tmp/amb.json" --format trace && \
            t_eq "--format trace: a Chrome trace" "$(head -c 40 "$tmp/amb.json")" '{"displayTimeUnit":"ns","otherData":{"pr'
        "$MEMLENS" export "$tmp/g.json" -o "$tmp/amb2.json" --format timeline && \
            t_eq "--format timeline: the timeline" "$(cmp "$tmp/amb2.json" "$tmp/g.timeline.json" && echo same)" same
        # The PyTorch timeline holds the same bytes as the summary at the peak
        res=$(python3 - "$tmp/g.timeline.json" "$tmp/summary.json" <<'PY'
import json, sys
times, sizes = json.load(open(sys.argv[1]))
peak = max(sum(s) for s in sizes)
want = [d for d in json.load(open(sys.argv[2]))["devices"] if d["id"] == "cuda:0"][0]["peak_allocated_bytes"]
print("ok" if peak == want else "timeline peak %d, summary %d" % (peak, want))
PY
)
        t_eq "timeline peak = summary peak" "$res" ok
        # .json is exactly what PyTorch's _coalesce_timeline makes of the raw rows,
        # and the raw rows are in PyTorch's order
        t_contains "json = coalesce(raw)" "$(python3 tests/torch_timeline.py check "$tmp/g.raw.json.gz" "$tmp/g.timeline.json")" "ok"
        t_contains "raw in (time, action) order" "$(python3 tests/torch_timeline.py check-raw "$tmp/g.raw.json.gz")" "ok"
        t_eq "json.gz = json" "$(python3 -c 'import gzip, json, sys; print(json.load(gzip.open(sys.argv[1])) == json.load(open(sys.argv[2])))' \
            "$tmp/g.timeline.json.gz" "$tmp/g.timeline.json")" True
        # round trips: .json -> .json the same entries, raw -> raw the same state at every time
        "$MEMLENS" export "$tmp/g.timeline.json" -o "$tmp/g2.timeline.json"
        t_eq "json round trip" "$(cmp "$tmp/g.timeline.json" "$tmp/g2.timeline.json" && echo same)" same
        "$MEMLENS" export "$tmp/g.raw.json.gz" -o "$tmp/g2.raw.json"
        t_contains "raw round trip" "$(python3 tests/torch_timeline.py same-levels "$tmp/g.raw.json.gz" "$tmp/g2.raw.json")" "ok"
        a=$("$MEMLENS" summary --json "$tmp/g.raw.json.gz" | json 'd["devices"][0]["before_trace_bytes_at_peak"]')
        b=$("$MEMLENS" summary --json "$tmp/g2.raw.json" | json 'd["devices"][0]["before_trace_bytes_at_peak"]')
        t_eq "raw round trip keeps the memory from before" "$b" "$a"
    else
        t_skip "python3 not installed"
    fi
    # --device: .csv and .trace.json hold only that device; an unknown one is an error
    "$MEMLENS" export "$tmp/g.json" -o "$tmp/d.csv" --device cuda:0
    t_eq "csv --device exit" "$?" 0
    t_eq "csv --device rows" "$(tail -n +2 "$tmp/d.csv" | cut -d, -f2 | sort -u)" "cuda:0"
    "$MEMLENS" export "$tmp/g.json" -o "$tmp/d.trace.json" --device cpu
    t_eq "trace --device" "$(grep -c '"process_name"' "$tmp/d.trace.json") $(grep -c 'cuda' "$tmp/d.trace.json")" "1 0"
    for f in d.csv d.trace.json d.timeline.json; do
        "$MEMLENS" export "$tmp/g.json" -o "$tmp/x$f" --device cuda:3 2>"$tmp/err"
        t_eq "unknown device $f exit" "$?" 2
        t_contains "unknown device $f message" "$(cat "$tmp/err")" "no device cuda:3 (it has: cpu, cuda:0)"
    done
    # Files get the mode fopen would give them; a failed write leaves nothing and exits 2
    (umask 022 && "$MEMLENS" export "$tmp/g.json" -o "$tmp/m1.csv")
    (umask 077 && "$MEMLENS" export "$tmp/g.json" -o "$tmp/m2.trace.json.gz")
    t_eq "file modes" "$(stat -c %a "$tmp/m1.csv" "$tmp/m2.trace.json.gz" | tr '\n' ' ')" "644 600 "
    (trap '' XFSZ; ulimit -f 4; "$MEMLENS" export "$tmp/g.json" -o "$tmp/big.csv" 2>"$tmp/err"; echo $? >"$tmp/rc")
    t_eq "failed write exit" "$(cat "$tmp/rc")" 2
    t_contains "failed write message" "$(cat "$tmp/err")" "big.csv: write failed"
    t_eq "failed write leaves nothing" "$(ls "$tmp" | grep -c '^big')" 0
else
    t_skip "$GEN not built"
fi

# The real raw timeline as an input, and its exports against PyTorch's coalescing
R="$DATA/memory_timeline/hta_memory_timeline.raw.json.gz"
if [ -f "$R" ]; then
    j=$("$MEMLENS" summary --json "$R")
    t_contains "real timeline peak" "$j" '"peak_allocated_bytes": 3082832104'
    t_contains "real timeline ACTIVATION at peak" "$j" '"ACTIVATION": 2592465920'
    "$MEMLENS" export "$R" -o "$tmp/r.raw.json"
    t_eq "real export raw" "$?" 0
    a=$("$MEMLENS" summary --json "$tmp/r.raw.json" | grep -A10 categories_at_peak)
    b=$(printf '%s\n' "$j" | grep -A10 categories_at_peak)
    t_eq "real round trip categories_at_peak" "$a" "$b"
    if [ -n "$PY" ]; then
        "$MEMLENS" export "$R" -o "$tmp/r.timeline.json"
        t_contains "real json = coalesce(the original file)" "$(python3 tests/torch_timeline.py check "$R" "$tmp/r.timeline.json")" "ok: 7718 entries"
        t_contains "real raw: same state per time" "$(python3 tests/torch_timeline.py same-levels "$R" "$tmp/r.raw.json")" "ok"
    fi
else
    t_skip "shared data not present"
fi

# A trace without addresses: its curve exported as Unknown (a note says so); no CSV of no allocations
O="$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
if [ -f "$O" ] && [ -n "$PY" ]; then
    "$MEMLENS" export "$O" -o "$tmp/o.json" --format timeline 2>"$tmp/err"
    t_eq "no addresses: export exit" "$?" 0
    t_contains "no addresses: note" "$(cat "$tmp/err")" "exported as Unknown"
    peak=$("$MEMLENS" summary --json "$O" | json '[x for x in d["devices"] if x["id"] == "cuda:0"][0]["peak_allocated_bytes"]')
    t_eq "no addresses: timeline peak = summary peak" \
        "$(python3 -c 'import json, sys; t, s = json.load(open(sys.argv[1])); print(max(x[8] for x in s))' "$tmp/o.json")" "$peak"
    "$MEMLENS" export "$O" -o "$tmp/o.csv" 2>"$tmp/err"
    t_eq "no addresses: csv exit" "$?" 2
    t_contains "no addresses: csv message" "$(cat "$tmp/err")" "no allocations to list"
    t_eq "no addresses: no csv" "$(ls "$tmp" | grep -c '^o\.csv')" 0
else
    t_skip "shared data or python3 not present"
fi

# Errors: one line naming the file, exit 2
"$MEMLENS" export "$tmp/nope.json" -o "$tmp/x.csv" 2>"$tmp/err"
t_eq "missing input exit" "$?" 2
t_contains "missing input message" "$(cat "$tmp/err")" "nope.json"
printf '[[-1, 1, 5, 9]]' >"$tmp/bad.raw.json"
"$MEMLENS" summary "$tmp/bad.raw.json" 2>"$tmp/err"
t_eq "bad timeline exit" "$?" 2
t_contains "bad timeline message" "$(cat "$tmp/err")" "bad.raw.json: byte"
printf '[[-1, 1, 5, 7]] x' >"$tmp/tail.raw.json"
"$MEMLENS" summary "$tmp/tail.raw.json" 2>"$tmp/err"
t_eq "trailing data exit" "$?" 2
t_contains "trailing data message" "$(cat "$tmp/err")" "tail.raw.json: byte 16:"
printf '[]' >"$tmp/empty.raw.json"
"$MEMLENS" summary "$tmp/empty.raw.json" 2>"$tmp/err"
t_eq "empty timeline: an error" "$? $(cat "$tmp/err")" \
    "2 memlens: $tmp/empty.raw.json: byte 0: no events: the memory timeline is empty (nothing was recorded for its device)"
printf '[[-1, 1, 5, 7]]' >"$tmp/ok.raw.json"
"$MEMLENS" export "$tmp/ok.raw.json" -o "$tmp/x.png" 2>"$tmp/err"
t_eq "unknown extension exit" "$?" 2
t_contains "unknown extension message" "$(cat "$tmp/err")" "x.png"
"$MEMLENS" export "$tmp/ok.raw.json" -o "$tmp/no/such/dir/x.csv" 2>"$tmp/err"
t_eq "unwritable output exit" "$?" 2
t_contains "unwritable output message" "$(cat "$tmp/err")" "no/such/dir/x.csv"
t_done
