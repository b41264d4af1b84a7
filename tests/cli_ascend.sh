#!/bin/sh
# cli_ascend.sh — `memlens summary` on Ascend profile directories (2 ranks),
# --json, --rank, --group-by, and directories that hold nothing usable.
# Expected numbers: tests/ascend_expected.py.
. tests/lib.sh
A=$DATA/ascend
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -d "$A/text_level1" ]; then
    t_skip "no $A"
else
    out=$("$MEMLENS" summary "$A/text_level1" 2>&1); rc=$?
    t_eq "text dir exit" "$rc" 0
    t_contains "rank 0" "$out" "rank0_ascend_pt  [ascend-text, rank 0]"
    t_contains "rank 1" "$out" "rank1_ascend_pt  [ascend-text, rank 1]"
    t_contains "npu:1" "$out" "npu:1"
    t_contains "headline" "$out" "device totals    from component PTA+GE"
    t_contains "app" "$out" "APP reserved     2.06 GiB"
    t_contains "components" "$out" "PTA+GE     allocator      1.49 GiB"
    t_contains "hidden" "$out" "smaller components hidden"
    t_contains "ranks table" "$out" "ranks: peak allocated per rank and device"
    t_contains "highest" "$out" "highest: rank 0 npu:0 (1.23 GiB); spread (highest - lowest) 0 B"

    j=$("$MEMLENS" summary --json "$A/text_level1")
    got=$(printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for v in d["devices"]:
    top = [g for g in v["top_at_peak"] if g["group"] != "(allocated before trace)"][0]  # that one is in byte order
    print(v["rank"], v["id"], v["peak_allocated_bytes"], v["peak_reserved_bytes"], v["app_reserved_peak_bytes"],
          v["unreleased_allocations"], v["unreleased_bytes"], top["group"], top["bytes"], top["count"])
print(d["ranks"]["highest_rank"], d["ranks"]["spread_bytes"], ",".join(i["format"] for i in d["inputs"]))')
    t_eq "json text" "$got" "0 npu:0 1322299392 1600913408 2216407040 24 264920064 aten::_foreach_add 245275136 16
1 npu:1 1322299392 1600913408 2216411136 24 264920064 aten::_foreach_add 245275136 16
0 0 ascend-text,ascend-text"

    got=$("$MEMLENS" summary --json "$A/db_level1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for v in d["devices"]:
    print(v["rank"], v["id"], v["peak_allocated_bytes"], v["peak_allocated_time_ns"], v["peak_reserved_bytes"], v["app_reserved_peak_bytes"])
print(d["ranks"]["highest_rank"], d["ranks"]["spread_bytes"])')
    t_eq "json db" "$got" "0 npu:0 1263251456 1736410576444401680 1600913408 2216402944
1 npu:1 1322295296 1736410576446350820 1600913408 2216407040
1 59043840"

    got=$("$MEMLENS" summary --json --rank 1 "$A/text_level1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["inputs"]), [v["id"] for v in d["devices"]], "ranks" in d)')
    t_eq "--rank 1" "$got" "1 ['npu:1'] False"
    out=$("$MEMLENS" summary --rank 7 "$A/text_level1" 2>&1); rc=$?
    t_eq "--rank 7 exit" "$rc" 2
    t_contains "--rank 7 message" "$out" "--rank 7: no such rank (loaded: 0, 1"

    out=$("$MEMLENS" summary --group-by stream --rank 0 "$A/text_level1" 2>&1)
    t_contains "streams" "$out" "PTA      stream 897357296"
    out=$("$MEMLENS" summary --group-by overall --rank 0 "$A/text_level1" 2>&1)
    case "$out" in *components,*) t_fail "--group-by overall still shows components" ;; *) t_pass ;; esac
    out=$("$MEMLENS" summary --group-by nope "$A/text_level1" 2>&1); rc=$?
    t_eq "--group-by nope exit" "$rc" 2

    out=$("$MEMLENS" summary "$A/static" 2>&1)
    t_contains "static" "$out" "model 0 graph 1: peak of live operator memory 8.30 MiB at node 32; TOTAL row 19.44 MiB"

    # the whole data folder: 5 Ascend ranks-or-graphs plus whatever else is there
    out=$("$MEMLENS" summary --json "$A" 2>&1); rc=$?
    t_eq "all of ascend exit" "$rc" 0

    # a broken CSV inside an Ascend folder names the file and line
    mkdir -p "$tmp/bad/r_ascend_pt/ASCEND_PROFILER_OUTPUT"
    head -3 "$A/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv" >"$tmp/bad/r_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
    printf 'PTA,12x,1,2,3,4,NPU:0\n' >>"$tmp/bad/r_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
    out=$("$MEMLENS" summary "$tmp/bad" 2>&1); rc=$?
    t_eq "bad csv exit" "$rc" 2
    t_contains "bad csv message" "$out" "memory_record.csv: line 4: column 'Timestamp(us)': '12x' is not a number"
fi

# directories with nothing usable
mkdir -p "$tmp/empty" "$tmp/junk/sub"
out=$("$MEMLENS" summary "$tmp/empty" 2>&1); rc=$?
t_eq "empty dir exit" "$rc" 2
t_contains "empty dir" "$out" "no profiles found: the directory is empty"
echo hello >"$tmp/junk/notes.txt"
: >"$tmp/junk/sub/empty.json"
mkdir -p "$tmp/junk/x_ascend_pt/ASCEND_PROFILER_OUTPUT"
out=$("$MEMLENS" summary "$tmp/junk" 2>&1); rc=$?
t_eq "junk dir exit" "$rc" 2
t_contains "junk lists" "$out" "no profiles found (skipped 3: "
t_contains "junk why 1" "$out" "notes.txt: not a profile memlens knows"
t_contains "junk why 2" "$out" "empty.json: empty file"
t_contains "junk why 3" "$out" "x_ascend_pt: Ascend profile without memory data"
out=$("$MEMLENS" summary "$tmp/missing" 2>&1); rc=$?
t_eq "missing dir exit" "$rc" 2

# an unreadable directory: root reads through chmod 000, so only check when not root
mkdir -p "$tmp/locked"
chmod 000 "$tmp/locked"
if [ "$(id -u)" = 0 ]; then
    t_skip "running as root: chmod 000 does not stop reads, cannot test an unreadable directory"
else
    out=$("$MEMLENS" summary "$tmp/locked" 2>&1); rc=$?
    t_eq "locked exit" "$rc" 2
    t_contains "locked" "$out" "cannot read directory: Permission denied"
fi
chmod 755 "$tmp/locked"
t_done
