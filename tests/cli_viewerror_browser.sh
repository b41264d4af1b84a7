# A view that cannot be drawn says why where it would be, and the page goes
# on (web/test-browser/viewerror.mjs, web/src/drawfail.js): a report of a small
# generated trace with one of its columns cut short (the category chart's; the
# allocation sizes the whole Memory view reads), and its served page with two
# API answers failed by the test.  No shared data needed.  The report's pages
# run in the normal pass, the served page in both.  SKIPs when chromium,
# node or web/node_modules are absent.
. tests/lib.sh
t_browser_setup
shots=${BUILD:-build}/screenshots/viewerror
"${BUILD:-build}/tools/gen_trace" --steps 1 --seed 1 --out "$tmp/t.json" >/dev/null 2>&1 || t_fail "gen_trace"
$MEMLENS report "$tmp/t.json" -o "$tmp/t.html" || t_fail "report of the trace"
if t_file_page catblob "$tmp/t.html"; then
    t_page "$tmp/pages" catblob catblob "$tmp/t.html" "$shots/catblob"
    t_page "$tmp/pages" allocblob allocblob "$tmp/t.html" "$shots/allocblob"
fi
: >"$tmp/sout"
"$MEMLENS" serve --port 0 "$tmp/t.json" >"$tmp/sout" 2>&1 &
spid=$!
url=$(t_serve_url "$tmp/sout")
if [ -n "$url" ]; then t_page "$tmp/pages" served served "$url" "$shots/served"
else t_fail "served: the server did not start: $(cat "$tmp/sout")"; fi
t_browse web/test-browser/viewerror.mjs "$tmp/pages" "$tmp/log" "page starts"
kill -INT "$spid"; wait "$spid"; t_eq "the server stops cleanly" $? 0
spid=""
t_done
