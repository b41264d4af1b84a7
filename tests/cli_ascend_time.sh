#!/bin/sh
# cli_ascend_time.sh — `memlens perf` on the Ascend time side of every export
# (trace_view.json alone or in its folder, kernel_details.csv alone, the db),
# in NPU words and advice; PyTorch's .html memory timeline in one line.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_lacks() { case "$2" in *"$3"*) t_fail "$1: '$3' in: $(printf '%s' "$2" | grep -F -- "$3" | head -2)" ;; *) t_pass ;; esac; }

# the .html timeline (hand-made, as torch/profiler/_memory_profiler.py writes it)
printf '<html>\n<head><meta charset="utf-8" /><title>GPU Memory Timeline HTML</title></head>\n<body>\n  <img src=%sdata:image/png;base64,iVBORw0KGgo=%s>\n</body>\n</html>' "'" "'" >"$tmp/mem.html"
out=$("$MEMLENS" summary "$tmp/mem.html" 2>&1); rc=$?
t_eq "html exit" "$rc" 2
t_eq "html one line" "$(printf '%s\n' "$out" | wc -l)" 1
t_contains "html says what it is" "$out" "mem.html: byte 0: a PyTorch memory timeline exported as HTML"
t_contains "html says what to export" "$out" "export it to .json.gz or .raw.json.gz instead"

T=$DATA/ascend/text_level1/rank0_ascend_pt
if [ ! -d "$T" ]; then
    t_skip "no $T"
