# The Trace view in headless Chromium (web/test-browser/trace.mjs, #view=trace):
# lanes labelled, wheel zoom changes the axis, W/A/S/D, a kernel's detail names
# its launcher, the search highlights, no network request; on a real Kineto
# trace (report, dark report, served) and on a generated one with memory
# (--timing: pan/zoom frame times, printed).  Screenshots: build/screenshots/trace-*.
# SKIPs without chromium, node, web/node_modules or the data.
. tests/lib.sh
t_browser_setup
# one browser for all the pages (t_page, t_browse in tests/lib.sh): the server started before, stopped after
run_view() { # NAME PAGE [ARGS]
    name=$1 page=$2
    shift 2
    case $page in http*) ;; *) t_file_page "$name" "$page" || return 0 ;; esac
    t_page "$tmp/pages" "$name" "$page" "$shots/trace-$name" "$@"
}
real="$DATA/kineto/hta_nccl_data.json.gz"
if [ -f "$real" ]; then
    $MEMLENS report "$real" -o "$tmp/nccl.html"
    run_view nccl "$tmp/nccl.html"
    run_view nccl-dark "$tmp/nccl.html" --dark
    : >"$tmp/sout"  # emptied first: the URL of a server started before must not be read as this one's
    "$MEMLENS" serve --port 0 "$real" >"$tmp/sout" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/sout")
    if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"; else run_view served-nccl "$url"; fi
else
    t_skip "real kineto data absent ($real)"
fi
# a generated trace with memory: the memory tracks share the axis
"${BUILD:-build}/tools/gen_trace" --steps 6 --seed 3 --out "$tmp/gen.json" >/dev/null 2>&1
$MEMLENS report "$tmp/gen.json" -o "$tmp/gen.html"
run_view gen "$tmp/gen.html" --timing
t_browse web/test-browser/trace.mjs "$tmp/pages" "$tmp/log" "trace view starts"
if [ -n "$spid" ]; then kill -INT "$spid"; wait "$spid"; spid=""; fi
t_done
