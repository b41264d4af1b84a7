# Issue 33's view fixes (items 10-15) in headless Chromium
# (web/test-browser/views.mjs): history entries per view and selection
# (Cluster -> cell -> Trace -> Back), the Memory view's state in the address,
# `serve DIR` naming ranks by their own numbers before they load, Compare's
# device and verdicts, the Trace's critical path button and counter tracks at
# 1280x720, the Overview's step labels, the heatmap on resize, stacked
# tooltips, the peak rows, the straggler outlier, an operator's call stack,
# and no time views for snapshots and memory timelines.  Screenshots at
# 1280x720 and 1600x1000 in both themes go to build/screenshots/views-*/.
. tests/lib.sh
t_browser_setup python3 curl
GEN=${BUILD:-build}/tools/gen_trace
DATA=${DATA:-../shared/data}
"$GEN" --world-size 16 --out "$tmp/job" --plant --layers 1 --steps 3 --no-stack --expect "$tmp/planted.json" >/dev/null 2>&1
t_eq "gen_trace job" $? 0
$MEMLENS report "$tmp/job" -o "$tmp/job.html"
t_eq "job report exit" $? 0
if t_file_page job "$tmp/job.html"; then t_page "$tmp/pages" job job "$tmp/job.html" "$shots/views-job"; fi
$MEMLENS diff "$tmp/job/rank0.pt.trace.json" "$tmp/job/rank15.pt.trace.json" -o "$tmp/cmp.html" >/dev/null
t_eq "diff report exit" $? 0
if t_file_page compare "$tmp/cmp.html"; then t_page "$tmp/pages" compare compare "$tmp/cmp.html" "$shots/views-compare"; fi
# a trace whose operators have call stacks (with_stack=True): TensorBoard's plugin's ResNet-50
one=$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz
if [ -f "$one" ]; then
    $MEMLENS report "$one" -o "$tmp/one.html"
    t_eq "one-trace report exit" $? 0
    if t_file_page one "$tmp/one.html"; then t_page "$tmp/pages" one one "$tmp/one.html" "$shots/views-one"; fi
else t_skip "one: no $one"; fi
for f in snapshot:"$DATA/snapshot/silmont_mem_snapshot.pickle" timeline:"$DATA/memory_timeline/hta_memory_timeline.raw.json.gz"; do
    n=${f%%:*} p=${f#*:}
    [ -f "$p" ] || { t_skip "$n: no $p"; continue; }
    $MEMLENS report "$p" -o "$tmp/$n.html"
    t_eq "$n report exit" $? 0
    if t_file_page "$n" "$tmp/$n.html"; then t_page "$tmp/pages" "$n" "$n" "$tmp/$n.html" "$shots/views-$n"; fi
done
# served: the job's ranks named by their own numbers before they load
: >"$tmp/sout"
"$MEMLENS" serve --port 0 "$tmp/job" >"$tmp/sout" 2>&1 &
spid=$!
url=$(t_serve_url "$tmp/sout")
if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"; else
    t_eq "a rank not loaded yet has its own rank number" "$(curl -s "${url}api/meta" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(sorted(r["rank"] for r in m["ranks"]) == list(range(16)), sum(r["state"] == "pending" for r in m["ranks"]) >= 14)')" "True True"
    t_page "$tmp/pages" served served "$url" "$shots/views-served"
fi
t_browse web/test-browser/views.mjs "$tmp/pages" "$tmp/log" "page starts"
kill -INT "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0
spid=""
t_done
