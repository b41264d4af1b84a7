# Hostile inputs of the fourth audit (issue 33, items 3-9), made here by hand:
# each one becomes a correct answer, a counted note or a one-line error (exit
# 2, naming the file and the position), never a silent wrong figure.
#    3 a ProfilerStep whose dur is negative, NaN, Infinity, a string, null, a
#      list or an object: left out with a note, not a 0 ns step
#    4 Ascend CSV and db: a negative time or a size of 2^62 bytes or more is an
#      error naming the line or row (not "1677-09-21", "4096.00 PiB"); memory
#      timeline rows of 2^62 bytes, or adding up to it, an error (no wrapped sum)
#    5 a NUL inside a name (JSON \u0000, a NUL byte in CSV): the name kept whole,
#      the NUL shown as U+2400, two names that differ after it stay two
#    6 diff - - and check - --base -: standard input twice, refused at once
#    8 diff -o --budget MB: the page of a job against a job within its budget,
#      the pairs that changed most embedded whole, the others summarised
. tests/lib.sh
. tests/difflib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 not installed"
    
# ---- 4: Ascend times and sizes that cannot be real --------------------------
MRH='Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type'
mkdir -p "$tmp/asc"
printf '%s\nPTA,-1000,1,2,,1,NPU:0\n' "$MRH" >"$tmp/asc/memory_record.csv"
t_rejects "csv: a negative time" "memory_record.csv: line 2: column 'Timestamp(us)': '-1000' is out of range: a negative time (before 1970) cannot be real" \
    "$MEMLENS" summary "$tmp/asc/memory_record.csv"
printf '%s\nPTA,1000,4398046511104,2,,1,NPU:0\n' "$MRH" >"$tmp/asc/memory_record.csv"
t_rejects "csv: 2^62 bytes allocated" "memory_record.csv: line 2: column 'Total Allocated(MB)': '4398046511104' is out of range: a size of 2^62 bytes or more cannot be real" \
    "$MEMLENS" summary "$tmp/asc/memory_record.csv"
