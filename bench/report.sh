#!/bin/sh
# bench/report.sh — `memlens report` on the generated trace (bench/run sets
# BENCH_TRACE): goals writing ≤ 3 s, file ≤ 60 MB, and in headless Chromium
# the page interactive ≤ 3 s after load and a zoom redraw ≤ 50 ms (median of
# 10 zooms, measured in the page with performance.now).  Reports; exit 1 on a
# missed goal.
BUILD=${BUILD:-build}
MEMLENS=${MEMLENS:-$BUILD/memlens}
trace=${BENCH_TRACE:-$BUILD/bench/trace.pt.trace.json}
[ -s "$trace" ] || { echo "report: no trace at $trace (run make bench)"; exit 0; }
dir=${BENCH_TMP:-/tmp}/memlens-bench-report-$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
ok=1
/usr/bin/time -v "$MEMLENS" report "$trace" -o "$dir/r.html" >"$dir/out.txt" 2>"$dir/time.txt" ||
    { echo "report: FAIL: memlens exited $?"; tail -3 "$dir/out.txt" "$dir/time.txt"; exit 1; }
secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
bytes=$(wc -c <"$dir/r.html" | tr -d ' ')
echo "report: $(($(wc -c <"$trace") / 1048576)) MiB trace -> $((bytes / 1048576)) MiB page in ${secs} s (peak RSS $((rss_kb / 1024)) MiB)"
awk -v s="$secs" 'BEGIN { exit !(s <= 3.0) }' || { echo "report: FAIL: writing took more than 3 s"; ok=0; }
[ "$bytes" -le $((60 * 1024 * 1024)) ] || { echo "report: FAIL: the page is larger than 60 MB"; ok=0; }
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
