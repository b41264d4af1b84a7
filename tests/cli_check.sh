# `memlens check`: every rule passing and failing on small hand-written inputs
# (the figures worked out in the comments, as in tests/cli_diff.sh), the three
# biggest contributors of a broken rule, --json, JUnit XML read back by
# Python's xml.etree, and bad input (exit 2, one line).
. tests/lib.sh
. tests/difflib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null 2>&1 || { t_skip "python3 absent"; t_done; exit; }

# The runs of t_mem_pair (tests/difflib.sh).
# base: peak allocated 150 B (aten::linear 100 + aten::relu 50), reserved 1 KiB, one
#   100 µs step, no out-of-memory event.
# new: peak 220 B at 45 µs: aten::linear 150, memory from before the trace 40, aten::gelu
#   30; reserved 2 KiB from 15 µs, when 190 B were allocated (unused 1858 / 2048 =
#   90.72 %); one out-of-memory event asking 4 KiB; one 100 µs step: CPU Exec 40, Other 60.
t_mem_pair "$tmp/a.json" "$tmp/b.json"
# Step time: 1000 µs -> 1200 µs (+20 %).  Per step, aten::linear 190 -> 340 µs (+150),
# aten::mm 360 -> 480 (+120), aten::sub 0 -> 50 (+50): the three that grew most.
cat >"$tmp/s1.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":25,"dur":70},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":170,"dur":120},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":410,"dur":40},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":520,"dur":360}]}
JSON
cat >"$tmp/s2.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1200},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":25,"dur":120},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":220,"dur":220},
{"ph":"X","cat":"cpu_op","name":"aten::sub","pid":1,"tid":1,"ts":510,"dur":50},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":610,"dur":480}]}
JSON