if python3 -c 'import sqlite3' 2>/dev/null; then
    db() { # FILE TIMESTAMP TOTAL-ALLOCATED
        python3 - "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES(1,'PTA');
CREATE TABLE MEMORY_RECORD(component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,
  totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);
""")
c.execute("INSERT INTO MEMORY_RECORD VALUES(1, 1000, 1024, 4096, NULL, 9, 0)")
c.execute("INSERT INTO MEMORY_RECORD VALUES(1, ?, ?, 4096, NULL, 9, 0)", (int(sys.argv[2]), int(sys.argv[3])))
c.commit()
PY
    }
    db "$tmp/t.db" -9223372036854775807 2048
    t_rejects "db: a negative time" "t.db: table MEMORY_RECORD: row 2: column timestamp: -9223372036854775807 is out of range: a negative time (before 1970) cannot be real" \
        "$MEMLENS" summary "$tmp/t.db"
    db "$tmp/s.db" 2000 4611686018427387904
    t_rejects "db: 2^62 bytes allocated" "s.db: table MEMORY_RECORD: row 2: column totalAllocated: 4611686018427387904 is out of range: a size of 2^62 bytes or more cannot be real" \
        "$MEMLENS" summary "$tmp/s.db"
    db "$tmp/ok.db" 2000 2048
    t_contains "db: real values still read" "$("$MEMLENS" summary "$tmp/ok.db")" "peak allocated   2.00 KiB"
else
    t_skip "python3 sqlite3 absent: the Ascend db cases"
fi
# memory timelines: two rows of 2^62 bytes made a peak of 4096 PiB and 8192 PiB never freed
python3 -c 'import gzip, json, sys; gzip.open(sys.argv[1], "wt").write(json.dumps([[1000, 2, 1 << 62, 4], [2000, 2, 1 << 62, 4]]))' "$tmp/a.raw.json.gz"
t_rejects "timeline: a row of 2^62 bytes" "a.raw.json.gz: uncompressed byte 68: row 1: size 4611686018427387904 out of range (2^62 bytes or more cannot be real)" \
    "$MEMLENS" summary "$tmp/a.raw.json.gz"
python3 -c 'import gzip, json, sys; gzip.open(sys.argv[1], "wt").write(json.dumps([[1000, 2, 1 << 61, 4], [1500, 4, -(1 << 61), 4], [2000, 2, 1 << 61, 4]]))' "$tmp/b.raw.json.gz"
t_rejects "timeline: rows adding up to 2^62 bytes" "b.raw.json.gz: uncompressed byte 104: row 3: the rows allocate 2^62 bytes or more in all (not a real memory timeline)" \
    "$MEMLENS" summary "$tmp/b.raw.json.gz"
python3 -c 'import json, sys; json.dump([[1, 2], [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1 << 61, 0, 0, 0, 1 << 61, 0, 0, 0]]], open(sys.argv[1], "w"))' "$tmp/c.json"
t_rejects "timeline: totals adding up to 2^62 bytes" "entry 1: total 2305843009213693952 out of range (the totals reach 2^62 bytes or more)" \
    "$MEMLENS" summary "$tmp/c.json"

# ---- 5: NUL inside a name ---------------------------------------------------
printf '{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::sl\\u0000ice","pid":1,"tid":1,"ts":0,"dur":50},
{"ph":"X","cat":"cpu_op","name":"aten::sl\\u0000ow","pid":1,"tid":1,"ts":100,"dur":30},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":100,"Total Allocated":100,"Total Reserved":1024}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":110,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":200,"Total Allocated":300,"Total Reserved":1024}}]}\n' >"$tmp/nul.json"
t_eq "NUL in JSON names: perf keeps both" "$("$MEMLENS" perf "$tmp/nul.json" | grep -o 'aten::.*' | sort)" "aten::sl␀ice
aten::sl␀ow"
t_eq "NUL in JSON names: summary --json groups apart" "$("$MEMLENS" summary --json "$tmp/nul.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
print(sorted((g["group"], g["bytes"]) for g in d["top_at_peak"]))')" "[('aten::sl␀ice', 100), ('aten::sl␀ow', 200)]"
OMH='Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Stream Ptr,Device Type'
printf '%s\naten::sl\000ice,1024,1.000,,,1,NPU:0\naten::sl\000ow,4,2.500,,,1,NPU:0\n' "$OMH" >"$tmp/asc/operator_memory.csv"
t_eq "NUL in CSV names: both kept whole" "$("$MEMLENS" export "$tmp/asc/operator_memory.csv" -o - --format csv | cut -d, -f6,11)" "op,size_bytes
aten::sl␀ice,1048576
aten::sl␀ow,4096"

# ---- 6: standard input on both sides -----------------------------------------
t_rejects "diff - -" "memlens: diff: BASE and NEW are both standard input (-): one side at most can read it" \
    sh -c '"$1" diff - - <"$2"' sh "$MEMLENS" "$tmp/nul.json"
t_rejects "check - --base -" "memlens: check: NEW and --base BASE are both standard input (-): one side at most can read it" \
    sh -c '"$1" check - --base - --no-oom <"$2"' sh "$MEMLENS" "$tmp/nul.json"
t_eq "diff - FILE still reads standard input once" "$("$MEMLENS" diff - "$tmp/nul.json" <"$tmp/nul.json" >/dev/null 2>&1; echo $?)" 0

# ---- 8: diff -o --budget ------------------------------------------------------
# 16 ranks against themselves: 32 runs of about 0.25 MB of page each; within 3 MB
# the pairs that fit go in whole (4 runs), the others are summarised, and the Compare
# object still has all 16 pairs.  Without --budget (50 MB) every run is embedded.
"${BUILD:-build}/tools/gen_trace" --world-size 16 --out "$tmp/j16" --plant --layers 1 --steps 3 --no-stack >/dev/null 2>&1
page() { # FILE.html: its size, then how many runs are embedded and summarised, then the pairs compared
    python3 - "$1" <<'PY'
import json, os, re, sys
s = open(sys.argv[1]).read()
meta = json.loads(re.search(r'<script type="application/json" id="ml-meta">(.*?)</script>', s, re.S).group(1))
cmp = json.loads(re.search(r'<script type="application/json" id="ml-compare">(.*?)</script>', s, re.S).group(1))
summ = sum(1 for r in meta["ranks"] if r.get("summarised"))
print(os.path.getsize(sys.argv[1]) <= 3000000, len(meta["ranks"]) - summ, summ, len(cmp["pairs"]))
PY
}
"$MEMLENS" diff "$tmp/j16" "$tmp/j16" -o "$tmp/b3.html" --budget 3; t_eq "diff -o --budget 3: exit" $? 0
t_eq "diff -o --budget 3: within it, 4 runs whole, 28 summarised, 16 pairs" "$(page "$tmp/b3.html")" "True 4 28 16"
"$MEMLENS" diff "$tmp/j16" "$tmp/j16" -o "$tmp/b50.html"; t_eq "diff -o: exit" $? 0
t_eq "diff -o (50 MB): every run whole" "$(page "$tmp/b50.html" | cut -d' ' -f2-)" "32 0 16"
t_rejects "diff --budget without -o" "memlens: diff: --budget sizes the page of -o FILE.html: give -o" \
    "$MEMLENS" diff "$tmp/j16" "$tmp/j16" --budget 3
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

# ---- 4: Ascend times and sizes that cannot be real --------------------------
MRH='Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type'
mkdir -p "$tmp/asc"
printf '%s\nPTA,-1000,1,2,,1,NPU:0\n' "$MRH" >"$tmp/asc/memory_record.csv"
t_rejects "csv: a negative time" "memory_record.csv: line 2: column 'Timestamp(us)': '-1000' is out of range: a negative time (before 1970) cannot be real" \
    "$MEMLENS" summary "$tmp/asc/memory_record.csv"
printf '%s\nPTA,1000,4398046511104,2,,1,NPU:0\n' "$MRH" >"$tmp/asc/memory_record.csv"
t_rejects "csv: 2^62 bytes allocated" "memory_record.csv: line 2: column 'Total Allocated(MB)': '4398046511104' is out of range: a size of 2^62 bytes or more cannot be real" \
    "$MEMLENS" summary "$tmp/asc/memory_record.csv"
if python3 -c 'import sqlite3' 2>/dev/null; then
    db() { # FILE TIMESTAMP TOTAL-ALLOCATED
        python3 - "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES(1,'PTA');
CREATE TABLE MEMORY_RECORD(component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,
  totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);
""")
c.execute("INSERT INTO MEMORY_RECORD VALUES(1, 1000, 1024, 4096, NULL, 9, 0)")
c.execute("INSERT INTO MEMORY_RECORD VALUES(1, ?, ?, 4096, NULL, 9, 0)", (int(sys.argv[2]), int(sys.argv[3])))
c.commit()
PY
    }
    db "$tmp/t.db" -9223372036854775807 2048
    t_rejects "db: a negative time" "t.db: table MEMORY_RECORD: row 2: column timestamp: -9223372036854775807 is out of range: a negative time (before 1970) cannot be real" \
        "$MEMLENS" summary "$tmp/t.db"
    db "$tmp/s.db" 2000 4611686018427387904
    t_rejects "db: 2^62 bytes allocated" "s.db: table MEMORY_RECORD: row 2: column totalAllocated: 4611686018427387904 is out of range: a size of 2^62 bytes or more cannot be real" \
        "$MEMLENS" summary "$tmp/s.db"
    db "$tmp/ok.db" 2000 2048
    t_contains "db: real values still read" "$("$MEMLENS" summary "$tmp/ok.db")" "peak allocated   2.00 KiB"