else
    out=$("$MEMLENS" perf "$T" 2>&1)
    t_contains "NPU heading" "$out" "NPU npu:0"
    t_contains "NPU utilization" "$out" "NPU utilization              71.03 %"
    t_contains "NPU idle" "$out" "NPU idle by cause"
    t_contains "NPU advice" "$out" "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"
    t_contains "communication in the steps" "$out" "Comm"
    t_contains "cores" "$out" "Kernels by Accelerator Core"
    t_contains "HCCL row" "$out" "  HCCL"
    t_contains "kernel types" "$out" "COMMUNICATION"
    for w in "Tensor Cores" "PYTORCH_CUDA_ALLOC_CONF" "GPU idle" "SM efficiency" "GPU npu"; do t_lacks "no '$w'" "$out" "$w"; done
    j=$("$MEMLENS" perf --json "$T" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r = r["ranks"][0] if "ranks" in r else r
a = r["accelerator"]
print(a["device"], a["alloc_env"], a["tensor_cores"], [c["name"] for c in r["kernels"]["by_core"]][:2])')
    t_eq "json words" "$j" "NPU PYTORCH_NPU_ALLOC_CONF False ['HCCL', 'AI_CORE']"
    out=$("$MEMLENS" perf "$T/ASCEND_PROFILER_OUTPUT/trace_view.json" 2>&1)
    t_contains "trace_view alone: NPU tasks" "$out" "483 kernels"
    # NPU launches: every CANN call linked to a task by connection_id launched it (Python on the file:
    # 533 tasks carry a CANN call's connection_id; 26 of them are syncs, EVENT_RECORD/EVENT_WAIT/PLACE_HOLDER)
    out=$("$MEMLENS" perf --view kernels "$T" 2>&1)
    t_contains "NPU launches" "$out" "Kernel launches: 507 (calls 205.308 ms, kernels 149.839 ms;"
    t_contains "NPU launch queue" "$out" "Launch queue per stream (launched, not started)"
    j=$("$MEMLENS" perf --json "$T" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
l = r["launches"]
print(l["count"], l["launch_delay_outliers"]["top"][0]["launcher"] if "top" in l["launch_delay_outliers"] else "")' 2>&1)
    t_contains "NPU launches in --json" "$j" "507"
    # the critical path in NPU words (its JSON keys stay gpu_*)
    out=$("$MEMLENS" perf --view critical-path "$T" 2>&1)
    t_contains "critical path: NPU columns" "$out" "CPU NPU compute    NPU comm      Launch Kernel gaps"
    # CANN's waits (aclrtSynchronizeStreamWithTimeout ...) are the syncs: no note that there are none
    t_lacks "critical path: CANN waits are syncs" "$out" "the export has no synchronisation events"
    for w in "GPU" "cuda_sync"; do t_lacks "critical path: no '$w'" "$out" "$w"; done
    j=$("$MEMLENS" perf --view critical-path --json "$T" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
print(sorted(k for k in r["critical_path"][0] if k.endswith("_us")))')
    t_eq "critical path: json keys stable" "$j" "['cpu_us', 'gpu_communication_us', 'gpu_compute_us', 'kernel_kernel_us', 'launch_us', 'path_us']"
    # the path by tests/ascend_critpath_expected.py: 89083298 ns, no launch on it (the HCCL stream's
    # Notify Wait chain: the compute stream's EVENT_WAIT on it is not an edge, so the chain ends there)
    j=$("$MEMLENS" perf --view critical-path --json "$T" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]["critical_path"][0]
print(r["path_us"], r["launch_us"], r["gpu_communication_us"] + r["gpu_compute_us"], r["kernel_kernel_us"])')
    t_eq "critical path: length, launch (Python)" "$j" "89083.298 0 89078.298 5"
fi

D=$DATA/ascend/db_level1/rank0_ascend_pt
if [ ! -d "$D" ]; then
    t_skip "no $D"
else
    out=$("$MEMLENS" perf "$D" 2>&1)
    t_lacks "db: no trace_view excuse" "$out" "no trace_view.json"
    t_contains "db: step 50" "$out" "  50              151.889 ms"
    t_contains "db: tasks (sqlite3: 481)" "$out" "184.981 ms in 481 kernels"
    t_contains "db: HCCL (sqlite3: 296 tasks, 176.083 ms)" "$out" "     296  176.083 ms"
    t_contains "db: NPU launches (CANN_API by connectionId)" "$out" "Kernel launches: 505 ("
fi

O=$DATA/ascend_older/trace_view_2024
if [ ! -d "$O" ]; then
    t_skip "no $O"
else
    out=$("$MEMLENS" perf "$O/trace_view.json" 2>&1)
    t_contains "old trace_view alone: NPU tasks" "$out" "in 274 kernels"
    t_lacks "old trace_view alone: not a GPU-less trace" "$out" "GPU: none"
    # its CANN calls' connection_ids name no task (a task's is its call's minus one), its HostToDevice
    # flows join each call to its task (tests/ascend_older_launches.py: 274 launches, calls 52968111 ns,
    # tasks 1788267 ns; 218 of the flows end before they start: the NPU clock runs ahead)
    out=$("$MEMLENS" perf --view kernels "$O/trace_view.json" 2>&1)
    t_contains "old trace_view alone: launches by flow" "$out" "Kernel launches: 274 (calls 52.968 ms, kernels 1.788 ms;"
    out=$("$MEMLENS" perf --view critical-path "$O/trace_view.json" 2>&1)
    t_lacks "old trace_view alone: CANN waits are syncs" "$out" "the export has no synchronisation events"
    # tests/ascend_critpath_expected.py: 10439725 ns, cpu 7072941, tasks 402632, launch 7248, gaps 2956904
    j=$("$MEMLENS" perf --view critical-path --json "$O/trace_view.json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]["critical_path"][0]
print(r["path_us"], r["cpu_us"], r["gpu_compute_us"] + r["gpu_communication_us"], r["launch_us"], r["kernel_kernel_us"])')
    t_eq "old trace_view alone: critical path with launch edges (Python)" "$j" "10439.725 7072.941 402.632 7.248 2956.904"
    mkdir -p "$tmp/kd_ascend_pt/ASCEND_PROFILER_OUTPUT"
    cp "$O/kernel_details.csv" "$tmp/kd_ascend_pt/ASCEND_PROFILER_OUTPUT/"
    out=$("$MEMLENS" perf "$tmp/kd_ascend_pt" 2>&1); rc=$?
    t_eq "kernel_details only: exit" "$rc" 0
    t_contains "kernel_details only: tasks" "$out" "in 591 kernels"
    t_contains "kernel_details only: AI_VECTOR_CORE (csv: 520, 33.092 ms)" "$out" "     520   33.092 ms"
    out=$("$MEMLENS" perf "$O/kernel_details.csv" 2>&1)
    t_contains "kernel_details alone" "$out" "in 591 kernels"
    out=$("$MEMLENS" summary "$O/kernel_details.csv" 2>&1)
    t_contains "kernel_details alone, summary: says where its data is" "$out" "kernel_details.csv holds NPU tasks, no memory: \`memlens perf\` shows them"
fi
t_done