# check NAME EXPECTED-EXIT EXPECTED-FIRST-LINE ARGS...
check() {
    name=$1 want_rc=$2 want=$3; shift 3
    out=$($MEMLENS check "$@" 2>"$tmp/err")
    rc=$?
    t_eq "$name: exit" "$rc" "$want_rc"
    t_eq "$name" "$(printf '%s\n' "$out" | head -1)" "$want"
}
B="$tmp/b.json"
check "max-peak holds" 0 "PASS --max-peak 220B: peak allocated 220 B on cuda:0 of b.json <= 220 B" "$B" --max-peak 220B
check "max-peak broken" 1 "FAIL --max-peak 219B: peak allocated 220 B on cuda:0 of b.json > 219 B; largest at the peak: aten::linear 150 B, (allocated before trace) 40 B, aten::gelu 30 B" "$B" --max-peak 219B
check "max-peak in GiB" 0 "PASS --max-peak 1.5GiB: peak allocated 220 B on cuda:0 of b.json <= 1.50 GiB" "$B" --max-peak 1.5GiB
check "max-reserved holds" 0 "PASS --max-reserved 2KiB: peak reserved 2.00 KiB on cuda:0 of b.json <= 2.00 KiB" "$B" --max-reserved 2KiB
check "max-reserved broken" 1 "FAIL --max-reserved 2KB: peak reserved 2.00 KiB on cuda:0 of b.json > 1.95 KiB; largest at the peak: aten::linear 150 B, (allocated before trace) 40 B, aten::gelu 30 B" "$B" --max-reserved 2KB
# 150 -> 220: +46.67 %
check "max-peak-growth holds" 0 "PASS --max-peak-growth 47%: peak allocated grew 46.7% (150 B -> 220 B) on cuda:0 of b.json <= 47%" "$B" --base "$tmp/a.json" --max-peak-growth 47%
check "max-peak-growth broken" 1 "FAIL --max-peak-growth 46%: peak allocated grew 46.7% (150 B -> 220 B) on cuda:0 of b.json > 46%; grew most: aten::linear +50 B, (allocated before trace) +40 B, aten::gelu +30 B" "$B" --base "$tmp/a.json" --max-peak-growth 46%
check "max-step-time holds" 0 "PASS --max-step-time 100us: average step time 100.000 us on b.json <= 100.000 us" "$B" --max-step-time 100us
check "max-step-time broken" 1 "FAIL --max-step-time 0.099ms: average step time 100.000 us on b.json > 99.000 us; largest parts: Other 60.000 us, CPU Exec 40.000 us" "$B" --max-step-time 0.099ms
check "max-step-time-growth holds" 0 "PASS --max-step-time-growth 20%: average step time grew 20% (1.000 ms -> 1.200 ms) on s2.json <= 20%" "$tmp/s2.json" --base "$tmp/s1.json" --max-step-time-growth 20%
check "max-step-time-growth broken" 1 "FAIL --max-step-time-growth 19.5%: average step time grew 20% (1.000 ms -> 1.200 ms) on s2.json > 19.5%; grew most per step: operator aten::linear +150.000 us, operator aten::mm +120.000 us, operator aten::sub +50.000 us" "$tmp/s2.json" --base "$tmp/s1.json" --max-step-time-growth 19.5%
# A kernel that grew, its C++ name longer than 100 columns, is named without its
# parameters: gemm 100 -> 300 µs in a step of 1000 -> 1200 µs (+20 %).
kernel_run() { # OUT KERNEL-US STEP-US
    printf '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":%s},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"void gemm_kernel<float, 128, at::Accessor<float, 2ul, at::RestrictPtrTraits, long>>(at::Accessor<float, 2ul, at::RestrictPtrTraits, long>, float*, int)","pid":0,"tid":7,"ts":20,"dur":%s,"args":{"device":0,"stream":7,"correlation":1}}]}' "$3" "$2" >"$1"
}
kernel_run "$tmp/k1.json" 100 1000
kernel_run "$tmp/k2.json" 300 1200
check "max-step-time-growth: a kernel's name" 1 "FAIL --max-step-time-growth 10%: average step time grew 20% (1.000 ms -> 1.200 ms) on k2.json > 10%; grew most per step: kernel gemm_kernel<float, 128, at::Accessor<float, 2ul, at::RestrictPtrTraits, long>>(…) +200.000 us" "$tmp/k2.json" --base "$tmp/k1.json" --max-step-time-growth 10%
check "no-oom holds" 0 "PASS --no-oom: out-of-memory events 0, expected none" "$tmp/a.json" --no-oom
check "no-oom broken" 1 "FAIL --no-oom: out-of-memory events 1 on cuda:0 of b.json, expected none; first: requested 4.00 KiB" "$B" --no-oom
check "max-unused-reserved holds" 0 "PASS --max-unused-reserved 91%: reserved but not allocated at the reserved peak 90.7% (190 B allocated of 2.00 KiB reserved) on cuda:0 of b.json <= 91%" "$B" --max-unused-reserved 91%
check "max-unused-reserved broken" 1 "FAIL --max-unused-reserved 90%: reserved but not allocated at the reserved peak 90.7% (190 B allocated of 2.00 KiB reserved) on cuda:0 of b.json > 90%" "$B" --max-unused-reserved 90%
# A snapshot: segments A 2 MiB (1 MiB allocated) and B 20 MiB (16 MiB): 17 of 22 MiB
# allocated, 5 MiB (22.7 %) not; the segments with the most unallocated: B 4 MiB, A 1 MiB.
cat >"$tmp/mksnap.py" <<'EOF'
import pickle, sys
MiB = 1 << 20
def seg(addr, size, alloc):
    return {'device': 0, 'address': addr, 'total_size': size, 'allocated_size': alloc, 'active_size': alloc,
            'requested_size': alloc, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0), 'is_expandable': False,
            'frames': [], 'blocks': [{'address': addr, 'size': alloc, 'requested_size': alloc, 'state': 'active_allocated', 'frames': []},
                                     {'address': addr + alloc, 'size': size - alloc, 'requested_size': 0, 'state': 'inactive', 'frames': []}]}
