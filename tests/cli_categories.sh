#!/bin/sh
# cli_categories.sh — `summary --by category`, categories_at_peak, `memlens export`
# in every format, memory timelines as input, and the category agreement with
# gen_trace's ground truth (tests/category_agreement.py).
. tests/lib.sh
GEN=${BUILD:-build}/tools/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
    for f in g.csv g.raw.json.gz g.timeline.json g.timeline.json.gz g.trace.json; do
        "$MEMLENS" export "$tmp/g.json" -o "$tmp/$f"
        t_eq "export $f" "$?" 0
    done
    t_eq "no temporary files left" "$(ls "$tmp" | grep -c '\.tmp\.')" 0
    t_contains "csv header" "$(head -1 "$tmp/g.csv")" "rank,device,addr,category,reason,op,top_level_op,stack_top"
    t_contains "trace counters" "$(head -c 2000 "$tmp/g.trace.json")" '"ph": "C"'
    # exports read back as inputs
    for f in g.raw.json.gz g.timeline.json g.timeline.json.gz; do
        out=$("$MEMLENS" summary --json "$tmp/$f")
        t_eq "re-import $f" "$?" 0
        t_contains "re-import $f format" "$out" '"format": "torch-memory-timeline"'
    done
    if command -v python3 >/dev/null 2>&1; then
        # Agreement measured on this trace: 99.96% of all bytes (lenient), 99.74%
        # at the cpu peak; fail if it drops under 99%.
        printf '%s\n' "$j" >"$tmp/summary.json"
        res=$(python3 tests/category_agreement.py "$tmp/truth.csv" "$tmp/g.csv" "$tmp/expect.json" "$tmp/summary.json" --min 99)
        rc=$?
        t_eq "category agreement >= 99%" "$rc" 0
        [ "$rc" -eq 0 ] || printf '%s\n' "$res"
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
    else
        t_skip "python3 not installed"
    fi
else
    t_skip "$GEN not built"
fi

# The real raw timeline as an input
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
else
    t_skip "shared data not present"
fi

# Errors: one line naming the file, exit 2
"$MEMLENS" export "$tmp/nope.json" -o "$tmp/x.csv" 2>"$tmp/err"
t_eq "missing input exit" "$?" 2
t_contains "missing input message" "$(cat "$tmp/err")" "nope.json"
printf '[[-1, 1, 5, 9]]' >"$tmp/bad.raw.json"
"$MEMLENS" summary "$tmp/bad.raw.json" 2>"$tmp/err"
t_eq "bad timeline exit" "$?" 2
t_contains "bad timeline message" "$(cat "$tmp/err")" "bad.raw.json: byte"
printf '[[-1, 1, 5, 7]]' >"$tmp/ok.raw.json"
"$MEMLENS" export "$tmp/ok.raw.json" -o "$tmp/x.png" 2>"$tmp/err"
t_eq "unknown extension exit" "$?" 2
t_contains "unknown extension message" "$(cat "$tmp/err")" "x.png"
"$MEMLENS" export "$tmp/ok.raw.json" -o "$tmp/no/such/dir/x.csv" 2>"$tmp/err"
t_eq "unwritable output exit" "$?" 2
t_contains "unwritable output message" "$(cat "$tmp/err")" "no/such/dir/x.csv"
t_done
