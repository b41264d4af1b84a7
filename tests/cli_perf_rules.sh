# The rules of `memlens perf` on small hand-written Kineto traces, checked
# through the documented "runs" fields of --json (µs, percentages 0-100).
# Every expected value is worked out by hand in the comments (trace times are
# µs, as Kineto writes them).
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs FILE [OPTIONS] PYTHON-EXPR: prints the expression over r = runs[0].
runs() {
    file=$1; expr=$2; shift 2
    $MEMLENS perf --json "$@" "$file" | python3 -c "
import json, sys
d = json.load(sys.stdin); r = d['runs'][0]
ops = {o['name']: o for o in r['operators']}
ks = {k['name']: k for k in r['kernels']}
print($expr)"
}
ROLES='["kernel_us","memcpy_us","memset_us","communication_us","runtime_us","dataloader_us","cpu_exec_us","other_us","total_us"]'

# A. Nested operators and a kernel launched by a child operator.
#   ProfilerStep#3 [0,200)
#     aten::linear [10,110)            children: aten::t [15,25), aten::addmm [30,100)
#       aten::addmm [30,100) > cudaLaunchKernel [40,50) (External id 3, correlation 11)
#   kernel my_kernel [60,160) (correlation 11), blocks per SM 0.5, occupancy 25 %
# operators:
#   aten::linear  host total 100, host self 100-10-70 = 20, device self 0 (it launched nothing
#                 itself), device total 100 (its child's kernel)
#   aten::t       host total = self = 10, device 0
#   aten::addmm   host total 70, host self 70-10 (its runtime call) = 60, device self = total = 100
# step "3" [0,200) (the kernel ends before the step): Kernel [60,160) 100, Runtime [40,50) 10,
#   CPU Exec [10,40)+[50,60) = 40, Other [0,10)+[160,200) = 50.
# GPU 0: utilization 100/200 = 50 %, SM efficiency 0.5*100/200 = 25 %, occupancy 25 %.
cat >"$tmp/a.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":200},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":100,"args":{"External id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::t","pid":1,"tid":1,"ts":15,"dur":10,"args":{"External id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":30,"dur":70,"args":{"External id":3,"Input Dims":[[8],[8,4],[4,8]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"dur":10,"args":{"correlation":11,"External id":3}},
{"ph":"X","cat":"kernel","name":"my_kernel","pid":0,"tid":7,"ts":60,"dur":100,
 "args":{"device":0,"stream":7,"correlation":11,"External id":3,"blocks per SM":0.5,"est. achieved occupancy %":25}}],
"deviceProperties":[{"id":0,"name":"Toy GPU","totalGlobalMem":1073741824,"computeMajor":7,"computeMinor":0,"numSms":4}]}
JSON
t_eq "A: nested operators (calls, host self/total, device self/total)" "$(runs "$tmp/a.json" \
    '[(n, ops[n]["calls"], ops[n]["host_self_us"], ops[n]["host_total_us"], ops[n]["device_self_us"], ops[n]["device_total_us"], ops[n]["input_shape"]) for n in ("aten::linear", "aten::t", "aten::addmm")]')" \
    "[('aten::linear', 1, 20, 100, 0, 100, None), ('aten::t', 1, 10, 10, 0, 0, None), ('aten::addmm', 1, 60, 70, 100, 100, None)]"
t_eq "A: step 3 breakdown" "$(runs "$tmp/a.json" "len(r['steps']), r['steps'][0]['name'], [r['steps'][0][k] for k in $ROLES]")" \
    "1 3 [100, 0, 0, 0, 10, 0, 40, 50, 200]"
t_eq "A: GPU metrics" "$(runs "$tmp/a.json" '[(g["id"], g["name"], g["memory_bytes"], g["compute_capability"], g["utilization_pct"], g["sm_efficiency_pct"], g["achieved_occupancy_pct"], g["tensor_core_kernel_pct"]) for g in r["gpus"]]')" \
    "[(0, 'Toy GPU', 1073741824, '7.0', 50, 25, 25, 0)]"
