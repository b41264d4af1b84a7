# `memlens perf` GPU time as HolisticTraceAnalysis measures it (temporal,
# idle by stream, kernel types, overlap, launches, queue length, bandwidth):
# hand-written traces whose answers are worked out below, then every real
# trace in ../shared/data/kineto against HTA's own answers beside it
# (tests/hta_agree.py, which also checks memlens against tests/hta_rules.py).
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Trace A (times below are ts - 1000, µs).  Host thread 1 launches with
# cudaLaunchKernel L1 [0,5) L2 [6,10) L3 [75,80) L4 [80,84) and
# cudaMemsetAsync L5 [85,87); thread 2 launches L6 [-60,15) (75 µs: a runtime
# outlier) and cudaMemcpyAsync L7 [-100,-98), L8 [-97,-95).
#   stream 7:  K1 [10,30)  K2 [60,70)  K3 [90,100)  K4 [129,130)  MS [140,140) (Memset, 0 µs, 5 GB/s)
#   stream 20: NC [20,65)  (ncclKernel_...: COMMUNICATION)
#   stream 21: MC [25,35)  (DtoD, 100 GB/s)  MC2 [35,40) (DtoD, 60 GB/s: starts as MC ends)
# temporal: union [10,70) [90,100) [129,130) [140,140): span 140-10 = 130,
#   busy 60+10+1+0 = 71, idle 59; compute [10,30) [60,70) [90,100) [129,130) = 41;
#   non-compute 130-41-59 = 30 (NC's [30,60)).
# idle, stream 7: K1->K2 gap 30, L2 began before K1 ended, 30 is not < 30: other 30;
#   K2->K3 gap 20, L3 (75) after K2's end (70): host wait 20; K3->K4 gap 29: kernel
#   wait; K4->MS gap 10: kernel wait (39 in all).  Stream 21: MC->MC2 gap 0: kernel wait 0.
# kernel types: 10-20 C, 20-25 C+Comm, 25-30 C+Comm+M, 30-40 Comm+M, 40-60 Comm,
#   60-65 C+Comm, 65-70 C, 90-100 C, 129-130 C: COMPUTATION 26, COMMUNICATION 20,
#   COMPUTATION overlapping COMMUNICATION 10, COMMUNICATION overlapping MEMORY 10,
#   COMPUTATION overlapping COMMUNICATION overlapping MEMORY 5 (the memset adds nothing).
# overlap: (10 + 5) / 45 of communication = 33.333 %.
# launches: cpu 5+4+5+4+2+75+2+2 = 99; gpu 20+10+10+1+0+45+10+5 = 101;
#   delay 5+50+10+45+53+5+123+130 = 421, max 130.  Short kernels (call <= 50, kernel
#   shorter): K4 (4 vs 1), MS (2 vs 0); runtime outliers: NC's L6 (75); delay
#   outliers (> 100): MC2 (130), MC (123).
# queue, stream 7: +1 0, +1 6, -1 10, -1 60, +1 75, +1 80, +1 85, -1 90, -1 129, -1 140:
#   1 2 1 0 1 2 3 2 1 0: max 3, mean 1.3; stream 20: 1 0; stream 21: +1 -100, +1 -97,
#   -1 25, -1 35: 1 2 1 0: max 2, mean 1.
# bandwidth: Memset 5 (0 µs counts as 1 µs); DtoD 100 (MC2 starts as MC ends: not 160).
py_trace_a() {
    python3 - "$1" <<'PY'
import json, sys
T = 1000
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::work", "pid": 1, "tid": 1, "ts": T - 200, "dur": 400}]
def host(name, tid, ts, dur, corr):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": T + ts, "dur": dur,
               "args": {"correlation": corr}})
def gpu(cat, name, stream, ts, dur, corr, bw=None):
    a = {"device": 0, "stream": stream, "correlation": corr}
    if bw is not None:
        a["memory bandwidth (GB/s)"] = bw
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": f"stream {stream}", "ts": T + ts, "dur": dur, "args": a})
for corr, (ts, dur) in enumerate([(0, 5), (6, 4), (75, 5), (80, 4)], 1):
    host("cudaLaunchKernel", 1, ts, dur, corr)
