# CLI behaviour of `memlens perf`: a small trace worked out by hand, JSON
# shape, errors and exit codes; the TensorBoard plugin's gold output
# (tests/perf_gold.py) and the other real traces when ../shared/data is there.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ProfilerStep#1 [0,100) > aten::mm [10,50) > launch [20,25) of a kernel [30,130):
# the step ends with the kernel: Kernel 100, Runtime 5, CPU Exec [10,20)+[25,30), Other [0,10).
cat >"$tmp/t.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":40,"args":{"External id":5,"Input Dims":[[4,4],[4,4]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":7,"External id":5}},
{"ph":"X","cat":"kernel","name":"volta_sgemm_64x64_nn","pid":0,"tid":7,"ts":30,"dur":100,
 "args":{"device":0,"stream":7,"correlation":7,"External id":5,"blocks per SM":2.0,"est. achieved occupancy %":50}}],
"deviceProperties":[{"id":0,"name":"Toy GPU","totalGlobalMem":1073741824,"computeMajor":8,"computeMinor":0,"numSms":4}]}
JSON
out=$($MEMLENS perf "$tmp/t.json"); t_eq "text exit" $? 0
t_contains "step row" "$out" "  1               130.000 us  100.000 us    5.000 us"
t_contains "gpu card" "$out" "GPU cuda:0  Toy GPU  1.00 GiB  compute capability 8.0"
t_contains "utilization" "$out" "GPU utilization              76.92 %"
t_contains "tensor core advice" "$out" "[tensor_cores] Kernels with 100% time are launched by Tensor Cores eligible operators"
t_contains "top operator" "$out" "         1  100.000 us  100.000 us   35.000 us   40.000 us  E  aten::mm"
json=$($MEMLENS perf --json "$tmp/t.json"); t_eq "json exit" $? 0
t_eq "json top-level keys" "$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(list(d), sorted(d["runs"][0]), d["inputs"] == [d["runs"][0]["path"]])')" \
    "['memlens', 'inputs', 'runs', 'meta', 'ranks', 'distributed'] ['comm_comp_overlap_pct', 'critical_path', 'cupti_counters', 'distributed', 'format', 'gpus', 'group_by', 'idle_by_stream', 'kernel_sequences', 'kernel_types', 'kernels', 'launches', 'memory_bw', 'modules', 'notes', 'operators', 'path', 'queue_length', 'rank', 'recommendations', 'steps', 'temporal'] True"
# runs: the same figures in µs and 0-100 % (ns / 1000; 100 x ratio)
t_eq "runs figures" "$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]; s = r["steps"][0]; o = r["operators"][0]; k = r["kernels"][0]; g = r["gpus"][0]
print(s["name"], s["total_us"], s["kernel_us"], s["runtime_us"], s["cpu_exec_us"], s["other_us"], g["utilization_pct"],
      g["compute_capability"], g["memory_bytes"], o["name"], o["input_shape"], o["device_self_us"], o["host_self_us"], o["tc_eligible"],
      k["blocks_per_sm"], k["achieved_occupancy_pct"], k["mean_us"], r["recommendations"][0][:12])')" \
    "1 130 100 5 15 10 76.9231 8.0 1073741824 aten::mm None 100 35 True 2 50 100 Kernels with"
t_eq "json figures" "$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["ranks"][0]; s = r["steps"][0]; o = r["operators"]["by_shape"][0]; k = r["kernels"]["by_name"][0]
print(s["name"], s["total_ns"], s["kernel_ns"], s["runtime_ns"], s["cpu_exec_ns"], s["other_ns"],
      round(r["devices"][0]["utilization"], 4), o["input_shape"], o["device_self_ns"], o["host_self_ns"],
      k["blocks_per_sm"], k["occupancy"], [x["id"] for x in r["recommendations"]], d["meta"][0]["perfWhy"])')" \
    "ProfilerStep#1 130000 100000 5000 15000 10000 0.7692 [[4, 4], [4, 4]] 100000 35000 2 50 ['tensor_cores'] None"