t_eq "A: kernel row" "$(runs "$tmp/a.json" '[(k["name"], k["calls"], k["total_us"], k["mean_us"], k["min_us"], k["max_us"], k["blocks_per_sm"], k["achieved_occupancy_pct"], k["tensor_cores_used"]) for k in r["kernels"]]')" \
    "[('my_kernel', 1, 100, 100, 100, 100, 0.5, 25, False)]"
# --group-by shape: one row per (name, Input Dims); addmm keeps its shape text.
t_eq "A: group by shape" "$(runs "$tmp/a.json" '(r["group_by"], ops["aten::addmm"]["input_shape"], ops["aten::addmm"]["device_self_us"], len(r["operators"]))' --group-by shape)" \
    "('shape', '[[8], [8, 4], [4, 8]]', 100, 3)"
# --top 1: the JSON tables keep one row (the highest device self time: aten::addmm),
# then one that adds up the other two operators; the one kernel is all there is.
t_eq "A: --top 1" "$(runs "$tmp/a.json" '[o["name"] for o in r["operators"]], r["operators"][-1]["others"], len(r["kernels"])' --top 1)" "['aten::addmm', '(others)'] 2 1"

# B. The same trace written as B/E pairs (ts in µs, each E closing the innermost open B
#    of its thread): every runs figure equal to A's.
cat >"$tmp/b.json" <<'JSON'
{"traceEvents":[
{"ph":"B","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0},
{"ph":"B","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"args":{"External id":1}},
{"ph":"B","cat":"cpu_op","name":"aten::t","pid":1,"tid":1,"ts":15,"args":{"External id":2}},
{"ph":"E","pid":1,"tid":1,"ts":25},
{"ph":"B","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":30,"args":{"External id":3,"Input Dims":[[8],[8,4],[4,8]]}},
{"ph":"B","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"args":{"correlation":11,"External id":3}},
{"ph":"E","pid":1,"tid":1,"ts":50},
{"ph":"E","pid":1,"tid":1,"ts":100},
{"ph":"E","pid":1,"tid":1,"ts":110},
{"ph":"E","pid":1,"tid":1,"ts":200},
{"ph":"B","cat":"kernel","name":"my_kernel","pid":0,"tid":7,"ts":60,
 "args":{"device":0,"stream":7,"correlation":11,"External id":3,"blocks per SM":0.5,"est. achieved occupancy %":25}},
{"ph":"E","pid":0,"tid":7,"ts":160}],
"deviceProperties":[{"id":0,"name":"Toy GPU","totalGlobalMem":1073741824,"computeMajor":7,"computeMinor":0,"numSms":4}]}
JSON
strip='{k: v for k, v in r.items() if k != "path"}'
t_eq "B: B/E pairs give the same runs as X events" "$(runs "$tmp/b.json" "$strip")" "$(runs "$tmp/a.json" "$strip")"
t_eq "B: B/E operators" "$(runs "$tmp/b.json" '[(o["name"], o["host_self_us"], o["device_total_us"]) for o in r["operators"]]')" \
    "[('aten::addmm', 60, 100), ('aten::linear', 20, 100), ('aten::t', 10, 0)]"

# C. Overlapping kernels on two streams, both named k_a, launched by one operator:
#   ProfilerStep#1 [0,100); aten::op [0,20) > launches [2,4) (corr 1) and [6,8) (corr 2)
#   k_a stream 7 [10,60) blocks/SM 0.5, occupancy 40;  k_a stream 8 [30,90) blocks/SM 2, occupancy 60
# kernel table: one row, calls 2, total 50+60 = 110, mean 55, min 50, max 60,
#   blocks/SM (0.5*50 + 2*60)/110 = 1.3182, occupancy (40*50 + 60*60)/110 = 50.9091
# GPU: utilization counts the union [10,90) = 80 of the step's 100 -> 80 %;
#   SM efficiency: [10,30) 0.5, [30,60) min(2.5,1), [60,90) min(2,1) -> (10+30+30)/100 = 70 %
# step: Kernel 80, Runtime 2+2 = 4, CPU Exec [0,2)+[4,6)+[8,10) = 6, Other [90,100) = 10
# aten::op: device self = total = 110 (every kernel's own time, not the union)
cat >"$tmp/c.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":0,"dur":20,"args":{"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1,"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":2,"args":{"correlation":2,"External id":1}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":10,"dur":50,"args":{"device":0,"stream":7,"correlation":1,"External id":1,"blocks per SM":0.5,"est. achieved occupancy %":40}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":8,"ts":30,"dur":60,"args":{"device":0,"stream":8,"correlation":2,"External id":1,"blocks per SM":2,"est. achieved occupancy %":60}}]}
JSON
t_eq "C: kernel table counts both streams" "$(runs "$tmp/c.json" '[(k["name"], k["calls"], k["total_us"], k["mean_us"], k["min_us"], k["max_us"], k["blocks_per_sm"], k["achieved_occupancy_pct"]) for k in r["kernels"]]')" \
    "[('k_a', 2, 110, 55, 50, 60, 1.3182, 50.9091)]"
t_eq "C: GPU utilization is the union" "$(runs "$tmp/c.json" '[(g["utilization_pct"], g["sm_efficiency_pct"], g["achieved_occupancy_pct"]) for g in r["gpus"]]')" \
    "[(80, 70, 50.9091)]"
t_eq "C: step breakdown" "$(runs "$tmp/c.json" "[r['steps'][0][k] for k in $ROLES]")" "[80, 0, 0, 0, 4, 0, 6, 10, 100]"
t_eq "C: operator device time sums kernels" "$(runs "$tmp/c.json" '(ops["aten::op"]["device_self_us"], ops["aten::op"]["device_total_us"], ops["aten::op"]["host_self_us"])')" "(110, 110, 16)"

# D. No ProfilerStep#: one step, "(whole trace)", over the CPU operators [100,150)
#   extended to the kernel it launched, [160,200.5): total 100.5.
#   aten::mul [100,150) > launch [110,115) > kernel k_m [160,200.5) (sub-µs: 40.5)
#   Kernel 40.5, Runtime 5, CPU Exec [100,110)+[115,150) = 45, Other [150,160) = 10.
cat >"$tmp/d.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":100,"dur":50,"args":{"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,"args":{"correlation":9,"External id":1}},
{"ph":"X","cat":"kernel","name":"k_m","pid":0,"tid":7,"ts":160,"dur":40.5,"args":{"device":0,"stream":7,"correlation":9,"External id":1}}]}
JSON
t_eq "D: whole-trace step" "$(runs "$tmp/d.json" "len(r['steps']), r['steps'][0]['name'], [r['steps'][0][k] for k in $ROLES]")" \
    "1 (whole trace) [40.5, 0, 0, 0, 5, 0, 45, 10, 100.5]"
t_eq "D: note says so" "$(runs "$tmp/d.json" 'any("no ProfilerStep#" in n for n in r["notes"]), r["kernels"][0]["blocks_per_sm"]')" "True None"
t_contains "D: text says so" "$($MEMLENS perf "$tmp/d.json")" "no ProfilerStep#: the whole trace is one step"
G=$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz
# Absolute times, as summary prints them: ProfilerStep#5 begins at ts 1623142623460172 µs
# (2021-06-08 08:57:03.460172 UTC); the six steps, contiguous, last 187948 + 175153 + 179733
# + 174564 + 182172 + 165983 = 1065553 µs (the plugin's step totals) -> 08:57:04.525725.
if [ -f "$G" ]; then
    t_contains "steps' wall-clock span" "$($MEMLENS perf --view overview "$G")" \
        "from 2021-06-08 08:57:03.460172 UTC to 2021-06-08 08:57:04.525725 UTC"
else t_skip "$G absent"; fi

# E. CPU only: operators, no kernels -- "kernels": [] and a note, in text too.
cat >"$tmp/e.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":30},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":5,"dur":10}]}
JSON
t_eq "E: no kernels" "$(runs "$tmp/e.json" 'r["kernels"], r["gpus"], "no kernels: the trace has no GPU kernels" in r["notes"], ops["aten::add"]["host_self_us"]')" \
    "[] [] True 10"
out=$($MEMLENS perf --view kernels "$tmp/e.json"); t_eq "E: --view kernels exit" $? 0
t_contains "E: text says no kernels" "$out" "Kernels: none (the trace has no GPU kernels)"

# F. --group-by: three aten::add calls, two with Input Dims [[2]] (10 and 20 µs) and one with
#   [[3]] (5 µs). By name: one row, 3 calls, host total 35. By shape: [[2]] 2 calls 30, [[3]] 1 call 5.
cat >"$tmp/f.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Input Dims":[[2]]}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":20,"dur":20,"args":{"Input Dims":[[2]]}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":50,"dur":5,"args":{"Input Dims":[[3]]}}]}
JSON
t_eq "F: by name" "$(runs "$tmp/f.json" '[(o["name"], o["input_shape"], o["calls"], o["host_total_us"]) for o in r["operators"]]')" \
    "[('aten::add', None, 3, 35)]"