host("cudaMemsetAsync", 1, 85, 2, 5)
host("cudaLaunchKernel", 2, -60, 75, 6)
host("cudaMemcpyAsync", 2, -100, 2, 7)
host("cudaMemcpyAsync", 2, -97, 2, 8)
for corr, (name, ts, dur) in enumerate([("gemm_a", 10, 20), ("gemm_b", 60, 10), ("gemm_c", 90, 10), ("gemm_d", 129, 1)], 1):
    gpu("kernel", name, 7, ts, dur, corr)
gpu("gpu_memset", "Memset (Device)", 7, 140, 0, 5, 5.0)
gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 20, 20, 45, 6)
gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 21, 25, 10, 7, 100.0)
gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 21, 35, 5, 8, 60.0)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
}
py_trace_a "$tmp/a.json"
json=$($MEMLENS perf --json "$tmp/a.json"); t_eq "A: json exit" $? 0
fields() { printf '%s' "$json" | python3 -c "
import json, sys
r = json.load(sys.stdin)['runs'][0]
$1"; }
t_eq "A: temporal" "$(fields 'print(r["temporal"])')" "{'span_us': 130, 'idle_us': 59, 'compute_us': 41, 'non_compute_us': 30}"
t_eq "A: idle by stream (a gap of exactly 30 us is other, a launch after the previous end is host wait)" \
    "$(fields 'print([(x["stream"], x["host_wait_us"], x["kernel_wait_us"], x["other_us"]) for x in r["idle_by_stream"]])')" \
    "[(7, 20, 39, 30), (20, 0, 0, 0), (21, 0, 0, 0)]"
t_eq "A: kernel types with overlaps" "$(fields 'print([(x["type"], x["total_us"]) for x in r["kernel_types"]])')" \
    "[('COMPUTATION', 26), ('COMMUNICATION', 20), ('COMPUTATION overlapping COMMUNICATION', 10), ('COMMUNICATION overlapping MEMORY', 10), ('COMPUTATION overlapping COMMUNICATION overlapping MEMORY', 5)]"
t_eq "A: comm/comp overlap" "$(fields 'print(round(r["comm_comp_overlap_pct"], 3))')" "33.333"
t_eq "A: launches" "$(fields 'l = r["launches"]; print(l["count"], l["cpu_us"], l["gpu_us"], l["delay_us"], l["delay_max_us"])')" "8 99 101 421 130"
t_eq "A: launch outliers" "$(fields '
l = r["launches"]
print([(k, l[k]["cutoff_us"], l[k]["count"], [(x["kernel"], x["cpu_us"], x["gpu_us"], x["delay_us"]) for x in l[k]["top"]])
       for k in ("short_kernels", "runtime_outliers", "launch_delay_outliers")])')" \
    "[('short_kernels', 50, 2, [('gemm_d', 4, 1, 45), ('Memset (Device)', 2, 0, 53)]), ('runtime_outliers', 50, 1, [('ncclKernel_AllReduce_RING_LL_Sum_float', 75, 45, 5)]), ('launch_delay_outliers', 100, 2, [('Memcpy DtoD (Device -> Device)', 2, 5, 130), ('Memcpy DtoD (Device -> Device)', 2, 10, 123)])]"
t_eq "A: queue length" "$(fields 'print([(x["stream"], x["max"], float(x["mean"]), x["blocked_us"]) for x in r["queue_length"]])')" \
    "[(7, 3, 1.3, 0), (20, 1, 0.5, 0), (21, 2, 1.0, 0)]"
t_eq "A: memory bandwidth (a 0 us memset counts as 1 us; touching copies do not add up)" \
    "$(fields 'print([(x["kind"], float(x["max_gbps"])) for x in r["memory_bw"]])')" "[('Memcpy DtoD', 100.0), ('Memset', 5.0)]"
text=$($MEMLENS perf "$tmp/a.json"); t_eq "A: text exit" $? 0
t_contains "A: overview line" "$text" "span 130.000 us: compute 41.000 us (31.5 %), non-compute 30.000 us (23.1 %), idle 59.000 us (45.4 %)"
t_contains "A: idle row" "$text" "         7   20.000 us   39.000 us   30.000 us"
t_contains "A: overlap line" "$text" "communication under computation: 33.33 % of 45.000 us of communication"
t_contains "A: kernel type row" "$text" "   26.000 us   36.6 %  COMPUTATION"
t_contains "A: launches line" "$text" "Kernel launches: 8 (calls 99.000 us, kernels 101.000 us; launch delay 421.000 us in all, 130.000 us at most)"
t_contains "A: queue row" "$text" "         7      3      1.30"
t_contains "A: bandwidth row" "$text" "    100.00 GB/s  Memcpy DtoD"
# the perf object of the views: the same in ns, the series of the counter tracks
t_eq "A: perf object" "$(printf '%s' "$json" | python3 -c '
import json, sys
g = json.load(sys.stdin)["ranks"][0]["gputime"]
q = g["queues"][0]; b = [m for m in g["membw"] if m["kind"] == "Memcpy DtoD"][0]
print(g["temporal"]["span_ns"], g["idle_by_stream"][0]["gaps"], q["stream"], q["t0_ns"], q["dt_us"], q["v"], b["dt_us"], [float(v) for v in b["v"]],
      sum(g["launches"]["delay_hist"]["counts"]), g["launches"]["outliers"]["launch_delay_outliers"]["top"][0]["start_ns"])')" \
    "130000 [1, 2, 1] 7 200000 [0, 6, 4, 50, 15, 5, 5, 5, 39, 11] [1, 2, 1, 0, 1, 2, 3, 2, 1, 0] [0, 10, 0, 5] [100.0, 0.0, 60.0, 0.0] 8 235000"

# Trace A's times are whole µs: the exact default and HTA's rules agree.
t_eq "A: exact and --hta-rules agree on a whole-µs trace" \
    "$($MEMLENS perf --json --hta-rules "$tmp/a.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["runs"][0]["temporal"])')" \
    "{'span_us': 130, 'idle_us': 59, 'compute_us': 41, 'non_compute_us': 30}"

