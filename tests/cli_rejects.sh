# What memlens rejects (README "What memlens rejects"): values no profiler can
# write are input errors (one line naming file and position, exit 2) or, where
# one bad row among many is kept out, a counted note; never figures.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- Kineto: a bad [memory] event stops the run -----------------------------
mem() { # ARGS-JSON -> tmp/k.json, one [memory] event
    printf '{"traceEvents":[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,%s}}]}' "$1" >"$tmp/k.json"
}
kin() { # NAME ARGS EXPECTED-ERROR
    mem "$2"
    out=$($MEMLENS summary "$tmp/k.json" 2>"$tmp/err"); t_eq "kineto $1 exit" $? 2
    t_eq "kineto $1 message" "$(cat "$tmp/err")" "memlens: $tmp/k.json: $3"
    t_eq "kineto $1 no figures" "$out" ""
}
kin "negative total" '"Bytes":1024,"Total Allocated":-1024,"Total Reserved":4096' \
    'byte 16: [memory] event: args "Total Allocated" is negative'
kin "negative reserved" '"Bytes":1024,"Total Allocated":1024,"Total Reserved":-1' \
    'byte 16: [memory] event: args "Total Reserved" is negative'
kin "fractional bytes" '"Bytes":1.5,"Total Allocated":1024,"Total Reserved":4096' \
    'byte 116: [memory] event: args "Bytes" is not a whole number of bytes'
kin "fractional bytes as text" '"Bytes":"1.5","Total Allocated":1024,"Total Reserved":4096' \
    'byte 116: [memory] event: args "Bytes" is not a whole number of bytes'
kin "fractional total" '"Bytes":1024,"Total Allocated":1024.25,"Total Reserved":4096' \
    'byte 129: [memory] event: args "Total Allocated" is not a whole number of bytes'
kin "2^62 bytes" '"Bytes":4611686018427387904,"Total Allocated":1024,"Total Reserved":4096' \
    'byte 16: [memory] event: args "Bytes" is out of range'
mem '"Bytes":"2.0","Total Allocated":1.024e3,"Total Reserved":4096'
out=$($MEMLENS summary "$tmp/k.json" 2>&1); t_eq "kineto whole numbers in other forms exit" $? 0
t_contains "kineto 1.024e3 is 1 KiB" "$out" "peak allocated   1.00 KiB"
mem '"Bytes":-1024,"Total Allocated":0,"Total Reserved":4096'
$MEMLENS summary "$tmp/k.json" >/dev/null 2>&1; t_eq "kineto negative Bytes (a free) is fine" $? 0

# ---- Ascend: one impossible operator row is skipped and counted --------------
OMH='Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Stream Ptr,Device Type'
printf '%s\naten::mm,1024,1.000,,,1,NPU:0\naten::add,-512,2.000,3.000,,1,NPU:0\naten::mul,4,2.500,,,1,NPU:0\n' "$OMH" \
    >"$tmp/operator_memory.csv"
out=$($MEMLENS summary "$tmp/operator_memory.csv" 2>&1); t_eq "ascend negative Size(KB) exit" $? 0
t_contains "ascend negative Size(KB) note" "$out" \
    "note: operator_memory.csv: 1 operator allocation with a negative or impossible size skipped (first: line 3, Size(KB) -512)"
t_contains "ascend negative Size(KB) never freed" "$out" "never freed      2 allocations, 1.00 MiB"
t_contains "ascend negative Size(KB) events" "$out" "events           2 allocs, 0 frees"
printf '%s\naten::mm,4503599627370496,1.000,,,1,NPU:0\n' "$OMH" >"$tmp/operator_memory.csv"
out=$($MEMLENS summary "$tmp/operator_memory.csv" 2>&1); t_eq "ascend 2^62 bytes exit" $? 0
t_contains "ascend 2^62 bytes note" "$out" "1 operator allocation with a negative or impossible size skipped (first: line 2, Size(KB) 4503599627370496)"
if python3 -c 'import sqlite3' 2>/dev/null; then
    python3 - "$tmp/a.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES(3,'aten::mm');
CREATE TABLE OP_MEMORY(name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER,
  activeReleaseTime INTEGER, streamPtr INTEGER, deviceId INTEGER);
INSERT INTO OP_MEMORY VALUES(3, 1024, 1000, NULL, NULL, 9, 0), (3, -4096, 1100, 1200, NULL, 9, 0),
  (77, 2048, 1300, NULL, NULL, 9, 0), (78, 512, 1400, NULL, NULL, 9, 0);