A, B = seg(0x7f0000000000, 2 * MiB, MiB), seg(0x7f0000200000, 20 * MiB, 16 * MiB)
trace = []
if sys.argv[2:] == ['traced']: # segment C released at 1 ms, B reserved at 2 ms, 16 MiB allocated in it at 3 ms
    ev = lambda action, addr, size, t: {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t, 'frames': []}
    trace = [ev('segment_free', 0x7f0001600000, 40 * MiB, 1000), ev('segment_alloc', B['address'], 20 * MiB, 2000),
             ev('alloc', B['address'], 16 * MiB, 3000)]
pickle.dump({'segments': [A, B], 'device_traces': [trace]}, open(sys.argv[1], 'wb'), protocol=4)
EOF
python3 "$tmp/mksnap.py" "$tmp/s.pickle"
check "max-unused-reserved on a snapshot" 1 "FAIL --max-unused-reserved 20%: reserved but not allocated at the reserved peak 22.7% (17.00 MiB allocated of 22.00 MiB reserved) on cuda:0 of s.pickle > 20%; most unallocated: segment 0x7f0000200000 (20.00 MiB) 4.00 MiB, segment 0x7f0000000000 (2.00 MiB) 1.00 MiB" "$tmp/s.pickle" --max-unused-reserved 20%
# With a trace the rule and its segments speak of one moment, the reserved peak.  Segment C
# (40 MiB, nothing in it) is released at the trace's first event (t0 = 1 ms), B (20 MiB) reserved
# at 2 ms and 16 MiB allocated in it at 3 ms; A as above.  Reserved before the trace: the final
# 22 MiB - (20 reserved - 40 released) = 42 MiB (A + C), the peak, at t0; allocated then: A's
# 1 MiB from before the trace.  Unused 41 / 42 = 97.6 %: C 40 MiB and A 1 MiB (at the end of the
# trace it would be B 4 MiB and A 1 MiB, but B was not there yet).
python3 "$tmp/mksnap.py" "$tmp/s2.pickle" traced
check "max-unused-reserved: the segments at the reserved peak" 1 "FAIL --max-unused-reserved 20%: reserved but not allocated at the reserved peak 97.6% (1.00 MiB allocated of 42.00 MiB reserved) on cuda:0 of s2.pickle > 20%; most unallocated: segment 0x7f0001600000 (40.00 MiB) 40.00 MiB, segment 0x7f0000000000 (2.00 MiB) 1.00 MiB" "$tmp/s2.pickle" --max-unused-reserved 20%
# The same on a real snapshot (../shared/data), worked out by replaying its pickle in Python:
# 56.91 GiB reserved when the trace begins (780 segments released at its start, 791 reserved
# later), 12.76 GiB allocated then; the segment with the most unallocated then is 0x7fe6ec000000,
# 126 of its 158 MiB (at the end of the trace the first named was a 100 MiB segment).
FULL=../shared/data/snapshot/cs336_memory_ctx256_fullstep_.pickle
if [ -f "$FULL" ]; then
    out=$($MEMLENS check "$FULL" --max-unused-reserved 50%)
    t_contains "max-unused-reserved on a real snapshot" "$out" "reserved but not allocated at the reserved peak 77.6% (12.76 GiB allocated of 56.91 GiB reserved) on cuda:0 of cs336_memory_ctx256_fullstep_.pickle > 50%; most unallocated: segment 0x7fe6ec000000 (158.00 MiB) 126.00 MiB, "
else t_skip "max-unused-reserved on a real snapshot: ../shared/data absent"; fi

# Several rules: one line each, then a summary; exit 1 when one is broken.
out=$($MEMLENS check "$B" --base "$tmp/a.json" --max-peak 1GiB --no-oom --max-peak-growth 50% --max-step-time 1s)
t_eq "rules: exit 1 when one is broken" "$?" 1
t_eq "rules: a line each, then the summary" "$(printf '%s\n' "$out" | cut -c1-36)" "PASS --max-peak 1GiB: peak allocated
FAIL --no-oom: out-of-memory events 
PASS --max-peak-growth 50%: peak all
PASS --max-step-time 1s: average ste
memlens check: 1 of 4 rules broken f"

