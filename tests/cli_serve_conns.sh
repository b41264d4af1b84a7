# `memlens serve` keeps serving new clients while hundreds of connections
# sit idle or trickle a request a byte a second (tests/serve_conns.py): 300
# idle + 20 slow, then fresh clients must get 200 for /api/meta within a
# second each.  (With libmicrohttpd's limit of 64 connections, 120 idle ones
# made the server reset every new client until they timed out.)
. tests/lib.sh
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 not installed"
    t_done
    exit
fi
: >"$tmp/out"
"$MEMLENS" serve --port 0 >"$tmp/out" 2>"$tmp/err" &
pid=$!
URL=$(t_serve_url "$tmp/out")
if [ -z "$URL" ]; then
    t_fail "server did not print its URL: $(cat "$tmp/err")"
else
    port=${URL##*:}; port=${port%/}
    python3 tests/serve_conns.py 127.0.0.1 "$port" 300 20 20 >"$tmp/log" 2>&1
    while IFS= read -r line; do
        case "$line" in
            ok\ *) t_pass ;;
            FAIL\ *) t_fail "${line#FAIL }" ;;
            *) t_fail "serve_conns.py: $line" ;;
        esac
    done <"$tmp/log"
    grep -q "fresh clients got 200" "$tmp/log" || t_fail "serve_conns.py did not finish"
    # and after they are gone, the server still answers and stops cleanly
    t_eq "serves after" "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "${URL}api/meta")" 200
    kill -TERM "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then t_fail "still running 10 s after SIGTERM"; kill -9 "$pid"; fi
    wait "$pid"; t_eq "exit status after SIGTERM" $? 0
    pid=""
fi
t_done
