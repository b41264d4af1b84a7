#!/bin/sh
# cli_snapshot.sh — memlens on CUDA allocator snapshots: summary (text, --json),
# snapshot segments / trace, and bad input.  Expected numbers come from
# tests/snapshot_expected.py (an independent replay in Python, as MemoryViz
# does it) or, for the small synthetic snapshots here, by hand.
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

# Pickles of other protocols get the reader's own message, not "unknown format".
printf '(dp0\nVsegments\np1\n(lp2\ns.' >"$tmp/p0.pickle"
out=$($MEMLENS summary "$tmp/p0.pickle" 2>&1); rc=$?
t_eq "protocol 0 exit" "$rc" 2
t_contains "protocol 0 message" "$out" "p0.pickle: byte 2: opcode 0x70 ('p') belongs to text pickles (protocols 0 and 1)"
printf '\200\006}.' >"$tmp/p6.pickle"
out=$($MEMLENS summary "$tmp/p6.pickle" 2>&1)
t_contains "protocol 6 message" "$out" "p6.pickle: byte 0: pickle protocol 6 is not supported (memlens reads 2 to 5)"

# A memo bomb: 2,000 references to one segment whose blocks list holds 2,000
# references to one block (8 KB that would be 4M blocks): refused at once.
printf '\200\002}(U\010segments](}q\001(U\006blocks](}q\002(U\005stateU\020active_allocatedU\004sizeK\020u' >"$tmp/bomb.pickle"
i=0; while [ $i -lt 250 ]; do printf 'h\002h\002h\002h\002h\002h\002h\002h\002' >>"$tmp/bomb.pickle"; i=$((i + 1)); done
printf 'eu' >>"$tmp/bomb.pickle"
i=0; while [ $i -lt 250 ]; do printf 'h\001h\001h\001h\001h\001h\001h\001h\001' >>"$tmp/bomb.pickle"; i=$((i + 1)); done
printf 'eU\015device_traces]u.' >>"$tmp/bomb.pickle"
out=$($MEMLENS summary "$tmp/bomb.pickle" 2>&1); rc=$?
t_eq "memo bomb exit" "$rc" 2
t_contains "memo bomb message" "$out" "bomb.pickle: byte 68: a segment, block or trace entry dict referenced a second time"

# Synthetic snapshots as JSON (the figures are worked out in tests/test_snapshot.c):
# two devices, an expandable segment mapped and unmapped, OOMs with and
# without device_free, a block pending free.
cat >"$tmp/two.json" <<'END'
{"segments": [
 {"device": 0, "address": 4096, "total_size": 4096, "stream": 0, "blocks": [
  {"size": 1024, "requested_size": 1000, "state": "active_allocated", "frames": [{"name": "load", "filename": "w.py", "line": 7}]},
  {"size": 512, "requested_size": 512, "state": "active_pending_free"},
  {"size": 512, "requested_size": 500, "state": "active_allocated"},
  {"size": 2048, "requested_size": 2048, "state": "inactive"}]},
 {"device": 1, "address": 1048576, "total_size": 8192, "stream": 0, "is_expandable": true,
  "blocks": [{"size": 8192, "requested_size": 8000, "state": "active_allocated"}]}],
 "device_traces": [[
  {"action": "alloc", "addr": 5632, "size": 500, "stream": 0, "time_us": 100},
  {"action": "free_completed", "addr": 36864, "size": 300, "stream": 0, "time_us": 110},
  {"action": "alloc", "addr": 8192, "size": 700, "stream": 0, "time_us": 120},
  {"action": "free_requested", "addr": 8192, "size": 700, "stream": 0, "time_us": 130},
  {"action": "free_completed", "addr": 8192, "size": 700, "stream": 0, "time_us": 140},
  {"action": "oom", "size": 1073741824, "device_free": 12345, "stream": 0, "time_us": 150}],
 [{"action": "segment_map", "addr": 1048576, "size": 4096, "stream": 0, "time_us": 200},
  {"action": "segment_map", "addr": 1052672, "size": 8192, "stream": 0, "time_us": 210},
  {"action": "segment_unmap", "addr": 1056768, "size": 4096, "stream": 0, "time_us": 220},
  {"action": "oom", "size": 5000, "stream": 0, "time_us": 230}]]}
