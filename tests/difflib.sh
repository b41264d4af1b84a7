# tests/difflib.sh — what tests/cli_diff.sh and tests/cli_check.sh share: a
# pair of small hand-written runs with memory and one step, a run given a rank,
# and the bad-input check.  Source it after tests/lib.sh.

# t_mem_pair BASE NEW: writes the two runs.
# base: aten::linear allocates 100 B (Total Allocated 100, Reserved 1024),
#   aten::relu 50 B (150: the peak, at 45 µs), then both are freed; one 100 µs step.
# new: 40 B from before the trace (freed at 47 µs without an alloc), aten::linear
#   150 B (190, Reserved 2048 from 15 µs), aten::gelu 30 B (220: the peak, at 45 µs),
#   an out-of-memory event asking 4 KiB; one 100 µs step (CPU Exec 40, Other 60).
# Live at the peak, by top-level op: base linear 100, relu 50; new linear 150, before
#   trace 40, gelu 30.  Unused at the reserved peak (first reached at 15 µs):
#   1024 - 100 = 924 B; 2048 - 190 = 1858 B (90.72 %).
t_mem_pair() {
    cat >"$1" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":20},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":15,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":100,"Total Allocated":100,"Total Reserved":1024}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":40,"dur":20},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":45,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":50,"Total Allocated":150,"Total Reserved":1024}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":55,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":-100,"Total Allocated":50,"Total Reserved":1024}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":70,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":-50,"Total Allocated":0,"Total Reserved":1024}}
]}
JSON
    cat >"$2" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":20},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":15,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":150,"Total Allocated":190,"Total Reserved":2048}},
{"ph":"X","cat":"cpu_op","name":"aten::gelu","pid":1,"tid":1,"ts":40,"dur":20},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":45,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":30,"Total Allocated":220,"Total Reserved":2048}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":47,"args":{"Device Type":1,"Device Id":0,"Addr":12288,"Bytes":-40,"Total Allocated":180,"Total Reserved":2048}},
{"ph":"i","cat":"[OutOfMemory]","s":"t","name":"[OutOfMemory]","pid":1,"tid":1,"ts":50,"args":{"Device Type":1,"Device Id":0,"Bytes":4096,"Total Allocated":180,"Total Reserved":2048}}
]}
JSON
}

# t_ranked RUN RANK WORLD OUT: RUN (a trace) as rank RANK of WORLD (distributedInfo).
t_ranked() {
    sed "s/\"traceEvents\"/\"distributedInfo\":{\"rank\":$2,\"world_size\":$3},\"traceEvents\"/" "$1" >"$4"
}

# t_rejects NAME WANT COMMAND...: COMMAND turns bad input down as every memlens
# command must: exit 2 and one line on stderr that holds WANT.  Its stdout is
# left in T_STDOUT.
t_rejects() {
    t_name=$1 t_want=$2; shift 2
    t_err=$(mktemp)
    T_STDOUT=$("$@" 2>"$t_err")
    t_rc=$?
    t_eq "$t_name: exit 2" "$t_rc" 2
    t_eq "$t_name: one line" "$(wc -l <"$t_err" | tr -d ' ')" 1
    t_contains "$t_name: says why" "$(cat "$t_err")" "$t_want"
    rm -f "$t_err"
}
