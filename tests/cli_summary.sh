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
