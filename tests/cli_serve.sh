# `memlens serve` over real HTTP on loopback (curl): status codes, JSON shapes
# and values (the peak equals the summary's), bad parameters -> 400 JSON,
# unknown paths -> 404, path traversal never reads a file, lazy loading of a
# directory's ranks, and a clean stop on SIGINT/SIGTERM.  The server runs on
# port 0 (the port it picks is parsed from its output) and is always killed.
. tests/lib.sh
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! command -v curl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    t_skip "curl or python3 not installed"
    t_done
    exit
fi

# start_server ARGS...: sets pid and URL (waits up to 10 s for the URL line)
start_server() {
    : >"$tmp/out"
    "$MEMLENS" serve --port 0 "$@" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    URL=$(t_serve_url "$tmp/out")
    [ -n "$URL" ] || t_fail "server did not print its URL: $(cat "$tmp/err")"
}
# stop_server SIGNAL: the server must exit 0 within 10 s
stop_server() {
    kill -"$1" "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then t_fail "still running 10 s after SIG$1"; kill -9 "$pid"; fi
    wait "$pid"; t_eq "exit status after SIG$1" $? 0
    pid=""
}
# get PATH -> prints "STATUS BODY"
get() { curl -s -m 10 --path-as-is -o "$tmp/body" -w '%{http_code}' "${URL%/}$1"; printf ' '; cat "$tmp/body"; }
status() { curl -s -m 10 --path-as-is -o /dev/null -w '%{http_code}' "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

trace='{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":40,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":-1048576,"Total Allocated":2097152,"Total Reserved":4194304}}]}'
printf '%s' "$trace" >"$tmp/t.json"

start_server "$tmp/t.json"
t_contains "prints the URL on loopback" "$URL" "http://127.0.0.1:"
t_contains "says ready" "$(cat "$tmp/out")" "ready"
r=$(get /); t_eq "page 200" "${r%% *}" 200
t_contains "page is the UI" "$r" 'id="ml-server"'
r=$(get "/api/rank?rank=0&wait=5000"); t_eq "rank 200" "${r%% *}" 200
t_eq "rank meta" "$(echo "${r#* }" | json 'd["loaded"], d["devices"][0]["id"], d["devices"][0]["peak"]["v"]')" "True cuda:0 3145728"
r=$(get /api/meta); t_eq "meta 200" "${r%% *}" 200
t_eq "meta ranks" "$(echo "${r#* }" | json 'len(d["ranks"]), d["ranks"][0]["state"]')" "1 ready"
# what the page decides its views from (web/DATA.md caps): in the rank's object and its slot
t_eq "meta slot caps" "$(echo "${r#* }" | json 'd["ranks"][0]["format"], d["ranks"][0]["caps"]["device_word"], d["ranks"][0]["caps"]["memory_record"], d["ranks"][0]["caps"]["memory_first"]')" "kineto GPU False False"
r=$(get "/api/rank?rank=0&wait=5000")
t_eq "rank caps" "$(echo "${r#* }" | json 'sorted(d["caps"].items())')" "[('allocator_state', False), ('device', 'cuda'), ('device_word', 'GPU'), ('insight_names', False), ('memory_first', False), ('memory_record', False), ('static_graph', False)]"
r=$(get "/api/curve?rank=0&dev=0&curve=0&px=100"); t_eq "curve 200" "${r%% *}" 200
t_eq "curve points and max" "$(echo "${r#* }" | json 'max(d["v"]), d["max"], len(d["t"]) == len(d["v"])')" "3145728 3145728 True"
r=$(get "/api/allocs?rank=0&dev=0&px=1000"); t_eq "allocs 200" "${r%% *}" 200
t_eq "allocs columns" "$(echo "${r#* }" | json 'd["n"], d["total"], d["size"], d["in_window"]')" "1 1 [1048576] 1"
r=$(get "/api/allocs?rank=0&dev=0&px=1&t0=0&t1=1000000000"); # 20 us of 1 s: under a pixel
t_eq "narrow allocations counted, not listed" "$(echo "${r#* }" | json 'd["n"], d["summarised"], d["summarised_bytes"]')" "0 1 1048576"
# fmt=bin: the same fields, the columns as little-endian typed arrays (src/server/colbuf.h).
frame() { python3 -c '
import json, struct, sys
b = sys.stdin.buffer.read()
assert b[:4] == b"MLB1", b[:20]
h = struct.unpack("<I", b[4:8])[0]
d = json.loads(b[8:8 + h]); base = (8 + h + 7) // 8 * 8
for c in d.pop("cols"):
    w = {"f64": 8, "u32": 4, "u8": 1}[c["dt"]]; o = base + c["o"]
    assert o % 8 == 0
    d[c["k"]] = list(struct.unpack("<%d%s" % (c["n"], {"f64": "d", "u32": "I", "u8": "B"}[c["dt"]]), b[o:o + w * c["n"]]))
print('"$1"')'; }
t_eq "allocs as a binary frame" "$(curl -s "${URL}api/allocs?rank=0&dev=0&px=1000&fmt=bin" | frame 'd["n"], d["size"], d["id"], d["cat"]')" "1 [1048576.0] [0] [4]"
t_eq "binary content type" "$(curl -s -o /dev/null -w '%{content_type}' "${URL}api/curve?rank=0&dev=0&curve=0&px=100&fmt=bin")" "application/octet-stream"
t_eq "curve frame = curve JSON" "$(curl -s "${URL}api/curve?rank=0&dev=0&curve=0&px=100&fmt=bin" | frame '[int(x) for x in d["t"]], [int(x) for x in d["v"]], d["max"]')" \
    "$(get "/api/curve?rank=0&dev=0&curve=0&px=100" | cut -d' ' -f2- | json 'd["t"], d["v"], d["max"]')"
t_eq "curves: several in one answer" "$(get "/api/curves?rank=0&dev=0&list=0,1&px=100" | cut -d' ' -f2- | json 'd["n"], d["max"], len(d["t1"]) == len(d["v1"])')" "2 [3145728, 4194304] True"
t_eq "category chart: the stack's top is the peak" "$(get "/api/catcurve?rank=0&dev=0&px=100" | cut -d' ' -f2- | json 'd["max"], max(d["v%d" % (len(d["cats"]) - 1)])')" "3145728 3145728"
t_eq "category chart as a frame" "$(curl -s "${URL}api/catcurve?rank=0&dev=0&px=100&fmt=bin" | frame 'd["max"], len(d["t"]) > 0')" "3145728 True"
t_eq "stacked base: before the trace under the allocation" "$(get "/api/stackbase?rank=0&dev=0&px=2&t0=20000&t1=30000" | cut -d' ' -f2- | json 'd["v"], d["base"], d["before_known"]')" \
    "[3145728, 3145728] [2097152, 2097152] True"
t_eq "table filtered by category" "$(get "/api/table?rank=0&dev=0&cat=4" | cut -d' ' -f2- | json 'd["total"], d["rows"]["cat"]')" "1 [4]"
t_eq "table: another category is empty" "$(get "/api/table?rank=0&dev=0&cat=1" | cut -d' ' -f2- | json 'd["total"]')" 0
r=$(get "/api/detail?rank=0&dev=0&id=0"); t_eq "detail 200" "${r%% *}" 200
t_eq "detail" "$(echo "${r#* }" | json 'd["size"], d["group"], d["addr"], d["stack"]')" "1048576 aten::linear 0x63 []"
r=$(get "/api/table?rank=0&dev=0&text=LINEAR&sort=size&dir=desc"); t_eq "table 200" "${r%% *}" 200
t_eq "table page" "$(echo "${r#* }" | json 'd["total"], d["pages"], d["rows"]["count"]')" "1 1 1"
t_eq "table filter" "$(get "/api/table?rank=0&dev=0&text=nothing-like-it" | cut -d' ' -f2- | json 'd["total"]')" 0
t_eq "live at t (before trace + the allocation)" "$(get "/api/live?rank=0&dev=0&t=20000&by=op" | cut -d' ' -f2- | json 'd["curve_value"], d["tracked"], d["before"], d["rows"][0]')" \
    "3145728 1048576 2097152 ['(allocated before trace)', 2097152, 0]"
# by category as at the peak and in the category chart: the 2 MiB the curve shows beyond
# the allocation is "(allocated before trace)" there too (src/analysis/beforetrace.h)
t_eq "live by category" "$(get "/api/live?rank=0&dev=0&t=20000&by=category" | cut -d' ' -f2- | json 'd["tracked"], d["groups"], d["rows"]')" \
    "1048576 2 [['(allocated before trace)', 2097152, 0], ['TEMPORARY', 1048576, 1]]"
t_contains "peak" "$(get "/api/peak?rank=0&dev=0")" '"v":3145728'
t_contains "the page's title names the input" "$(get /)" "<title>memlens — t.json</title>"
# The table's export: every row, streamed, as CSV or TSV (the page's own export, web/src/table.js).
r=$(get "/api/export?rank=0&dev=0&fmt=csv"); t_eq "export 200" "${r%% *}" 200
t_eq "export CSV" "$(cat "$tmp/body")" "operator,allocating op,size_bytes,allocated,released,duration_ns,category,stream,address,reason
aten::linear,aten::linear,1048576,10000,30000,20000,TEMPORARY,,0x63,freed inside the top-level op that allocated it"
t_eq "export content type" "$(curl -s -o /dev/null -w '%{content_type}' "${URL}api/export?rank=0&dev=0&fmt=tsv")" "text/tab-separated-values; charset=utf-8"
t_contains "export is a download" "$(curl -s -D - -o /dev/null "${URL}api/export?rank=0&dev=0")" 'attachment; filename="memlens-allocations.csv"'
t_eq "export filtered: header only" "$(curl -s "${URL}api/export?rank=0&dev=0&fmt=tsv&text=nothing-like-it" | wc -l | tr -d ' ')" 1
t_contains "ops" "$(get "/api/ops?rank=0&dev=0")" '"aten::linear"'

# Bad parameters: 400 with a JSON error.
for q in "curve?rank=0&dev=0&curve=0" "curve?rank=0&dev=0&curve=7&px=10" "curve?rank=0&dev=0&curve=op:x&px=10" \
         "curve?rank=0&dev=0&curve=0&px=0" "curve?rank=0&dev=0&curve=0&px=99999" "curve?rank=0&dev=0&curve=0&px=10&t0=5&t1=5" \
         "curve?rank=0&dev=0&curve=0&px=10&t0=nan" "curve?rank=0&dev=0&curve=0&px=10&t1=1e300" "allocs?rank=9&dev=0&px=10" \
         "allocs?rank=0&dev=3&px=10" "allocs?rank=-1&dev=0&px=10" "allocs?rank=0&dev=0&px=10&limit=0" \
         "detail?rank=0&dev=0&id=1" "detail?rank=0&dev=0" "table?rank=0&dev=0&sort=evil" "table?rank=0&dev=0&dir=up" \
         "table?rank=0&dev=0&size=100000" "table?rank=0&dev=0&min=-5" "table?rank=0&dev=0&page=x" \
         "table?rank=0&dev=0&text=$(printf 'a%.0s' $(seq 300))" "live?rank=0&dev=0&by=frame" "live?rank=0&dev=0&t=1&by=colour" \
         "rank?rank=0&wait=999999" "rank" "curve?rank=00000000000000000000000001&dev=0&curve=0&px=1" \
         "curve?rank=0&dev=0&curve=0&px=10&fmt=xml" "allocs?rank=0&dev=0&px=10&fmt=" "curves?rank=0&dev=0&px=10" \
         "curves?rank=0&dev=0&px=10&list=0,7" "curves?rank=0&dev=0&px=10&list=op:" "catcurve?rank=0&dev=0" \
         "stackbase?rank=0&dev=0&px=30000" "table?rank=0&dev=0&cat=-2" "table?rank=0&dev=0&sort=category" \
         "export?rank=0&dev=0&fmt=xlsx" "export?rank=0&dev=9" "export?rank=0&dev=0&sort=x"; do
    r=$(get "/api/$q")
    t_eq "400 for $q" "${r%% *}" 400
    t_contains "JSON error for $q" "$r" '{"error":"'
done
# Strict parameters (README "What memlens rejects"): a control byte in the
# path or a parameter (a %00 would cut the path: /api/meta%00 was /api/meta),
# numbers outside the documented syntax, a parameter given twice: 400 + JSON.
for q in "meta%00" "meta%00x" "meta%0a" "meta%7F" "meta?x=a%01b" "rank?rank=0%00" \
         "curve?rank=0&dev=0&curve=0&px=10&t0=0x10" "curve?rank=0&dev=0&curve=0&px=10&t0=1e3" \
         "curve?rank=0&dev=0&curve=0&px=10&t1=1E9" "curve?rank=0&dev=0&curve=0&px=10&t0=+5" \
         "curve?rank=0&dev=0&curve=0&px=10&t0=%205" "curve?rank=0&dev=0&curve=0&px=10&t0=5." \
         "curve?rank=0&dev=0&curve=0&px=10&t0=.5" "curve?rank=0&dev=0&curve=0&px=10&t0=inf" \
         "curve?rank=0&dev=0&curve=0&px=10&t0=-" "curve?rank=0&dev=0&curve=0&px=0x10" \
         "curve?rank=0&dev=0&curve=0&px=%2B10" "curve?rank=0&dev=0&curve=0&px=1e1" \
         "curve?rank=0&dev=0&curve=0&px=10&t0=0&t0=5" "curve?rank=0&dev=0&curve=0&px=10&px=10" \
         "meta?a=1&a=1" "export?rank=0&dev=0&fmt=csv&fmt=csv"; do
    r=$(get "/api/$q")
    t_eq "strict: 400 for $q" "${r%% *}" 400
    t_contains "strict: JSON error for $q" "$r" '{"error":"'
done
t_eq "strict: %00 in the path" "$(get /api/meta%00)" '400 {"error":"the path has a control byte (%00-%1F or %7F)","status":400}'
t_eq "strict: %00 in the page's path" "$(get /%00)" '400 {"error":"the path has a control byte (%00-%1F or %7F)","status":400}'
t_eq "strict: control byte in a value" "$(get '/api/meta?x=a%01b')" \
    "400 {\"error\":\"parameter 'x' has a control byte (%00-%1F or %7F)\",\"status\":400}"
t_eq "strict: repeated t0" "$(get '/api/curve?rank=0&dev=0&curve=0&px=10&t0=0&t0=5')" \
    "400 {\"error\":\"parameter 't0' is given more than once\",\"status\":400}"
t_eq "strict: t0=1e3" "$(get '/api/curve?rank=0&dev=0&curve=0&px=10&t0=1e3')" \
    "400 {\"error\":\"parameter 't0' must be a number of ns (digits, optionally after '-' and with a '.' fraction) within 2^62\",\"status\":400}"
t_eq "strict: px=0x10" "$(get '/api/curve?rank=0&dev=0&curve=0&px=0x10')" \
    "400 {\"error\":\"parameter 'px' must be an integer (digits, optionally after '-')\",\"status\":400}"
t_eq "strict: the documented syntax passes" "$(get '/api/curve?rank=0&dev=0&curve=0&px=10&t0=-5.25&t1=0040000' | cut -c1-3)" 200
t_eq "strict: meta itself" "$(get /api/meta | cut -c1-3)" 200

# Unknown paths and traversal attempts: 404 (or 400), never a file.
for p in /nope /api/nope /api /index.htm /etc/passwd /../../etc/passwd /%2e%2e/%2e%2e/etc/passwd \
         /api/..%2f..%2fetc%2fpasswd /..%2f..%2fetc%2fpasswd /%2e%2e%2f%2e%2e%2fetc%2fpasswd /static/../../etc/passwd \
         "/api/meta/../../../etc/passwd" "/.%00./etc/passwd" "//etc/passwd"; do
    s=$(status "$URL${p#/}")
    case $s in 404|400) t_pass ;; *) t_fail "$p: status $s" ;; esac
    curl -s -m 10 --path-as-is "$URL${p#/}" | grep -q 'root:' && t_fail "$p: served a file"
done
t_eq "POST refused" "$(status -X POST -d x "${URL}api/meta")" 405
t_eq "foreign Host refused" "$(status -H 'Host: evil.example' "${URL}api/meta")" 403
stop_server INT

# A directory: listed at start, each rank imported when first asked for.
real="$DATA/kineto/hta_df_index_resolver.json.gz"
if [ -d "$DATA/ascend/text_level1" ] && [ -f "$real" ]; then
    mkdir "$tmp/dir"
    cp "$tmp/t.json" "$tmp/dir/a.json"
    ln -s "$(cd "$(dirname "$real")" && pwd)/$(basename "$real")" "$tmp/dir/b.json.gz"
    start_server "$tmp/dir"
    r=$(get /api/meta)
    t_eq "dir: two ranks listed" "$(echo "${r#* }" | json 'len(d["ranks"])')" 2
    sleep 0.5
    t_eq "dir: second rank not imported before it is viewed" "$(get /api/meta | cut -d' ' -f2- | json 'd["ranks"][1]["state"]')" pending
    t_eq "dir: data of an unloaded rank is 409" "$(status "${URL}api/peak?rank=1&dev=0")" 409
    r=$(get "/api/rank?rank=1&wait=10000"); t_eq "dir: second rank loads on request" "${r%% *}" 200
    peak=$($MEMLENS summary --json "$real" | json 'max(x["peak_allocated_bytes"] for x in d["devices"])')
    t_eq "real peak is the summary's" "$peak" 6629508096
    t_eq "real peak through the API (cuda:1)" "$(echo "${r#* }" | json 'max((x["peak"]["v"], x["id"]) for x in d["devices"])')" "(6629508096, 'cuda:1')"
    r=$(get "/api/curve?rank=1&dev=0&curve=0&px=2000")
    t_eq "real curve keeps the peak at 2000 px" "$(echo "${r#* }" | json 'd["max"], max(d["v"])')" "6629508096 6629508096"
    r=$(get "/api/curve?rank=1&dev=0&curve=0&px=3")
    t_eq "real curve keeps the peak at 3 px" "$(echo "${r#* }" | json 'max(d["v"])')" 6629508096
    t_eq "real curve frame keeps the peak at 2000 px" "$(curl -s "${URL}api/curve?rank=1&dev=0&curve=0&px=2000&fmt=bin" | frame 'int(max(d["v"])), len(d["t"]) <= 4 * 2000 + 2')" "6629508096 True"
    t_eq "real category stack's top is the peak" "$(curl -s "${URL}api/catcurve?rank=1&dev=0&px=700&fmt=bin" | frame 'int(d["max"]), int(max(d["v%d" % (len(d["cats"]) - 1)]))')" "6629508096 6629508096"
    t_eq "real export: every allocation of the device, not a page" "$(curl -s "${URL}api/export?rank=1&dev=0" | wc -l | tr -d ' ')" 13386
    t_eq "real export filtered and sorted server-side" "$(curl -s "${URL}api/export?rank=1&dev=0&fmt=tsv&text=ones_like&sort=size&dir=desc" | sed -n '2p' | cut -f1,3)" "aten::ones_like	512"
    t_eq "real: the cpu's narrow allocations counted for its shaded band" "$(curl -s "${URL}api/allocs?rank=1&dev=1&px=1000&fmt=bin" | frame 'd["n"], int(sum(d["small_n"])), d["summarised"]')" "0 620 620"
    tpk=$(get "/api/peak?rank=1&dev=0" | cut -d' ' -f2- | json 'd["t"]')
    r=$(get "/api/live?rank=1&dev=0&t=$tpk&by=op")
    t_eq "live at the peak time states the peak" "$(echo "${r#* }" | json 'd["curve_value"], d["tracked"] + d["before"]')" "6629508096 6629508096"
    stop_server TERM
    start_server "$DATA/ascend/text_level1"
    t_eq "ascend: two ranks" "$(get /api/meta | cut -d' ' -f2- | json 'len(d["ranks"])')" 2
    for k in 0 1; do t_eq "ascend rank $k loads" "$(status "${URL}api/rank?rank=$k&wait=10000")" 200; done
    # every curve of a group-by choice in one request (it named 90+ curves: 400)
    for g in component stream; do
        list=$(get "/api/rank?rank=0" | cut -d' ' -f2- | json '",".join(str(k) for k, c in enumerate(d["devices"][0]["curves"]) if c["group"] == "'$g'")')
        t_eq "ascend: the $g curves in one request" "$(status "${URL}api/curves?rank=0&dev=0&px=900&list=$list")" 200
    done
    t_eq "ascend: streams as the profiler writes them, Insight's names, modules named" "$(get "/api/rank?rank=0" | cut -d' ' -f2- | json 'sorted(c["label"] for c in d["devices"][0]["curves"] if c["group"] == "stream")[0], "HCCL module" in [c["label"] for c in d["devices"][0]["curves"]]')" "Activated of 897357296 True"
    stop_server INT
else
    t_skip "real data absent ($DATA)"
fi

# /api/trace.json (Download trace, Open in Perfetto) is streamed as it is made:
# a Chrome trace that memlens reads back to the same operators and kernels,
# with names, stream lanes and flows; chunked (no Content-Length).
cat >"$tmp/k.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":40,"args":{"External id":5,"Input Dims":[[4,4],[4,4]],"Sequence number":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":7,"External id":5}},
{"ph":"s","id":7,"cat":"ac2g","name":"ac2g","pid":1,"tid":1,"ts":20},
{"ph":"X","cat":"kernel","name":"volta_sgemm_64x64_nn","pid":0,"tid":7,"ts":30,"dur":100,"args":{"device":0,"stream":7,"correlation":7,"External id":5,"grid":[4,1,1],"block":[128,1,1]}},
{"ph":"f","id":7,"cat":"ac2g","name":"ac2g","pid":0,"tid":7,"ts":30,"bp":"e"},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"python"}}]}
JSON
start_server "$tmp/k.json"
get "/api/rank?rank=0&wait=10000" >/dev/null
headers=$(curl -s -m 10 -D - -o "$tmp/dl.json" "${URL}api/trace.json?rank=0")
t_contains "trace.json 200" "$headers" "200 OK"
t_contains "trace.json chunked" "$headers" "Transfer-Encoding: chunked"
t_eq "trace.json events" "$(json 'sorted((e["ph"], e.get("name")) for e in d["traceEvents"] if e["ph"] != "M"), [e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"]' <"$tmp/dl.json")" \
    "[('X', 'ProfilerStep#1'), ('X', 'aten::mm'), ('X', 'cudaLaunchKernel'), ('X', 'volta_sgemm_64x64_nn'), ('f', 'ac2g'), ('s', 'ac2g')] ['python', 'stream 7']"
perf_rows() { "$MEMLENS" perf --json "$1" | json '[(o["name"], o["calls"], o["device_total_us"]) for o in d["runs"][0]["operators"]], [(k["name"], k["calls"], k["total_us"]) for k in d["runs"][0]["kernels"]]'; }
t_eq "trace.json reads back to the same tables" "$(perf_rows "$tmp/dl.json")" "$(perf_rows "$tmp/k.json")"
t_eq "trace.json of a rank that is not there" "$(status "${URL}api/trace.json?rank=3")" 400
stop_server INT
# ... with the memory counters of each device on the slices' clock (Open in Perfetto shows them)
start_server "$tmp/t.json"
get "/api/rank?rank=0&wait=10000" >/dev/null
curl -s -m 10 -o "$tmp/dm.json" "${URL}api/trace.json?rank=0"
t_eq "trace.json: memory counters beside the slices" "$(json '[(e["ph"], e["name"], e["ts"], e.get("args", {}).get("bytes")) for e in d["traceEvents"] if e["ph"] in "XC"]' <"$tmp/dm.json")" \
    "[('X', 'aten::linear', 10.0, None), ('C', 'allocated', 20.0, 3145728), ('C', 'allocated', 40.0, 2097152), ('C', 'reserved', 20.0, 4194304), ('C', 'bytes by category', 20.0, None), ('C', 'bytes by category', 40.0, None)]"
stop_server INT

# Under valgrind: requests of every kind, then SIGINT: no errors, no leaks.
if [ "${SAN:-0}" != 1 ] && command -v valgrind >/dev/null 2>&1; then
    : >"$tmp/out"
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        : >"$tmp/out"  # emptied first: the URL of a server started before must not be read as this one's
        "$MEMLENS" serve --port 0 "$tmp/t.json" >"$tmp/out" 2>"$tmp/vg" &
    pid=$!
    URL=$(t_serve_url "$tmp/out" 300)
    for q in "rank?rank=0&wait=10000" "curve?rank=0&dev=0&curve=0&px=9" "allocs?rank=0&dev=0&px=9" "detail?rank=0&dev=0&id=0" \
             "curves?rank=0&dev=0&list=0,1&px=9&fmt=bin" "catcurve?rank=0&dev=0&px=9&fmt=bin" "stackbase?rank=0&dev=0&px=9" \
             "allocs?rank=0&dev=0&px=9&fmt=bin" "table?rank=0&dev=0&cat=4&sort=reason" \
             "table?rank=0&dev=0&sort=op" "live?rank=0&dev=0&t=20000&by=frame" "live?rank=0&dev=0&t=1&by=category" "ops?rank=0&dev=0" \
             "export?rank=0&dev=0&fmt=tsv" "export?rank=0&dev=0&fmt=bad" "curve?rank=0&dev=0&curve=0&px=-1" \
             "trace.json?rank=0" "trace.json?rank=9" "nope"; do
        curl -s -m 30 -o /dev/null "${URL}api/$q"
    done
    curl -s -m 30 -o /dev/null "$URL"
    curl -s -m 30 -o /dev/null -T "$tmp/t.json" "${URL}api/upload?name=up.json"        # imported: a new rank
    curl -s -m 30 -o /dev/null -T "$tmp/t.json" "${URL}api/upload?name=..%2Fup.json"   # refused name
    printf 'nope' | curl -s -m 30 -o /dev/null -T - "${URL}api/upload?name=bad.json"  # refused file
    curl -s -m 30 -o /dev/null "${URL}api/rank?rank=1&wait=10000"
    kill -INT "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    wait "$pid"; rc=$?; pid=""
    if [ $rc -eq 0 ]; then t_pass; else t_fail "valgrind: exit $rc: $(head -c 800 "$tmp/vg")"; fi
else
    t_skip "valgrind not available (or sanitizer build)"
fi

# .gz inputs: their heads are read decoded (headrank.h), so that meta.cluster
# is right from the first answer (it said true until every rank had loaded:
# a gzip file's head was taken for unreadable).  Each rank holds enough
# events that reading it takes a while after the server is up.
gz_rank() { # gz_rank FILE RANK: a rank of a job of two, gzipped
    python3 - "$1" "$2" <<'PY'
import gzip, sys
ev = ",".join('{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":%d,"dur":1}' % i for i in range(300000))
with gzip.open(sys.argv[1], "wt", compresslevel=1) as f:
    f.write('{"distributedInfo":{"backend":"nccl","rank":%s,"world_size":2},"traceEvents":[%s]}' % (sys.argv[2], ev))
PY
}
gz_rank "$tmp/g0.json.gz" 0; gz_rank "$tmp/g1.json.gz" 1; cp "$tmp/g1.json.gz" "$tmp/g1b.json.gz"
for pair in "g0.json.gz g1.json.gz True" "g1.json.gz g1b.json.gz None"; do
    set -- $pair
    start_server "$tmp/$1" "$tmp/$2"
    t_eq "serve $1 $2 (gzip): meta.cluster from the start" "$(get /api/meta | cut -d' ' -f2- | json 'd.get("cluster")')" "$3"
    [ "$3" = None ] && t_eq "serve $1 $2 (gzip): /api/cluster says why at once" "$(get /api/cluster)" \
        '422 {"error":"rank 1 is given twice: the inputs are not one job"}'
    [ "$3" = True ] && t_eq "serve $1 $2 (gzip): their ranks named before they load" \
        "$(get /api/meta | cut -d' ' -f2- | json '[r["rank"] for r in d["ranks"]]')" "[0, 1]"
    stop_server TERM
done

# Errors at start: exit 2 with one line.
"$MEMLENS" serve --port >/dev/null 2>"$tmp/err"; t_eq "option without value exit" $? 2
"$MEMLENS" serve "$tmp/missing.json" --port 0 >/dev/null 2>"$tmp/err"; t_eq "missing input exit" $? 2
t_eq "missing input one line" "$(wc -l <"$tmp/err" | tr -d ' ')" 1
# PyTorch's .html memory timeline (a picture, no data): refused at once, as summary refuses it
printf '<html>\n<head><meta charset="utf-8" /><title>GPU Memory Timeline HTML</title></head>\n<body>\n  <img src=%sdata:image/png;base64,iVBORw0KGgo=%s>\n</body>\n</html>' "'" "'" >"$tmp/mem.html"
timeout 10 "$MEMLENS" serve "$tmp/t.json" "$tmp/mem.html" --port 0 >"$tmp/out" 2>"$tmp/err"; t_eq "html timeline exit" $? 2
t_eq "html timeline: no server" "$(cat "$tmp/out")" ""
"$MEMLENS" summary "$tmp/mem.html" >/dev/null 2>"$tmp/err2"
t_eq "html timeline: summary's one line" "$(cat "$tmp/err")" "$(cat "$tmp/err2")"
t_contains "html timeline: says what it is" "$(cat "$tmp/err")" "mem.html: byte 0: a PyTorch memory timeline exported as HTML"
"$MEMLENS" serve "$tmp/t.json" --port 70000 >/dev/null 2>"$tmp/err"; t_eq "bad port exit" $? 2
"$MEMLENS" serve "$tmp/t.json" --host 203.0.113.9 --port 0 >/dev/null 2>"$tmp/err"; t_eq "foreign address exit" $? 2
t_done
