# The profiler views in headless Chromium (web/test-browser/perf.mjs): a
# report of a distributed trace without memory events opens on Overview, the
# number keys switch tabs, Ctrl+F and the operators' search filter as you
# type, a header sorts, a row opens its detail, Esc closes it, the address
# reopens the same state, a 100k-row table renders only what is in sight;
# the same page served by `memlens serve` (/api/perf); a snapshot and an
# Ascend export open on Memory and the time views say why they are empty.  Screenshots of every
# tab, light and dark, go to build/screenshots/perf-*/.  SKIPs when chromium,
# node, web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
# one browser for all the pages (t_page, t_browse in tests/lib.sh): the server started before, stopped after
run_page() { # NAME PAGE MODE SCHEME [FIXTURE]
    case $2 in http*) ;; *) t_file_page "$1" "$2" || return 0 ;; esac
    t_page "$tmp/pages" "$1" "$2" "$shots/perf-$1" "$3" "$4" "${5:-}"
}
nccl="$DATA/kineto/hta_nccl_data.json.gz"
if [ -f "$nccl" ]; then
    $MEMLENS report "$nccl" -o "$tmp/nccl.html"
    t_eq "the report embeds rank 0's perf object" "$(grep -c '<script type="application/json" id="ml-perf-0">' "$tmp/nccl.html")" 1
    run_page trace-light "$tmp/nccl.html" trace light
    run_page trace-dark "$tmp/nccl.html" trace dark
    # the fixture's perf object (web/test/perf_fixture.json): modules and a distributed split
    run_page fixture "$tmp/nccl.html" trace light web/test/perf_fixture.json
    # emptied here, not by the background job's redirection, which may come after the first
    # read below: the previous server's URL (a closed port) was read then
    : >"$tmp/sout"
    "$MEMLENS" serve --port 0 "$nccl" >"$tmp/sout" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/sout")
    if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"; else run_page served "$url" trace light; fi
else
    t_skip "distributed trace absent ($nccl)"
fi
snap="$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle"
if [ -f "$snap" ]; then
    $MEMLENS report "$snap" -o "$tmp/snap.html"
    t_eq "a snapshot's report has no perf object" "$(grep -c '<script type="application/json" id="ml-perf-' "$tmp/snap.html")" 0
        run_page snapshot "$tmp/snap.html" snapshot light
    else
        t_skip "snapshot data absent"
    fi
    asc="$DATA/ascend/text_level1"
    if [ -d "$asc" ]; then
        $MEMLENS report "$asc" -o "$tmp/ascend.html" && run_page ascend "$tmp/ascend.html" memfirst light
    else
        t_skip "ascend data absent"
    fi
    t_browse web/test-browser/perf.mjs "$tmp/pages" "$tmp/log" "page starts"
if [ -n "$spid" ]; then kill -INT "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0; spid=""; fi
t_done