else
    t_skip "python3 sqlite3 absent: the Ascend db cases"
fi
# memory timelines: two rows of 2^62 bytes made a peak of 4096 PiB and 8192 PiB never freed
python3 -c 'import gzip, json, sys; gzip.open(sys.argv[1], "wt").write(json.dumps([[1000, 2, 1 << 62, 4], [2000, 2, 1 << 62, 4]]))' "$tmp/a.raw.json.gz"
t_rejects "timeline: a row of 2^62 bytes" "a.raw.json.gz: uncompressed byte 68: row 1: size 4611686018427387904 out of range (2^62 bytes or more cannot be real)" \
    "$MEMLENS" summary "$tmp/a.raw.json.gz"
python3 -c 'import gzip, json, sys; gzip.open(sys.argv[1], "wt").write(json.dumps([[1000, 2, 1 << 61, 4], [1500, 4, -(1 << 61), 4], [2000, 2, 1 << 61, 4]]))' "$tmp/b.raw.json.gz"
t_rejects "timeline: rows adding up to 2^62 bytes" "b.raw.json.gz: uncompressed byte 104: row 3: the rows allocate 2^62 bytes or more in all (not a real memory timeline)" \
    "$MEMLENS" summary "$tmp/b.raw.json.gz"
python3 -c 'import json, sys; json.dump([[1, 2], [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1 << 61, 0, 0, 0, 1 << 61, 0, 0, 0]]], open(sys.argv[1], "w"))' "$tmp/c.json"
t_rejects "timeline: totals adding up to 2^62 bytes" "entry 1: total 2305843009213693952 out of range (the totals reach 2^62 bytes or more)" \
    "$MEMLENS" summary "$tmp/c.json"

