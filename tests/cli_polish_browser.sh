# The memory views' finishing touches in headless Chromium
# (web/test-browser/polish.mjs): legend swatches and colours, the tables'
# size filter, no-rows row and one-line rows, whole-byte ticks and plurals on
# a few-byte trace, important notes open; and a report and `memlens serve` of
# the same input drawing the same bars and narrow counts in five states; and
# issue 28's views: tooltips inside the window and off their bar, stacks with
# their Python frames first, whole lane labels and lanes, the segment timeline
# on the clock, Ascend's curves by MindStudio Insight's names, the address's
# rank as the header's, aligned shortcuts, Trace links whole, Perfetto offline.
# SKIPs when chromium, node, web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
# a trace of a few bytes: 3 B and 2 B allocated, 3 B freed
cat >"$tmp/tiny.json" <<'JSON'
{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":3,"Total Allocated":3,"Total Reserved":4}},
{"ph":"X","cat":"cpu_op","name":"aten::zeros","pid":1,"tid":1,"ts":70,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":80,"args":{"Device Type":1,"Device Id":0,"Addr":100,"Bytes":2,"Total Allocated":5,"Total Reserved":5}},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":130,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":-3,"Total Allocated":2,"Total Reserved":5}}]}
JSON
pages=""
$MEMLENS report "$tmp/tiny.json" -o "$tmp/tiny.html" || t_fail "report of the tiny trace"
t_file_page tiny "$tmp/tiny.html" && pages="tiny=$tmp/tiny.html"
serve() { # KIND INPUT: a server of INPUT, its URL added as served-KIND
    : >"$tmp/$1.sout"  # emptied first: the URL of a server started before must not be read as this one's
    "$MEMLENS" serve --port 0 "$2" >"$tmp/$1.sout" 2>&1 &
    spids="$spids $!"
    url=$(t_serve_url "$tmp/$1.sout")
    if [ -n "$url" ]; then pages="$pages served-$1=$url"; else t_fail "served $1: server did not start: $(cat "$tmp/$1.sout")"; fi
}
add() { # KIND INPUT [serve]: a report's page (with serve: and its served page, compared with it)
    if [ -e "$DATA/$2" ]; then
        if ! $MEMLENS report "$DATA/$2" -o "$tmp/$1.html" 2>"$tmp/err"; then t_fail "report $2: $(cat "$tmp/err")"
        else
            # the report's page in the normal pass (SAN=1: its JavaScript is the same); the
            # served page in both (the server's C under the sanitizers), compared with the
            # report's where both run
            if t_file_page "$1" "$tmp/$1.html"; then pages="$pages $1=$tmp/$1.html"; fi
            [ -z "$3" ] || serve "$1" "$DATA/$2"
        fi
    else t_skip "$2 absent"; fi
}
add kineto kineto/hta_df_index_resolver.json.gz serve
add ascend ascend/text_level1 serve
add snapshot snapshot/cs336_memory_ctx256_fullstep_.pickle serve
add noaddr kineto/tbplugin_resnet50_w0.pt.trace.json.gz
if [ -z "$pages" ]; then
    # without the shared data, and with the report pages left to the normal pass (SAN=1), nothing is left to look at
    t_skip "no page to check in this pass (the shared data is absent$([ "${SAN:-0}" = 1 ] && echo '; report pages: normal pass only'))"
else
    # shellcheck disable=SC2086
    node web/test-browser/polish.mjs "${BUILD:-build}/screenshots/polish" $pages >"$tmp/log" 2>&1
    st=$?
    t_log "$tmp/log"
    t_log_ran "$tmp/log" "$st"
fi
for p in $spids; do kill -INT "$p" 2>/dev/null; wait "$p"; t_eq "a server stops cleanly" $? 0; done
spids=""
t_done
