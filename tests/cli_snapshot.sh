#!/bin/sh
# cli_snapshot.sh — memlens on CUDA allocator snapshots: summary (text, --json),
# snapshot segments / trace, and bad input.  Expected numbers come from
# tests/snapshot_expected.py (an independent replay in Python).
. tests/lib.sh
SNAP=$DATA/snapshot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Bad input needs no data: code-naming pickles are refused, truncation is one line, exit 2.
printf '\200\002cos\nsystem\n.' >"$tmp/evil.pickle"
out=$($MEMLENS summary "$tmp/evil.pickle" 2>&1); rc=$?
t_eq "evil pickle exit" "$rc" 2
t_contains "evil pickle message" "$out" "byte 2: opcode 0x63 GLOBAL refused: memlens never loads code named by a file"
t_eq "evil pickle one line" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1
printf '\200\004\225\020\000\000\000\000\000\000\000}\224(\214\010segments]\224' >"$tmp/trunc.pickle"
out=$($MEMLENS summary "$tmp/trunc.pickle" 2>&1); rc=$?
t_eq "truncated pickle exit" "$rc" 2
t_contains "truncated pickle message" "$out" "trunc.pickle: byte 26: unexpected end of input: the pickle is truncated"

if [ ! -f "$SNAP/silmont_mem_snapshot.pickle" ]; then
    t_skip "$SNAP is absent"
    t_done; exit $?
fi

out=$($MEMLENS summary --json "$SNAP/silmont_mem_snapshot.pickle"); rc=$?
t_eq "summary --json exit" "$rc" 0
t_contains "format" "$out" '"format": "torch-snapshot"'
t_contains "peak allocated" "$out" '"peak_allocated_bytes": 3249143816,'
t_contains "peak time" "$out" '"peak_allocated_time_ns": 1772688692983308000,'
t_contains "peak reserved" "$out" '"peak_reserved_bytes": 3781165056,'
t_contains "alloc events" "$out" '"alloc_events": 36,'
t_contains "free events" "$out" '"free_events": 26,'

out=$($MEMLENS summary --json "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
t_contains "fullstep peak" "$out" '"peak_allocated_bytes": 54824462340,'
t_contains "fullstep reserved" "$out" '"peak_reserved_bytes": 61111009280,'
t_contains "fullstep allocs" "$out" '"alloc_events": 6769,'
t_contains "fullstep frees" "$out" '"free_events": 5894,'

out=$($MEMLENS summary --by frame "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
t_contains "summary text" "$out" "[torch-snapshot]"
t_contains "by frame: user frame" "$out" "step (/home/c-kaitwang/assignment1/cs336_basics/optimizers.py:82)"
t_contains "by frame: before trace" "$out" "(allocated before trace)"

out=$($MEMLENS snapshot segments "$SNAP/silmont_mem_snapshot.pickle"); rc=$?
t_eq "segments exit" "$rc" 0
t_contains "segments totals" "$out" "cuda:0: 9 segments, reserved 3.52 GiB, allocated 30.25 MiB (0.8%), free 3.49 GiB in 10 holes, largest hole 512.00 MiB"
t_contains "segments row" "$out" "0x00007f217a600000   20.00 MiB (0, 0)   0       large  no      [#########.]  90.6%      1.88 MiB      7"
n=$($MEMLENS snapshot segments "$SNAP/cs336_memory_ctx128_forward.pickle" | grep -c '^  0x')
t_eq "segments rows" "$n" 516

out=$($MEMLENS snapshot trace --to 0.3 "$SNAP/silmont_mem_snapshot.pickle")
t_contains "trace window" "$out" "4 of 97 entries shown"
t_contains "trace first" "$out" "+0.000000 s      cuda:0  segment_alloc   0x7f217a600000   20.00 MiB  main ("
n=$($MEMLENS snapshot trace --device 0 "$SNAP/cs336_memory_ctx256_fullstep_.pickle" | grep -c ' free_completed ')
t_eq "trace free_completed" "$n" 5894
out=$($MEMLENS snapshot trace --device 1 "$SNAP/silmont_mem_snapshot.pickle")
t_contains "trace other device" "$out" "0 of 97 entries shown"
out=$($MEMLENS snapshot trace --from 1ms --to 2ms "$SNAP/silmont_mem_snapshot.pickle")
t_contains "trace from/to" "$out" "2 of 97 entries shown"

if [ -f "$DATA/kineto/hta_triton_example.json.gz" ]; then
    out=$($MEMLENS snapshot segments "$DATA/kineto/hta_triton_example.json.gz" 2>&1); rc=$?
    t_eq "not a snapshot exit" "$rc" 2
    t_contains "not a snapshot" "$out" "not a CUDA allocator snapshot (format kineto)"
fi
out=$($MEMLENS snapshot frobnicate x 2>&1); rc=$?
t_eq "bad subcommand exit" "$rc" 2
t_done
