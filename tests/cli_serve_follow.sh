#!/bin/sh
# cli_serve_follow.sh — `memlens serve DIR` follows DIR (server/follow.h):
# traces the test writes while the server runs become new ranks — new spans
# of a run, a new run — within seconds, without a restart; a file written in
# two parts is taken once whole (it loads, with the summary's peak); the
# logdir's runs and spans are in /api/meta; with inotify and by polling.
. tests/lib.sh
: "${BUILD:=build}"
GEN=$BUILD/tools/gen_trace
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! command -v curl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    t_skip "curl or python3 not installed"; t_done; exit
fi
start_server() {
    : >"$tmp/out"
    "$MEMLENS" serve --port 0 "$@" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    URL=$(t_serve_url "$tmp/out")
    [ -n "$URL" ] || t_fail "server did not print its URL: $(cat "$tmp/err")"
}
stop_server() { kill -INT "$pid"; wait "$pid"; t_eq "exit status" $? 0; pid=""; }
meta() { curl -s -m 10 "${URL}api/meta" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# wait_ranks N: until /api/meta lists N ranks (30 s at most); prints the seconds it took
wait_ranks() {
    t0=$(date +%s%N)
    while [ "$(meta 'len(d["ranks"])')" != "$1" ] && [ $(( $(date +%s%N) - t0 )) -lt 30000000000 ]; do sleep 0.1; done
    echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

mkdir -p "$tmp/lg/run_a"
$GEN --steps 2 --seed 1 --out "$tmp/lg/run_a/host_7.1700000000100.pt.trace.json" >/dev/null 2>&1
$GEN --steps 3 --seed 2 --out "$tmp/full.json" >/dev/null 2>&1
$GEN --steps 2 --seed 3 --out "$tmp/b.json" >/dev/null 2>&1
start_server "$tmp/lg"
t_contains "says it follows" "$(cat "$tmp/out")" "following the directories (inotify)"
t_eq "one rank at the start, followed" "$(meta 'len(d["ranks"]), d["follow"]')" "1 inotify"

# a second span of run_a, written in two parts half a second apart
size=$(wc -c <"$tmp/full.json")
A2=$tmp/lg/run_a/host_7.1700000000200.pt.trace.json
head -c $((size / 2)) "$tmp/full.json" >"$A2"
sleep 0.5
tail -c +$((size / 2 + 1)) "$tmp/full.json" >>"$A2"
took=$(wait_ranks 2)
t_eq "the new span is a rank" "$(meta 'len(d["ranks"]), d["ranks"][1]["path"].endswith("host_7.1700000000200.pt.trace.json"), d["ranks"][1].get("added")')" "2 True True"
echo "picked up ${took} ms after its last write (inotify; 1 s to settle)"
t_eq "run_a's spans numbered" "$(meta '[(r.get("run"), r.get("worker"), r.get("span"), r.get("spans")) for r in d["ranks"]]')" \
    "[('run_a', 'host_7', 1, 2), ('run_a', 'host_7', 2, 2)]"
r=$(curl -s -m 30 "${URL}api/rank?rank=1&wait=10000" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["loaded"], [x["peak"]["v"] for x in d["devices"] if x["id"] == "cuda:0"][0])')
want=$("$MEMLENS" summary --json "$tmp/full.json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(True, [x["peak_allocated_bytes"] for x in d["devices"] if x["id"] == "cuda:0"][0])')
t_eq "the file was read whole: its peak is the summary's" "$r" "$want"

# a new run, in a new folder
mkdir -p "$tmp/lg/run_b"
cp "$tmp/b.json" "$tmp/lg/run_b/host_9.1700000000300.pt.trace.json"
wait_ranks 3 >/dev/null
t_eq "a new run" "$(meta '[(r.get("run"), r.get("span")) for r in d["ranks"]]')" "[('run_a', 1), ('run_a', 2), ('run_b', 1)]"
stop_server

# polling, where inotify is absent
MEMLENS_FOLLOW_POLL=1 start_server "$tmp/lg"
t_eq "polling: said so" "$(meta 'len(d["ranks"]), d["follow"]')" "3 polling"
cp "$tmp/b.json" "$tmp/lg/run_b/host_9.1700000000400.pt.trace.json"
took=$(wait_ranks 4)
t_eq "polling: the new span is a rank" "$(meta 'len(d["ranks"]), d["ranks"][3]["span"]')" "4 2"
echo "picked up ${took} ms after it was written (polling every 2 s; 1 s to settle)"
stop_server

start_server --no-follow "$tmp/lg"
t_eq "--no-follow" "$(meta '"follow" in d')" "False"
stop_server
t_done
