# The Cluster view (key 9) in headless Chromium (web/test-browser/cluster.mjs):
# a generated job of 16 ranks with planted problems, as a report whose size
# budget keeps some ranks summarised, and served by `memlens serve`.  The page
# opens on the Cluster view, the heatmap is drawn, the outliers beside it are
# exactly the planted ranks, the metric and the rows by node round-trip
# through the address, a click on a cell opens that rank's memory at that
# step, a summarised rank says so; the same for a report of 256 ranks.  Then
# the colour scale (clusterscale.mjs): a job whose steps are within 0.05 % of
# each other is one colour band, and the same job with one step of rank 5
# made 10 % longer shows that step apart.
# Screenshots go to build/screenshots/cluster-*/.
. tests/lib.sh
t_browser_setup
GEN=${BUILD:-build}/tools/gen_trace
run_page() { # NAME PAGE SCHEME [PLANTED]
    node web/test-browser/cluster.mjs "$2" "$shots/cluster-$1" "${4:-$tmp/planted.json}" "$3" >"$tmp/log" 2>&1
    t_log "$tmp/log" "$1"
    t_log_ran "$tmp/log" $?
    grep '^time ' "$tmp/log" | sed "s/^/$1 /"
}
"$GEN" --world-size 16 --out "$tmp/job" --plant --layers 1 --steps 3 --no-stack --expect "$tmp/planted.json" >/dev/null 2>&1
# about 190 kB a rank: a 2 MB page holds some of them, the planted ones first
$MEMLENS report "$tmp/job" -o "$tmp/job.html" --budget 2
t_eq "report exit" $? 0
t_eq "some ranks summarised" "$(python3 -c '
import json, re, sys
s = open(sys.argv[1]).read()
m = json.loads(re.search(r"<script type=\"application/json\" id=\"ml-meta\">(.*?)</script>", s, re.S).group(1))
p = json.load(open(sys.argv[2]))
e = m["embedded"]
emb = {r["rank"] for r in m["ranks"] if not r.get("summarised")}
planted = set(p["slow_ranks"]) | {p["leak_rank"], p["oom_rank"]}
print(0 < e["ranks"] < e["of"] == 16, planted <= emb, len(s) <= 2000000)' "$tmp/job.html" "$tmp/planted.json")" "True True True"
if t_file_page report "$tmp/job.html"; then run_page report "$tmp/job.html" light; fi
# a larger job, 256 ranks of two steps (2 px a rank): the same checks, the
# hover at the window's bottom edge among them
"$GEN" --world-size 256 --out "$tmp/big" --plant --layers 1 --steps 2 --no-stack --expect "$tmp/big.json" >/dev/null 2>&1
$MEMLENS report "$tmp/big" -o "$tmp/big.html" --budget 2
t_eq "256-rank report exit" $? 0
rm -rf "$tmp/big"
if t_file_page big "$tmp/big.html"; then run_page big "$tmp/big.html" light "$tmp/big.json"; fi
: >"$tmp/sout"
"$MEMLENS" serve --port 0 "$tmp/job" >"$tmp/sout" 2>&1 &
spid=$!
url=$(t_serve_url "$tmp/sout")
if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"; else run_page served "$url" dark; fi
kill -INT "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0
spid=""
# the colour scale: gen_trace's unplanted job (steps within 0.05 %), and
# the same with rank 5's last step 10 % longer
"$GEN" --world-size 16 --out "$tmp/even" --layers 1 --steps 3 --no-stack >/dev/null 2>&1
cp -r "$tmp/even" "$tmp/slow"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
last = max((e for e in d["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])
last["dur"] *= 1.1
json.dump(d, open(sys.argv[1], "w"))
print(last["dur"])' "$tmp/slow/rank5.pt.trace.json" >"$tmp/slow.us"
for j in even:-1 slow:5; do
    $MEMLENS report "$tmp/${j%:*}" -o "$tmp/${j%:*}.html"
    t_eq "${j%:*} report exit" $? 0
    if t_file_page "${j%:*}" "$tmp/${j%:*}.html"; then t_page "$tmp/pages" "${j%:*}" "$tmp/${j%:*}.html" "$shots/cluster-scale-${j%:*}" "${j#*:}" "$(cat "$tmp/slow.us")"; fi
done
t_browse web/test-browser/clusterscale.mjs "$tmp/pages" "$tmp/slog" "page starts"
t_done
