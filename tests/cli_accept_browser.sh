# The acceptance criteria of the issue "Profiler views, part 2" (and the page
# parts of "Memory views") in headless Chromium, web/test-browser/accept.mjs:
#  - the report of tbplugin_resnet50_w0, light and dark: keys 1 to 6, GPU
#    Utilization, the GPU name, the DataLoader share, the operator
#    aten::cudnn_convolution_backward_weight, the Tensor Cores column, a drawn
#    timeline with "stream 7" and the python threads, the memory views,
#    Modules, and the looks (type scale, aligned numbers, units on axes,
#    legends and tooltips, step colours, themes); screenshots of every tab
#    in build/screenshots/accept-resnet50/;
#  - the same keys on the report of every shared/data trace without memory
#    events: never a blank tab, no page error;
#  - `memlens serve` with no input: the resnet50 trace through the file
#    input, then Operators shows its rows;
#  - two ranks (hta_sampled_rank-0 and -1; as files and as a directory),
#    report and serve: Distributed
#    lists both and names the slowest (the page, and /api/perf's
#    "distributed" over the ranks loaded);
#  - report writing of resnet50 under 10 s here (the speed bars proper are
#    bench/run's, on 400 MB traces).
# SKIPs when chromium, node, web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup python3
K="$DATA/kineto"
# page NAME MODE TARGET [SCHEME [ARG]]: one page for accept.mjs, all of them
# checked in one browser at the end (the servers started before, stopped after)
page() {
    case $3 in http*) ;; *) t_file_page "$1" "$3" || return 0 ;; esac
    case $1 in *-light|*-dark) t_dir=${1%-*} ;; *) t_dir=$1 ;; esac # both schemes' screenshots in one folder
    t_page "$tmp/pages" "$1" "$2" "$3" "$shots/accept-$t_dir" "${4:-light}" "${5:-}"
}
# start_server ARGS...: adds to spids, sets url
start_server() {
    : >"$tmp/sout" # emptied here: the background job's own truncation could come after the first read (the previous server's URL)
    : >"$tmp/sout"  # emptied first: the URL of a server started before must not be read as this one's
    "$MEMLENS" serve --port 0 "$@" >"$tmp/sout" 2>&1 &
    spid=$!
    spids="$spids $spid"
    url=$(t_serve_url "$tmp/sout")
    [ -n "$url" ] || t_fail "server did not start: $(cat "$tmp/sout")"
}
stop_server() { # PID
    kill -INT "$1"; wait "$1"; t_eq "server stops cleanly" $? 0
    spids=$(echo " $spids " | sed "s/ $1 / /")
}

if [ ! -f "$K/tbplugin_resnet50_w0.pt.trace.json.gz" ]; then
    t_skip "the shared data is absent ($DATA)"
else
    resnet="$K/tbplugin_resnet50_w0.pt.trace.json.gz"
    gpu=$(python3 -c 'import gzip,json,sys; print(json.load(gzip.open(sys.argv[1]))["deviceProperties"][0]["name"])' "$resnet")
    t0=$(date +%s%N)
    $MEMLENS report "$resnet" -o "$tmp/resnet.html"
    t_eq "report of resnet50 writes" $? 0
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "report of resnet50: $ms ms"
    [ "$ms" -lt 10000 ] && t_pass || t_fail "report of resnet50 took $ms ms (bar here: 10 s)"
    page resnet50-light resnet "$tmp/resnet.html" light "$gpu"
    page resnet50-dark resnet "$tmp/resnet.html" dark "$gpu"
    # every trace in shared/data without memory events
    for f in param_linear_kineto.json.gz hta_alexnet.json.gz hta_nccl_data.json.gz hta_sampled_rank-0.json.gz \
        hta_amd_mi250.json.gz hta_triton_example.json.gz hta_cpu_only.pt.trace.json.gz; do
        [ -f "$K/$f" ] || { t_skip "$f absent"; continue; }
        n=$(python3 -c 'import gzip,json,sys; print(sum(1 for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("name") == "[memory]"))' "$K/$f")
        t_eq "$f has no memory events" "$n" 0
        name=${f%%.*}
        if $MEMLENS report "$K/$f" -o "$tmp/$name.html"; then page "$name" trace "$tmp/$name.html"; else t_fail "report of $f"; fi
    done
    # serve with no input: upload resnet50 through the file input
    start_server
    [ -n "$url" ] && page upload upload "$url" light "$resnet"
    # two ranks: the report, then the server
    r0="$K/hta_sampled_rank-0.json.gz" r1="$K/hta_sampled_rank-1.json.gz"
    if [ -f "$r0" ] && [ -f "$r1" ]; then
        $MEMLENS report "$r0" "$r1" -o "$tmp/two.html"
        # each rank's perf object: the job's slowest rank and its own rows (the page gathers them)
        t_eq "two-rank report: each rank's perf object has its own distributed rows, the job's slowest rank" "$(python3 - "$tmp/two.html" <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
