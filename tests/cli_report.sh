# CLI behaviour of `memlens report`: writes one self-contained page, atomically;
# its data states the summary's peak; errors exit 2 with one line.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trace='{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}}]}'
printf '%s' "$trace" >"$tmp/t.json"

$MEMLENS report "$tmp/t.json" -o "$tmp/r.html" >"$tmp/out" 2>&1; t_eq "exit" $? 0
t_eq "quiet" "$(cat "$tmp/out")" ""
t_eq "no temp file left" "$(ls "$tmp" | grep -c tmp)" 0
page=$(cat "$tmp/r.html")
t_contains "html" "$page" "<!doctype html>"
t_contains "uPlot embedded" "$page" "uPlot"
t_contains "data embedded" "$page" 'id="ml-meta"'
t_contains "peak in the data" "$page" '"peak":{"curve":0,"v":3145728'
t_contains "before-trace group" "$page" '["(allocated before trace)",2097152,0]'
t_eq "no external resource" "$(grep -cE '(src|href)="(https?:)?//' "$tmp/r.html")" 0

# Errors: exit 2, one line, and no output file (nor temp file) left behind.
out=$($MEMLENS report "$tmp/t.json" 2>"$tmp/err"); t_eq "no -o exit" $? 2
t_contains "no -o usage" "$(cat "$tmp/err")" "usage: memlens report"
: >"$tmp/empty.json"
$MEMLENS report "$tmp/empty.json" -o "$tmp/e.html" 2>"$tmp/err"; t_eq "bad input exit" $? 2
t_eq "bad input one line" "$(wc -l <"$tmp/err" | tr -d ' ')" 1
t_eq "bad input no file" "$(ls "$tmp" | grep -c '^e.html')" 0
$MEMLENS report "$tmp/t.json" -o "$tmp/nodir/r.html" 2>"$tmp/err"; t_eq "bad output exit" $? 2
t_contains "bad output message" "$(cat "$tmp/err")" "nodir"
$MEMLENS report "$tmp/t.json" -o "$tmp/r2.html" --max-allocs 0 2>"$tmp/err"; t_eq "bad budget exit" $? 2

# Real data: the page states exactly the summary's peak.
real="$DATA/kineto/hta_df_index_resolver.json.gz"
if [ -f "$real" ]; then
    $MEMLENS report "$real" -o "$tmp/real.html"; t_eq "real exit" $? 0
    peak=$($MEMLENS summary --json "$real" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(max(x["peak_allocated_bytes"] for x in d["devices"]))')
    t_eq "real peak is the summary's" "$peak" 6629508096
    t_contains "real peak in the page" "$(grep -o '"peak":{"curve":0,"v":[0-9]*' "$tmp/real.html")" "\"v\":$peak"
else
    t_skip "real data absent ($real)"
fi
# meta PAGE EXPR: EXPR of the page's meta JSON (d), printed
meta() { python3 -c '
import json, re, sys
h = open(sys.argv[1]).read()
d = json.loads(re.search(r"<script type=\"application/json\" id=\"ml-meta\">(.*?)</script>", h, re.S).group(1).replace("<\\/", "</"))
print('"$2"')' "$1"; }
old="$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
if [ -f "$old" ]; then
    # no addresses: nothing matches, the curve is replayed from events; the device is still shown
    $MEMLENS report "$old" -o "$tmp/old.html"; t_eq "old trace report exit" $? 0
    t_eq "old trace: cuda:0 shown with its replayed curve, the summary's peak" \
        "$(meta "$tmp/old.html" '[(x["id"], x["curves"][0]["label"], x["peak"]["v"]) for x in d["ranks"][0]["devices"] if x["id"] == "cuda:0"]')" \
        "[('cuda:0', 'allocated (replayed from events)', 2791636480)]"
    t_eq "old trace: summary's peak" "$($MEMLENS summary --json "$old" | python3 -c 'import json,sys; print([x["peak_allocated_bytes"] for x in json.load(sys.stdin)["devices"] if x["id"] == "cuda:0"][0])')" 2791636480
else
    t_skip "old-format trace absent"
fi
snap="$DATA/snapshot/cs336_memory_ctx256_fullstep_.pickle"
if [ -f "$snap" ]; then
    $MEMLENS report "$snap" -o "$tmp/snap.html"; t_eq "snapshot report exit" $? 0
    # the replayed allocated curve starts where the reserved one does (the trace's start), not at the first alloc
    t_eq "snapshot: allocated curve from the trace's start" "$(meta "$tmp/snap.html" '(lambda c: c[0]["t"]["o"] == c[1]["t"]["o"] == d["ranks"][0]["devices"][0]["t0"])(d["ranks"][0]["devices"][0]["curves"])')" True
    # no operators: allocations grouped by their first user frame
    t_eq "snapshot: grouped by user frame" "$(meta "$tmp/snap.html" '(lambda a: (a["group_by"], any("transformer.py:" in g for g in a["groups"]), a["has"]["op"]))(d["ranks"][0]["devices"][0]["allocs"])')" "('frame', True, False)"
else
    t_skip "snapshot data absent"
fi
if [ -d "$DATA/ascend/text_level1" ]; then
    $MEMLENS report "$DATA/ascend/text_level1" -o "$tmp/ascend.html"; t_eq "ascend report exit" $? 0
    t_eq "ascend has two ranks" "$(grep -o '"rank":[0-9]*,"world_size"' "$tmp/ascend.html" | wc -l | tr -d ' ')" 2
else
    t_skip "ascend data absent"
fi
# The blobs deflate on a second thread: the page is byte for byte the one
# written on one thread (MEMLENS_ONE_THREAD), but for its "created" time.
GEN=${BUILD:-build}/tools/gen_trace
page_of() { sed 's/"created":"[^"]*"//' "$1" | cksum; }
same_serial() { # NAME INPUT...
    name=$1; shift
    $MEMLENS report "$@" -o "$tmp/two.html"; t_eq "$name: exit" $? 0
    MEMLENS_ONE_THREAD=1 $MEMLENS report "$@" -o "$tmp/one.html"; t_eq "$name: one thread exit" $? 0
    t_eq "$name: same page on one thread" "$(page_of "$tmp/two.html")" "$(page_of "$tmp/one.html")"
}
same_serial "tiny" "$tmp/t.json"
for mix in realistic memory-heavy; do
    $GEN --mix $mix --size-mb 4 --seed 3 --out "$tmp/gen-$mix.json" >/dev/null 2>&1 && same_serial "generated $mix" "$tmp/gen-$mix.json"
done
[ -f "$real" ] && same_serial "real" "$real"
[ -f "$snap" ] && same_serial "snapshot" "$snap"
[ -d "$DATA/ascend/text_level1" ] && same_serial "ascend, two ranks" "$DATA/ascend/text_level1"
t_done