t_eq "json keys" "$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
print(sorted(r))')" "['accelerator', 'counts', 'critical_path', 'cupti', 'devices', 'distributed', 'gputime', 'kernel_sequences', 'kernels', 'modules', 'modules_hint', 'notes', 'operators', 'recommendations', 'span', 'step_average', 'steps']"
# The critical path of step 1 (src/analysis/critpath.h): aten::mm's start -> the launch's
# start 10 (CPU) -> the kernel's start 10 (launch delay: the stream was idle) -> its end 100.
# The host alone (10 + 5 + 25 = 40) is shorter.  No kernel sequence: aten::mm launched one kernel.
t_eq "runs critical path" "$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]; c = r["critical_path"][0]
print(c["step"], c["ok"], c["path_us"], c["cpu_us"], c["launch_us"], c["gpu_compute_us"], c["kernel_kernel_us"],
      c["top"][0]["name"], c["top"][0]["kind"], r["kernel_sequences"], r["cupti_counters"])')" \
    "1 True 120 10 10 100 0 volta_sgemm_64x64_nn gpu_compute [] None"
t_eq "perf object critical path legs" "$(printf '%s' "$json" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranks"][0]["critical_path"]; s = c["steps"][0]; l = s["legs"]
print(s["name"], s["path_ns"], s["begin"], s["end"], [c["kinds"][k] for k in l["kind"]], l["w"], l["from_t"], l["to_t"])')" \
    "ProfilerStep#1 120000 0 100000 ['cpu', 'launch', 'gpu_compute'] [10000, 10000, 100000] [10000, 20000, 30000] [20000, 30000, 130000]"
out=$($MEMLENS perf --view critical-path "$tmp/t.json"); t_eq "critical-path view exit" $? 0
t_contains "critical-path view" "$out" "  1               120.000 us   10.000 us  100.000 us        0 ns   10.000 us        0 ns"
t_contains "critical-path view: no syncs recorded" "$out" "the trace has no cuda_sync events: waits of the host for the GPU are not on the path; PyTorch 2.1+ records them"
t_contains "critical-path view: CUDA's columns" "$out" "CPU GPU compute    GPU comm      Launch Kernel gaps"
t_contains "default text points to the critical path" "$($MEMLENS perf "$tmp/t.json")" "Critical path per step: memlens perf --view critical-path"

# CUPTI profiler mode: kernels are cuda_profiler_range events with hardware counters, the
# i-th (in time) launched by the i-th cudaLaunchKernel; FLOPs = 2 x 10 ffma + 3 fadd = 23.
cat >"$tmp/cupti.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::cudnn_convolution","pid":1,"tid":1,"ts":10,"dur":70},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_profiler_range","name":"conv_kernel","pid":0,"tid":0,"ts":1000,"dur":100,
 "args":{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum":10,"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum":3}}]}
JSON
out=$($MEMLENS perf --view kernels "$tmp/cupti.json"); t_eq "cupti exit" $? 0
t_contains "cupti: not 'no GPU kernels'" "$out" "Kernels: no kernel times (the trace was recorded in CUPTI profiler mode"
t_contains "cupti row" "$out" "      1           23  aten::conv2d ▸ aten::cudnn_convolution  conv_kernel"
t_eq "cupti json" "$($MEMLENS perf --json "$tmp/cupti.json" | python3 -c '
import json, sys
d = json.load(sys.stdin); c = d["runs"][0]["cupti_counters"]; r = c["rows"][0]; w = d["ranks"][0]["cupti"]
print(c["kernels"], c["paired"], r["kernel"], r["op_stack"], r["flops"], sorted(r["values"].values()), w["rows"][0]["values"],
      [n for n in d["runs"][0]["notes"] if "CUPTI" in n] != [])')" \
    "1 True conv_kernel ['aten::conv2d', 'aten::cudnn_convolution'] 23 [3, 10] {'0': 10, '1': 3} True"
# Counters stored and written sparse (issue 33): 200 kernels with 50 counter names of
# their own each (10,000 names) are 10,000 values, not a 200 x 10,000 matrix of nulls
# (before: 2 million cells, the JSON 90 times the input).
python3 - "$tmp/own.json" <<'PY'
import json, sys
ev = []
for i in range(200):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20 * i, "dur": 5})
    ev.append({"ph": "X", "cat": "cuda_profiler_range", "name": "k%d" % i, "pid": 0, "tid": 7, "ts": 20 * i + 10, "dur": 5,
               "args": {"c%d_%d" % (i, j): i * 100 + j for j in range(50)}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
$MEMLENS perf --json "$tmp/own.json" >"$tmp/own.out"; t_eq "sparse cupti: exit" $? 0
t_eq "sparse cupti: the values present, each where it belongs" "$(python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1])); w = d["ranks"][0]["cupti"]; h = d["runs"][0]["cupti_counters"]
cells = [(w["counters"][int(k)], v) for r in w["rows"] for k, v in r["values"].items()]
ok = all(int(n[1:].split("_")[0]) * 100 + int(n.split("_")[1]) == v for n, v in cells)
print(len(w["counters"]), len(cells), ok, sum(len(r["values"]) for r in h["rows"]), os.path.getsize(sys.argv[1]) < 20 * os.path.getsize(sys.argv[2]))
' "$tmp/own.out" "$tmp/own.json")" "10000 10000 True 10000 True"
# The text lists at most 8 counters: those on the most kernels (ties: the first given), in
# the trace's order; it says how many more and where they are (before: all 10,000 lines).
python3 - "$tmp/cap.json" <<'PY'
import json, sys
ev = []
for i in range(4):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20 * i, "dur": 5})
    a = {"all": 1}
    if i >= 2: a["pair"] = 5
    a.update({"k%d_%s" % (i, c): 100 * i + j for j, c in enumerate("abc")})
    ev.append({"ph": "X", "cat": "cuda_profiler_range", "name": "k%d" % i, "pid": 0, "tid": 7, "ts": 20 * i + 10, "dur": 5, "args": a})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
