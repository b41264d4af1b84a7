# The memory views in headless Chromium (web/test-browser/memviews.mjs): every
# shortcut on every kind of page without throwing, the `?` overlay, the
# static-graph view, address-less traces.  Real data from ../shared/data;
# SKIPs when chromium, node, web/node_modules or the data are absent.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ] || ! command -v node >/dev/null 2>&1 || [ ! -d web/node_modules/playwright-core ]; then
    t_skip "no chromium, node or web/node_modules (run scripts/setup)"
    t_done; exit
fi
add() { # KIND INPUT
    if [ -e "$DATA/$2" ]; then
        if $MEMLENS report "$DATA/$2" -o "$tmp/$1.html" 2>"$tmp/err"; then pages="$pages $1=$tmp/$1.html"
        else t_fail "report $2: $(cat "$tmp/err")"; fi
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
if [ -n "$pages" ]; then
    # shellcheck disable=SC2086
    (cd web && node test-browser/memviews.mjs "../${BUILD:-build}/screenshots/memviews" $(for p in $pages; do k=${p%%=*}; f=${p#*=}; echo "$k=$f"; done)) >"$tmp/log" 2>&1
    st=$?
    t_log "$tmp/log"
    t_log_ran "$tmp/log" "$st"
fi
t_done
