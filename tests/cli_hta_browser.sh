# HolisticTraceAnalysis's analyses in headless Chromium (web/test-browser/hta.mjs):
# the critical path over the Trace view (a report and the same trace served),
# the frequent kernel sequences of the Kernels view, the CUPTI counters of a
# trace recorded in CUPTI profiler mode and the stragglers of the Distributed
# view (hand-written traces, written here; answers worked out below).
# Screenshots go to build/screenshots/hta-*/.  SKIPs when chromium, node,
# web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
# one browser for all the pages (t_page, t_browse in tests/lib.sh): the server started before, stopped after
run_page() { # NAME PAGE MODE SCHEME EXPECT
    case $2 in http*) ;; *) t_file_page "$1" "$2" || return 0 ;; esac
    t_page "$tmp/pages" "$1" "$2" "$shots/hta-$1" "$3" "$4" "$5"
}
# CUPTI profiler mode: five kernels, the i-th launched by the i-th cudaLaunchKernel; kernel k
# (1..5) counts 10^(k+4) ffma (2 FLOPs each) and 10^k fadd: FLOPs 2·10^(k+4) + 10^k, the largest
# 2·10^9 + 10^5 = 2.0001e9, shown as "2 G" (four digits).
python3 - "$tmp/cupti.json" <<'PY'
import json, sys
ev = []
for k in range(1, 6):
    t = k * 100
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t, "dur": 50})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 10, "dur": 5, "args": {"correlation": k}})
    ev.append({"ph": "X", "cat": "cuda_profiler_range", "name": "gemm_%d" % k, "pid": 0, "tid": 0, "ts": 10000 + k * 1000, "dur": 900,
               "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 10 ** (k + 4),
                        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 10 ** k}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
$MEMLENS report "$tmp/cupti.json" -o "$tmp/cupti.html"; t_eq "cupti report" $? 0
run_page cupti "$tmp/cupti.html" cupti light "5|2 G"
# Three ranks (as tests/test_hta.c): the all-reduce starts at 500/600/800 µs into step 1 and
# 500/900/550 into step 2 (step 3, each rank's last, is left out); the two latest of each
# step are ranks 2, 1 then 1, 2: stragglers 1 and 2; 6 bars, 4 of them marked.
mkdir -p "$tmp/ranks"
python3 - "$tmp/ranks" <<'PY'
import json, sys
for rank, starts in ((0, (500, 500, 300)), (1, (600, 900, 300)), (2, (800, 550, 300))):
    ev = []
    for step in (1, 2, 3):
        base, c, s = (step - 1) * 1000, step * 10, starts[step - 1]
        ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 1, "tid": 1, "ts": base, "dur": 1000},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": base + 10, "dur": 2, "args": {"correlation": c}},
               {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32", "pid": 0, "tid": 20, "ts": base + s, "dur": 950 - s,
                "args": {"correlation": c, "stream": 20, "device": 0}}]
    json.dump({"distributedInfo": {"rank": rank, "world_size": 3, "backend": "nccl"}, "traceEvents": ev},
              open("%s/rank%d.json" % (sys.argv[1], rank), "w"))
PY
$MEMLENS report "$tmp/ranks" -o "$tmp/ranks.html"; t_eq "ranks report" $? 0
run_page stragglers "$tmp/ranks.html" stragglers light "rank 1, rank 2|6|4"
alex="$DATA/kineto/hta_alexnet.json.gz"
if [ -f "$alex" ]; then
    # the most frequent sequence under an outermost operator: six aten::conv2d calls launch the same four
    $MEMLENS report "$alex" -o "$tmp/alexnet.html"
    run_page critpath-light "$tmp/alexnet.html" critpath light "6|aten::conv2d"
    run_page critpath-dark "$tmp/alexnet.html" critpath dark "6|aten::conv2d"
    : >"$tmp/sout"
    "$MEMLENS" serve --port 0 "$alex" >"$tmp/sout" 2>&1 &
    spid=$!
    url=$(t_serve_url "$tmp/sout")
    if [ -z "$url" ]; then t_fail "server did not start: $(cat "$tmp/sout")"; else run_page served "$url" critpath light "6|aten::conv2d"; fi
else
    t_skip "alexnet trace absent ($alex)"
fi
t_browse web/test-browser/hta.mjs "$tmp/pages" "$tmp/log" "page starts"
if [ -n "$spid" ]; then kill -INT "$spid"; wait "$spid"; t_eq "server stops cleanly" $? 0; spid=""; fi
t_done