# --json
$MEMLENS check "$B" --base "$tmp/a.json" --max-peak 219B --no-oom --max-step-time 1s --json >"$tmp/c.json"
t_eq "json: exit" "$?" 1
t_eq "json: fields" "$(python3 -c "
import json; j = json.load(open('$tmp/c.json'))
print(j['passed'], [(r['rule'], r['limit'], r['unit'], r['limit_value'], r['passed'], r['measured'], [(c['name'], c['value']) for c in r['contributors']]) for r in j['rules']])")" \
    "False [('--max-peak', '219B', 'bytes', 219, False, 220, [('aten::linear', 150), ('(allocated before trace)', 40), ('aten::gelu', 30)]), ('--no-oom', None, 'count', 0, False, 1, [('requested', 4096)]), ('--max-step-time', '1s', 'us', 1000000, True, 100, [])]"

# JUnit: well-formed, a test case per rule, failures marked, the message escaped.
$MEMLENS check "$B" --max-peak 219B --max-peak 1GiB --no-oom --junit "$tmp/j.xml" >/dev/null
t_eq "junit: exit" "$?" 1
t_eq "junit: read back" "$(python3 -c "
import xml.etree.ElementTree as ET
r = ET.parse('$tmp/j.xml').getroot()
s = r.find('testsuite')
print(r.tag, r.get('tests'), r.get('failures'), s.get('tests'), s.get('failures'),
      [(c.get('name'), c.find('failure') is not None) for c in s.findall('testcase')],
      s.findall('testcase')[0].find('failure').get('message')[:33],
      s.findall('testcase')[1].find('system-out').text[:25])")" \
    "testsuites 3 2 3 2 [('--max-peak 219B', True), ('--max-peak 1GiB', False), ('--no-oom', True)] FAIL --max-peak 219B: peak alloca PASS --max-peak 1GiB: pea"
$MEMLENS check "$tmp/a.json" --max-peak 1GiB --junit "$tmp/ok.xml" >/dev/null
t_eq "junit: all hold" "$?:$(python3 -c "
import xml.etree.ElementTree as ET; r = ET.parse('$tmp/ok.xml').getroot(); print(r.get('failures'), r.get('errors'))")" "0:0 0"

# Bad input: exit 2 and one line on stderr.
bad() { # NAME EXPECTED-TEXT ARGS...
    name=$1 want=$2; shift 2
    t_rejects "bad: $name" "$want" $MEMLENS check "$@"
}
bad "a size without a unit" "--max-peak 30: expected a size with a unit" "$B" --max-peak 30
bad "an unknown size unit" "--max-peak 30G: expected a size" "$B" --max-peak 30G
bad "a percentage without %" "--max-peak-growth 5: expected a percentage" "$B" --base "$tmp/a.json" --max-peak-growth 5
bad "a duration without a unit" "--max-step-time 250: expected a duration" "$B" --max-step-time 250
# limits out of range: a size or duration of 2^63 bytes or ns or more (int64 figures),
# a share of reserved memory above 100 %, a growth above 1000000 %
bad "a size too large" "--max-peak 8388608TiB: out of range: a size below 8 EiB" "$B" --max-peak 8388608TiB
bad "a size that overflows" "--max-reserved 99999999999999999999GB: out of range" "$B" --max-reserved 99999999999999999999GB
bad "a duration too large" "--max-step-time 9223372037s: out of range: a duration below 9223372036s" "$B" --max-step-time 9223372037s
bad "a growth that overflows" "--max-step-time-growth 99999999999999999999%: out of range: a percentage from 0% to 1000000%" \
    "$tmp/s2.json" --base "$tmp/s1.json" --max-step-time-growth 99999999999999999999%
