# `memlens diff`: agreement with HolisticTraceAnalysis' TraceDiff on real traces
# (the gold it wrote, and tests/diff_expected.py, an independent reading of the
# trace JSON by the same rules), the operator-tree diff, memory, snapshot
# segments and allocator settings on small hand-written inputs whose expected
# values are worked out in the comments, rank pairing, and bad input.
. tests/lib.sh
. tests/difflib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null 2>&1 || { t_skip "python3 absent"; t_done; exit; }

# q FILE EXPR: EXPR over d = pairs[0] of `memlens diff --json` saved in FILE.
q() {
    python3 -c "
import json, sys
j = json.load(open(sys.argv[1])); d = j['pairs'][0]
ops = {(o['kind'], o['name']): o for o in d['operators']}
print(repr(($2)))" "$1"
}

# ---- A. HTA's own answer (TraceDiff.compare_traces over all iterations) -------
K=$DATA/kineto
if [ -f "$K/hta_sampled_rank-0_vs_1.htadiff.json" ]; then
    $MEMLENS diff --json "$K/hta_sampled_rank-0.json.gz" "$K/hta_sampled_rank-1.json.gz" >"$tmp/hta.json"
    t_eq "A: exit status" "$?" 0
    out=$(python3 tests/diff_expected.py "$K/hta_sampled_rank-0.json.gz" "$K/hta_sampled_rank-1.json.gz" "$tmp/hta.json" \
        "$K/hta_sampled_rank-0_vs_1.htadiff.json")
    t_eq "A: rows agree with HTA and with tests/diff_expected.py" "$out" "ok 367 rows (HTA: 367 names, max deviation 0.000 us)"
    # by hand from the gold file: AddmmBackward0 98 -> 99 calls: increased
    t_eq "A: a row" "$(q "$tmp/hta.json" 'ops[("operator", "AddmmBackward0")]')" \
        "{'kind': 'operator', 'name': 'AddmmBackward0', 'base_calls': 98, 'new_calls': 99, 'base_us': 11026, 'new_us': 10996, 'change': 'increased'}"
    t_eq "A: the steps are no rows" "$(q "$tmp/hta.json" '[k for k in ops if k[1].startswith("ProfilerStep")]')" "[]"
    t_eq "A: two steps each" "$(q "$tmp/hta.json" 'd["steps"]["count"]')" "{'base': 2, 'new': 2, 'delta': 0, 'delta_pct': 0}"
else
    t_skip "A: $K/hta_sampled_rank-0_vs_1.htadiff.json absent"
fi

# ---- B. other real pairs, against the independent reading ----------------------
for pair in "hta_nccl_data.json.gz hta_amd_mi250.json.gz" "tbplugin_resnet50_w0.pt.trace.json.gz hta_df_index_resolver.json.gz"; do
    set -- $pair
    if [ -f "$K/$1" ] && [ -f "$K/$2" ]; then
        $MEMLENS diff --json "$K/$1" "$K/$2" >"$tmp/b.json"
        t_contains "B: $1 vs $2" "$(python3 tests/diff_expected.py "$K/$1" "$K/$2" "$tmp/b.json")" "ok "
    else
        t_skip "B: $1 or $2 absent"
    fi
done
# A held-out pair: HTA's own trace_diff test traces (control: 8 A100 ranks' rank 3, test: 2
# V100 ranks' rank 1), when MEMLENS_HTA_DATA names HTA's tests/data.  HTA 0.6.1 itself
# (tests/hta_diff_gold.py) gave 396 rows for it, all equal to memlens' to the µs.
H=${MEMLENS_HTA_DATA:-}
if [ -n "$H" ] && [ -f "$H/trace_diff/control/control.json.gz" ]; then
    $MEMLENS diff --json "$H/trace_diff/control/control.json.gz" "$H/trace_diff/test/test.json.gz" >"$tmp/h.json"
    t_eq "B: HTA's trace_diff pair" "$(python3 tests/diff_expected.py "$H/trace_diff/control/control.json.gz" \
        "$H/trace_diff/test/test.json.gz" "$tmp/h.json")" "ok 396 rows"