t_eq "cupti text: 8 of 14 counters, the rest named" "$($MEMLENS perf --view kernels "$tmp/cap.json" | sed -n '/counter totals/,$p')" \
"  counter totals over the kernels:
               4  all
               0  k0_a
               1  k0_b
               2  k0_c
             100  k1_a
             101  k1_b
             102  k1_c
              10  pair
  (6 more counters, on fewer kernels: --json for every counter)"
t_eq "cupti text of 10,000 counters: 9 lines" "$($MEMLENS perf --view kernels "$tmp/own.json" | sed -n '/counter totals/,$p' | sed 1d | wc -l | tr -d ' ')" 9
G=$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz
if [ -f "$G" ]; then
    t_eq "--top: kernel indices stay within the kernel rows" "$($MEMLENS perf --json --top 3 "$G" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
n = len(r["kernels"]["by_name"])
print(n, all(k < n for o in r["operators"]["by_name"] + r["operators"]["by_shape"] for k in o["kernels"]))')" "3 True"
fi
t_eq "--top 1 keeps one row" "$($MEMLENS perf --json --top 1 "$tmp/t.json" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["ranks"][0]["kernels"]["by_op"]))')" 1

# export --table: the same tables as CSV.
$MEMLENS export "$tmp/t.json" --table operators --group-by shape -o "$tmp/ops.csv"; t_eq "export ops exit" $? 0
t_eq "export ops csv" "$(cat "$tmp/ops.csv")" "name,input_shape,calls,host_self_ns,host_total_ns,device_self_ns,device_total_ns,tc_eligible,tc_self_ratio,tc_total_ratio
aten::mm,\"[[4, 4], [4, 4]]\",1,35000,40000,100000,100000,true,0.0000,0.0000"
t_eq "export kernels by op" "$($MEMLENS export "$tmp/t.json" --table kernels --group-by op -o - --format csv | tail -1)" \
    "volta_sgemm_64x64_nn,aten::mm,1,100000,100000,100000,100000,2.0000,50.0000,false"
$MEMLENS export "$tmp/t.json" --table kernels -o "$tmp/k.json" 2>/dev/null; t_eq "export table needs csv" $? 2
$MEMLENS export "$tmp/t.json" --table kernels --group-by shape -o "$tmp/k.csv" 2>/dev/null; t_eq "export bad group" $? 2
$MEMLENS export "$tmp/t.json" --table modules -o "$tmp/k.csv" 2>/dev/null; t_eq "export bad table" $? 2

# A trace without a time side, and bad input: one line naming the file, exit 2.
printf '%s' '{"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":512,"Total Allocated":512,"Total Reserved":4096}}]}' >"$tmp/mem.json"
out=$($MEMLENS perf "$tmp/mem.json"); t_eq "memory-only exit" $? 0
t_contains "memory-only says why" "$out" "no profiler views: the trace has no events with a duration"
t_eq "memory-only json null" "$($MEMLENS perf --json "$tmp/mem.json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["ranks"], d["meta"][0]["perfWhy"] is not None)')" "[None] True"
printf '{"traceEvents":[{"ph":"X","name":' >"$tmp/bad.json"
err=$($MEMLENS perf "$tmp/bad.json" 2>&1 >/dev/null); t_eq "bad json exit" $? 2
t_contains "bad json names file" "$err" "bad.json"
t_eq "bad json one line" "$(printf '%s\n' "$err" | wc -l)" 1
$MEMLENS perf >/dev/null 2>&1; t_eq "no input exit" $? 2
$MEMLENS perf --bogus "$tmp/t.json" >/dev/null 2>&1; t_eq "bad option exit" $? 2
$MEMLENS perf --top 0 "$tmp/t.json" >/dev/null 2>&1; t_eq "bad --top exit" $? 2
err=$($MEMLENS perf --rank 5 "$tmp/t.json" 2>&1 >/dev/null); t_eq "missing rank exit" $? 2
$MEMLENS perf "$tmp/nope.json" >/dev/null 2>&1; t_eq "missing file exit" $? 2
t_contains "help" "$($MEMLENS perf --help)" "usage: memlens perf"