END
out=$($MEMLENS summary --json "$tmp/two.json"); rc=$?
t_eq "two devices exit" "$rc" 0
flat=$(printf '%s' "$out" | tr -d ' \n')
t_contains "cuda:0 figures" "$flat" '"id":"cuda:0","name":null,"total_memory_bytes":null,"peak_allocated_bytes":2200,"peak_allocated_time_ns":120000,"peak_reserved_bytes":4096,"reserved_end_bytes":4096,'
t_contains "cuda:0 oom" "$flat" '"oom_events":1,"oom":[{"time_ns":150000,"requested_bytes":1073741824,"device_free_bytes":12345}]'
t_contains "cuda:1 figures" "$flat" '"id":"cuda:1","name":null,"total_memory_bytes":null,"peak_allocated_bytes":8000,"peak_allocated_time_ns":200000,"peak_reserved_bytes":12288,"reserved_end_bytes":8192,'
t_contains "cuda:1 oom" "$flat" '"oom":[{"time_ns":230000,"requested_bytes":5000,"device_free_bytes":null}]'
t_contains "time flags" "$flat" '"time_is_absolute":true,"time_is_event_order":false,'
out=$($MEMLENS summary "$tmp/two.json")
t_contains "oom text" "$out" "  out of memory    1 events
                   at 1970-01-01 00:00:00.000150 UTC: requested 1.00 GiB, device free 12.06 KiB"
t_contains "oom text, no device_free" "$out" "requested 4.88 KiB, device free not recorded"
t_contains "reserved at end" "$out" "  reserved at end  8.00 KiB"
t_contains "pending free note" "$out" "note: 1 block (512 B) at the end freed but waiting for their streams (active_pending_free)"
out=$($MEMLENS snapshot trace "$tmp/two.json")
t_contains "trace segment_map" "$out" "+0.000110 s      cuda:1  segment_map     0x000000101000    8.00 KiB"
t_contains "trace oom" "$out" "+0.000050 s      cuda:0  oom             requested 1.00 GiB, device free 12.06 KiB"

# A directory of a snapshot and a Kineto trace: each gets its own default grouping.
mkdir "$tmp/mixed"
cp "$tmp/two.json" "$tmp/mixed/snap.json"
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}}]}' >"$tmp/mixed/t.pt.trace.json"
out=$($MEMLENS summary --json "$tmp/mixed" | tr -d ' \n' | sed 's/"ranks":.*//' | grep -o '"id":"cuda:[01]"\|"by":"[a-z]*"' | tr '\n' ' ')
t_eq "default grouping per profile" "$out" '"id":"cuda:0" "by":"frame" "id":"cuda:1" "by":"frame" "id":"cuda:0" "by":"toplevel" '

# An older snapshot: no time_us, so times are entry numbers.
cat >"$tmp/old.json" <<'END'
{"segments": [{"device": 0, "address": 0, "total_size": 2048, "blocks": [
  {"size": 1024, "state": "active_allocated", "history": [{"addr": 0, "real_size": 900, "frames": [{"name": "h", "filename": "old.py", "line": 5}]}]},
  {"size": 1024, "state": "inactive"}]}],
 "device_traces": [[{"action": "alloc", "addr": 4096, "size": 100}, {"action": "free", "addr": 4096, "size": 100},
  {"action": "free", "addr": 8192, "size": 50}]]}
END
out=$($MEMLENS summary "$tmp/old.json")
t_contains "event order peak" "$out" "  peak allocated   1.03 KiB     at entry #0  (replayed from events)"
t_contains "event order note" "$out" "note: 3 of 3 trace entries have no time_us (an older PyTorch): times are entry numbers"
t_contains "history: real_size" "$out" "note: 1 block allocated at the end (900 B requested) never allocated in the trace"
out=$($MEMLENS summary --json "$tmp/old.json" | tr -d ' \n')
t_contains "event order flag" "$out" '"time_is_absolute":false,"time_is_event_order":true,'
out=$($MEMLENS snapshot trace --from 1 "$tmp/old.json"); rc=$?
t_eq "trace entry numbers exit" "$rc" 0
t_contains "trace entry numbers" "$out" "2 of 3 entries shown"
out=$($MEMLENS snapshot trace --from 1ms "$tmp/old.json" 2>&1); rc=$?
t_eq "trace unit without times exit" "$rc" 2
t_contains "trace unit without times" "$out" "--from 1ms: $tmp/old.json has no times (an older PyTorch): --from takes an entry number, without a unit"

