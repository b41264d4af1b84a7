# The page of `memlens serve LOGDIR` (web/test-browser/follow.mjs, headless
# Chromium): the run picker beside the rank picker, the "following" notice,
# and a run written while the page is open appearing in it; the run picker
# of the report file of the same logdir; none on a report of one run.  Screenshots go
# to build/screenshots/follow/.  SKIPs without chromium, node or
# web/node_modules (scripts/setup).
. tests/lib.sh
t_browser_setup
gen=${BUILD:-build}/tools/gen_trace
if [ ! -x "$gen" ]; then
    t_skip "$gen not built"
else
    mkdir -p "$tmp/lg/run_a" "$tmp/lg/run_b"
    "$gen" --steps 1 --seed 1 --out "$tmp/lg/run_a/host_7.1700000000100.pt.trace.json" >/dev/null 2>&1
    "$gen" --steps 1 --seed 2 --out "$tmp/lg/run_a/host_7.1700000000200.pt.trace.json" >/dev/null 2>&1
    "$gen" --steps 1 --seed 3 --out "$tmp/lg/run_b/host_9.1700000000300.pt.trace.json" >/dev/null 2>&1
    "$gen" --steps 1 --seed 4 --out "$tmp/new.json" >/dev/null 2>&1
    "$MEMLENS" report "$tmp/lg" -o "$tmp/lg.html"
    "$MEMLENS" report "$tmp/new.json" -o "$tmp/trace.html"               # no runs
    mkdir -p "$tmp/lg1/run_x"; cp "$tmp/lg/run_b/host_9.1700000000300.pt.trace.json" "$tmp/lg1/run_x/"
    "$MEMLENS" report "$tmp/lg1" -o "$tmp/one-run.html"                  # a logdir of one run
    : >"$tmp/out"
    "$MEMLENS" serve --port 0 "$tmp/lg" >"$tmp/out" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/out")
    if [ -z "$url" ]; then
        t_fail "server did not start: $(cat "$tmp/out")"
    else
        node web/test-browser/follow.mjs "$url" "$tmp/new.json" "$tmp/lg" "${BUILD:-build}/screenshots/follow" "$tmp/lg.html" \
            "$tmp/trace.html" "$tmp/one-run.html" >"$tmp/log" 2>&1
        t_log "$tmp/log"
        t_log_ran "$tmp/log" $?
        kill -TERM "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0
        spid=""
    fi
fi
t_done
