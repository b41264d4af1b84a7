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
#    7 serve: uploads bounded in number and bytes (--keep-uploads, --keep-upload-bytes),
#      the least recently viewed evicted, said in the upload's answer and its status
#    8 diff -o --budget MB: the page of a job against a job within its budget,
#      the pairs that changed most embedded whole, the others summarised
#    9 a counter of 1e308 written as a JSON number (not a 63-digit integer);
#      rank 1.5 and rank 7 of world size 2 refused; a symlink loop called so;
#      inputs that are not one job (no rank, a rank twice) are no cluster
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
# the first bad event has no "name" at all (the fuzzer found its copy of no name)
printf '{"traceEvents":[{"ph":"X","ts":1,"dur":-1}]}' >"$tmp/noname.json"
t_contains "a bad dur on an event with no name" "$("$MEMLENS" summary "$tmp/noname.json" 2>&1)" \
    'note: 1 complete event ("ph": "X") dropped: its "dur" is negative or not a number (the first at byte 16: no name)'

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

# ---- 9: a huge counter, ranks that cannot be, links, unrelated inputs ----------
printf '{"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5},
{"ph":"X","cat":"cuda_profiler_range","name":"k","pid":0,"tid":0,"ts":1000,"dur":100,"args":{"big":1e308,"small":2.5}}]}\n' >"$tmp/c308.json"
t_eq "a counter of 1e308: the same number in perf --json" "$("$MEMLENS" perf --json "$tmp/c308.json" | python3 -c '
import json, sys
d = json.load(sys.stdin); v = d["runs"][0]["cupti_counters"]["rows"][0]["values"]
print(v["big"] == 1e308, v["small"], d["ranks"][0]["cupti"]["rows"][0]["values"]["0"] == 1e308)')" "True 2.5 True"
ranked() { # FILE DISTRIBUTED-INFO-FIELDS
    printf '{"distributedInfo":{%s},"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,"dur":5},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":2,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":100,"Total Allocated":100,"Total Reserved":1024}}]}\n' "$2" >"$1"
}
ranked "$tmp/r15.json" '"rank":1.5,"world_size":4'
t_rejects "rank 1.5" "r15.json: byte 27: distributedInfo: \"rank\" must be a whole number below 2^30" "$MEMLENS" summary "$tmp/r15.json"
ranked "$tmp/r7.json" '"rank":7,"world_size":2'
t_rejects "rank 7 of 2" "r7.json: byte 43: distributedInfo: rank 7 of world_size 2: a rank is below the world size" "$MEMLENS" summary "$tmp/r7.json"
ranked "$tmp/w0.json" '"world_size":2.5,"rank":1'
t_rejects "world size 2.5" "distributedInfo: \"world_size\" must be a whole number from 1 to 2^30" "$MEMLENS" summary "$tmp/w0.json"
ranked "$tmp/r1.json" '"world_size":2,"rank":1'
t_contains "rank 1 of 2, keys in either order" "$("$MEMLENS" summary "$tmp/r1.json")" "[kineto, rank 1 of 2]"
mkdir -p "$tmp/links" && cp "$tmp/r1.json" "$tmp/links/a.json"
ln -s loop2 "$tmp/links/loop1" && ln -s loop1 "$tmp/links/loop2" && ln -s nowhere "$tmp/links/gone"
"$MEMLENS" summary "$tmp/links" >/dev/null 2>"$tmp/err"
t_eq "a symlink loop is called so, a dangling link broken" "$(cat "$tmp/err")" "memlens: skipped $tmp/links/gone: broken link
memlens: skipped $tmp/links/loop1: symlink loop
memlens: skipped $tmp/links/loop2: symlink loop"
has_cluster() { "$MEMLENS" "$@" | python3 -c 'import json, sys; print("cluster" in json.load(sys.stdin))'; }
ranked "$tmp/r0.json" '"rank":0,"world_size":2'
t_eq "two ranks of one job: a cluster" "$(has_cluster summary --json "$tmp/r0.json" "$tmp/r1.json")" True
t_eq "two unrelated traces: no cluster (summary)" "$(has_cluster summary --json "$tmp/nul.json" "$tmp/step.json")" False
t_eq "two unrelated traces: no cluster (perf)" "$(has_cluster perf --json "$tmp/nul.json" "$tmp/step.json")" False
t_eq "rank 1 twice: no cluster" "$(has_cluster summary --json "$tmp/r1.json" "$tmp/links/a.json")" False
"$MEMLENS" report "$tmp/nul.json" "$tmp/step.json" -o "$tmp/two.html"
t_eq "two unrelated traces: the report has no Cluster view" "$(grep -c '"cluster":{' "$tmp/two.html")" 0
if command -v curl >/dev/null 2>&1; then
    : >"$tmp/out"  # emptied first: the URL of a server started before must not be read as this one's
    "$MEMLENS" serve --port 0 "$tmp/nul.json" "$tmp/step.json" >"$tmp/out" 2>"$tmp/serr" &
    spid=$!
    URL=$(t_serve_url "$tmp/out")
    if [ -n "$URL" ]; then
        # their heads name no rank: /api/meta says no cluster from the first answer (it said true until the ranks were read)
        t_eq "serve, two unrelated traces: meta has no cluster from the start" \
            "$(curl -s -m 20 "${URL}api/meta" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("cluster"))')" None
        code=$(curl -s -m 20 -o "$tmp/body" -w '%{http_code}' "${URL}api/cluster?wait=10000")
        t_eq "serve, two unrelated traces: /api/cluster says they are not one job" "$code $(cat "$tmp/body")" \
            "422 {\"error\":\"$tmp/nul.json has no rank number (no distributedInfo): the inputs are not one job\"}"
    else t_fail "server did not print its URL: $(cat "$tmp/serr")"; fi
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    for pair in "r0.json r1.json True" "r1.json links/a.json None"; do
        set -- $pair
        : >"$tmp/out"  # emptied first: the URL of a server started before must not be read as this one's
        "$MEMLENS" serve --port 0 --no-follow "$tmp/$1" "$tmp/$2" >"$tmp/out" 2>"$tmp/serr" &
        spid=$!
        URL=$(t_serve_url "$tmp/out")
        t_eq "serve $1 $2: meta.cluster from the start" \
            "$(curl -s -m 20 "${URL}api/meta" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("cluster"))')" "$3"
        [ "$3" = None ] && t_eq "serve $1 $2: /api/cluster says why at once" \
            "$(curl -s -m 20 -w ' %{http_code}' "${URL}api/cluster")" \
            '{"error":"rank 1 is given twice: the inputs are not one job"} 422'
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    done
else
    t_skip "curl absent: the served case"