# Trace B: two ProfilerSteps, [0,100) and [100,200): as HTA, the work launched
# from the last one on (K2, launched at 110) and work with no launching call
# (K3) are left out.  K4 is ns-resolution, [60.5, 65.7): on HTA's grid [61, 65).
# HTA's rules: span 65-20 = 45; busy 10 + 4 = 14; idle 31; compute 14; two launches: K1, K4.
# Exact: span 65.7-20 = 45.7; busy 10 + 5.2 = 15.2; idle 30.5; compute 15.2.
cat >"$tmp/b.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":4,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":4,"args":{"correlation":4}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":4,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":20,"dur":10,"args":{"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_b","pid":0,"tid":7,"ts":120,"dur":10,"args":{"stream":7,"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_c","pid":0,"tid":7,"ts":40,"dur":10,"args":{"stream":7}},
{"ph":"X","cat":"kernel","name":"gemm_d","pid":0,"tid":7,"ts":60.5,"dur":5.2,"args":{"stream":7,"correlation":4}}]}
JSON
json=$($MEMLENS perf --json --hta-rules "$tmp/b.json"); t_eq "B: json exit" $? 0
t_eq "B: the last step and unlaunched work left out, ns times on HTA's µs grid" "$(fields '
l = r["launches"]
print(r["temporal"], l["count"], l["gpu_us"], [n for n in r["notes"] if "ProfilerStep" in n and "HTA" in n] != [])')" \
    "{'span_us': 45, 'idle_us': 31, 'compute_us': 14, 'non_compute_us': 0} 2 14 True"
json=$($MEMLENS perf --json "$tmp/b.json"); t_eq "B: exact json exit" $? 0
t_eq "B: exact (the default): the same events, their ns kept" "$(fields '
l = r["launches"]
print(r["temporal"], l["count"], l["gpu_us"])')" \
    "{'span_us': 45.7, 'idle_us': 30.5, 'compute_us': 15.2, 'non_compute_us': 0} 2 15.2"

