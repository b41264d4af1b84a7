#!/bin/sh
# bench/serve.sh — `memlens serve` on the generated trace (bench/run sets
# BENCH_TRACE): goals start -> "ready" <= 1.5 s; a curve window query at
# 2000 px <= 10 ms; an allocation window query <= 20 ms at the 95th
# percentile with 8 concurrent clients over 30 s (tools/http_load, loopback
# only); memory flat across that run (RSS before/after).  Reports; exit 1 on
# a missed goal.  SERVE_SECONDS shortens the load run.
BUILD=${BUILD:-build}
MEMLENS=${MEMLENS:-$BUILD/memlens}
LOAD=$BUILD/tools/http_load
trace=${BENCH_TRACE:-$BUILD/bench/trace.pt.trace.json}
secs=${SERVE_SECONDS:-30}
[ -s "$trace" ] || { echo "serve: no trace at $trace (run make bench)"; exit 0; }
[ -x "$LOAD" ] || { echo "serve: $LOAD missing (make)"; exit 0; }
dir=${BENCH_TMP:-/tmp}/memlens-bench-serve-$$
mkdir -p "$dir"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }
rss_kb() { sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$pid/status"; }
ok=1

t0=$(now_ms)
"$MEMLENS" serve --port 0 "$trace" >"$dir/out" 2>"$dir/err" &
pid=$!
url="" i=0
while [ -z "$url" ] && [ $i -lt 3000 ]; do url=$(sed -n 's/^memlens serve: \(http:[^ ]*\)$/\1/p' "$dir/out"); [ -n "$url" ] || sleep 0.005; i=$((i + 1)); done
while ! grep -q ready "$dir/out" && [ $i -lt 3000 ]; do sleep 0.005; i=$((i + 1)); done
t_ready=$(( $(now_ms) - t0 ))
[ -n "$url" ] || { echo "serve: FAIL: no URL: $(cat "$dir/err")"; exit 1; }
port=$(echo "$url" | sed 's/.*:\([0-9]*\)\/$/\1/')
curl -s -m 120 -o "$dir/rank.json" "${url}api/rank?rank=0&wait=10000"
while ! grep -q '"loaded":true' "$dir/rank.json" && [ $(( $(now_ms) - t0 )) -lt 120000 ]; do
    curl -s -m 120 -o "$dir/rank.json" "${url}api/rank?rank=0&wait=10000"
done
t_loaded=$(( $(now_ms) - t0 ))
cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$pid/stat")
echo "serve: $(($(wc -c <"$trace") / 1048576)) MiB trace: ready (listening, URL printed) in ${t_ready} ms; rank imported and indexed in ${t_loaded} ms (server CPU ${cpu} s, load average $(cut -d' ' -f1 /proc/loadavg))"
[ "$t_ready" -le 1500 ] || { echo "serve: FAIL: ready after more than 1.5 s"; ok=0; }
# The device with the most allocations (the accelerator, not the CPU).
read dev t0r t1r n na <<EOF
$(python3 -c 'import json,sys; ds=json.load(open(sys.argv[1]))["devices"]; k=max(range(len(ds)), key=lambda i: ds[i]["allocs"]["n"]); d=ds[k]; print(k, d["t0"], d["t1"], d["curves"][0]["n"], d["allocs"]["n"])' "$dir/rank.json")
EOF
echo "serve: device $dev: $n curve points, $na allocations"

"$LOAD" "$port" 1 5 curve "$dev" "$t0r" "$t1r" >"$dir/curve.txt"
echo "serve: curve window query at 2000 px, 1 client, 5 s: $(cat "$dir/curve.txt")"
p95=$(sed -n 's/.* p95 \([0-9.]*\).*/\1/p' "$dir/curve.txt")
awk -v p="${p95:-999}" 'BEGIN { exit !(p <= 10) }' || { echo "serve: FAIL: curve query p95 above 10 ms"; ok=0; }

"$LOAD" "$port" 1 3 allocs "$dev" "$t0r" "$t1r" >/dev/null # warm up (first use builds nothing, but pages in)
rss0=$(rss_kb)
"$LOAD" "$port" 8 "$secs" allocs "$dev" "$t0r" "$t1r" >"$dir/allocs.txt"
rss1=$(rss_kb)
echo "serve: allocation window query at 2000 px, 8 clients, ${secs} s: $(cat "$dir/allocs.txt")"
echo "serve: RSS before ${rss0} kB, after ${rss1} kB (load average $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores)"
p95=$(sed -n 's/.* p95 \([0-9.]*\).*/\1/p' "$dir/allocs.txt")
awk -v p="${p95:-999}" 'BEGIN { exit !(p <= 20) }' || { echo "serve: FAIL: allocation query p95 above 20 ms"; ok=0; }
[ $((rss1 - rss0)) -le $((rss0 / 20 + 8192)) ] || { echo "serve: FAIL: RSS grew by more than 5% (+8 MiB)"; ok=0; }

kill -INT "$pid"; wait "$pid"; rc=$?; pid=""
[ $rc -eq 0 ] || { echo "serve: FAIL: exit $rc after SIGINT"; ok=0; }
[ $ok -eq 1 ] && echo "serve: ok"
[ $ok -eq 1 ]