fi

# ---- 7: uploads held by serve are bounded ----------------------------------------
if command -v curl >/dev/null 2>&1; then
    mkdir -p "$tmp/upd"
    : >"$tmp/out"  # emptied first: the URL of a server started before must not be read as this one's
    TMPDIR="$tmp/upd" "$MEMLENS" serve --port 0 --keep-uploads 2 --keep-upload-bytes 1M >"$tmp/out" 2>"$tmp/serr" &
    spid=$!
    URL=$(t_serve_url "$tmp/out")
    put() { curl -s -m 30 -o "$tmp/body" -w '%{http_code}' -T "$2" "${URL}api/upload?name=$1"; printf ' '; cat "$tmp/body"; }
    get() { curl -s -m 10 -o "$tmp/body" -w '%{http_code}' "${URL%/}$1"; printf ' '; cat "$tmp/body"; }
    if [ -n "$URL" ]; then
        a=$(put one.json "$tmp/nul.json"); b=$(put two.json "$tmp/step.json")
        t_eq "uploads within the bounds: nothing evicted" "$(printf '%s' "${b#* }" | python3 -c 'import json,sys; print(json.load(sys.stdin)["evicted"])')" "[]"
        get "/api/rank?rank=0" >/dev/null # one.json viewed after two.json: two.json is the least recently viewed
        c=$(put three.json "$tmp/r1.json")
        t_eq "a third upload past --keep-uploads 2: the least recently viewed evicted, said so" "$(printf '%s' "${c#* }" | python3 -c '
import json, sys
d = json.load(sys.stdin); print(d["index"], d["evicted"], d["message"])')" \
            "2 [1] 1 earlier upload evicted (the least recently viewed): the server keeps at most 2 uploads and 1 MB of them (memlens serve --keep-uploads N, --keep-upload-bytes SIZE)"
        t_eq "its status says evicted" "$(get /api/meta | cut -d' ' -f2- | python3 -c '
import json, sys
d = json.load(sys.stdin); print([(r["path"], r["state"]) for r in d["ranks"]], d["ranks"][1]["error"][:8])')" \
            "[('one.json', 'ready'), ('two.json', 'evicted'), ('three.json', 'ready')] evicted:"
        t_eq "its views answer 410" "$(get '/api/rank?rank=1' | cut -c1-3)" 410
        t_eq "its file is gone from disk, the others kept" "$(find "$tmp/upd" -type f -name '*.json' | sed 's|.*/||' | sort | tr '\n' ' ')" "one.json three.json "
        python3 -c 'import json, sys; json.dump({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "op%d" % i, "pid": 1, "tid": 1, "ts": i, "dur": 1} for i in range(20000)]}, open(sys.argv[1], "w"))' "$tmp/big.json"
        d=$(put big.json "$tmp/big.json")
        t_eq "past --keep-upload-bytes 1M: the older ones evicted, the newest kept whatever its size" "$(printf '%s' "${d#* }" | python3 -c 'import json,sys; print(json.load(sys.stdin)["evicted"])')" "[0, 2]"
    else t_fail "server did not print its URL: $(cat "$tmp/serr")"; fi
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
else
    t_skip "curl absent: the upload bounds"
fi
t_done
