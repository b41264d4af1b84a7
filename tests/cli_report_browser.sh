# The HTML report in headless Chromium (web/test-browser/report.mjs): real data
# from ../shared/data, peak label = summary's peak, drag-zoom, click a bar,
# switch device and rank.  Screenshots go to build/screenshots/.  SKIPs when
# chromium, node or web/node_modules (scripts/setup) or the data are absent.
# The same scenario runs against `memlens serve` (port 0, stopped at the end).
# One browser for every page: the servers are started first, side by side.
. tests/lib.sh
t_browser_setup
add_page() { # NAME REPORT EXPECTED-PEAK SCHEME
    t_file_page "$1" "$2" || return 0
    t_page "$tmp/pages" "$1" "$2" "$3" "$shots/$1" "$4"
}
add_served() { # NAME INPUT EXPECTED-PEAK SCHEME
    : >"$tmp/$1.sout"  # emptied first: the URL of a server started before must not be read as this one's
    "$MEMLENS" serve --port 0 "$2" >"$tmp/$1.sout" 2>&1 &
    spids="$spids $!"
    url=$(t_serve_url "$tmp/$1.sout")
    if [ -z "$url" ]; then t_fail "$1: server did not start: $(cat "$tmp/$1.sout")"; else t_page "$tmp/pages" "$1" "$url" "$3" "$shots/$1" "$4"; fi
}
real="$DATA/kineto/hta_df_index_resolver.json.gz"
if [ -f "$real" ]; then
    $MEMLENS report "$real" -o "$tmp/kineto.html"
    peak=$($MEMLENS summary --json "$real" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(max(x["peak_allocated_bytes"] for x in d["devices"]))')
    t_eq "summary peak" "$peak" 6629508096
    add_page kineto-light "$tmp/kineto.html" "$peak" light
    add_page kineto-dark "$tmp/kineto.html" "$peak" dark
    add_served served-kineto "$real" "$peak" light
else
    t_skip "real kineto data absent ($real)"
fi
# report_both NAME INPUT PEAK: INPUT's report file and its served page, or a
# skip when the data is absent
report_both() {
    if [ -e "$2" ]; then
        $MEMLENS report "$2" -o "$tmp/$1.html" && add_page "$1" "$tmp/$1.html" "$3" light
        add_served "served-$1" "$2" "$3" light
    else
        t_skip "$1 data absent ($2)"
    fi
}
report_both ascend "$DATA/ascend/text_level1" ""
report_both snapshot "$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle" ""
# inputs the page cannot chart: a trace without memory events; one without addresses
report_both nomem "$DATA/kineto/param_linear_kineto.json.gz" ""
# recorded with profile_memory on (torch 2.13's header) around code that allocated nothing
printf '{"schemaVersion":1,"profile_memory":1,"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add_","pid":1,"tid":1,"ts":10,"dur":5}]}' >"$tmp/pmnone.json"
report_both pmnone "$tmp/pmnone.json" ""
old="$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
if [ -f "$old" ]; then
    $MEMLENS report "$old" -o "$tmp/old.html" && add_page old "$tmp/old.html" 2791636480 light
else
    t_skip "old-format trace absent"
fi
rm -f "$shots/kineto-light/export.csv" "$shots/served-kineto/export.csv" # none left from an earlier run
t_browse web/test-browser/report.mjs "$tmp/pages" "$tmp/log" "page starts"
# the same rows, the same text: the page's export and the server's
if [ -f "$real" ] && t_file_page kineto-export=served-export; then
    if cmp -s "$shots/kineto-light/export.csv" "$shots/served-kineto/export.csv"; then t_pass
    else t_fail "the report's and the server's CSV exports differ: $(diff "$shots/kineto-light/export.csv" "$shots/served-kineto/export.csv" | head -4)"; fi
fi
for p in $spids; do kill -INT "$p"; wait "$p"; t_eq "a server stops cleanly" $? 0; done
spids=""
t_done