bad "a peak growth too large" "--max-peak-growth 1000000.5%: out of range" "$B" --base "$tmp/a.json" --max-peak-growth 1000000.5%
bad "a share above 100 %" "--max-unused-reserved 200%: out of range: a percentage from 0% to 100%" "$B" --max-unused-reserved 200%
check "the largest limits" 0 "PASS --max-unused-reserved 100%: reserved but not allocated at the reserved peak 90.7% (190 B allocated of 2.00 KiB reserved) on cuda:0 of b.json <= 100%" \
    "$B" --base "$tmp/a.json" --max-unused-reserved 100% --max-peak-growth 1000000% --max-peak 8388607TiB --max-step-time 9223372035s
bad "an unknown rule" "unknown option or rule --max-peek" "$B" --max-peek 30GiB
bad "no rule" "no rule given" "$B"
bad "--rank not a number" "--rank one: expected a rank number" "$B" --no-oom --rank one
bad "--top (check has none)" "unknown option or rule --top" "$B" --no-oom --top 5
bad "growth without a base" "give --base BASE" "$B" --max-peak-growth 5%
bad "an unreadable run" "nope.json" "$tmp/nope.json" --no-oom
printf 'garbage' >"$tmp/g.json"
bad "an unreadable base" "g.json" "$B" --base "$tmp/g.json" --max-peak-growth 5%
mkdir -p "$tmp/r0" "$tmp/r1"
for r in 0 1; do t_ranked "$B" $r 4 "$tmp/r0/x$r.json"; done
for r in 2 3; do t_ranked "$B" $r 4 "$tmp/r1/x$r.json"; done
bad "mismatched ranks" "mismatched ranks" "$tmp/r1" --base "$tmp/r0" --max-peak-growth 5%
bad "a rule the run has no figure for" "--max-step-time 1s cannot be checked" "$tmp/s.pickle" --max-step-time 1s
t_eq "bad: a rule the run has no figure for: the lines" "$T_STDOUT" "ERROR --max-step-time 1s: cannot be checked: the run has no time side (operators, steps)
memlens check: 0 of 1 rule broken, 1 could not be checked, for $tmp/s.pickle"
bad "an unwritable JUnit file" "$tmp/none/j.xml" "$B" --max-peak 1GiB --junit "$tmp/none/j.xml"
# a group named with bytes a terminal acts on: the FAIL line shows it escaped
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"op\033[2Jx\r\nFAKE","pid":1,"tid":1,"ts":10,"dur":20},{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":15,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":100,"Total Allocated":100,"Total Reserved":1024}}]}' >"$tmp/h.json"
out=$($MEMLENS check "$tmp/h.json" --max-peak 50B)
t_eq "escaped: exit" "$?" 1
t_eq "escaped: no control character but LF" "$(printf '%s' "$out" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
t_contains "escaped: the contributor's name" "$out" 'op\e[2Jx\r\nFAKE 100 B'
# A CPU-only run (PyTorch's CPU profiler: [memory] of Device Type 0 only): --max-peak and
# --max-peak-growth judge the CPU peak, and say so.  c1: aten::add 100 B + aten::mul 50 B
# live at 30 µs, peak 150 B; c2: aten::add 120 B + aten::mul 60 B, peak 180 B (+20 %).
cpu_run() { # OUT ADD-BYTES MUL-BYTES
    printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":10,"dur":5},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":30,"dur":5},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":12,"args":{"Device Type":0,"Device Id":-1,"Addr":4096,"Bytes":%s,"Total Allocated":%s,"Total Reserved":0}},
{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":32,"args":{"Device Type":0,"Device Id":-1,"Addr":8192,"Bytes":%s,"Total Allocated":%s,"Total Reserved":0}}]}' \
        "$2" "$2" "$3" $(($2 + $3)) >"$1"
}
cpu_run "$tmp/c1.json" 100 50
cpu_run "$tmp/c2.json" 120 60
check "cpu only: max-peak holds" 0 "PASS --max-peak 150B: peak allocated 150 B on cpu of c1.json (no accelerator memory in the run: the CPU's peak) <= 150 B" "$tmp/c1.json" --max-peak 150B
check "cpu only: max-peak broken" 1 "FAIL --max-peak 149B: peak allocated 150 B on cpu of c1.json (no accelerator memory in the run: the CPU's peak) > 149 B; largest at the peak: aten::add 100 B, aten::mul 50 B" "$tmp/c1.json" --max-peak 149B
check "cpu only: max-peak-growth" 1 "FAIL --max-peak-growth 19%: peak allocated grew 20% (150 B -> 180 B) on cpu of c2.json (no accelerator memory in the runs: the CPU's peak) > 19%; grew most: aten::add +20 B, aten::mul +10 B" "$tmp/c2.json" --base "$tmp/c1.json" --max-peak-growth 19%
check "cpu only: max-reserved still accelerators only" 2 "ERROR --max-reserved 1GiB: cannot be checked: the run records no reserved memory for an accelerator" "$tmp/c1.json" --max-reserved 1GiB
# an accelerator and a bigger CPU peak: the accelerator's is judged, as before
python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); a["traceEvents"] += [e for e in b["traceEvents"] if e["ph"] == "i"]; json.dump(a, open(sys.argv[3], "w"))' "$B" "$tmp/c2.json" "$tmp/bc.json"
check "cuda and cpu: cuda judged" 0 "PASS --max-peak 220B: peak allocated 220 B on cuda:0 of bc.json <= 220 B" "$tmp/bc.json" --max-peak 220B
# no memory at all
check "no memory data" 2 "ERROR --max-peak 1GiB: cannot be checked: the run has no memory data (no accelerator, no CPU memory events)" "$tmp/s1.json" --max-peak 1GiB
# directories: every rank checked, the worst decides (rank 0 and 1 of the same run: 220 B)
check "directory" 1 "FAIL --max-peak 200B: peak allocated 220 B on cuda:0 of rank 0 > 200 B; largest at the peak: aten::linear 150 B, (allocated before trace) 40 B, aten::gelu 30 B" "$tmp/r0" --max-peak 200B
# A job (ranks judged one pair at a time, runpair.c): ranks 0, 1 and 4 of the base run
# (peak 150 B, no OOM), 2 and 3 of the new one (220 B, one OOM each).  The worst rank
# decides, the first of a tie (2 before 3); OOM events are summed over ranks and named
# from the first rank that has one; rank 4 has no base rank: a note, not compared.
mkdir -p "$tmp/jb" "$tmp/jn"
for r in 0 1 2 3; do t_ranked "$tmp/a.json" $r 5 "$tmp/jb/x$r.json"; done
for r in 0 1 4; do t_ranked "$tmp/a.json" $r 5 "$tmp/jn/x$r.json"; done
for r in 2 3; do t_ranked "$B" $r 5 "$tmp/jn/x$r.json"; done
check "job: max-peak, the first of a tie" 1 "FAIL --max-peak 200B: peak allocated 220 B on cuda:0 of rank 2 > 200 B; largest at the peak: aten::linear 150 B, (allocated before trace) 40 B, aten::gelu 30 B" "$tmp/jn" --max-peak 200B
check "job: OOM events summed" 1 "FAIL --no-oom: out-of-memory events 2 on cuda:0 of rank 2, expected none; first: requested 4.00 KiB" "$tmp/jn" --no-oom
check "job: --rank 3" 1 "FAIL --no-oom: out-of-memory events 1 on cuda:0 of rank 3, expected none; first: requested 4.00 KiB" "$tmp/jn" --no-oom --rank 3
check "job against a base job" 1 "FAIL --max-peak-growth 40%: peak allocated grew 46.7% (150 B -> 220 B) on cuda:0 of rank 2 > 40%; grew most: aten::linear +50 B, (allocated before trace) +40 B, aten::gelu +30 B" "$tmp/jn" --base "$tmp/jb" --max-peak-growth 40%
t_eq "job against a base job: the rank only in NEW" "$(printf '%s\n' "$out" | grep '^note:')" "note: rank 4 only in $tmp/jn: judged by the rules that need no base"
# A NEW rank without a partner in BASE is still judged by every rule that needs no
# base (issue 33): ranks 0 and 1 of NEW (a.json: 150 B, no OOM) match BASE's; rank 5
# (b.json: 220 B, one OOM) is only in NEW, and a second rank 1 (b.json again) repeats.
# Before, neither was judged: --no-oom passed, --max-peak named rank 0 at 150 B.
mkdir -p "$tmp/ub" "$tmp/un"
for r in 0 1; do t_ranked "$tmp/a.json" $r 6 "$tmp/ub/x$r.json"; t_ranked "$tmp/a.json" $r 6 "$tmp/un/x$r.json"; done
t_ranked "$B" 5 6 "$tmp/un/x5.json"
check "unmatched NEW rank: --no-oom" 1 "FAIL --no-oom: out-of-memory events 1 on cuda:0 of rank 5, expected none; first: requested 4.00 KiB" "$tmp/un" --base "$tmp/ub" --no-oom
t_eq "unmatched NEW rank: listed" "$(printf '%s\n' "$out" | grep '^note:')" "note: rank 5 only in $tmp/un: judged by the rules that need no base"
check "unmatched NEW rank: --max-peak names the highest" 1 "FAIL --max-peak 200B: peak allocated 220 B on cuda:0 of rank 5 > 200 B; largest at the peak: aten::linear 150 B, (allocated before trace) 40 B, aten::gelu 30 B" "$tmp/un" --base "$tmp/ub" --max-peak 200B
check "unmatched NEW rank: a growth rule judges the pairs only" 0 "PASS --max-peak-growth 0%: peak allocated grew 0% (150 B -> 150 B) on cuda:0 of rank 0 <= 0%" "$tmp/un" --base "$tmp/ub" --max-peak-growth 0%
$MEMLENS check "$tmp/un" --base "$tmp/ub" --no-oom --max-peak-growth 0% --json --junit "$tmp/u.xml" >"$tmp/u.json" 2>"$tmp/err"
t_eq "unmatched NEW rank: --json exit" "$?" 1
t_eq "unmatched NEW rank: --json" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["passed"], [r["passed"] for r in d["rules"]], d["unmatched"])' "$tmp/u.json")" \
    "False [False, True] ['rank 5 only in $tmp/un: judged by the rules that need no base']"
