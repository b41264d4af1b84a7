# CLI behaviour of `memlens summary`: inputs (file, gzip, stdin), errors and exit codes.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trace='{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}}]}'
printf '%s' "$trace" >"$tmp/t.json"
gzip -c "$tmp/t.json" >"$tmp/t.json.gz"

out=$($MEMLENS summary "$tmp/t.json"); t_eq "plain exit" $? 0
t_contains "plain peak" "$out" "peak allocated   3.00 MiB"
t_contains "before-trace group" "$out" "2.00 MiB            (allocated before trace)"
t_contains "top-level group" "$out" "1.00 MiB         1  aten::linear"
t_eq "gzip gives the same" "$($MEMLENS summary "$tmp/t.json.gz" | tail -n +2)" "$(echo "$out" | tail -n +2)"
t_eq "stdin plain" "$($MEMLENS summary - <"$tmp/t.json" | tail -n +2)" "$(echo "$out" | tail -n +2)"
t_eq "stdin gzip" "$($MEMLENS summary - <"$tmp/t.json.gz" | tail -n +2)" "$(echo "$out" | tail -n +2)"
json=$($MEMLENS summary --json "$tmp/t.json")
t_eq "json parses" "$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["devices"][0]["peak_allocated_bytes"], d["devices"][0]["before_trace_bytes_at_peak"], d["inputs"][0]["format"])')" "3145728 2097152 kineto"

# Kineto's [OutOfMemory] events: listed with what was requested; the trace does not say what was free.
printf '%s' '{"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":512,"Total Allocated":512,"Total Reserved":4096}},
{"ph":"i","name":"[OutOfMemory]","pid":1,"tid":1,"ts":30,"args":{"Device Type":1,"Device Id":0,"Bytes":1073741824,"Total Allocated":512,"Total Reserved":4096}}]}' >"$tmp/oom.json"
out=$($MEMLENS summary --json "$tmp/oom.json" | tr -d ' \n')
t_contains "kineto oom json" "$out" '"oom_events":1,"oom":[{"time_ns":30000,"requested_bytes":1073741824,"device_free_bytes":null}]'
t_contains "kineto reserved at end" "$out" '"reserved_end_bytes":4096,'
out=$($MEMLENS summary "$tmp/oom.json")
t_contains "kineto oom text" "$out" "requested 1.00 GiB, device free not recorded"

# Bad input: one line naming the file and the position, exit status 2, nothing on stdout.
check_bad() { # NAME FILE EXPECTED-SUBSTRING
    out=$($MEMLENS summary "$2" 2>"$tmp/err"); rc=$?
    t_eq "$1 exit" "$rc" 2
    t_eq "$1 stdout empty" "$out" ""
    t_eq "$1 one line" "$(wc -l <"$tmp/err" | tr -d ' ')" 1
    t_contains "$1 message" "$(cat "$tmp/err")" "$3"
}
: >"$tmp/empty.json"; check_bad empty "$tmp/empty.json" "empty.json: byte 0: the file is empty"
printf 'hello world' >"$tmp/text.txt"; check_bad not-json "$tmp/text.txt" "text.txt: byte 0: unknown format"
head -c 150 "$tmp/t.json" >"$tmp/cut.json"; check_bad truncated "$tmp/cut.json" "cut.json: byte 150: the file ends"
head -c 60 "$tmp/t.json.gz" >"$tmp/cut.json.gz"; check_bad corrupt-gzip "$tmp/cut.json.gz" "cut.json.gz: gzip: "
check_bad missing "$tmp/nope.json" "nope.json: No such file or directory"
printf '{"traceEvents":[{"name":"[memory]","ts":1,"args":{"Bytes":{}}}]}' >"$tmp/types.json"
check_bad wrong-type "$tmp/types.json" "types.json: byte 50: [memory] event: args \"Bytes\" is not a number"
python3 -c 'print("{\"traceEvents\": " + "[" * 100000)' >"$tmp/deep.json"; check_bad deep "$tmp/deep.json" "nesting deeper than 512 levels"

$MEMLENS summary --by nonsense "$tmp/t.json" 2>/dev/null; t_eq "bad --by exit" $? 2
for top in abc 0 -3 2x ''; do
    out=$($MEMLENS summary --top "$top" "$tmp/t.json" 2>"$tmp/err"); rc=$?
    t_eq "--top '$top' exit" "$rc" 2
    t_contains "--top '$top' message" "$(cat "$tmp/err")" "--top $top: expected a number of groups"
done

# What was live at the peak, in byte order: aten::linear 3 MiB, before the
# trace 2 MiB (Total Allocated 6 MiB - 4 MiB traced), aten::relu 1 MiB.
mem() { # TS ADDR BYTES TOTAL
    printf '{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":%s,"args":{"Device Type":1,"Device Id":0,"Addr":%s,"Bytes":%s,"Total Allocated":%s}}' "$@"
}
printf '{"traceEvents":[%s,%s,%s,%s,%s]}' \
    '{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":10}' \
    '{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":30,"dur":10}' \
    "$(mem 11 1 3145728 5242880)" "$(mem 31 2 1048576 6291456)" "$(mem 50 2 -1048576 5242880)" >"$tmp/order.json"
groups='import json,sys; print(" ".join("%s=%d" % (g["group"], g["bytes"] >> 20) for g in json.load(sys.stdin)["devices"][0]["top_at_peak"]))'
t_eq "top_at_peak in byte order" "$($MEMLENS summary --json "$tmp/order.json" | python3 -c "$groups")" \
    "aten::linear=3 (allocated before trace)=2 aten::relu=1"