t_eq "F: by shape" "$(runs "$tmp/f.json" 'sorted((o["input_shape"], o["calls"], o["host_total_us"]) for o in r["operators"])' --group-by shape)" \
    "[('[[2]]', 2, 30), ('[[3]]', 1, 5)]"

# Views and widths.
out=$($MEMLENS perf --view operators "$tmp/a.json")
t_contains "view operators: full table" "$out" "Operators by device self time (3 of 3)"
case "$out" in *Steps*|*Recommendations*) t_fail "view operators prints only operators" ;; *) t_pass ;; esac
out=$($MEMLENS perf --view kernels,overview "$tmp/a.json")
t_contains "view list: overview" "$out" "Steps"
t_contains "view list: kernels" "$out" "my_kernel"
$MEMLENS perf --view bogus "$tmp/a.json" >/dev/null 2>&1; t_eq "bad --view exit" $? 2
$MEMLENS perf --group-by op "$tmp/a.json" >/dev/null 2>&1; t_eq "bad --group-by exit" $? 2
# COLUMNS=60 (stdout a pipe): names cut to the room left, ellipsis in the middle, numbers aligned.
cat >"$tmp/long.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":0,"dur":20,"args":{"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1,"External id":1}},
{"ph":"X","cat":"kernel","name":"void very_long_kernel_name<float, 128, 8, 8, true, false, some::policy<int>>(int, float const*, float*)_END","pid":0,"tid":7,"ts":10,"dur":50,"args":{"device":0,"stream":7,"correlation":1}}]}
JSON
line=$(COLUMNS=100 $MEMLENS perf --view kernels "$tmp/long.json" | grep very_long)
t_eq "COLUMNS=100: line fits" "$(printf '%s' "$line" | python3 -c 'import sys; print(len(sys.stdin.read()))')" 100
t_contains "COLUMNS=100: middle ellipsis keeps the end" "$line" "…"
t_contains "COLUMNS=100: end kept" "$line" "_END"
line=$(COLUMNS=80 $MEMLENS perf --view operators "$tmp/long.json" | grep aten::op)
t_eq "COLUMNS=80: operator line within" "$(printf '%s' "$line" | python3 -c 'import sys; print(len(sys.stdin.read()) <= 80)')" True
line=$(env -u COLUMNS $MEMLENS perf --view kernels "$tmp/long.json" | grep very_long)
t_contains "pipe without COLUMNS: whole name" "$line" "void very_long_kernel_name<float, 128, 8, 8, true, false, some::policy<int>>(int, float const*, float*)_END"
t_done
