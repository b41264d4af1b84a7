# `memlens summary --json` on the real Kineto traces in ../shared/data against
# figures computed independently in Python (tests/kineto_expected.py for
# traces with addresses, tests/kineto_oldformat_expected.py for the old one).
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 absent"; t_done; exit
fi
if [ ! -d "$DATA/kineto" ]; then
    t_skip "$DATA/kineto absent"; t_done; exit
fi

# Compares two summaries (memlens's, Python's): every device, every numeric
# field, and the groups live at the peak (all of them: --top is large).
compare='
import json, sys
got = {d["id"]: d for d in json.load(open(sys.argv[1]))["devices"]}
want = {d["id"]: d for d in json.load(open(sys.argv[2]))["devices"]}
if sorted(got) != sorted(want):
    print("devices: memlens %s, python %s" % (sorted(got), sorted(want)))
for dev in sorted(set(got) & set(want)):
    g, w = got[dev], want[dev]
    for k in sorted(w):
        if k in ("id", "top_at_peak"):
            continue
        if g.get(k) != w[k]:
            print("%s %s: memlens %s, python %s" % (dev, k, g.get(k), w[k]))
    rows = g["top_at_peak"]
    if [r["bytes"] for r in rows] != sorted((r["bytes"] for r in rows), reverse=True):
        print("%s top_at_peak not in byte order" % dev)
    key = lambda r: (-r["bytes"], r["group"], r["count"])
    if sorted(rows, key=key) != sorted(w["top_at_peak"], key=key):
        print("%s top_at_peak: memlens %s, python %s" % (dev, rows[:6], w["top_at_peak"][:6]))
    if not rows and w["alloc_events"]:
        print("%s top_at_peak empty" % dev)
'
for f in "$DATA"/kineto/*.json.gz; do
    name=$(basename "$f")
    case "$name" in tbplugin_*) continue ;; esac   # no addresses: below
    if ! $MEMLENS summary --json --top 1000000 "$f" >"$tmp/got.json" 2>"$tmp/err"; then
        t_fail "$name: memlens failed: $(cat "$tmp/err")"; continue
    fi
    if ! python3 tests/kineto_expected.py "$f" >"$tmp/want.json" 2>"$tmp/err"; then
        t_fail "$name: kineto_expected.py failed: $(tail -1 "$tmp/err")"; continue
    fi
    t_eq "$name agrees with kineto_expected.py" "$(python3 -c "$compare" "$tmp/got.json" "$tmp/want.json")" ""
done
f="$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
if [ -f "$f" ]; then
    got=$($MEMLENS summary --json "$f" | python3 -c '
import json, sys
for d in sorted(json.load(sys.stdin)["devices"], key=lambda d: d["id"]):
    print(d["id"], d["alloc_events"], d["free_events"], d["peak_allocated_bytes"], d["peak_allocated_time_ns"])')
    t_eq "tbplugin_resnet50_w0 agrees with kineto_oldformat_expected.py" "$got" "$(python3 tests/kineto_oldformat_expected.py "$f")"
else
    t_skip "$f absent"
fi
t_done