# Trace C: sub-µs kernels whose truncation changes the answer (a decode step:
# many kernels of a few µs with fractions).  Stream 7, baseTimeNanoseconds
# clock (ts relative, as Kineto 2.x writes): K1 [0.4, 3.844) K2 [4.2, 4.9)
# K3 [5.1, 8.35) K4 [8.5, 9.999).  Exact: union 3.444 + 0.7 + 3.25 + 1.499
# = 8.893 µs of compute in a span of 9.599; idle 0.706.  HTA's grid: K1
# [1, 3] 2, K2 [5, 4] -1, K3 [6, 8] 2, K4 [9, 9] 0: busy and compute 3 of a
# span of 8, idle 5 (HTA loses two thirds of the kernel time; K2 counts -1 µs).  Idle
# per stream, exact: gaps 0.356 + 0.2 + 0.15 = 0.706 µs of kernel wait.
cat >"$tmp/c.json" <<'JSON'
{"baseTimeNanoseconds": 1700000000000000000, "traceEvents":[
{"ph":"X","cat":"kernel","name":"gemv_a","pid":0,"tid":7,"ts":0.4,"dur":3.444,"args":{"stream":7}},
{"ph":"X","cat":"kernel","name":"rmsnorm","pid":0,"tid":7,"ts":4.2,"dur":0.7,"args":{"stream":7}},
{"ph":"X","cat":"kernel","name":"gemv_b","pid":0,"tid":7,"ts":5.1,"dur":3.25,"args":{"stream":7}},
{"ph":"X","cat":"kernel","name":"silu","pid":0,"tid":7,"ts":8.5,"dur":1.499,"args":{"stream":7}}]}
JSON
json=$($MEMLENS perf --json "$tmp/c.json"); t_eq "C: exact json exit" $? 0
t_eq "C: sub-µs kernels, exact" "$(fields 'print(r["temporal"], [(x["stream"], x["kernel_wait_us"]) for x in r["idle_by_stream"]])')" \
    "{'span_us': 9.599, 'idle_us': 0.706, 'compute_us': 8.893, 'non_compute_us': 0} [(7, 0.706)]"
json=$($MEMLENS perf --json --hta-rules "$tmp/c.json"); t_eq "C: hta json exit" $? 0
t_eq "C: sub-µs kernels on HTA's grid" "$(fields 'print(r["temporal"])')" \
    "{'span_us': 8, 'idle_us': 5, 'compute_us': 3, 'non_compute_us': 0}"

# Trace D: an MTIA trace (Kineto's mtia_runtime calls, mtia_ccp_events kernels):
# device work like any GPU's.  Launch [0,2) -> K1 [5,15); launch [3,4) -> K2 [20,22.5).
# span 17.5, compute 12.5, idle 5; launches 2 (HTA's runFunction - job_prep_and_submit...).
cat >"$tmp/d.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":1000,"dur":2,"args":{"correlation":1}},
{"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":1,"tid":1,"ts":1003,"dur":1,"args":{"correlation":2}},
{"ph":"X","cat":"mtia_ccp_events","name":"fused_linear_relu","pid":2,"tid":3,"ts":1005,"dur":10,"args":{"device":0,"stream":3,"correlation":1}},
{"ph":"X","cat":"mtia_ccp_events","name":"layer_norm","pid":2,"tid":3,"ts":1020,"dur":2.5,"args":{"device":0,"stream":3,"correlation":2}}]}
JSON
json=$($MEMLENS perf --json "$tmp/d.json"); t_eq "D: mtia json exit" $? 0
t_eq "D: MTIA kernels are device work" "$(fields 'l = r["launches"]; print(r["temporal"], l["count"], l["gpu_us"], [(x["stream"], x["max"]) for x in r["queue_length"]])')" \
    "{'span_us': 17.5, 'idle_us': 5, 'compute_us': 12.5, 'non_compute_us': 0} 2 12.5 [(3, 2)]"

# A trace without GPU work: the fields are empty, not missing.
cat >"$tmp/cpu.json" <<'JSON'
{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}]}
JSON
json=$($MEMLENS perf --json "$tmp/cpu.json"); t_eq "cpu: json exit" $? 0
t_eq "cpu: empty GPU time" "$(fields 'print(r["temporal"], r["idle_by_stream"], r["kernel_types"], r["comm_comp_overlap_pct"], r["launches"], r["queue_length"], r["memory_bw"])')" \
    "None [] [] None None [] []"
