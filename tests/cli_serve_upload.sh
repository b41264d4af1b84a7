# Uploads to `memlens serve` (PUT or POST /api/upload?name=FILE): a server
# started without input opens empty; a real trace uploads and becomes a rank
# whose peak is the summary's; a bad file answers 422 with exactly the line
# `memlens summary FILE` prints, and the server keeps serving; names that are
# paths are refused and write nothing outside the uploads' folder; a body of
# 120 MB goes through (no cap) without the server holding it in memory; a
# stalled upload locks no one out and its partial file goes when it drops;
# the folder is gone after SIGTERM.
. tests/lib.sh
tmp=$(mktemp -d)
pid=""
pid2=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$pid2" ] && kill "$pid2" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! command -v curl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    t_skip "curl or python3 not installed"
    t_done
    exit
fi
gen=${BUILD:-build}/tools/gen_trace
if [ ! -x "$gen" ]; then
    t_skip "$gen not built"
    t_done
    exit
fi
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# put NAME FILE [curl options] -> "STATUS BODY"
put() { n=$1 f=$2; shift 2; curl -s -m 60 "$@" -o "$tmp/body" -w '%{http_code}' -T "$f" "${URL}api/upload?name=$n"; printf ' '; cat "$tmp/body"; }
get() { curl -s -m 10 -o "$tmp/body" -w '%{http_code}' "${URL%/}$1"; printf ' '; cat "$tmp/body"; }

mkdir -p "$tmp/in" "$tmp/serve" "$tmp/cli"
"$gen" --steps 1 --seed 3 --gzip --out "$tmp/in/train.pt.trace.json.gz" >/dev/null 2>&1
printf 'hello, not a profile' >"$tmp/cli/bad.json"
printf '\200\002}q' >"$tmp/cli/cut.pickle"

: >"$tmp/out"
TMPDIR="$tmp/serve" "$MEMLENS" serve --port 0 >"$tmp/out" 2>"$tmp/err" &
pid=$!
URL=$(t_serve_url "$tmp/out")
[ -n "$URL" ] || { t_fail "server did not print its URL: $(cat "$tmp/err")"; t_done; exit; }

t_contains "starts without input" "$(cat "$tmp/out")" "no input yet"
r=$(get /); t_eq "page 200" "${r%% *}" 200
r=$(get /api/meta); t_eq "empty meta" "${r#* }" '{"inputs":[],"skipped":[],"ranks":[]}'
t_eq "no folder before the first upload" "$(ls "$tmp/serve")" ""

# a real trace, PUT
r=$(put train.pt.trace.json.gz "$tmp/in/train.pt.trace.json.gz")
t_eq "upload 200" "${r%% *}" 200
t_eq "upload answer (the name given, not the server's path)" "$(printf "%s" "${r#* }" | json 'd["index"], d["added"], d["ranks"][0]["state"], d["ranks"][0]["devices"], d["ranks"][0]["path"]')" \
    "0 1 ready 2 train.pt.trace.json.gz"
dir=$(sed -n 's/^memlens serve: uploads are kept in \(.*\) until exit$/\1/p' "$tmp/out")
t_contains "says where uploads are kept" "$dir" "$tmp/serve/memlens-uploads-"
t_eq "the upload is on disk, whole" "$(cmp "$dir/1/train.pt.trace.json.gz" "$tmp/in/train.pt.trace.json.gz" && echo same)" same
peak=$("$MEMLENS" summary --json "$tmp/in/train.pt.trace.json.gz" | json 'sorted(x["peak_allocated_bytes"] for x in d["devices"])')
r=$(get "/api/rank?rank=0&wait=5000"); t_eq "the new rank opens" "${r%% *}" 200
t_eq "its peak is the summary's" "$(printf "%s" "${r#* }" | json 'sorted(x["peak"]["v"] for x in d["devices"])')" "$peak"
t_eq "meta lists it" "$(get /api/meta | cut -d' ' -f2- | json 'd["inputs"], len(d["ranks"]), d["ranks"][0]["path"]')" "['train.pt.trace.json.gz'] 1 train.pt.trace.json.gz"
t_eq "the rank's data names it so" "$(get "/api/rank?rank=0" | cut -d' ' -f2- | json 'd["path"]')" train.pt.trace.json.gz
for q in /api/meta "/api/rank?rank=0" "/api/perf?rank=0"; do
    case "$(get "$q")" in *memlens-uploads-*|*"$tmp"*) t_fail "$q shows the server's temporary path" ;; *) t_pass ;; esac