# The plugin's own sample: memlens perf --json against what TensorBoard served.
gold=$DATA/kineto/tbplugin_resnet50_w0
if [ -f "$gold.pt.trace.json.gz" ] && [ -f "$gold.expected.jsonl" ]; then
    $MEMLENS perf --json "$gold.pt.trace.json.gz" >"$tmp/gold.json"; t_eq "gold exit" $? 0
    res=$(python3 tests/perf_gold.py "$tmp/gold.json" "$gold.expected.jsonl"); t_eq "gold matches" $? 0
    echo "$res"
else t_skip "$gold.* absent"; fi

# Other real traces: perf runs, its JSON parses, and times add up.
for f in hta_nccl_data hta_sampled_rank-0 hta_sampled_rank-1 hta_alexnet param_linear_kineto hta_amd_mi250 \
         hta_cpu_only.pt.trace hta_triton_example hta_df_index_resolver; do
    path=$DATA/kineto/$f.json.gz
    [ -f "$path" ] || { t_skip "$path absent"; continue; }
    t_eq "$f sane" "$($MEMLENS perf --json "$path" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
roles = ["kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns", "cpu_exec_ns", "other_ns"]
ok = all(sum(s[k] for k in roles) == s["total_ns"] and min(s[k] for k in roles) >= 0 for s in r["steps"])
ok = ok and all(o["host_self_ns"] >= 0 and o["device_total_ns"] >= o["device_self_ns"] >= 0 for o in r["operators"]["by_name"])
ok = ok and all(0 <= (d["utilization"] or 0) <= 1 for d in r["devices"])
ops = {o["name"] for o in r["operators"]["by_name"]}
ok = ok and all(k["op"] is None or k["op"] in ops for k in r["kernels"]["by_op"])  # the views link up
print(ok)')" True
done
# Every Kineto trace and Ascend run of the shared data: perf and perf --json never fail;
# each run has operators and kernels, or a note that says why not.
for path in "$DATA"/kineto/*.json.gz "$DATA"/ascend/*/; do
    [ -e "$path" ] || { t_skip "no $path"; continue; }
    name=${path#"$DATA"/}
    $MEMLENS perf "$path" >"$tmp/all.txt" 2>"$tmp/all.err"; t_eq "$name: text exit" $? 0
    $MEMLENS perf --json "$path" >"$tmp/all.json" 2>>"$tmp/all.err"; t_eq "$name: json exit" $? 0
    t_eq "$name: no errors" "$(cat "$tmp/all.err")" ""
    t_eq "$name: tables or a note" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = len(d["runs"]) == len(d["ranks"]) >= 1
for r in d["runs"]:
    ok = ok and (len(r["operators"]) > 0 or any("operators" in n or "no trace_view" in n for n in r["notes"]))
    ok = ok and (len(r["kernels"]) > 0 or any("kernels" in n for n in r["notes"]))
print(ok)' "$tmp/all.json")" True
done
# Two ranks of one NCCL job: each rank's object carries the job's backend, world
# size and slowest rank with its own steps and collectives (all of them in every
# rank's grew with the ranks squared); the top-level "distributed" has both.
r0=$DATA/kineto/hta_sampled_rank-0.json.gz; r1=$DATA/kineto/hta_sampled_rank-1.json.gz
if [ -f "$r0" ] && [ -f "$r1" ]; then
    t_eq "distributed across ranks" "$($MEMLENS perf --json "$r0" "$r1" | python3 -c '
import json, sys
j = json.load(sys.stdin)
d = j["ranks"]
x, y = d[0]["distributed"], d[1]["distributed"]
top = j["distributed"]
print(len(d), x["backend"], x["world_size"], [sorted({s["rank"] for s in z["steps"]}) for z in (x, y)],
      x["slowest_rank"] == y["slowest_rank"] == top["slowest_rank"], sorted({s["rank"] for s in top["steps"]}),
      len(top["steps"]) == len(x["steps"]) + len(y["steps"]),
      [r["distributed"]["steps"] == [s for s in top["steps"] if s["rank"] == r["rank"]] for r in j["runs"]],
      all(s["computation_ns"] > 0 and s["communication_ns"] > 0 for s in x["steps"] + y["steps"]))')" \
        "2 nccl 128 [[0], [1]] True [0, 1] True [True, True] True"
    t_contains "distributed text" "$($MEMLENS perf "$r0" "$r1")" "Distributed (nccl, world size 128"
    # HTA's get_potential_stragglers on these two files: step 551's SendRecv, normalized starts
    # 0.442700 and 0.712708, both ranks named (two candidates)
    # (cross-rank: in the job's distributed object, not in each run's)
    t_eq "stragglers" "$($MEMLENS perf --json "$r0" "$r1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["distributed"]["stragglers"]
print(s["kernel"][:26], s["stream"], s["ranks"], [(x["rank"], x["step"], x["normalized_start"]) for x in s["rows"]],
      [("stragglers" in r["distributed"]) for r in d["runs"]])')" \
        "ncclKernel_SendRecv_RING_S 84 [0, 1] [(0, 551, 0.4427), (1, 551, 0.712708)] [False, False]"
    t_contains "stragglers text" "$($MEMLENS perf --view distributed "$r0" "$r1")" "Potential stragglers (ranks that start the collective late, HTA's rule): 0, 1"
else t_skip "hta_sampled_rank-* absent"; fi

# nn.Module rows from a generated trace (python_function "nn.Module: X" slices).
gen=${BUILD:-build}/tools/gen_trace
if [ -x "$gen" ]; then
    "$gen" --steps 2 --seed 3 --out "$tmp/gen.json" >/dev/null 2>&1
    t_eq "modules rows" "$($MEMLENS perf --json "$tmp/gen.json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
m = r["modules"]
print(len(m) > 1, m[0]["parent"], m[0]["depth"], all(x["parent"] < i for i, x in enumerate(m)), r["modules_hint"])')" \
        "True -1 0 True None"
else t_skip "$gen not built"; fi

# perf's text grouped by name leaves ops' "Input Dims" / "Input type" unread (needs.h
# no_op_shapes), but for the collectives' ops the distributed view sizes by them
# (trace.h ml_op_is_collective): a gloo rank's bytes from its gloo:all_reduce spans'
# shapes (2 calls x 1000 floats = 8000 B), an NCCL rank's from the c10d::allreduce_ op
# around each kernel's launch (2 x 256 bf16 = 1024 B).  The ops are written alike (one
# event shape, but for the name), and --group-by shape, which reads every shape, shows
# them, and the same distributed view.
cat >"$tmp/gloo.json" <<'JSON'
{"distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000, "args": {"External id": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 10, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[4, 4], [4, 4]], "Ev Idx": 0}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 50, "args": {"External id": 11, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[8, 8], [8, 8]], "Ev Idx": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 210, "dur": 50, "args": {"External id": 12, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[4, 4], [4, 4]], "Ev Idx": 2}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 310, "dur": 50, "args": {"External id": 13, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[8, 8], [8, 8]], "Ev Idx": 3}},
{"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 1, "ts": 410, "dur": 100, "args": {"External id": 20, "Record function id": 0, "Input type": ["float"], "Input Dims": [[1000]], "Ev Idx": 4}},
{"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 1, "ts": 560, "dur": 100, "args": {"External id": 21, "Record function id": 0, "Input type": ["float"], "Input Dims": [[1000]], "Ev Idx": 5}}
]}
JSON
cat >"$tmp/nccl.json" <<'JSON'
{"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000, "args": {"External id": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 10, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[4, 4], [4, 4]], "Ev Idx": 0}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"External id": 10, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "volta_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 40, "dur": 40, "args": {"External id": 10, "device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 50, "args": {"External id": 11, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[8, 8], [8, 8]], "Ev Idx": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 120, "dur": 10, "args": {"External id": 11, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "volta_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 140, "dur": 40, "args": {"External id": 11, "device": 0, "stream": 7, "correlation": 2}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 210, "dur": 50, "args": {"External id": 12, "Record function id": 0, "Input type": ["float", "float"], "Input Dims": [[4, 4], [4, 4]], "Ev Idx": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 220, "dur": 10, "args": {"External id": 12, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "volta_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 240, "dur": 40, "args": {"External id": 12, "device": 0, "stream": 7, "correlation": 3}},
{"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 310, "dur": 100, "args": {"External id": 20, "Record function id": 0, "Input type": ["c10::BFloat16"], "Input Dims": [[256]], "Ev Idx": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 320, "dur": 10, "args": {"External id": 20, "correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": 7, "ts": 340, "dur": 60, "args": {"External id": 20, "device": 0, "stream": 7, "correlation": 4}},
{"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 460, "dur": 100, "args": {"External id": 21, "Record function id": 0, "Input type": ["c10::BFloat16"], "Input Dims": [[256]], "Ev Idx": 5}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 470, "dur": 10, "args": {"External id": 21, "correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": 7, "ts": 490, "dur": 60, "args": {"External id": 21, "device": 0, "stream": 7, "correlation": 5}}
]}
JSON
dist_of() { printf '%s\n' "$1" | sed -n '/^Distributed/,$p'; }
# perf_dist NAME FILE BY_NAME BYTES SHAPE_COLLECTIVE SHAPE_ONE SHAPE_OTHER: the
# operator (by name and by shape) and distributed views of one job's trace;
# the distributed view does not depend on the grouping (the collective's
# shapes are read for it either way).
perf_dist() {
    out=$($MEMLENS perf "$2"); t_eq "$1: text exit" $? 0
    t_contains "$1: ops by name" "$out" "$3"
    t_contains "$1: bytes from the collective's shapes" "$out" "$4"
    shape=$($MEMLENS perf --view all --group-by shape "$2"); t_eq "$1: by shape exit" $? 0
    t_contains "$1: by shape, the collective" "$shape" "$5"
    t_contains "$1: by shape, one shape" "$shape" "$6"
    t_contains "$1: by shape, the other" "$shape" "$7"
    t_eq "$1: the same distributed view" "$(dist_of "$out")" "$(dist_of "$shape")"
}
perf_dist gloo "$tmp/gloo.json" \
    "         4        0 ns        0 ns  200.000 us  200.000 us  E  aten::mm" \
    "      0        2  200.000 us  100.000 us     7.81 KiB  gloo:all_reduce" \
    "         2        0 ns        0 ns  200.000 us  200.000 us     gloo:all_reduce  [[1000]]" \
    "         2        0 ns        0 ns  100.000 us  100.000 us  E  aten::mm         [[4, 4], [4, 4]]" \
    "         2        0 ns        0 ns  100.000 us  100.000 us  E  aten::mm         [[8, 8], [8, 8]]"
perf_dist nccl "$tmp/nccl.json" \
    "         3  120.000 us  120.000 us  120.000 us  150.000 us  E  aten::mm" \
    "      0        2  120.000 us   60.000 us     1.00 KiB  c10d::allreduce_" \
    "         2  120.000 us  120.000 us  180.000 us  200.000 us     c10d::allreduce_  [[256]]" \
    "         2   80.000 us   80.000 us   80.000 us  100.000 us  E  aten::mm          [[4, 4], [4, 4]]" \
    "         1   40.000 us   40.000 us   40.000 us   50.000 us  E  aten::mm          [[8, 8], [8, 8]]"

# Sorting the slices and the analyses run on two threads (src/common/par.h):
# the output is the same byte for byte as on one (MEMLENS_ONE_THREAD), on a
# realistic generated trace split in halves and on the gold trace.
if [ -x "$gen" ]; then
    "$gen" --mix realistic --size-mb 3 --seed 5 --out "$tmp/real.json" >/dev/null 2>&1
    MEMLENS_SPLIT_MIN_BYTES=1 $MEMLENS perf --json "$tmp/real.json" >"$tmp/two.json"
    MEMLENS_ONE_THREAD=1 $MEMLENS perf --json "$tmp/real.json" >"$tmp/one.json"
    t_eq "two threads = one (generated)" "$(cmp "$tmp/two.json" "$tmp/one.json" && wc -c <"$tmp/one.json" | awk '$1 > 10000 { print "same" }')" same
else t_skip "$gen not built"; fi
if [ -f "$gold.pt.trace.json.gz" ]; then
    $MEMLENS perf --json "$gold.pt.trace.json.gz" >"$tmp/two.json"
    MEMLENS_ONE_THREAD=1 $MEMLENS perf --json "$gold.pt.trace.json.gz" >"$tmp/one.json"
    t_eq "two threads = one (gold)" "$(cmp "$tmp/two.json" "$tmp/one.json" && echo same)" same
else t_skip "$gold.* absent"; fi
t_done
