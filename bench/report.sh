#!/bin/sh
# bench/report.sh — `memlens report` on the generated traces (bench/run sets
# BENCH_TRACE, the realistic one, and BENCH_DIR, where the memory-heavy one
# of the same size lies): goals writing the realistic 400 MB trace <= 1.0 s
# and the memory-heavy one <= 1.1 s (hyperfine's min of $RUNS runs; judged on
# a quiet machine only, as bench/run does: CPU s is shown either way), file
# <= 60 MB, and in headless Chromium the page interactive <= 3 s after load
# and a zoom redraw <= 50 ms (median of 10 zooms, measured in the page with
# performance.now).  Also prints the report's own phases (MEMLENS_PHASES:
# after loading, which the report writer owns).  Reports; exit 1 on a missed
# goal.  (The phases are wall times of one run: on a busy machine, rough.)
BUILD=${BUILD:-build}
MEMLENS=${MEMLENS:-$BUILD/memlens}
RUNS=${RUNS:-5}
trace=${BENCH_TRACE:-$BUILD/bench/trace.pt.trace.json}
[ -s "$trace" ] || { echo "report: no trace at $trace (run make bench)"; exit 0; }
heavy=$(ls "${BENCH_DIR:-$(dirname "$trace")}"/memory-heavy-*mb.json 2>/dev/null | head -1)
dir=${BENCH_TMP:-/tmp}/memlens-bench-report-$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
ok=1
cores=$(nproc 2>/dev/null || echo 1)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
busy=$(awk -v l="$load" -v c="$cores" 'BEGIN { if (l + 0 > c + 0.5) print 1 }')
[ -n "$busy" ] && echo "report: the machine is busy (load $load on $cores cores): wall goals not judged"
# one NAME TRACE GOAL_S: times `memlens report TRACE`, prints one line, judges the goal
one() {
    /usr/bin/time -f '%M %U %S %e' -o "$dir/time.txt" "$MEMLENS" report "$2" -o "$dir/r.html" >"$dir/out.txt" 2>&1 ||
        { echo "report: FAIL: memlens exited $? on $2"; tail -3 "$dir/out.txt"; ok=0; return; }
    set -- "$@" $(cat "$dir/time.txt")  # $4 RSS KiB, $5 user s, $6 sys s, $7 wall s
    min=$7 med=$7
    if command -v hyperfine >/dev/null 2>&1; then
        hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$dir/hf.json" "$MEMLENS report $2 -o $dir/r.html" >/dev/null 2>&1 &&
            min=$(sed -n 's/^ *"min": \([0-9.e+-]*\),*$/\1/p' "$dir/hf.json" | head -1) &&
            med=$(sed -n 's/^ *"median": \([0-9.e+-]*\),*$/\1/p' "$dir/hf.json" | head -1)
    fi
    bytes=$(wc -c <"$dir/r.html" | tr -d ' ')
    printf 'report: %s: %d MiB trace -> %.1f MB page in %.3f s min, %.3f s median (CPU %.2f s, peak RSS %d MiB)\n' \
        "$1" $(($(wc -c <"$2") / 1048576)) "$(echo "$bytes" | awk '{ print $1 / 1e6 }')" "$min" "$med" \
        "$(echo "$5 $6" | awk '{ print $1 + $2 }')" $(($4 / 1024))
    MEMLENS_PHASES=1 "$MEMLENS" report "$2" -o "$dir/r.html" 2>&1 |
        sed -n 's/^memlens: phase \(report: [^:]*\|perf analyses\): \([0-9.]*\) ms.*/\1 \2/p' |
        awk -v n="$1" '{ ms = $NF; $NF = ""; sub(/^report: /, ""); sub(/ $/, ""); s = s sep $0 " " ms; sep = ", "; t += ms }
                       END { if (s != "") printf "report: %s: after loading (ms, one run): %s; %.0f in all\n", n, s, t }'
    if [ -z "$busy" ] && ! awk -v s="$min" -v g="$3" 'BEGIN { exit !(s <= g) }'; then
        echo "report: FAIL: $1 took more than $3 s"; ok=0
    fi
    [ "$bytes" -le $((60 * 1024 * 1024)) ] || { echo "report: FAIL: the $1 page is larger than 60 MB"; ok=0; }
}
one realistic "$trace" 1.0
[ -n "$heavy" ] && [ -s "$heavy" ] && one memory-heavy "$heavy" 1.1
"$MEMLENS" report "$trace" -o "$dir/r.html" >/dev/null 2>&1
if [ -x /usr/bin/chromium ] && [ -d web/node_modules/playwright-core ]; then
    node web/test-browser/report.mjs "$dir/r.html" "" "$dir/shots" light >"$dir/browser.txt" 2>&1
    grep '^FAIL' "$dir/browser.txt" | sed 's/^/report: browser: /'
    inter=$(sed -n 's/^time interactive_ms //p' "$dir/browser.txt")
    zoom=$(sed -n 's/^time zoom_redraw_median_ms //p' "$dir/browser.txt")
    zmax=$(sed -n 's/^time zoom_redraw_max_ms //p' "$dir/browser.txt")
    echo "report: in Chromium: interactive ${inter:-?} ms after load, zoom redraw median ${zoom:-?} ms (max ${zmax:-?} ms)"
    [ -n "$inter" ] && [ "$inter" -le 3000 ] || { echo "report: FAIL: not interactive within 3 s"; ok=0; }
    awk -v z="${zoom:-999}" 'BEGIN { exit !(z <= 50) }' || { echo "report: FAIL: zoom redraw above 50 ms"; ok=0; }
else
    echo "report: no chromium or web/node_modules: browser timings skipped (run scripts/setup)"
fi
[ $ok -eq 1 ] && echo "report: ok"
[ $ok -eq 1 ]