out = []
for k in (0, 1):
    m = re.search(r'<script type="application/json" id="ml-perf-%d">(.*?)</script>' % k, s, re.S)
    d = json.loads(m.group(1))["distributed"] if m else None
    out.append("none" if not d else "%s slowest=%s" % (sorted({x["rank"] for x in d["steps"]}), d["slowest_rank"]))
print(" | ".join(out))
EOF
)" "[0] slowest=1 | [1] slowest=1"
        page dist-report dist "$tmp/two.html" light 2:1
        mkdir -p "$tmp/ranks" && ln -s "$(cd "$(dirname "$r0")" && pwd)/$(basename "$r0")" "$(cd "$(dirname "$r1")" && pwd)/$(basename "$r1")" "$tmp/ranks/"
        $MEMLENS report "$tmp/ranks" -o "$tmp/dir.html"
        t_eq "a directory of two ranks: each rank's own rows, the job's slowest rank" "$(python3 - "$tmp/dir.html" <<'EOF2'
import json, re, sys
s = open(sys.argv[1]).read()
out = set()
for m in re.finditer(r'<script type="application/json" id="ml-perf-\d+">(.*?)</script>', s, re.S):
    d = json.loads(m.group(1))["distributed"]
    out.add("none" if not d else "%s slowest=%s" % (sorted({x["rank"] for x in d["steps"]}), d["slowest_rank"]))
print(" | ".join(sorted(out)))
EOF2
)" "[0] slowest=1 | [1] slowest=1"
        start_server "$r0" "$r1"
        if [ -n "$url" ]; then
            # ranks load lazily: the distributed view covers the ranks loaded when /api/perf is asked,
            # and is made again when more have loaded (rank 1 stays pending until asked for)
            dist_of() { # RANK: the ranks its distributed view covers, and the slowest (or why not)
                i=0
                while [ $i -lt 3 ]; do
                    code=$(curl -s -m 60 -o "$tmp/perf.json" -w '%{http_code}' "${url%/}/api/perf?rank=$1")
                    [ "$code" = 200 ] && break
                    sleep 1; i=$((i + 1))
                done
                python3 - "$tmp/perf.json" "$code" <<'EOF2'
import json, sys
try:
    d = json.load(open(sys.argv[1])).get("distributed")
    print("none" if not d else "%s slowest=%s" % (sorted({x["rank"] for x in d["steps"]}), d["slowest_rank"]))
except Exception as e:
    print("HTTP %s, %s: %s" % (sys.argv[2], e, open(sys.argv[1], errors="replace").read()[:200]))
EOF2
            }
            curl -s -m 20 -o /dev/null "${url%/}/api/rank?rank=0&wait=10000"
            t_eq "serve: /api/perf?rank=0 with rank 0 alone loaded" "$(dist_of 0)" "[0] slowest=0"
            for k in 1 1 1; do curl -s -m 20 -o /dev/null "${url%/}/api/rank?rank=$k&wait=10000"; done
            for k in 0 1; do
                t_eq "serve: /api/perf?rank=$k once both are loaded: its own rows, the slowest of both" "$(dist_of $k)" "[$k] slowest=1"
            done
            stop_server "$spid"
            # a fresh server and page: the page asks for rank 0 alone, then "Load the other 1 rank"
            start_server "$r0" "$r1"
            [ -n "$url" ] && page dist-serve dist "$url" light 2:1
        fi
    else
        t_skip "hta_sampled ranks absent"
    fi
    # the page parts of "Memory views": the static report (Ascend static graphs) draws and switches graphs
    if [ -d "$DATA/ascend/static" ]; then
        $MEMLENS report "$DATA/ascend/static" -o "$tmp/static.html" && page static memstatic "$tmp/static.html"
    else
        t_skip "ascend/static absent"
    fi
    # a snapshot: the MemoryViz views by name, the state history steps through events
    snap="$DATA/snapshot/cs336_memory_ctx128_forward.pickle"
    if [ -f "$snap" ]; then
        $MEMLENS report "$snap" -o "$tmp/snap.html" && page snapshot snapshot "$tmp/snap.html"
    else
        t_skip "snapshot absent"
    fi
    t_browse web/test-browser/accept.mjs "$tmp/pages" "$tmp/log" "the page starts"
fi
for p in $spids; do stop_server "$p"; done
t_done