# A snapshot without a trace (taken without recording history): no times to show.
cat >"$tmp/notrace.json" <<'END'
{"segments": [{"device": 0, "address": 4096, "total_size": 8192, "blocks": [
  {"size": 4096, "requested_size": 4000, "state": "active_allocated"}, {"size": 4096, "state": "inactive"}]}],
 "device_traces": [[]]}
END
out=$($MEMLENS summary "$tmp/notrace.json")
t_contains "no trace: peak" "$out" "  peak allocated   3.91 KiB  (replayed from events)"
t_contains "no trace: reserved" "$out" "  peak reserved    8.00 KiB
  reserved at end  8.00 KiB"
case "$out" in *1970*) t_fail "no trace: a time was shown" ;; *) t_pass ;; esac
out=$($MEMLENS summary --json "$tmp/notrace.json" | tr -d ' \n')
t_contains "no trace: null time" "$out" '"peak_allocated_bytes":4000,"peak_allocated_time_ns":null,'

# --help prints the usage on stdout and exits 0; a bad time exits 2.
out=$($MEMLENS summary --help); rc=$?
t_eq "summary --help exit" "$rc" 0
t_contains "summary --help" "$out" "usage: memlens summary"
for bad in 1e300 nan -5 12parsecs; do
    out=$($MEMLENS snapshot trace --from "$bad" "$tmp/two.json" 2>&1); rc=$?
    t_eq "bad time $bad exit" "$rc" 2
    t_contains "bad time $bad" "$out" "bad time $bad"
done

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

t_contains "reserved at end" "$out" '"reserved_end_bytes": 3781165056,'

