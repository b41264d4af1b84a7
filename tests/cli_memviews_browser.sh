# The memory views in headless Chromium (web/test-browser/memviews.mjs): every
# shortcut on every kind of page without throwing, the `?` overlay, the
# static-graph view, address-less traces; served (memlens serve), the snapshot's
# state-history stacks and Ascend's Insight's columns as the report shows them.  Real data from ../shared/data;
# SKIPs when chromium, node, web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
add() { # KIND INPUT
    if [ -e "$DATA/$2" ]; then
        if ! $MEMLENS report "$DATA/$2" -o "$tmp/$1.html" 2>"$tmp/err"; then t_fail "report $2: $(cat "$tmp/err")"
        # (the served pages are compared with the snapshot's and Ascend's report pages where
        # both run: the normal pass; under SAN=1 the served pages run alone, the server's C
        # under the sanitizers, the page's JavaScript the same as in the normal pass)
        elif t_file_page "$1" "$tmp/$1.html"; then pages="$pages $1=$tmp/$1.html"; fi
    else t_skip "$2 absent"; fi
}
pages=""
add static ascend/static
add nomem kineto/param_linear_kineto.json.gz
add kineto kineto/hta_df_index_resolver.json.gz
add noaddr kineto/tbplugin_resnet50_w0.pt.trace.json.gz
add snapshot snapshot/cs336_memory_ctx256_fullstep_.pickle
add ascend ascend/text_level1
add ascenddb ascend/db_level1
# the snapshot again, its state history cut to the last 5,000 allocator events
if [ -e "$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle" ]; then
    if ! $MEMLENS report "$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle" --max-history 5000 -o "$tmp/history.html" 2>"$tmp/err"; then
        t_fail "report --max-history: $(cat "$tmp/err")"
    elif t_file_page history "$tmp/history.html"; then pages="$pages history=$tmp/history.html"; fi
fi
# served (memlens serve, port 0, stopped at the end): the snapshot's state-history stacks and
# Ascend's Insight's columns as the report's pages above show them
serve() { # KIND INPUT
    [ -e "$DATA/$2" ] || return 0
    : >"$tmp/sout-$1"
    "$MEMLENS" serve --port 0 "$DATA/$2" >"$tmp/sout-$1" 2>&1 &
    spids="$spids $!"
    url=$(t_serve_url "$tmp/sout-$1")
    if [ -n "$url" ]; then
        pages="$pages served-$1=$url"
        # loaded before the pages are checked (a load beside them slows the report's checks)
        for k in 0 1; do
            i=0
            while [ $i -lt 30 ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "${url}api/rank?rank=$k&wait=10000")" = 202 ]; do i=$((i + 1)); done
        done
    else t_fail "served $1: server did not start: $(cat "$tmp/sout-$1")"; fi
}
serve snapshot snapshot/cs336_memory_ctx256_fullstep_.pickle
serve ascend ascend/text_level1
if [ -n "$pages" ]; then
    # shellcheck disable=SC2086
    (cd web && node test-browser/memviews.mjs "../${BUILD:-build}/screenshots/memviews" $pages) >"$tmp/log" 2>&1
    st=$?
    t_log "$tmp/log"
    t_log_ran "$tmp/log" "$st"
fi
for p in $spids; do kill -INT "$p"; wait "$p"; t_eq "a server stops cleanly" $? 0; done
t_done
