#!/bin/sh
# bench/snapshot.sh — `memlens summary` on a ~1 GB generated CUDA allocator
# snapshot: the goal is at most 4 s of CPU time (user + sys: the machines are
# shared, so wall time says more about the neighbours) and a peak RSS below
# the file size.  Run by `make bench` (bench/run); SNAPSHOT_MB=N changes the
# size.
BUILD=${BUILD:-build}
MB=${SNAPSHOT_MB:-1024}
dir=${BENCH_TMP:-/tmp}/memlens-bench-$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
f="$dir/snapshot-${MB}mb.pickle"
"$BUILD/tools/gen_snapshot" --size-mb "$MB" "$f" || exit 1
sync "$f" # the kernel writing the new file back while summary reads it costs sys time that is not ours
bytes=$(wc -c <"$f" | tr -d ' ')
/usr/bin/time -v "$BUILD/memlens" summary "$f" >"$dir/out.txt" 2>"$dir/time.txt"
rc=$?
secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
user=$(sed -n 's/.*User time (seconds): //p' "$dir/time.txt")
sys=$(sed -n 's/.*System time (seconds): //p' "$dir/time.txt")
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
echo "snapshot: $bytes bytes, summary in ${cpu} s CPU (${user} user + ${sys} sys; ${secs} s wall), peak RSS $((rss_kb / 1024)) MiB (file $((bytes / 1048576)) MiB)"
[ $rc -eq 0 ] || { echo "snapshot: FAIL: memlens exited $rc"; tail -3 "$dir/out.txt" "$dir/time.txt"; exit 1; }
ok=1
awk -v s="$cpu" 'BEGIN { exit !(s <= 4.0) }' || { echo "snapshot: FAIL: more than 4 s of CPU time"; ok=0; }
[ "$rss_kb" -lt $((bytes / 1024)) ] || { echo "snapshot: FAIL: peak RSS not below the file size"; ok=0; }
[ $ok -eq 1 ] && echo "snapshot: ok"
[ $ok -eq 1 ]
