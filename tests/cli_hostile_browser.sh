# A hostile trace's page in headless Chromium (web/test-browser/hostile.mjs):
# 1,500 distinct operators (the table lists the top 1,000, says what the
# other 500 add up to, and `memlens serve` lists them all on request) and
# steps that overlap (the Overview's notes say so).  The trace is made here;
# no shared data needed.  The report's page runs in the normal pass, the
# served page in both.  SKIPs when chromium, node or web/node_modules are absent.
. tests/lib.sh
t_browser_setup
shots=${BUILD:-build}/screenshots/hostile
awk 'BEGIN {
    printf "{\"traceEvents\":[\n"
    printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10000},\n"
    printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":9000,\"dur\":10000},\n"
    for (i = 0; i < 1500; i++)
        printf "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%04d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n", i, i * 10, 1 + i % 9
    printf "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"host\"}}]}\n"
}' >"$tmp/wide.json"
note="1 step begins before the step before it ends"
$MEMLENS report "$tmp/wide.json" -o "$tmp/wide.html" || t_fail "report of the trace"
# both pages in one browser (t_page, t_browse in tests/lib.sh)
if t_file_page wide "$tmp/wide.html"; then t_page "$tmp/pages" report "$tmp/wide.html" "$shots/report" "$note" 1500 1000; fi
: >"$tmp/sout"  # emptied first: the URL of a server started before must not be read as this one's
"$MEMLENS" serve --port 0 "$tmp/wide.json" >"$tmp/sout" 2>&1 &
spid=$!
url=$(t_serve_url "$tmp/sout")
if [ -n "$url" ]; then t_page "$tmp/pages" served "$url" "$shots/served" "$note" 1500 1000
else t_fail "served: the server did not start: $(cat "$tmp/sout")"; fi
t_browse web/test-browser/hostile.mjs "$tmp/pages" "$tmp/log" "page starts"
kill -INT "$spid"; wait "$spid"; t_eq "the server stops cleanly" $? 0
spid=""
t_done
