# The Compare view (key 8) in headless Chromium (web/test-browser/compare.mjs):
# the report of `memlens diff -o` for two generated traces (memory, steps,
# operators, the tree), two allocator snapshots, two Ascend exports and two
# traces without memory events, and the same comparison served by `memlens
# serve BASE NEW` (/api/compare); the page's figures are those of `memlens
# diff --json`, and no console errors.  Screenshots go to
# build/screenshots/compare-*/.  SKIPs when chromium, node,
# web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
gen=${BUILD:-build}/tools/gen_trace
# pair NAME MODE BASE NEW: the report and --json of the pair; its page, light
# and dark, joins the pages that one Chromium checks at the end
pages=""
pair() {
    name=$1 mode=$2 base=$3 new=$4
    $MEMLENS diff --json "$base" "$new" >"$tmp/$name.json" || { t_fail "$name: memlens diff --json failed"; return; }
    $MEMLENS diff "$base" "$new" -o "$tmp/$name.html" || { t_fail "$name: memlens diff -o failed"; return; }
    t_file_page "$name" "$tmp/$name.html" || return 0
    pages="$pages $name|$mode|light|$tmp/$name.json|$tmp/$name.html $name|$mode|dark|$tmp/$name.json|$tmp/$name.html"
}
# two generated training runs: 4 and 5 layers, 3 steps each
"$gen" --steps 3 --seed 1 --layers 4 --out "$tmp/g1.json" >/dev/null 2>&1
"$gen" --steps 3 --seed 2 --layers 5 --out "$tmp/g2.json" >/dev/null 2>&1
pair traces trace "$tmp/g1.json" "$tmp/g2.json"
s1=$DATA/snapshot/cs336_memory_ctx128_forward.pickle s2=$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle
if [ -f "$s1" ] && [ -f "$s2" ]; then pair snapshots snapshot "$s1" "$s2"; else t_skip "snapshots absent"; fi
a=$DATA/ascend/text_level1
if [ -d "$a/rank0_ascend_pt" ] && [ -d "$a/rank1_ascend_pt" ]; then pair ascend ascend "$a/rank0_ascend_pt" "$a/rank1_ascend_pt"; else t_skip "Ascend exports absent"; fi
k=$DATA/kineto
if [ -f "$k/hta_sampled_rank-0.json.gz" ]; then pair nomemory time "$k/hta_sampled_rank-0.json.gz" "$k/hta_sampled_rank-1.json.gz"; else t_skip "HTA sampled traces absent"; fi
# served: the first two runs compared by /api/compare, the same figures as --json
: >"$tmp/sout"
"$MEMLENS" serve --port 0 "$tmp/g1.json" "$tmp/g2.json" >"$tmp/sout" 2>&1 &
spid=$!
url=$(t_serve_url "$tmp/sout")
if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"
else pages="$pages served|trace|light|$tmp/traces.json|$url"; fi
# every page in one Chromium, one after the other
node web/test-browser/compare.mjs "$shots" $pages >"$tmp/log" 2>&1
st=$?
t_log "$tmp/log"
[ -z "${VERBOSE:-}" ] || grep '^# ' "$tmp/log" # how long each page took
t_log_ran "$tmp/log" "$st"
if [ -n "$url" ]; then
    # the API's answer is the pair object of the page (web/DATA.md "Compare")
    curl -s "${url%/}/api/rank?rank=0&wait=10000" >/dev/null; curl -s "${url%/}/api/rank?rank=1&wait=10000" >/dev/null
    t_eq "served: /api/compare is memlens diff --json's pair" "$(curl -s "${url%/}/api/compare?base=0&new=1" | python3 -c "
import json, sys
a = json.load(sys.stdin); b = json.load(open('$tmp/traces.json'))['pairs'][0]
strip = lambda d: {k: v for k, v in d.items() if k not in ('base', 'new')}
print(a['base_rank'], a['new_rank'], strip(a['diff']) == strip(b))")" "0 1 True"
    t_contains "served: a rank not loaded" "$(curl -s "${url%/}/api/compare?base=0&new=7")" "error"
fi
kill -INT "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0
spid=""
t_done