t_eq "unmatched NEW rank: JUnit" "$(python3 -c 'import sys, xml.etree.ElementTree as E; s=E.parse(sys.argv[1]).getroot()[0]; print(s.get("failures"), [p.get("value") for p in s.iter("property")], s[1].find("failure") is not None)' "$tmp/u.xml")" \
    "1 ['rank 5 only in $tmp/un: judged by the rules that need no base'] True"
t_ranked "$B" 1 6 "$tmp/un/x1b.json"
rm "$tmp/un/x5.json"
check "a repeated NEW rank: judged" 1 "FAIL --no-oom: out-of-memory events 1 on cuda:0 of rank 1, expected none; first: requested 4.00 KiB" "$tmp/un" --base "$tmp/ub" --no-oom
t_eq "a repeated NEW rank: listed" "$(printf '%s\n' "$out" | grep '^note:')" "note: rank 1 twice in $tmp/un: judged by the rules that need no base"
check "job: every rank within the limit" 0 "PASS --max-peak-growth 47%: peak allocated grew 46.7% (150 B -> 220 B) on cuda:0 of rank 2 <= 47%" "$tmp/jn" --base "$tmp/jb" --max-peak-growth 47%
t_rejects "job: --rank of no rank" "$tmp/jn: --rank 7: no such rank (loaded: 0, 1, 2, 3, 4; -1 = unknown)" $MEMLENS check "$tmp/jn" --rank 7 --no-oom
printf '{"traceEvents": [{"ph": "X", "name": 5' >"$tmp/jn/x5.json"
t_rejects "job: a rank cut short" "x5.json: byte" $MEMLENS check "$tmp/jn" --base "$tmp/jb" --max-peak-growth 5%
t_done
