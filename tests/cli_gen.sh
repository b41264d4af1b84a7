#!/bin/sh
# cli_gen.sh — memlens against the trace generator's own ground truth.
#
# gen_trace knows every allocation it made, so `memlens summary --json` on its
# output must report exactly the numbers in its --expect file.  Also checks that
# the generator is deterministic and that its output is valid, self-consistent
# JSON (tests/gen_check.py, which uses plain json.load).
. tests/lib.sh
GEN=${BUILD:-build}/tools/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 not installed"
    t_done
    exit $?
fi

# compare SUMMARY.json EXPECT.json: prints one line per disagreement
compare() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
got, exp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
devs = {d["id"]: d for d in got["devices"]}
keys = ("peak_allocated_bytes", "peak_allocated_time_ns", "peak_reserved_bytes", "alloc_events",
        "free_events", "unmatched_frees", "never_freed", "never_freed_bytes",
        "before_trace_bytes_at_peak", "oom_events")
for x in exp["devices"]:
    d = devs.get(x["id"])
    if d is None:
        print("%s: missing from memlens output" % x["id"])
        continue
    for k in keys:
        if d.get(k) != x[k]:
            print("%s %s: memlens %s, generator %s" % (x["id"], k, d.get(k), x[k]))
    for g in d.get("top_at_peak", []):
        if g["group"] == "(allocated before trace)" and g["bytes"] != x["before_trace_bytes_at_peak"]:
            print("%s (allocated before trace) group: %s bytes, generator %s"
                  % (x["id"], g["bytes"], x["before_trace_bytes_at_peak"]))
EOF
}

# 1. Plain trace, defaults.
"$GEN" --steps 2 --seed 42 --out "$tmp/a.json" --expect "$tmp/a.expect" 2>/dev/null
t_eq "gen plain exit" "$?" 0
"$MEMLENS" summary --json "$tmp/a.json" >"$tmp/a.sum" 2>"$tmp/a.err"
t_eq "summary plain exit" "$?" 0
t_eq "plain trace: memlens = ground truth" "$(compare "$tmp/a.sum" "$tmp/a.expect")" ""

# 2. Gzipped, rank 1 of 2 (DDP all-reduce, cuda:1), optimizer state created in
#    the trace, an OOM event at the end, no python stacks.
"$GEN" --steps 3 --seed 7 --rank 1 --world-size 2 --cold-start --oom --no-stack --gzip \
    --out "$tmp/b.json.gz" --expect "$tmp/b.expect" 2>/dev/null
t_eq "gen gzip exit" "$?" 0
"$MEMLENS" summary --json "$tmp/b.json.gz" >"$tmp/b.sum" 2>"$tmp/b.err"
t_eq "summary gzip exit" "$?" 0
t_eq "gzip/rank 1/cold/oom trace: memlens = ground truth" "$(compare "$tmp/b.sum" "$tmp/b.expect")" ""
t_contains "device is cuda:1" "$(cat "$tmp/b.sum")" '"cuda:1"'

# 3. Same options, same bytes; another seed, other bytes.
# (to stdout, so that traceName, the output path, is the same)
"$GEN" --steps 2 --seed 42 --expect /dev/null >"$tmp/a1.json" 2>/dev/null
"$GEN" --steps 2 --seed 42 --expect /dev/null >"$tmp/a2.json" 2>/dev/null
cmp -s "$tmp/a1.json" "$tmp/a2.json"
t_eq "deterministic for a seed" "$?" 0
"$GEN" --steps 2 --seed 43 --expect /dev/null >"$tmp/a3.json" 2>/dev/null
cmp -s "$tmp/a1.json" "$tmp/a3.json"
t_eq "another seed differs" "$?" 1

# 4. A tiny trace is valid JSON and consistent with its own truth (independent check).
"$GEN" --steps 1 --layers 1 --seed 3 --oom --out "$tmp/c.json" --expect "$tmp/c.expect" \
    --truth "$tmp/c.csv" 2>/dev/null
out=$(python3 tests/gen_check.py "$tmp/c.json" "$tmp/c.expect" 2>&1)
t_eq "tiny trace: gen_check" "$out" ""
t_eq "truth csv header" "$(head -1 "$tmp/c.csv")" "device,addr,alloc_ts_ns,free_ts_ns,bytes,category"
t_eq "truth csv has every category" \
    "$(cut -d, -f6 "$tmp/c.csv" | sed 1d | sort -u | tr '\n' ' ')" \
    "ACTIVATION AUTOGRAD_DETAIL GRADIENT INPUT OPTIMIZER_STATE PARAMETER TEMPORARY "

# 5. --size-mb scales to the requested size (within one step of it).
"$GEN" --size-mb 8 --out "$tmp/d.json" --expect /dev/null 2>/dev/null
size=$(wc -c <"$tmp/d.json")
t_eq "size-mb 8 gives 8..11 MB" "$([ "$size" -ge 8000000 ] && [ "$size" -le 11000000 ] && echo ok)" ok

# 6. The two mixes `make bench` times.  realistic (the default): every cpu_op
#    carries PyTorch 2.1+'s record_shapes args, and kernels, runtime calls,
#    memsets and flows are there; memory-heavy is exactly the older flags.
mix() {
    python3 - "$1" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ops = [e for e in ev if e.get("cat") == "cpu_op"]
keys = ("Concrete Inputs", "Input type", "Input Strides", "Input Dims")
full = sum(all(k in e["args"] for k in keys) for e in ops)
cats = sorted({e.get("cat", "") for e in ev} & {"kernel", "cuda_runtime", "gpu_memset", "gpu_memcpy", "ac2g", "python_function"})
mem = sum(e.get("name") == "[memory]" for e in ev)
print("%s shaped, %s, memory %d%%" % ("all" if full == len(ops) else "%d/%d" % (full, len(ops)), " ".join(cats), 100 * mem // len(ev)))
EOF
}
"$GEN" --steps 1 --layers 2 --seed 5 --out "$tmp/r.json" --expect /dev/null 2>/dev/null
t_eq "realistic mix: shapes on every op, GPU side, stacks" "$(mix "$tmp/r.json")" \
    "all shaped, ac2g cuda_runtime gpu_memcpy gpu_memset kernel python_function, memory 23%"
"$GEN" --steps 1 --layers 2 --seed 5 --mix memory-heavy --expect /dev/null >"$tmp/h1.json" 2>/dev/null
"$GEN" --steps 1 --layers 2 --seed 5 --no-gpu --no-stack --no-shapes --stats 48 --expect /dev/null >"$tmp/h2.json" 2>/dev/null
cmp -s "$tmp/h1.json" "$tmp/h2.json"
t_eq "memory-heavy mix = --no-gpu --no-stack --no-shapes --stats 48" "$?" 0
t_eq "memory-heavy mix: no shapes, no GPU side, mostly memory events" "$(mix "$tmp/h1.json")" \
    "0/1348 shaped, python_function, memory 77%"

t_done