t_eq "cpu: perf object" "$(printf '%s' "$json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["ranks"][0]["gputime"])')" "None"

# Trace E: an Intel XPU trace (xpu_runtime calls of Unified Runtime, kernels):
# urEnqueueKernelLaunch [0,1.5) -> K1 [3,7.25); urEnqueueUSMMemcpy [2,2.5) -> a copy [8,9).
# Launch delays 1.5 and 5.5; the copy is MEMORY (non-compute 1 µs).
cat >"$tmp/e.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"xpu_runtime","name":"urEnqueueKernelLaunch","pid":1,"tid":1,"ts":100,"dur":1.5,"args":{"correlation":1}},
{"ph":"X","cat":"xpu_runtime","name":"urEnqueueUSMMemcpy","pid":1,"tid":1,"ts":102,"dur":0.5,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_xmx","pid":2,"tid":5,"ts":103,"dur":4.25,"args":{"device":0,"stream":5,"correlation":1}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Host -> Device)","pid":2,"tid":5,"ts":108,"dur":1,"args":{"device":0,"stream":5,"correlation":2}}]}
JSON
json=$($MEMLENS perf --json "$tmp/e.json"); t_eq "E: xpu json exit" $? 0
t_eq "E: XPU launches count" "$(fields 'l = r["launches"]; print(r["temporal"], l["count"], l["cpu_us"], l["delay_us"])')" \
    "{'span_us': 6, 'idle_us': 0.75, 'compute_us': 4.25, 'non_compute_us': 1} 2 2 7"

# Trace F: the queue length when the grid makes a launch and a start tie (a
# torch.compile trace gave memlens a queue max of 10 where HTA said 9: both
# were this tie, settled either way by a sort).  cuLaunchKernel L1 at 1.0,
# L2 at 2.0 µs; K1 starts at 3.3, then L3 at 3.6; K2 at 4.1, K3 at 5.2.  True
# order: 1 2 1 2 1 0: max 2.  HTA's grid puts K1's start and L3 both at 4;
# launch first gives 1 2 3 2 1 0: max 3 (HTA 0.5.0 itself answers 3 on this
# file: get_queue_length_summary max 3.0, mean 1.5).  Exact ns: 2.
cat >"$tmp/f.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":20},
{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":1.0,"dur":0.2,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":2.0,"dur":0.2,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"triton_poi_fused_1","pid":0,"tid":7,"ts":3.3,"dur":0.5,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":3.6,"dur":0.2,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"triton_poi_fused_2","pid":0,"tid":7,"ts":4.1,"dur":0.5,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"kernel","name":"triton_poi_fused_3","pid":0,"tid":7,"ts":5.2,"dur":0.5,"args":{"device":0,"stream":7,"correlation":3}}]}
JSON
json=$($MEMLENS perf --json "$tmp/f.json"); t_eq "F: exact json exit" $? 0
t_eq "F: queue length, exact: the kernel started before the next launch" "$(fields 'print([(q["stream"], q["max"]) for q in r["queue_length"]])')" "[(7, 2)]"
json=$($MEMLENS perf --json --hta-rules "$tmp/f.json")
t_eq "F: queue length on HTA's grid, as HTA answers" "$(fields 'print([(q["stream"], q["max"], q["mean"]) for q in r["queue_length"]])')" "[(7, 3, 1.5)]"

# the same answers from the rules written again in Python (tests/hta_rules.py),
# under HTA's rules and exact
t_eq "A-D: memlens equals tests/hta_rules.py, HTA's rules and exact" "$(python3 - "$MEMLENS" "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" "$tmp/d.json" "$tmp/e.json" "$tmp/f.json" <<'PY'
import sys
sys.path.insert(0, "tests")
import hta_agree, hta_rules
for path in sys.argv[2:]:
    run, _ = hta_agree.perf_run(sys.argv[1], path, "--hta-rules")
    ours, rules = hta_agree.flat(run), hta_agree.flat(hta_rules.expected(path))
    hta = set(ours) == set(rules) and all(hta_agree.same(float(ours[f]) if ours[f] is not None else None, rules[f]) for f in ours)
    run, _ = hta_agree.perf_run(sys.argv[1], path)
    ours, rules = hta_agree.flat(run), hta_agree.flat(hta_rules.expected(path, exact=True))
    exact = set(ours) == set(rules) and all(hta_agree.same_exact(f, ours[f], rules[f]) for f in ours)
    print(hta, exact, end=" ")
PY
)" "True True True True True True True True True True True True "