# ---- 5: NUL inside a name ---------------------------------------------------
printf '{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::sl\\u0000ice","pid":1,"tid":1,"ts":0,"dur":50},
{"ph":"X","cat":"cpu_op","name":"aten::sl\\u0000ow","pid":1,"tid":1,"ts":100,"dur":30},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":100,"Total Allocated":100,"Total Reserved":1024}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":110,"args":{"Device Type":1,"Device Id":0,"Addr":8192,"Bytes":200,"Total Allocated":300,"Total Reserved":1024}}]}\n' >"$tmp/nul.json"
t_eq "NUL in JSON names: perf keeps both" "$("$MEMLENS" perf "$tmp/nul.json" | grep -o 'aten::.*' | sort)" "aten::sl␀ice
aten::sl␀ow"
t_eq "NUL in JSON names: summary --json groups apart" "$("$MEMLENS" summary --json "$tmp/nul.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
print(sorted((g["group"], g["bytes"]) for g in d["top_at_peak"]))')" "[('aten::sl␀ice', 100), ('aten::sl␀ow', 200)]"
OMH='Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Stream Ptr,Device Type'
printf '%s\naten::sl\000ice,1024,1.000,,,1,NPU:0\naten::sl\000ow,4,2.500,,,1,NPU:0\n' "$OMH" >"$tmp/asc/operator_memory.csv"
t_eq "NUL in CSV names: both kept whole" "$("$MEMLENS" export "$tmp/asc/operator_memory.csv" -o - --format csv | cut -d, -f6,11)" "op,size_bytes
aten::sl␀ice,1048576
aten::sl␀ow,4096"

# ---- 6: standard input on both sides -----------------------------------------
t_rejects "diff - -" "memlens: diff: BASE and NEW are both standard input (-): one side at most can read it" \
    sh -c '"$1" diff - - <"$2"' sh "$MEMLENS" "$tmp/nul.json"
t_rejects "check - --base -" "memlens: check: NEW and --base BASE are both standard input (-): one side at most can read it" \
    sh -c '"$1" check - --base - --no-oom <"$2"' sh "$MEMLENS" "$tmp/nul.json"
t_eq "diff - FILE still reads standard input once" "$("$MEMLENS" diff - "$tmp/nul.json" <"$tmp/nul.json" >/dev/null 2>&1; echo $?)" 0

# ---- 8: diff -o --budget ------------------------------------------------------
# 16 ranks against themselves: 32 runs of about 0.25 MB of page each; within 3 MB
# the pairs that fit go in whole (4 runs), the others are summarised, and the Compare
# object still has all 16 pairs.  Without --budget (50 MB) every run is embedded.
"${BUILD:-build}/tools/gen_trace" --world-size 16 --out "$tmp/j16" --plant --layers 1 --steps 3 --no-stack >/dev/null 2>&1
page() { # FILE.html: its size, then how many runs are embedded and summarised, then the pairs compared
    python3 - "$1" <<'PY'
import json, os, re, sys
s = open(sys.argv[1]).read()
meta = json.loads(re.search(r'<script type="application/json" id="ml-meta">(.*?)</script>', s, re.S).group(1))
cmp = json.loads(re.search(r'<script type="application/json" id="ml-compare">(.*?)</script>', s, re.S).group(1))
summ = sum(1 for r in meta["ranks"] if r.get("summarised"))
print(os.path.getsize(sys.argv[1]) <= 3000000, len(meta["ranks"]) - summ, summ, len(cmp["pairs"]))
PY
}
"$MEMLENS" diff "$tmp/j16" "$tmp/j16" -o "$tmp/b3.html" --budget 3; t_eq "diff -o --budget 3: exit" $? 0
t_eq "diff -o --budget 3: within it, 4 runs whole, 28 summarised, 16 pairs" "$(page "$tmp/b3.html")" "True 4 28 16"
"$MEMLENS" diff "$tmp/j16" "$tmp/j16" -o "$tmp/b50.html"; t_eq "diff -o: exit" $? 0
t_eq "diff -o (50 MB): every run whole" "$(page "$tmp/b50.html" | cut -d' ' -f2-)" "32 0 16"
t_rejects "diff --budget without -o" "memlens: diff: --budget sizes the page of -o FILE.html: give -o" \
    "$MEMLENS" diff "$tmp/j16" "$tmp/j16" --budget 3
t_done