done

# bad files: the CLI's line, and the server goes on
for f in bad.json cut.pickle; do
    cli=$(cd "$tmp/cli" && "$OLDPWD/$MEMLENS" summary "$f" 2>&1 >/dev/null)
    r=$(put "$f" "$tmp/cli/$f")
    t_eq "$f: 422" "${r%% *}" 422
    t_eq "$f: the CLI's error line" "memlens: $(printf "%s" "${r#* }" | json 'd["error"]')" "$cli"
done
t_contains "the CLI line names the file" "$cli" "memlens: cut.pickle: "
t_eq "bad files add no rank" "$(get /api/meta | cut -d' ' -f2- | json 'len(d["ranks"])')" 1
t_eq "bad files are not kept" "$(ls "$dir")" 1
r=$(get "/api/curve?rank=0&dev=0&curve=0&px=50"); t_eq "still serves" "${r%% *}" 200

# names that are paths, or none
for n in ../evil.json ..%2Fevil.json %2Ftmp%2Fevil.json a%2F..%2F..%2Fevil.json .hidden '..' 'a%5Cb.json' '' 'x%0Ay.json'; do
    r=$(put "$n" "$tmp/cli/bad.json")
    t_eq "name '$n' refused" "${r%% *}" 400
    t_contains "name '$n': says why" "${r#* }" '"error":"upload: '
done
r=$(put "a.json&name=b.json" "$tmp/cli/bad.json")
t_eq "name given twice refused" "$r" "400 {\"error\":\"upload: parameter 'name' is given more than once\",\"status\":400}"
r=$(put "x%00y.json" "$tmp/cli/bad.json")
t_eq "name with %00 refused" "$r" "400 {\"error\":\"upload: parameter 'name' has a control byte (%00-%1F or %7F)\",\"status\":400}"
r=$(curl -s -o /dev/null -w '%{http_code}' -T "$tmp/cli/bad.json" "${URL}api/upload")
t_eq "no name refused" "$r" 400
t_eq "nothing written outside the folder" "$(ls "$tmp/serve" | grep -vc '^memlens-uploads-')" 0
t_eq "refused names leave nothing" "$(ls "$dir")" 1
r=$(curl -s -o /dev/null -w '%{http_code}' -T "$tmp/cli/bad.json" "${URL}api/other?name=x.json")
t_eq "PUT elsewhere: 405" "$r" 405
r=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' -T "$tmp/cli/bad.json" "${URL}api/upload?name=x.json")
t_eq "foreign Host refused" "$r" 403
r=$(curl -s -o /dev/null -w '%{http_code}' -H 'Origin: http://evil.example' --data-binary @"$tmp/cli/bad.json" "${URL}api/upload?name=x.json")
t_eq "upload from another origin refused" "$r" 403
hostport=$(echo "$URL" | sed 's|^http://\([^/]*\)/$|\1|')
r=$(curl -s -o /dev/null -w '%{http_code}' -H "Origin: http://$hostport" -T "$tmp/cli/bad.json" "${URL}api/upload?name=x.json")
t_eq "upload from the server's own page: read (422 as a bad file)" "$r" 422
port=${hostport##*:}
for o in "http://localhost:$port" "http://LOCALHOST:$port" "http://[::1]:$port"; do
    r=$(curl -s -o /dev/null -w '%{http_code}' -H "Origin: $o" -T "$tmp/cli/bad.json" "${URL}api/upload?name=x.json")
    t_eq "upload from $o (the same server by another loopback name): read" "$r" 422
done
for o in "http://localhost:$((port + 1))" "https://localhost:$port" "http://localhost.evil.example:$port" "http://127.0.0.2:$port" "null"; do
    r=$(curl -s -o /dev/null -w '%{http_code}' -H "Origin: $o" -T "$tmp/cli/bad.json" "${URL}api/upload?name=x.json")
    t_eq "upload from $o refused" "$r" 403
done

# POST, the same name again: a second rank, its own file
r=$(curl -s -m 60 -o "$tmp/body" -w '%{http_code}' --data-binary @"$tmp/in/train.pt.trace.json.gz" "${URL}api/upload?name=train.pt.trace.json.gz")
t_eq "POST upload 200" "$r" 200
t_eq "POST: rank 1" "$(json 'd["index"]' <"$tmp/body")" 1
t_eq "two files of one name" "$(ls "$dir"/*/train.pt.trace.json.gz | wc -l)" 2

# real files of the other kinds: a memory timeline, an allocator snapshot (when ../shared/data is there)
n=3
for f in memory_timeline/hta_memory_timeline.raw.json.gz snapshot/silmont_mem_snapshot.pickle; do
    if [ -f "$DATA/$f" ]; then
        r=$(put "$(basename "$f")" "$DATA/$f")
        t_eq "$f: a run" "${r%% *} $(printf '%s' "${r#* }" | json 'd["index"], d["ranks"][0]["format"], d["ranks"][0]["devices"]')" \
            "200 $((n - 1)) $(case $f in memory*) echo torch-memory-timeline ;; *) echo torch-snapshot ;; esac) 1"
        n=$((n + 1))
    else
        t_skip "$DATA/$f absent"
    fi
done
n=$((n - 1))

# 120 MB: no cap, and streamed to disk (the server's peak memory stays far below it)
python3 -c '
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"hello")
    for _ in range(120): f.write(b"\0" * (1 << 20))' "$tmp/in/big.json"
hwm0=$(sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' /proc/$pid/status)
r=$(put big.json "$tmp/in/big.json")
hwm1=$(sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' /proc/$pid/status)
t_eq "120 MB: read to its end, then refused as a file" "${r%% *} $(printf "%s" "${r#* }" | json 'd["error"][:40]')" '422 big.json: byte 0: unknown format (starts'
grow=$(( (hwm1 - hwm0) / 1024 ))
if [ "$grow" -lt 40 ]; then t_pass; else t_fail "120 MB upload grew the server's peak memory by $grow MB"; fi
rm -f "$tmp/in/big.json"

# a stalled upload (half its body sent) locks no one out; when it drops, its partial file goes
python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"PUT /api/upload?name=stalled.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n" + b"{" * 5000)
time.sleep(4)
s.close()' "$(echo "$URL" | sed 's/.*:\([0-9]*\)\/$/\1/')" &
spy=$!
i=0 # its file appears once its headers are in (python may be slow to start on a loaded machine)
while [ $i -lt 50 ] && [ -z "$(ls "$dir"/*/stalled.json 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done
t_eq "the stalled upload's file is there" "$(ls "$dir"/*/stalled.json 2>/dev/null | wc -l)" 1
t0=$(date +%s%N)
r=$(put again.pt.trace.json.gz "$tmp/in/train.pt.trace.json.gz")
t_eq "another upload goes through meanwhile" "${r%% *}" 200
r=$(get /api/meta); t_eq "meta meanwhile" "${r%% *}" 200
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$ms" -lt 1500 ]; then t_pass; else t_fail "upload and meta took $ms ms beside a stalled upload"; fi
wait $spy
i=0
while [ $i -lt 50 ] && [ -n "$(ls "$dir"/*/stalled.json 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done
t_eq "dropped upload's partial file removed" "$(ls "$dir"/*/stalled.json 2>/dev/null | wc -l)" 0
t_eq "every good upload a rank" "$(get /api/meta | cut -d' ' -f2- | json 'len(d["ranks"])')" $((n + 1))

# limits (a second server): bytes per upload, as sent and once decompressed;
# one value's length (16 MiB, found as soon as it passes, not after reading
# the rest); uploads under way at once (1 imported + 8 waiting, then 503)
: >"$tmp/out2"
TMPDIR="$tmp/serve" "$MEMLENS" serve --port 0 --max-upload 1M --max-imports 1 >"$tmp/out2" 2>"$tmp/err2" &
pid2=$!
URL2=$(t_serve_url "$tmp/out2")
python3 -c '
import gzip, sys
open(sys.argv[1], "wb").write(b"[" + b" " * (1 << 20) + b"]")
with gzip.open(sys.argv[2], "wb") as f: f.write(b"{\"traceEvents\":[" + b" " * (2 << 20) + b"]}")
with gzip.open(sys.argv[3], "wb", compresslevel=1) as f: f.write(b"{\"traceEvents\":[{\"name\":\"" + b"a" * (64 << 20))' \
    "$tmp/in/plain2m.json" "$tmp/in/bomb.json.gz" "$tmp/in/str64m.json.gz"
r=$(URL=$URL2 put plain.json "$tmp/in/plain2m.json")
t_eq "over --max-upload as sent: 413" "$r" '413 {"error":"plain.json: more than 1048576 bytes (memlens serve --max-upload)","status":413}'
r=$(URL=$URL2 put bomb.json.gz "$tmp/in/bomb.json.gz")
t_eq "over --max-upload once decompressed: 422" "$r" \
    '422 {"error":"bomb.json.gz: more than 1048576 bytes once decompressed (the upload limit: memlens serve --max-upload)","status":422}'
hwm0=$(sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' /proc/$pid/status)
r=$(put str64m.json.gz "$tmp/in/str64m.json.gz")
hwm1=$(sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' /proc/$pid/status)
t_eq "a 64 MiB string: refused at 16 MiB" "$r" \
    '422 {"error":"str64m.json.gz: uncompressed byte 24: a single value is longer than 16 MiB (the limit for uploads; memlens on the command line reads up to 512 MiB)","status":422}'
grow=$(( (hwm1 - hwm0) / 1024 ))
if [ "$grow" -lt 48 ]; then t_pass; else t_fail "a 64 MiB string grew the server's peak memory by $grow MB"; fi
# nine uploads under way (stalled after their headers), then the tenth: 503
python3 -c '
import socket, sys, time
ss = []
for i in range(9):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"PUT /api/upload?name=s%d.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n[" % i)
    ss.append(s)
time.sleep(60)' "$(echo "$URL2" | sed 's/.*:\([0-9]*\)\/$/\1/')" &
spy=$!
i=0
while [ $i -lt 100 ] && [ "$(ls "$tmp"/serve/memlens-uploads-*/*/s?.json 2>/dev/null | wc -l)" -lt 9 ]; do sleep 0.1; i=$((i + 1)); done
r=$(curl -s -m 20 -D "$tmp/hdr" -o "$tmp/body" -w '%{http_code}' -T "$tmp/cli/bad.json" "${URL2}api/upload?name=ten.json")
t_eq "the tenth upload at once: 503" "$r $(cat "$tmp/body")" '503 {"error":"busy: 9 uploads are under way; try again later","status":503}'
t_contains "503 says when to retry" "$(cat "$tmp/hdr")" "Retry-After: 5"
kill "$spy" 2>/dev/null; wait "$spy" 2>/dev/null
i=0
while [ $i -lt 50 ] && [ -n "$(ls "$tmp"/serve/memlens-uploads-*/*/s?.json 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done
r=$(URL=$URL2 put ten.json "$tmp/cli/bad.json")
t_eq "once they are gone, the next goes through" "${r%% *}" 422
kill -TERM "$pid2"; wait "$pid2"

kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$pid" 2>/dev/null; then t_fail "still running 10 s after SIGTERM"; kill -9 "$pid"; fi
wait "$pid"; t_eq "exit status after SIGTERM" $? 0
pid=""
t_eq "uploads folder removed at exit" "$(ls -A "$tmp/serve")" ""
t_done
