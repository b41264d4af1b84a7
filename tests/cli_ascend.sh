#!/bin/sh
# cli_ascend.sh — `memlens summary` on Ascend profile directories (2 ranks),
# --json, --rank, --group-by, and directories that hold nothing usable.
# Expected numbers: tests/ascend_expected.py.
. tests/lib.sh
A=$DATA/ascend
tmp=$(mktemp -d)
chmod 755 "$tmp" # the unreadable-path tests run as an unprivileged user
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# as_user CMD...: runs CMD without the power to read everything.  root reads
# through chmod 000, so root drops to nobody with setpriv; others run it as is.
if [ "$(id -u)" != 0 ]; then
    as_user() { "$@"; }
elif command -v setpriv >/dev/null 2>&1; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
    as_user=
fi

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
    t_contains "components" "$out" "PTA+GE      allocator       1.49 GiB"
    t_contains "module rows say so" "$out" "module APP  module          1.42 GiB"
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

    out=$("$MEMLENS" summary --all "$A/static" 2>&1)
    t_contains "static" "$out" "model 0 graph 1: peak of live operator memory 8.30 MiB at node 32; TOTAL row 19.44 MiB"
    t_contains "static components at a node" "$out" "model 0 graph 1 graph total    19.44 MiB  at node 1"
    case "$out" in *"+0.000000 s"*) t_fail "static graph times shown as seconds" ;; *) t_pass ;; esac

    got=$("$MEMLENS" summary --json --group-by stream --by size --rank 0 "$A/text_level1" | python3 -c '
import json, sys
v = json.load(sys.stdin)["devices"][0]
print(v["group_by"], v["by"])')
    t_eq "json group_by is --group-by, by is --by" "$got" "stream size"

    # the whole data folder: text and db ranks 0 and 1, the static graph (a
    # cpu device: not in the rank table); peaks from tests/ascend_expected.py
    out=$("$MEMLENS" summary --json "$A" 2>"$tmp/err"); rc=$?
    t_eq "all of ascend exit" "$rc" 0
    got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for i, v in zip(d["inputs"], d["devices"]):
    print(i["path"].split("/ascend/")[1], i["format"], v["rank"], v["id"], v["peak_allocated_bytes"])
print([p["id"] for p in d["ranks"]["peaks"]], d["ranks"]["highest_rank"], d["ranks"]["highest_id"],
      d["ranks"]["spread_bytes"], d["skipped"])')
    t_eq "all of ascend" "$got" "db_level1/rank0_ascend_pt ascend-db 0 npu:0 1263251456
text_level1/rank0_ascend_pt ascend-text 0 npu:0 1322299392
db_level1/rank1_ascend_pt ascend-db 1 npu:1 1322295296
text_level1/rank1_ascend_pt ascend-text 1 npu:1 1322299392
static/test_rank_1 ascend-static None cpu None
['npu:0', 'npu:0', 'npu:1', 'npu:1'] 0 npu:0 59047936 []"

    # ranks are compared on accelerators: the Kineto trace's cpu device (8 B)
    # is left out; cuda:1 peaks at 6629508096 (tests/cli_summary.sh), the
    # lowest npu at 1322299392: spread 5307208704
    K=$DATA/kineto/hta_df_index_resolver.json.gz
    if [ -f "$K" ]; then
        got=$("$MEMLENS" summary --json "$A/text_level1" "$K" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"]
print([p["id"] for p in r["peaks"]], r["highest_id"], r["spread_bytes"])')
        t_eq "ranks: accelerators only" "$got" "['npu:0', 'npu:1', 'cuda:1'] cuda:1 5307208704"
        out=$("$MEMLENS" summary "$A/text_level1" "$K")
        t_contains "ranks text" "$out" "highest: rank 1 cuda:1 (6.17 GiB); spread (highest - lowest) 4.94 GiB = 80.05% of the highest"
    else
        t_skip "no $K"
    fi

    # a WAL-mode export in a read-only directory: read right, nothing written
    # beside it (a plain read-only open leaves -wal and -shm files, or fails)
    ro=$tmp/ro/rank1_ascend_pt
    mkdir -p "$ro/ASCEND_PROFILER_OUTPUT"
    cp "$A/db_level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db" "$ro/ASCEND_PROFILER_OUTPUT/"
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode=WAL"); c.close()' \
        "$ro/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db"
    t_eq "db is in WAL mode" "$(od -An -tu1 -j18 -N2 "$ro/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db" | tr -s ' ')" " 2 2"
    chmod -R a-w "$tmp/ro"
    if command -v as_user >/dev/null 2>&1; then
        got=$(as_user "$MEMLENS" summary --json "$tmp/ro" | python3 -c '
import json, sys
v = json.load(sys.stdin)["devices"][0]
print(v["rank"], v["id"], v["peak_allocated_bytes"], v["peak_allocated_time_ns"], v["peak_reserved_bytes"])')
        t_eq "read-only WAL db" "$got" "1 npu:1 1322295296 1736410576446350820 1600913408"
        t_eq "nothing beside the db" "$(ls "$ro/ASCEND_PROFILER_OUTPUT")" "ascend_pytorch_profiler_1.db"
    else
        t_skip "running as root without setpriv: cannot test a read-only directory"
    fi

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

# unreadable paths (as an unprivileged user: root reads through chmod 000)
if command -v as_user >/dev/null 2>&1; then
    mkdir -p "$tmp/locked"
    chmod 000 "$tmp/locked"
    out=$(as_user "$MEMLENS" summary "$tmp/locked" 2>&1); rc=$?
    t_eq "locked exit" "$rc" 2
    t_contains "locked" "$out" "$tmp/locked: cannot read directory: Permission denied"
    chmod 755 "$tmp/locked"

    # one good rank, one whose ASCEND_PROFILER_OUTPUT cannot be read, a file
    # that is no profile: the good rank is summarised, the others reported
    m=$tmp/mixed
    mkdir -p "$m/r0_ascend_pt/ASCEND_PROFILER_OUTPUT" "$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT"
    printf 'Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\r\n' \
        >"$m/r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
    printf 'PTA,1.000\t,1.5,2,1.5,7,NPU:0\r\n' >>"$m/r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
    echo hello >"$m/notes.txt"
    chmod 000 "$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT"
    out=$(as_user "$MEMLENS" summary "$m" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
    t_eq "mixed exit" "$rc" 0
    t_contains "mixed good rank" "$out" "peak allocated   1.50 MiB"
    t_contains "mixed warning" "$err" "memlens: warning: $m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT: cannot read (Permission denied)"
    t_contains "mixed skipped" "$err" "memlens: skipped $m/notes.txt: not a profile memlens knows"
    case "$err" in *profile_memory=True*) t_fail "unreadable output dir blamed on profile_memory" ;; *) t_pass ;; esac
    got=$(as_user "$MEMLENS" summary --json "$m" 2>/dev/null | python3 -c '
import json, sys
for s in json.load(sys.stdin)["skipped"]:
    print(s["path"].rsplit("/", 2)[-2:], s["why"], s["unreadable"])')
    t_eq "json skipped" "$got" "['mixed', 'notes.txt'] not a profile memlens knows False
['r1_ascend_pt', 'ASCEND_PROFILER_OUTPUT'] cannot read (Permission denied) True"
    # named directly, the unreadable rank is an error
    out=$(as_user "$MEMLENS" summary "$m/r1_ascend_pt" 2>&1); rc=$?
    t_eq "unreadable rank exit" "$rc" 2
    t_eq "unreadable rank message" "$out" "memlens: $m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT: cannot read (Permission denied)"
    # a memory file that cannot be read skips the rank (never half of it)
    chmod 755 "$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT"
    cp "$m/r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv" "$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
    : >"$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_memory.csv"
    chmod 000 "$m/r1_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_memory.csv"
    got=$(as_user "$MEMLENS" summary --json "$m" 2>"$tmp/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["inputs"]), d["skipped"][1]["path"].rsplit("/", 1)[1], d["skipped"][1]["unreadable"])')
    t_eq "unreadable memory file" "$got" "1 operator_memory.csv True"
else
    t_skip "running as root without setpriv: cannot test unreadable paths"
fi

# many skipped files: one line each on stderr up to 10, then a count
mkdir -p "$tmp/many/r_ascend_pt/ASCEND_PROFILER_OUTPUT"
printf 'Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\nPTA,1,1,2,NPU:0\n' \
    >"$tmp/many/r_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do echo x >"$tmp/many/n$i.txt"; done
"$MEMLENS" summary "$tmp/many" >/dev/null 2>"$tmp/err"; rc=$?
t_eq "many exit" "$rc" 0
t_eq "many lines" "$(grep -c '^memlens: skipped ' "$tmp/err")" 10
t_contains "many count" "$(cat "$tmp/err")" "memlens: and 2 more skipped (--json lists them)"

# a header-only memory_record.csv names the file
mkdir -p "$tmp/hdr/r_ascend_pt/ASCEND_PROFILER_OUTPUT"
printf 'Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\n' \
    >"$tmp/hdr/r_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
out=$("$MEMLENS" summary "$tmp/hdr" 2>&1); rc=$?
t_eq "header only exit" "$rc" 0
t_contains "header only note" "$out" "note: memory_record.csv: header only, no rows"
out=$("$MEMLENS" summary "$tmp/hdr/r_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv" 2>&1)
t_contains "header only file note" "$out" "note: memory_record.csv: header only, no rows"
t_done