# No negative idle: the Ascend text_level1 run has kernels that overlap on
# stream 4 (HTA's rule, each gap from the previous kernel's end, gave a
# kernel wait of -135,523 us).  Each stream's idle is its gaps once its
# kernels are merged, worked out here from trace_view.json in integer ns
# (the stream's EVENT_WAIT / EVENT_RECORD tasks are waits, not work: gaps).
tv="$DATA/ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
if [ -f "$tv" ]; then
    t_eq "ascend: idle per stream = the gaps between merged kernels, none negative" "$($MEMLENS perf --json "$DATA/ascend/text_level1" | python3 -c '
import decimal, json, sys
run = json.load(sys.stdin, parse_float=decimal.Decimal)["runs"][0]
ev = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)
ev = ev if isinstance(ev, list) else ev["traceEvents"]
hw = [e["pid"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name" and e["args"]["name"] == "Ascend Hardware"][0]
ns = lambda v: int(decimal.Decimal(str(v)) * 1000)
sync = ("EVENT_WAIT", "EVENT_RECORD", "EVENT_WAIT_SQE", "EVENT_RECORD_SQE")  # waits on the stream, not work
ok = True
for r in run["idle_by_stream"]:
    iv = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in ev if e.get("ph") == "X" and e["pid"] == hw and e["tid"] == r["stream"]
                and e.get("args", {}).get("Task Type") not in sync)
    gaps, end = 0, None
    for b, e in iv:
        if end is not None and b > end:
            gaps += b - end
        end = e if end is None else max(end, e)
    vals = [r["host_wait_us"], r["kernel_wait_us"], r["other_us"]]
    ok = ok and min(vals) >= 0 and sum(vals) * 1000 == gaps
print(ok, [(r["stream"], r["kernel_wait_us"]) for r in run["idle_by_stream"] if r["stream"] == 4])' "$tv")" "True [(4, Decimal('63.507'))]"
else
    t_skip "no $tv"
fi

# No negative duration or idle time anywhere in perf's JSON (runs and the
# perf object), on the sub-µs shared traces and the Ascend run.
neg=""
for f in "$DATA/ascend/text_level1" "$DATA/kineto/TraceLens_mi300_resnet_act_checkpoint.json.gz" \
         "$DATA/kineto/hta_amd_mi250.json.gz" "$DATA/kineto/particle_transformer_A100_fwd_bs128_profile_memory.pt.trace.json"; do
    [ -e "$f" ] || continue
    neg="$neg$($MEMLENS perf --json "$f" | python3 -c '
import json, sys
bad = []
def walk(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            walk(v, path + "." + k)
    elif isinstance(x, list):
        for v in x:
            walk(v, path + "[]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool) and x < 0:
        k = path.split(".")[-1]
        if any(w in k for w in ("_ns", "_us", "dur", "idle", "wait")) and not any(w in k for w in ("start", "t0", "begin")):
            bad.append(path)
print(" ".join(sorted(set(bad))[:3]), end="")')"
done
t_eq "no negative duration or idle in perf --json (sub-µs and Ascend traces)" "$neg" ""

# Every real trace against HTA's own answers (../shared/data/kineto/*.hta.json).
if [ -d "$DATA/kineto" ] && ls "$DATA"/kineto/*.hta.json >/dev/null 2>&1; then
    res=$(python3 tests/hta_agree.py "$MEMLENS" "$DATA/kineto"); rc=$?
    t_eq "agreement with HTA on the shared traces" "$rc" 0
    [ $rc = 0 ] || printf '%s\n' "$res" | grep -E "OFF|hta_agree" | head -20
    printf '%s\n' "$res" | tail -1
else
    t_skip "no $DATA/kineto/*.hta.json (HTA's answers on the shared traces)"
fi
t_done