t_eq "top_at_peak --top 1" "$($MEMLENS summary --json --top 1 "$tmp/order.json" | python3 -c "$groups")" \
    "aten::linear=3 (allocated before trace)=2"
text=$($MEMLENS summary "$tmp/order.json" | sed -n '/live at the peak/,$p' | awk 'NR > 1 { print $NF }' | tr '\n' ' ')
t_eq "text in the same order" "$text" "aten::linear trace) aten::relu "

# Devices listed by kind (PyTorch's numbering) and index, cpu last.
memd() { # TYPE ID
    printf '{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":1,"args":{"Device Type":%s,"Device Id":%s,"Addr":1,"Bytes":8}}' "$@"
}
printf '[%s,%s,%s,%s,%s]' "$(memd 0 -1)" "$(memd 20 0)" "$(memd 1 1)" "$(memd 7 0)" "$(memd 1 0)" >"$tmp/devs.json"
t_eq "json device order" "$($MEMLENS summary --json "$tmp/devs.json" | python3 -c 'import json,sys; print(" ".join(d["id"] for d in json.load(sys.stdin)["devices"]))')" \
    "cuda:0 cuda:1 fpga:0 npu:0 cpu"
t_eq "text device order" "$($MEMLENS summary "$tmp/devs.json" | grep -E '^(cuda|fpga|npu|cpu)' | tr '\n' ' ')" "cuda:0 cuda:1 fpga:0 npu:0 cpu "

# Format detection looks at content past the first 4 KiB when it must.
format='import json,sys; print(json.load(sys.stdin)["inputs"][0]["format"])'
long=$(python3 -c 'print("x" * 5000)')
printf '[{"name":"%s","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":50},%s]' "$long" "$(mem 20 1 1024 1024)" >"$tmp/long.json"
t_eq "bare array, 5,000-char first name" "$($MEMLENS summary --json "$tmp/long.json" | python3 -c "$format")" kineto
printf '\357\273\277{"otherData":{"note":"%s"},"traceEvents":[%s]}' "$long" "$(mem 20 1 1024 1024)" >"$tmp/other.json"
t_eq "otherData first, with a BOM" "$($MEMLENS summary --json "$tmp/other.json" | python3 -c "$format")" kineto
printf '{"segments": [], "device_traces": [[]]}' >"$tmp/snap.json"
t_eq "JSON snapshot" "$($MEMLENS summary --json "$tmp/snap.json" | python3 -c "$format")" torch-snapshot
printf '[[10, 20], [[0, 100, 0, 0, 0, 0, 0, 0, 0], [0, 100, 0, 0, 0, 50, 0, 0, 0]]]' >"$tmp/timeline.json"
t_eq "memory timeline" "$($MEMLENS summary --json "$tmp/timeline.json" | python3 -c "$format")" torch-memory-timeline
if [ -f "$DATA/memory_timeline/hta_memory_timeline.raw.json.gz" ]; then
    t_eq "real raw memory timeline" "$($MEMLENS summary --json "$DATA/memory_timeline/hta_memory_timeline.raw.json.gz" | python3 -c "$format")" torch-memory-timeline
else
    t_skip "../shared/data absent"
fi
printf '{"name": "%s", "version": 3}' "$long" >"$tmp/config.json"; check_bad other-json "$tmp/config.json" 'config.json: byte 0: not a Chrome/Kineto trace: no "traceEvents" list'
printf '[1, 2, 3]' >"$tmp/numbers.json"; check_bad number-list "$tmp/numbers.json" "numbers.json: byte 0: not a Chrome/Kineto trace: the array holds no event objects"
printf '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"G"},' >"$tmp/props.json"
check_bad cut-in-device-properties "$tmp/props.json" "props.json: byte 59: the file ends where a value is due (truncated?)"
printf '{"traceEvents":[{"ph":"X","name":"a","args":[1}]}' >"$tmp/brackets.json"
check_bad mismatched-brackets "$tmp/brackets.json" "brackets.json: byte 46: expected ']', found '}'"

# A corrupt gzip stream: the inflater's error, or a position named as uncompressed.
python3 - "$tmp/t.json.gz" "$tmp/flip.json.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[len(b) // 2] ^= 0x20
open(sys.argv[2], 'wb').write(b)
PY
out=$($MEMLENS summary "$tmp/flip.json.gz" 2>"$tmp/err"); rc=$?
t_eq "bit flip exit" "$rc" 2
case "$(cat "$tmp/err")" in
    *"flip.json.gz: gzip: "* | *"flip.json.gz: uncompressed byte "*) t_pass ;;
    *) t_fail "bit flip message: $(cat "$tmp/err")" ;;
esac
$MEMLENS summary 2>/dev/null; t_eq "no input exit" $? 2
$MEMLENS frobnicate 2>/dev/null; t_eq "unknown command exit" $? 2

# Real data, when present: the issue's figures.
if [ -f "$DATA/kineto/hta_df_index_resolver.json.gz" ]; then
    j=$($MEMLENS summary --json "$DATA/kineto/hta_df_index_resolver.json.gz")
    t_eq "real cuda:1" "$(printf '%s' "$j" | python3 -c 'import json,sys; d=[x for x in json.load(sys.stdin)["devices"] if x["id"]=="cuda:1"][0]; print(d["alloc_events"], d["free_events"], d["peak_allocated_bytes"], d["peak_reserved_bytes"], d["rank"])')" "13385 13385 6629508096 12782141440 1"
else
    t_skip "../shared/data absent"
fi
t_done