""")
c.commit()
PY
    out=$($MEMLENS summary "$tmp/a.db" 2>&1); t_eq "ascend db exit" $? 0
    t_contains "ascend db negative size note" "$out" \
        "note: OP_MEMORY: 1 operator allocation with a negative or impossible size skipped (first: row 2, size -4096)"
    t_contains "ascend db missing name note" "$out" \
        "note: OP_MEMORY: 2 operator allocations name an id missing from STRING_IDS (first: row 3, name 77): shown as (no operator)"
    t_contains "ascend db never freed" "$out" "never freed      3 allocations, 3.50 KiB"
else
    t_skip "python3 sqlite3 absent: Ascend db cases"
fi

# ---- Allocator snapshots: a broken segment or block stops the run ------------
# (the first violation, with the count of the rest); a bad trace entry is
# skipped and counted.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp" <<'PY'
import pickle, sys
d = sys.argv[1]
def seg(**k):
    s = dict(device=0, address=4096, total_size=4096, stream=0,
             blocks=[dict(size=4096, requested_size=4000, state='active_allocated')])
    s.update(k)
    return s
def w(name, obj):
    open(d + '/' + name, 'wb').write(pickle.dumps(obj, protocol=4))
w('foo.pickle', {'segments': [{'foo': 1}], 'device_traces': []})
w('big.pickle', {'segments': [seg(total_size=2**70)], 'device_traces': []})
w('neg.pickle', {'segments': [seg(total_size=-4096)], 'device_traces': []})
w('str.pickle', {'segments': [seg(total_size='4096')], 'device_traces': []})
w('state.pickle', {'segments': [seg(blocks=[dict(size=4096, state='weird'), 7])], 'device_traces': []})
w('blocksize.pickle', {'segments': [seg(blocks=[dict(size=2**62, state='inactive')])], 'device_traces': []})
w('traces.pickle', {'segments': [], 'device_traces': {'a': 1}})
w('entry.pickle', {'segments': [seg()], 'device_traces': [[
    dict(action='alloc', addr=8192, size=512, stream=0, time_us=10),
    dict(action='alloc', addr=9000, size=-2**40, stream=0, time_us=11),
    dict(action='free_completed', addr=8192, size=512, stream=0, time_us=12),
    dict(action='alloc', addr=9000, size=1.5, stream=0, time_us=13),
    dict(action='alloc', size=64, stream=0, time_us=14)]]})
w('good.pickle', {'segments': [seg()], 'device_traces': [[
    dict(action='alloc', addr=8192, size=512, stream=0, time_us=10),
    dict(action='free_completed', addr=8192, size=512, stream=0, time_us=12)]]})
PY
    snap() { # NAME FILE EXPECTED-ERROR
        out=$($MEMLENS summary "$tmp/$2" 2>"$tmp/err"); t_eq "snapshot $1 exit" $? 2
        t_eq "snapshot $1 message" "$(cat "$tmp/err")" "memlens: $tmp/$2: $3"
        t_eq "snapshot $1 no figures" "$out" ""
    }
    snap "segment without fields" foo.pickle \
        "segments[0].total_size: missing (expected a non-negative integer) (and 2 more schema violations)"
    snap "total_size 2^70" big.pickle \
        "segments[0].total_size: expected a non-negative integer below 2^62, got 1180591620717411303424"
    snap "total_size -4096" neg.pickle "segments[0].total_size: expected a non-negative integer, got -4096"
    snap "total_size '4096'" str.pickle "segments[0].total_size: expected a non-negative integer, got '4096'"
    snap "block state" state.pickle \
        "segments[0].blocks[0].state: expected 'active_allocated', 'active_pending_free' or 'inactive', got 'weird' (and 1 more schema violation)"
    snap "block size 2^62" blocksize.pickle \
        "segments[0].blocks[0].size: expected a non-negative integer below 2^62, got 4611686018427387904"
    snap "device_traces a dict" traces.pickle \
        "device_traces: expected a list of trace lists (one per device), got {'a': 1}"
    printf '{"segments": [{"device": 0, "address": 0, "total_size": 4096.0, "blocks": []}], "device_traces": [[{"action": "alloc", "addr": 0, "size": "512"}]]}' >"$tmp/s.json"
    snap "JSON float total_size" s.json "segments[0].total_size: expected a non-negative integer, got 4096.0"
    $MEMLENS snapshot segments "$tmp/foo.pickle" >/dev/null 2>&1; t_eq "snapshot segments command refuses too" $? 2
    out=$($MEMLENS summary "$tmp/entry.pickle" 2>&1); t_eq "snapshot bad entries exit" $? 0
    t_contains "snapshot bad entries note" "$out" \
        "note: 3 trace entries with an impossible field skipped (first: device_traces[0][1].size: expected a non-negative integer, got -1099511627776)"
    good=$($MEMLENS summary "$tmp/good.pickle" 2>&1)
    t_eq "snapshot bad entries: the figures of the good ones" \
        "$(printf '%s\n' "$out" | grep -E 'peak allocated|events  ')" "$(printf '%s\n' "$good" | grep -E 'peak allocated|events  ')"
else
    t_skip "python3 absent: snapshot cases"
fi

t_done
