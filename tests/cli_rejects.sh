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

t_done
