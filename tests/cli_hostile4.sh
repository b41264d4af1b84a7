# Hostile inputs of the fourth audit (issue 33, items 3-9), made here by hand:
# each one becomes a correct answer, a counted note or a one-line error (exit
# 2, naming the file and the position), never a silent wrong figure.
#    3 a ProfilerStep whose dur is negative, NaN, Infinity, a string, null, a
#      list or an object: left out with a note, not a 0 ns step
. tests/lib.sh
. tests/difflib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 not installed"
    t_done
    exit
fi

# ---- 3: a step with no length ----------------------------------------------
# Steps of 50 and 61 ms (average 55.5 ms) and a third whose dur is no duration:
# read as 0 ns it made the average 37.0 ms and --max-step-time 50ms pass.
for d in -5 NaN Infinity '"abc"' null '[1,2]' '{"a":1}'; do
    printf '{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":50000},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":50000,"dur":61000},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":111000,"dur":%s},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":100}]}\n' "$d" >"$tmp/step.json"
    out=$("$MEMLENS" check "$tmp/step.json" --max-step-time 50ms 2>&1)
    t_eq "dur $d: the step left out, --max-step-time fails" "$? $(printf '%s\n' "$out" | head -1)" \
        "1 FAIL --max-step-time 50ms: average step time 55.500 ms on step.json > 50.000 ms; largest parts: Other 55.450 ms, CPU Exec 50.000 us"
    t_eq "dur $d: a note in perf --json" "$("$MEMLENS" perf --json "$tmp/step.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["ranks"][0]["steps"]), [n for n in d["runs"][0]["notes"] if "complete event" in n])')" \
        "2 ['1 complete event (\"ph\": \"X\") left out: its \"dur\" is negative or not a number (NaN, Infinity, a string, null, a list): it has no length, not a 0 ns one']"
done
t_contains "the importer's note names the first" "$("$MEMLENS" summary "$tmp/step.json")" \
    'note: 1 complete event ("ph": "X") dropped: its "dur" is negative or not a number (the first at byte 211: ProfilerStep#3)'
t_done
