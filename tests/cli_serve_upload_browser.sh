# Uploads in the page (web/test-browser/upload.mjs, headless Chromium): a
# server started without input shows the drop zone; Browse with a generated
# trace and a bad file opens the trace and shows the bad file's error, the
# very line `memlens summary` prints; "Add a run" and a drop add more runs.
# Screenshots go to build/screenshots/upload/.  SKIPs without chromium, node
# or web/node_modules (scripts/setup).
. tests/lib.sh
t_browser_setup
gen=${BUILD:-build}/tools/gen_trace
if [ ! -x "$gen" ]; then
    t_skip "$gen not built"
else
    "$gen" --steps 1 --seed 5 --gzip --out "$tmp/train.pt.trace.json.gz" >/dev/null 2>&1
    printf 'hello, not a profile' >"$tmp/notes.json"
    line=$(cd "$tmp" && "$OLDPWD/$MEMLENS" summary notes.json 2>&1 >/dev/null)
    printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":40,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":-1048576,"Total Allocated":2097152,"Total Reserved":4194304}}]}' >"$tmp/small.json"
    mkdir -p "$tmp/serve"
    : >"$tmp/out"
    TMPDIR="$tmp/serve" "$MEMLENS" serve --port 0 >"$tmp/out" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/out")
    if [ -z "$url" ]; then
        t_fail "server did not start: $(cat "$tmp/out")"
    else
        node web/test-browser/upload.mjs "$url" "$tmp/train.pt.trace.json.gz" "$tmp/notes.json" "$line" "$tmp/small.json" \
            "${BUILD:-build}/screenshots/upload" >"$tmp/log" 2>&1
        t_log "$tmp/log"
        grep -q '^ok empty page starts' "$tmp/log" || t_fail "the page did not start: $(tail -5 "$tmp/log")"
        kill -TERM "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0
        spid=""
        t_eq "uploads folder removed" "$(ls -A "$tmp/serve")" ""
    fi
fi
t_done
