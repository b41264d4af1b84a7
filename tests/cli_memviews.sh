# The report data of the memory views (web/DATA.md): static graphs
# (device.static), traces without addresses (device.unmatched: the nets by
# operator add up to the replayed curve's peak).  Real data from ../shared/data.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meta() { # REPORT -> the meta JSON on stdout
    python3 -c 'import re,sys,json; s=open(sys.argv[1]).read(); m=re.search(r"<script type=\"application/json\" id=\"ml-meta\">(.*?)</script>", s, re.S); print(m.group(1).replace("<\\/", "</"))' "$1"
}
f="$DATA/ascend/static"
if [ -d "$f" ]; then
    $MEMLENS report "$f" -o "$tmp/s.html" && meta "$tmp/s.html" >"$tmp/s.json"
    t_eq "static: graphs, rows per graph, TOTAL rows" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["ranks"][0]["devices"][0]["static"]["graphs"]; print([(g["model"], g["graph"], len(g["rows"]), g["total"]) for g in d])' "$tmp/s.json")" \
        "[('0', '0', 27, [[1, 17623552]]), ('0', '1', 27, [[1, 20388352]])]"
    t_eq "static: held to the end is -1" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["ranks"][0]["devices"][0]["static"]["graphs"][0]["rows"]; print(sum(r[2] == -1 for r in d))' "$tmp/s.json")" 5
else t_skip "ascend/static absent"; fi
f="$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
if [ -f "$f" ]; then
    $MEMLENS report "$f" -o "$tmp/t.html" && meta "$tmp/t.html" >"$tmp/t.json"
    t_eq "unmatched: the nets by operator add up to the peak, events counted" \
        "$(python3 -c 'import json,sys; ds=json.load(open(sys.argv[1]))["ranks"][0]["devices"]; print([(d["id"], sum(r[5] for r in d["unmatched"]["by_op"]) == d["peak"]["v"], d["unmatched"]["allocs"], d["unmatched"]["frees"]) for d in ds])' "$tmp/t.json")" \
        "[('cpu', True, 2310, 2308), ('cuda:0', True, 4110, 4110)]"
else t_skip "tbplugin trace absent"; fi
f="$DATA/kineto/hta_df_index_resolver.json.gz"
if [ -f "$f" ]; then
    $MEMLENS report "$f" -o "$tmp/k.html" && meta "$tmp/k.html" >"$tmp/k.json"
    t_eq "a trace with addresses has no unmatched part" "$(grep -c '"unmatched"' "$tmp/k.json")" 0
fi
# Ascend: operator-memory rows linked to their operators (call stacks, threads,
# so top-level operators and categories), host and NPU model from the db.
for kind in text db; do
    f="$DATA/ascend/${kind}_level1/rank0_ascend_pt"
    if [ ! -d "$f" ]; then t_skip "ascend ${kind}_level1 absent"; continue; fi
    out=$($MEMLENS summary "$f")
    t_contains "ascend $kind: rows linked to their operator" "$out" "127 of 184 rows linked to their operator in the CPU trace (121 with its call stack; of 860 operators, 316 have a stack of their own, 0 that of an enclosing operator, 259 (backward) that of their forward operator)"
    t_contains "ascend $kind: by frame, from the operators' call stacks" "$($MEMLENS summary --by frame "$f")" "train (/home/z30057886/imagenet_script/main.py:366)"
    t_contains "ascend $kind: backward allocations under their autograd node" "$out" "autograd::engine::evaluate_function: AddmmBackward0"
    $MEMLENS export "$f" -o "$tmp/a.csv"
    t_eq "ascend $kind: no allocation left Unknown" "$(cut -d, -f4 "$tmp/a.csv" | grep -c '^Unknown$')" 0
    $MEMLENS report "$f" -o "$tmp/a.html" && meta "$tmp/a.html" >"$tmp/a.json"
    t_eq "ascend $kind: the Operators table knows calls" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["ranks"][0]["devices"][0]["ops"]; print(any(r[1] for r in d))' "$tmp/a.json")" True
done
f="$DATA/ascend/db_level1"
if [ -d "$f" ]; then
    t_eq "ascend db: host and NPU model (summary --json)" \
        "$($MEMLENS summary --json "$f" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([i["host"] for i in d["inputs"]], sorted({x["name"] for x in d["devices"]}))')" \
        "['ubuntu', 'ubuntu'] ['Ascend910B']"
    t_contains "ascend db: host in the text summary" "$($MEMLENS summary "$f/rank0_ascend_pt")" "[ascend-db, rank 0, host ubuntu]"
fi
# export -o FILE.html: export_memory_timeline's stacked category plot of one device, self-contained
f="$DATA/kineto/hta_df_index_resolver.json.gz"
if [ -f "$f" ]; then
    $MEMLENS export "$f" -o "$tmp/t.html"; t_eq "export .html: exit status" $? 0
    h=$(cat "$tmp/t.html")
    t_contains "export .html: the maxima in the title" "$h" "Max memory allocated: 6.17 GiB"
    t_contains "export .html: PyTorch's axis labels" "$h" "Time (ms)"
    t_eq "export .html: self-contained (no URL but the SVG namespace)" "$(grep -o 'https\?://[^"]*' "$tmp/t.html" | sort -u)" "http://www.w3.org/2000/svg"
    $MEMLENS export "$f" -o "$tmp/t.json" --format timeline
    t_eq "export .html: a band per category the .json timeline has" \
        "$(grep -o 'data-category="[A-Z_a-z]*"' "$tmp/t.html" | tr '\n' ' ')" \
        "$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); n=["PARAMETER","OPTIMIZER_STATE","INPUT","TEMPORARY","ACTIVATION","GRADIENT","AUTOGRAD_DETAIL","Unknown"]; print(" ".join("data-category=\"%s\"" % n[k] for k in range(8) if any(r[k+1] for r in t[1])) + " ")' "$tmp/t.json")"
fi
f="$DATA/ascend/text_level1"
if [ -d "$f" ]; then
    $MEMLENS export "$f" -o "$tmp/a.html" 2>"$tmp/err"; t_eq "export .html of two ranks needs --rank" $? 2
    t_contains "export .html: says so" "$(cat "$tmp/err")" "choose one with --rank N"
    $MEMLENS export "$f" --rank 1 -o "$tmp/a.html"; t_eq "export .html --rank 1" $? 0
fi
t_done