# Peaks as MemoryViz replays them (tests/snapshot_expected.py).
out=$($MEMLENS summary --json "$SNAP/cs336_memory_ctx128_forward.pickle")
t_contains "forward peak" "$out" '"peak_allocated_bytes": 19352504320,'
t_contains "forward peak time" "$out" '"peak_allocated_time_ns": 1748729392114839000,'
t_contains "forward reserved" "$out" '"peak_reserved_bytes": 19667091456,'
t_contains "forward reserved at end" "$out" '"reserved_end_bytes": 19667091456,'
t_contains "forward before trace" "$out" '"before_trace_bytes_at_peak": 13628553216,'
t_contains "forward allocs" "$out" '"alloc_events": 2058,'
out=$($MEMLENS summary --json "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
t_contains "fullstep peak" "$out" '"peak_allocated_bytes": 54824462340,'
t_contains "fullstep peak time" "$out" '"peak_allocated_time_ns": 1748732595362881000,'
t_contains "fullstep reserved" "$out" '"peak_reserved_bytes": 61111009280,'
t_contains "fullstep reserved at end" "$out" '"reserved_end_bytes": 61025026048,'
t_contains "fullstep allocs" "$out" '"alloc_events": 6769,'
t_contains "fullstep frees" "$out" '"free_events": 5894,'
t_contains "fullstep oom" "$out" '"oom_events": 0,
      "oom": [],'

out=$($MEMLENS summary --by frame "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
t_contains "summary text" "$out" "[torch-snapshot]"
# 326 blocks that the trace never allocated, 13696976896 bytes requested: / 2^30 = 12.756 GiB
t_contains "the note's size in binary units" "$out" "note: 326 blocks allocated at the end (12.76 GiB requested) never allocated in the trace"
t_contains "by frame: user frame" "$out" "step (/home/c-kaitwang/assignment1/cs336_basics/optimizers.py:82)"
t_contains "by frame: before trace" "$out" "(allocated before trace)"
# A snapshot has no operators: the default grouping is by frame.
out2=$($MEMLENS summary "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
t_eq "default grouping is frame" "$out2" "$out"
# --by stack: the user frames of each stack, not the allocator's own C++ frames.
# Events stored and matched on the pipe's thread (evpipe.h) or on one thread: the same bytes.
for f in silmont_mem_snapshot cs336_memory_ctx128_forward cs336_memory_ctx256_fullstep_; do
    a=$($MEMLENS summary --json --all --by stack "$SNAP/$f.pickle")
    b=$(MEMLENS_ONE_THREAD=1 $MEMLENS summary --json --all --by stack "$SNAP/$f.pickle")
    t_eq "one thread, same summary: $f" "$a" "$b"
done
out=$($MEMLENS summary --by stack "$SNAP/silmont_mem_snapshot.pickle")
t_contains "by stack: user frames" "$out" "  512.00 MiB         1  custom_softmax (/root/autodl-tmp/assignment2-systems/cs336_systems/trace_peak_memory.py:7) <- custom_scaled_dot_product_attention (/root/autodl-tmp/assignment2-systems/cs336_systems/trace_peak_memory.py:19) <- main (/root/autodl-tmp/assignment2-systems/cs336_systems/trace_peak_memory.py:43) <- <module> (/root/autodl-tmp/assignment2-systems/cs336_systems/trace_peak_memory.py:98)"
case "$out" in *"unwind::unwind"*) t_fail "by stack: allocator frames in a label" ;; *) t_pass ;; esac
n=$(printf '%s\n' "$out" | sed -n '/live at the peak, by stack/,$p' | grep -c '^    ')
t_eq "by stack: groups" "$n" 11

# The same snapshot re-pickled at protocols 2 and 5, and saved as JSON, by
# Python: the same figures.
if command -v python3 >/dev/null 2>&1 && python3 tests/snapshot_expected.py --convert "$SNAP/silmont_mem_snapshot.pickle" "$tmp"; then
    want=$($MEMLENS summary --json "$SNAP/silmont_mem_snapshot.pickle" | sed -n '/"devices"/,$p')
    for f in p2.pickle p5.pickle snapshot.json; do
        got=$($MEMLENS summary --json "$tmp/$f" | sed -n '/"devices"/,$p')
        t_eq "re-saved as $f" "$got" "$want"
    done
    out=$($MEMLENS snapshot segments "$tmp/p5.pickle")
    t_contains "protocol 5 segments" "$out" "cuda:0: 9 segments, reserved 3.52 GiB"
else
    t_skip "python3 is absent: no re-pickled snapshots"
fi

out=$($MEMLENS snapshot segments "$SNAP/silmont_mem_snapshot.pickle"); rc=$?
t_eq "segments exit" "$rc" 0
t_contains "segments totals" "$out" "cuda:0: 9 segments, reserved 3.52 GiB, allocated 30.25 MiB (0.8%), free 3.49 GiB in 10 holes, largest hole 512.00 MiB"
t_contains "segments row" "$out" "0x00007f217a600000   20.00 MiB (0, 0)   0       large  no      [#########.]  90.6%      1.88 MiB      7"
n=$($MEMLENS snapshot segments "$SNAP/cs336_memory_ctx128_forward.pickle" | grep -c '^  0x')
t_eq "segments rows" "$n" 516

out=$($MEMLENS snapshot trace --to 0.3 "$SNAP/silmont_mem_snapshot.pickle")
t_contains "trace window" "$out" "4 of 97 entries shown"
t_contains "trace first" "$out" "+0.000000 s      cuda:0  segment_alloc   0x7f217a600000   20.00 MiB  main ("
out=$($MEMLENS snapshot trace --device 0 "$SNAP/cs336_memory_ctx256_fullstep_.pickle")
n=$(printf '%s\n' "$out" | grep -c ' free_completed ')
t_eq "trace free_completed" "$n" 5894
n=$(printf '%s\n' "$out" | grep -c ' $')
t_eq "trace: no trailing blanks" "$n" 0
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