else
    t_skip "B: HTA's trace_diff pair (set MEMLENS_HTA_DATA to HolisticTraceAnalysis/tests/data)"
fi

# ---- C. the operator-tree diff on hand-written traces --------------------------
# base (one step):                         new:
#   Encoder_0 [10,400)                       Encoder_0 [10,500)
#     Linear_0 [20,100) > aten::linear         Linear_0 [20,150) > aten::linear [25,145)
#       [25,95) > launch > kernel 50 µs        Dropout_0 [155,170)
#     aten::relu [110,150)                     aten::gelu [175,200)
#     Linear_1 [160,300) > aten::linear        Linear_1 [210,450) > aten::linear [220,440)
#   aten::add [410,450) > Inner_0 [415,440)  aten::sub [510,560) > Inner_0 [515,550)
#   Decoder_0 [510,900) > aten::mm           Decoder_0 [600,1100) > aten::mm [610,1090)
#   Optimizer.step#SGD.step [910,990)        Optimizer.step#SGD.step [1110,1190)
# The top lists (the step's children) match Encoder_0, Decoder_0 and the optimizer step;
# between Encoder_0 and Decoder_0 one node on each side (aten::add, aten::sub): a pair of
# single nodes, aligned again on their children (Inner_0 matched).  In Encoder_0:
# Linear_0 and Linear_1 match, and between them relu against Dropout_0 + gelu (one node
# against two: not aligned further).  Totals are the device time where a node has some,
# else the host time: base Encoder_0 50 (its kernel), new 490.
cat >"$tmp/tree_a.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"python_function","name":"nn.Module: Encoder_0","pid":1,"tid":1,"ts":10,"dur":390,"args":{"Python module id":1}},
{"ph":"X","cat":"python_function","name":"nn.Module: Linear_0","pid":1,"tid":1,"ts":20,"dur":80,"args":{"Python module id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":25,"dur":70,"args":{"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":5,"args":{"External id":1,"correlation":7}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":40,"dur":50,"args":{"device":0,"stream":7,"correlation":7,"External id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":110,"dur":40,"args":{"External id":2}},
{"ph":"X","cat":"python_function","name":"nn.Module: Linear_1","pid":1,"tid":1,"ts":160,"dur":140,"args":{"Python module id":3}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":170,"dur":120,"args":{"External id":3}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":410,"dur":40,"args":{"External id":4}},
{"ph":"X","cat":"python_function","name":"nn.Module: Inner_0","pid":1,"tid":1,"ts":415,"dur":25,"args":{"Python module id":5}},
{"ph":"X","cat":"python_function","name":"nn.Module: Decoder_0","pid":1,"tid":1,"ts":510,"dur":390,"args":{"Python module id":4}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":520,"dur":360,"args":{"External id":5}},
{"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":910,"dur":80}
]}
JSON
cat >"$tmp/tree_b.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1200},
{"ph":"X","cat":"python_function","name":"nn.Module: Encoder_0","pid":1,"tid":1,"ts":10,"dur":490,"args":{"Python module id":1}},
{"ph":"X","cat":"python_function","name":"nn.Module: Linear_0","pid":1,"tid":1,"ts":20,"dur":130,"args":{"Python module id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":25,"dur":120,"args":{"External id":1}},
{"ph":"X","cat":"python_function","name":"nn.Module: Dropout_0","pid":1,"tid":1,"ts":155,"dur":15,"args":{"Python module id":6}},
{"ph":"X","cat":"cpu_op","name":"aten::gelu","pid":1,"tid":1,"ts":175,"dur":25,"args":{"External id":2}},
{"ph":"X","cat":"python_function","name":"nn.Module: Linear_1","pid":1,"tid":1,"ts":210,"dur":240,"args":{"Python module id":3}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":220,"dur":220,"args":{"External id":3}},
{"ph":"X","cat":"cpu_op","name":"aten::sub","pid":1,"tid":1,"ts":510,"dur":50,"args":{"External id":4}},
{"ph":"X","cat":"python_function","name":"nn.Module: Inner_0","pid":1,"tid":1,"ts":515,"dur":35,"args":{"Python module id":5}},
{"ph":"X","cat":"python_function","name":"nn.Module: Decoder_0","pid":1,"tid":1,"ts":600,"dur":500,"args":{"Python module id":4}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":610,"dur":480,"args":{"External id":5}},
{"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":1110,"dur":80}
]}
JSON
$MEMLENS diff --json "$tmp/tree_a.json" "$tmp/tree_b.json" >"$tmp/tree.json"
t_eq "C: exit status" "$?" 0
# n(node): (match, base name or node count, new name or node count, base/new total µs)
TREE='
def side(s): return None if s is None else s["name"] or s["nodes"]
def n(x): return (x["match"], side(x["base"]), side(x["new"]), x["base"] and x["base"]["total_us"], x["new"] and x["new"]["total_us"])
t = d["tree"]'
t_eq "C: top level: matched modules, a pair of single nodes, the optimizer" \
    "$(q "$tmp/tree.json" "exec('''$TREE'''.strip()) or [n(c) for c in t['children']]" 2>&1)" \
    "[('matched', 'nn.Module: Encoder_0', 'nn.Module: Encoder_0', 50, 490), ('unmatched', 'aten::add', 'aten::sub', 40, 50), ('matched', 'nn.Module: Decoder_0', 'nn.Module: Decoder_0', 390, 500), ('matched', 'Optimizer.step#SGD.step', 'Optimizer.step#SGD.step', 80, 80)]"
# one node against two: a composite, not aligned further (no children)
t_eq "C: inside Encoder_0: Linear_0, a composite stretch, Linear_1" \
    "$(q "$tmp/tree.json" "exec('''$TREE'''.strip()) or [(n(c), len(c['children'])) for c in t['children'][0]['children']]" 2>&1)" \
    "[(('matched', 'nn.Module: Linear_0', 'nn.Module: Linear_0', 50, 130), 0), (('unmatched', 'aten::relu', 2, 40, 40), 0), (('matched', 'nn.Module: Linear_1', 'nn.Module: Linear_1', 140, 240), 0)]"
t_eq "C: recursion into a pair of single nodes" \
    "$(q "$tmp/tree.json" "exec('''$TREE'''.strip()) or [n(c) for c in t['children'][1]['children']]" 2>&1)" \
    "[('matched', 'nn.Module: Inner_0', 'nn.Module: Inner_0', 25, 35)]"
# the operators under Encoder_0: aten::linear 2 calls each side, host 70+120 = 190 and
# 120+220 = 340, self host 190-5 (its launch) = 185; device 50 (the kernel) and 0
t_eq "C: operators under a node" \
    "$(q "$tmp/tree.json" "sorted((o['name'], o['base_calls'], o['new_calls'], o['base_host_us'], o['new_host_us'], o['base_self_host_us'], o['base_device_us'], o['new_device_us']) for o in d['tree']['children'][0]['ops'])" 2>&1)" \
    "[('aten::gelu', 0, 1, 0, 25, 0, 0, 0), ('aten::linear', 2, 2, 190, 340, 185, 50, 0), ('aten::relu', 1, 0, 40, 0, 40, 0, 0)]"
t_eq "C: the root holds both top lists (4 nodes each)" \
    "$(q "$tmp/tree.json" "d['tree']['match'], d['tree']['base']['nodes'], d['tree']['new']['nodes'], d['tree']['base']['host_us'], d['tree']['new']['host_us']")" \
    "('root', 4, 4, 900, 1120)"
t_contains "C: text shows the tree" "$($MEMLENS diff "$tmp/tree_a.json" "$tmp/tree_b.json")" "aten::add  ->  aten::sub"

# ---- C2. Backward nodes: modules and fwdbwd flows (the plugin's OpTreeBuilder) ------
# main thread: step > Model_0 [10,300) > {Linear_0 [20,100) > aten::linear @25,
#   Linear_1 [110,200) > aten::linear @120, aten::relu @210}; Optimizer.step [700,800).
# backward thread: evaluate_function roots ReluBackward0 [400,420), AddmmBackward0
#   [430,480) (new: [430,520)), AccumulateGrad [481,485) (new [521,525)), AddmmBackward0
#   [500,560) (new [540,600)); fwdbwd flows: linear@25 -> the last Addmm, linear@120 ->
#   the first Addmm, relu -> Relu.
# Backward nodes: Linear_0.backward {Addmm [500,560)} = 60; Linear_1.backward {Addmm,
#   AccumulateGrad} = [430,485) = 55 (new [430,525) = 95); Model_0.backward {Relu root,
#   the two} = [400,560) = 160 (new [400,600) = 200), put in the step between Model_0 and
#   the optimizer.  Aligned: Model_0, Model_0.backward, the optimizer; inside the backward:
#   the Relu roots (a pair of single nodes), Linear_1.backward, Linear_0.backward.
cat >"$tmp/mkbw.py" <<'PY'
import json, sys
def trace(l1_end, acc, l0):
    ev = []
    def X(cat, name, tid, ts, dur, args=None):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, **({"args": args} if args else {})})
    X("user_annotation", "ProfilerStep#1", 1, 0, 1000)
    X("python_function", "nn.Module: Model_0", 1, 10, 290, {"Python module id": 1})
    X("python_function", "nn.Module: Linear_0", 1, 20, 80, {"Python module id": 2})
    X("cpu_op", "aten::linear", 1, 25, 70)
    X("python_function", "nn.Module: Linear_1", 1, 110, 90, {"Python module id": 3})
    X("cpu_op", "aten::linear", 1, 120, 70)
    X("cpu_op", "aten::relu", 1, 210, 40)
    X("user_annotation", "Optimizer.step#SGD.step", 1, 700, 100)
    X("cpu_op", "autograd::engine::evaluate_function: ReluBackward0", 2, 400, 20)
    X("cpu_op", "ReluBackward0", 2, 401, 18)
    X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2, 430, l1_end - 430)
    X("cpu_op", "AddmmBackward0", 2, 431, l1_end - 432)
    X("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 2, acc, 4)
    X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2, l0, 60)
    X("cpu_op", "AddmmBackward0", 2, l0 + 1, 58)
    for i, (fts, bts) in enumerate([(25, l0 + 1), (120, 431), (210, 401)], 1):
        ev.append({"ph": "s", "id": i, "pid": 1, "tid": 1, "ts": fts, "cat": "fwdbwd", "name": "fwdbwd"})
        ev.append({"ph": "f", "id": i, "pid": 1, "tid": 2, "ts": bts, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
    return {"traceEvents": ev}
json.dump(trace(480, 481, 500), open(sys.argv[1] + "/bw_a.json", "w"))
json.dump(trace(520, 521, 540), open(sys.argv[1] + "/bw_b.json", "w"))
PY
python3 "$tmp/mkbw.py" "$tmp"
$MEMLENS diff --json "$tmp/bw_a.json" "$tmp/bw_b.json" >"$tmp/bw.json"
t_eq "C2: exit status" "$?" 0
t_eq "C2: the backward node between the forward module and the optimizer" \
    "$(q "$tmp/bw.json" "exec('''$TREE'''.strip()) or [(n(c), c['type']) for c in t['children']]" 2>&1)" \
    "[(('matched', 'nn.Module: Model_0', 'nn.Module: Model_0', 290, 290), 'module'), (('matched', 'nn.Module: Model_0.backward', 'nn.Module: Model_0.backward', 160, 200), 'backward'), (('matched', 'Optimizer.step#SGD.step', 'Optimizer.step#SGD.step', 100, 100), 'optimizer')]"
t_eq "C2: inside it, the roots and the modules' backward nodes" \
    "$(q "$tmp/bw.json" "exec('''$TREE'''.strip()) or [n(c) for c in t['children'][1]['children']]" 2>&1)" \
    "[('unmatched', 'autograd::engine::evaluate_function: ReluBackward0', 'autograd::engine::evaluate_function: ReluBackward0', 20, 20), ('matched', 'nn.Module: Linear_1.backward', 'nn.Module: Linear_1.backward', 55, 95), ('matched', 'nn.Module: Linear_0.backward', 'nn.Module: Linear_0.backward', 60, 60)]"
# its operators: the backward ops under it (evaluate_function Addmm: 50 + 60 = 110 µs in base)
t_eq "C2: the operators under the backward node" \
    "$(q "$tmp/bw.json" "sorted((o['name'], o['base_calls'], o['base_host_us'], o['new_host_us']) for o in d['tree']['children'][1]['ops'])" 2>&1)" \
    "[('AddmmBackward0', 2, 106, 146), ('ReluBackward0', 1, 18, 18), ('autograd::engine::evaluate_function: AddmmBackward0', 2, 110, 150), ('autograd::engine::evaluate_function: ReluBackward0', 1, 20, 20), ('autograd::engine::evaluate_function: torch::autograd::AccumulateGrad', 1, 4, 4)]"

# ---- D. memory on hand-written traces (t_mem_pair, tests/difflib.sh) -------------
# base: aten::linear allocates 100 B (Total Allocated 100, Reserved 1024), aten::relu
#   50 B (150: the peak), frees.  new: 40 B from before the trace (freed at 47 µs without
#   an alloc), aten::linear 150 B (190, Reserved 2048), aten::gelu 30 B (220: the peak),
#   an out-of-memory event.
# live at the peak, by top-level op: linear 100 -> 150 (+50), relu 50 -> gone (-50, base
#   only), before trace -> 40 (new only), gelu -> 30 (new only); sorted by |delta|, ties by
#   the larger side: linear, relu, before, gelu.
# unused at the reserved peak (first reached at 15 µs): 1024 - 100 = 924; 2048 - 190 = 1858
t_mem_pair "$tmp/mem_a.json" "$tmp/mem_b.json"
$MEMLENS diff --json "$tmp/mem_a.json" "$tmp/mem_b.json" >"$tmp/mem.json"
t_eq "D: exit status" "$?" 0
DEV='x = d["devices"][0]; f = lambda k: (x[k]["base"], x[k]["new"], x[k]["delta"], x[k]["delta_pct"])'
t_eq "D: device figures" "$(q "$tmp/mem.json" "exec('''$DEV''') or (x['id'], x['only'], f('peak_allocated_bytes'), f('peak_reserved_bytes'), f('unused_reserved_at_peak_bytes'), f('oom_events'), f('alloc_events'))")" \
    "('cuda:0', None, (150, 220, 70, 46.6667), (1024, 2048, 1024, 100), (924, 1858, 934, 101.0823), (0, 1, 1, None), (2, 2, 0, 0))"
t_eq "D: live-at-peak groups aligned, by |delta|" "$(q "$tmp/mem.json" "[(g['group'], g['base_bytes'], g['new_bytes'], g['delta_bytes'], g['only']) for g in d['devices'][0]['groups']]")" \
    "[('aten::linear', 100, 150, 50, None), ('aten::relu', 50, 0, -50, 'base'), ('(allocated before trace)', 0, 40, 40, 'new'), ('aten::gelu', 0, 30, 30, 'new')]"
# --by size: power-of-two classes; 100 and 150 B fall in different classes
t_eq "D: --by size" "$($MEMLENS diff --json --by size "$tmp/mem_a.json" "$tmp/mem_b.json" | python3 -c "import json,sys; d=json.load(sys.stdin)['pairs'][0]; print(d['by'], len(d['devices'][0]['groups']) > 1)")" "size True"
t_contains "D: text" "$($MEMLENS diff "$tmp/mem_a.json" "$tmp/mem_b.json")" "aten::relu  (base only)"

# ---- E. two snapshots: segments only in one, allocator settings -----------------
# base segments: A 2 MiB, B 20 MiB; new: A 2 MiB, B 4 MiB (same address, other size:
# another segment), C 2 MiB.  In both: A.  Only in base: B 20 MiB; only in new: B 4 MiB
# and C 2 MiB (6 MiB).  Settings: max_split_size -1 -> 134217728, and
# garbage_collection_threshold only in new.
cat >"$tmp/mksnap.py" <<'EOF'
import pickle, sys
MiB = 1 << 20
def seg(addr, size, alloc, stream=0):
    blocks = [{'address': addr, 'size': alloc, 'requested_size': alloc, 'state': 'active_allocated', 'frames': []}]
    if size > alloc:
        blocks.append({'address': addr + alloc, 'size': size - alloc, 'requested_size': 0, 'state': 'inactive', 'frames': []})
    return {'device': 0, 'address': addr, 'total_size': size, 'allocated_size': alloc, 'active_size': alloc,
            'requested_size': alloc, 'stream': stream, 'segment_type': 'large', 'segment_pool_id': (0, 0),
            'is_expandable': False, 'frames': [], 'blocks': blocks}
A, B, C = 0x7f0000000000, 0x7f0000200000, 0x7f0002000000
base = {'segments': [seg(A, 2 * MiB, MiB), seg(B, 20 * MiB, 16 * MiB)], 'device_traces': [[]],
        'allocator_settings': {'max_split_size': -1, 'expandable_segments': False, 'roundup_power2_divisions': {'1': 0, '2': 0}}}
new = {'segments': [seg(A, 2 * MiB, MiB), seg(B, 4 * MiB, 4 * MiB), seg(C, 2 * MiB, MiB // 2, stream=7)], 'device_traces': [[]],
       'allocator_settings': {'max_split_size': 134217728, 'expandable_segments': False,
                              'roundup_power2_divisions': {'1': 0, '2': 0}, 'garbage_collection_threshold': 0.8}}
pickle.dump(base, open(sys.argv[1], 'wb'), protocol=4)
pickle.dump(new, open(sys.argv[2], 'wb'), protocol=4)
EOF
python3 "$tmp/mksnap.py" "$tmp/a.pickle" "$tmp/b.pickle"
$MEMLENS diff --json "$tmp/a.pickle" "$tmp/b.pickle" >"$tmp/snap.json"
t_eq "E: exit status" "$?" 0
t_eq "E: segment counts" "$(q "$tmp/snap.json" "d['segments']['count'], d['segments']['common'], d['segments']['only_base_bytes'], d['segments']['only_new_bytes']")" \
    "({'base': 2, 'new': 3, 'delta': 1, 'delta_pct': 50}, 1, 20971520, 6291456)"
t_eq "E: segments only in one" "$(q "$tmp/snap.json" "[(s['address'], s['total_size'], s['stream']) for s in d['segments']['only_base']], [(s['address'], s['total_size'], s['stream']) for s in d['segments']['only_new']]")" \
    "([('0x7f0000200000', 20971520, '0')], [('0x7f0000200000', 4194304, '0'), ('0x7f0002000000', 2097152, '7')])"
t_eq "E: allocator settings that differ" "$(q "$tmp/snap.json" "d['allocator_settings']")" \
    "[{'key': 'max_split_size', 'base': '-1', 'new': '134217728'}, {'key': 'garbage_collection_threshold', 'base': None, 'new': '0.8'}]"
t_eq "E: no time side, said" "$(q "$tmp/snap.json" "d['steps'], d['operators'], d['tree']")" "(None, [], None)"
$MEMLENS diff "$tmp/a.pickle" "$tmp/b.pickle" >"$tmp/snap.txt"
t_contains "E: text" "$(cat "$tmp/snap.txt")" "max_split_size: -1 -> 134217728"
# by size, the sizes with the most bytes first: base B 20 MiB; new B 4 MiB, C 2 MiB
t_eq "E: text: the segments only in one, by size" "$(grep 'by size' "$tmp/snap.txt")" "    only in base by size: 1 × 20.00 MiB
    only in new  by size: 1 × 4.00 MiB, 1 × 2.00 MiB"

# ---- F. kinds that share only part: a snapshot against a trace ------------------
$MEMLENS diff --json "$tmp/a.pickle" "$tmp/mem_b.json" >"$tmp/mixed.json"
t_eq "F: a snapshot against a trace compares memory" "$?" 0
t_eq "F: what was left out is said" "$(q "$tmp/mixed.json" "len(d['devices']), d['steps'], [n for n in d['notes'] if n.startswith('time: left out')] != []")" "(1, None, True)"

# ---- G. directories: ranks paired by rank number ---------------------------------
mkdir -p "$tmp/d0" "$tmp/d1"
for r in 0 1; do t_ranked "$tmp/mem_a.json" $r 4 "$tmp/d0/r$r.json"; done
for r in 1 2; do t_ranked "$tmp/mem_b.json" $r 4 "$tmp/d1/r$r.json"; done
$MEMLENS diff --json "$tmp/d0" "$tmp/d1" >"$tmp/dirs.json"
t_eq "G: directories: rank 1 paired, the others listed" "$(python3 -c "
import json; j = json.load(open('$tmp/dirs.json'))
print([(p['base']['rank'], p['new']['rank']) for p in j['pairs']], [u.split(' only in ')[0] for u in j['unmatched']])")" \
    "[(1, 1)] ['rank 0', 'rank 2']"
t_eq "G: --rank 1" "$($MEMLENS diff --json --rank 1 "$tmp/d0" "$tmp/d1" | python3 -c "import json,sys; j=json.load(sys.stdin); print(len(j['pairs']), j['unmatched'])")" "1 []"

# ---- H. bad input: one line, exit 2 ----------------------------------------------
bad() { # NAME EXPECTED-TEXT ARGS...: exit 2, one line on stderr holding the text, nothing on stdout
    name=$1 want=$2; shift 2
    t_rejects "H: $name" "$want" $MEMLENS diff "$@"
    t_eq "H: $name: no output" "${#T_STDOUT}" 0
}
bad "missing side" "nope.json: No such file or directory" "$tmp/mem_a.json" "$tmp/nope.json"
printf '{"traceEvents": [{"ph": "X", "ts": 1,' >"$tmp/cut.json"
bad "unreadable side" "cut.json" "$tmp/cut.json" "$tmp/mem_b.json"
mkdir -p "$tmp/d2"
t_ranked "$tmp/mem_a.json" 5 8 "$tmp/d2/r5.json"
t_ranked "$tmp/mem_a.json" 6 8 "$tmp/d2/r6.json"
bad "mismatched ranks" "mismatched ranks" "$tmp/d0" "$tmp/d2"
bad "no such rank" "--rank 7" --rank 7 "$tmp/d0" "$tmp/d1"
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5}]}' >"$tmp/nomem.json"
bad "nothing in common" "nothing in common" "$tmp/a.pickle" "$tmp/nomem.json"
bad "one input" "two inputs" "$tmp/mem_a.json"
bad "bad --by" "--by" --by nothing "$tmp/mem_a.json" "$tmp/mem_b.json"
bad "--top 0" "--top 0: expected a number of rows (1 or more)" --top 0 "$tmp/mem_a.json" "$tmp/mem_b.json"
bad "--top not a number" "--top 5x: expected a number of rows" "$tmp/mem_a.json" "$tmp/mem_b.json" --top 5x
bad "--rank not a number" "--rank one: expected a rank number" "$tmp/mem_a.json" "$tmp/mem_b.json" --rank one

# ---- J. names from the input reach the terminal escaped (ESC, BEL, CR, LF) --------
printf '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","cat":"cpu_op","name":"esc\033[31mred\a\r\nFAKE","pid":1,"tid":1,"ts":1,"dur":5}]}' >"$tmp/hostile.json"
out=$($MEMLENS diff "$tmp/hostile.json" "$tmp/tree_a.json")
t_eq "J: no control character but LF" "$(printf '%s' "$out" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
t_contains "J: the name escaped" "$out" 'esc\e[31mred\a\r\nFAKE'

# ---- I. the report with its Compare view (browser checks: cli_diff_browser.sh) ---
$MEMLENS diff "$tmp/mem_a.json" "$tmp/mem_b.json" -o "$tmp/cmp.html"
t_eq "I: -o writes the report" "$?" 0
t_contains "I: it ends" "$(tail -c 20 "$tmp/cmp.html")" "</html>"
t_eq "I: it holds the compare data, base and new as ranks 0 and 1" "$(python3 -c "
import re, json
h = open('$tmp/cmp.html').read()
c = json.loads(re.search(r'<script type=\"application/json\" id=\"ml-compare\">(.*?)</script>', h, re.S).group(1))
m = json.loads(re.search(r'<script type=\"application/json\" id=\"ml-meta\">(.*?)</script>', h, re.S).group(1))
p = c['pairs'][0]
print(len(m['ranks']), p['base_rank'], p['new_rank'], p['diff']['devices'][0]['peak_allocated_bytes']['new'])")" "2 0 1 220"
# A job's pairs are compared one at a time (runpair_each.c): its text is each
# rank's own comparison under "== rank N", and its --json "pairs" each rank's own.
mkdir -p "$tmp/j0" "$tmp/j1"
for r in 0 1 2; do t_ranked "$tmp/mem_a.json" $r 3 "$tmp/j0/r$r.json"; done
for r in 0 1; do t_ranked "$tmp/mem_b.json" $r 3 "$tmp/j1/r$r.json"; done
t_ranked "$tmp/mem_a.json" 2 3 "$tmp/j1/r2.json"
: >"$tmp/jwant"
for r in 0 1 2; do
    [ $r -gt 0 ] && echo >>"$tmp/jwant"
    echo "== rank $r" >>"$tmp/jwant"
    $MEMLENS diff "$tmp/j0/r$r.json" "$tmp/j1/r$r.json" >>"$tmp/jwant"
done
$MEMLENS diff "$tmp/j0" "$tmp/j1" >"$tmp/jgot"
if cmp -s "$tmp/jwant" "$tmp/jgot"; then t_pass; else t_fail "a job's text is not its ranks' own comparisons: $(diff "$tmp/jwant" "$tmp/jgot" | head -3)"; fi
for r in 0 1 2; do $MEMLENS diff --json "$tmp/j0/r$r.json" "$tmp/j1/r$r.json" >"$tmp/jr$r.json"; done
$MEMLENS diff --json "$tmp/j0" "$tmp/j1" >"$tmp/jall.json"
t_eq "a job's --json pairs are its ranks' own" "$(python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))
own = [json.load(open(f))['pairs'][0] for f in sys.argv[2:]]
print(len(a['pairs']), a['pairs'] == own, [p['devices'][0]['peak_allocated_bytes']['new'] for p in a['pairs']])" \
    "$tmp/jall.json" "$tmp/jr0.json" "$tmp/jr1.json" "$tmp/jr2.json")" "3 True [220, 220, 150]"
t_done
