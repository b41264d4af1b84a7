# Hostile traces, made here by hand (issue 28, items 15-20): each one becomes
# a one-line error, a counted note (in `perf` text, `perf --json` and the
# perf object the page shows), or a correct answer, never raw bytes, a
# negative time or an operator gone without a word.
#   15 names with bytes that are not UTF-8: every JSON output is valid UTF-8
#      (Python's json.loads of the bytes), U+FFFD where they were
#   16 control characters in names: escaped in text output
#   17 an operator longer than its parent, operators that cross: cut at the
#      parent's end, every call kept, no negative self time, a note
#   18 kernel args outside their physical range: dropped, a note
#   19 one correlation id on two launches: each kernel to the nearest launch
#      before it, a note
#   20 overlapping, backward and trailing steps: a note; no events: an error
#   14 1,500 distinct operators: the tables list the top rows (--top, 1,000
#      by default) and add up the rest ("others")
. tests/lib.sh
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    t_skip "python3 not installed"
    t_done
    exit
fi
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
X() { # TS DUR CAT NAME [ARGS]: a complete event on thread $T (default 1; kernels: on stream 7)
    case $3 in kernel) w='"pid":0,"tid":7' ;; *) w="\"pid\":1,\"tid\":${T:-1}" ;; esac
    a=""
    [ -z "${5:-}" ] || a=",\"args\":{$5}"
    printf '{"ph":"X","cat":"%s","name":"%s",%s,"ts":%s,"dur":%s%s},\n' "$3" "$4" "$w" "$1" "$2" "$a"
}
trace() { # FILE: the events on stdin wrapped into a trace
    { printf '{"traceEvents":[\n'; cat; printf '{"ph":"M","name":"process_name","pid":1,"args":{"name":"host"}}]}\n'; } >"$1"
}

# ---- 15, 16: bytes that are not UTF-8, control characters ------------------
{
    X 0 300 user_annotation "ProfilerStep#1"
    ff=$(printf '\377')
    X 10 50 cpu_op "bad${ff}name$(printf '\303\251')" "\"Input Dims\":[[\"$ff\"]],\"External id\":1"
    X 12 5 cuda_runtime cudaLaunchKernel '"correlation":7,"External id":1'
    X 20 30 kernel "kern$(printf '\300\257')el" '"correlation":7,"device":0,"stream":7'
    X 100 50 cpu_op 'esc\u001b[31mred\u0007\r\nFAKE: line'
    printf '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"th\\u0007%s"}},\n' "$ff"
} | trace "$tmp/bytes.json"
"$MEMLENS" perf --json "$tmp/bytes.json" >"$tmp/perf.json" 2>&1
"$MEMLENS" summary --json "$tmp/bytes.json" >"$tmp/summary.json" 2>&1
"$MEMLENS" export "$tmp/bytes.json" --table operators -o "$tmp/ops.csv" 2>&1
"$MEMLENS" report "$tmp/bytes.json" -o "$tmp/bytes.html" 2>&1
: >"$tmp/sout"  # emptied first: the URL of a server started before must not be read as this one's
"$MEMLENS" serve --port 0 "$tmp/bytes.json" >"$tmp/sout" 2>&1 &
pid=$!
URL=$(t_serve_url "$tmp/sout")
if [ -n "$URL" ]; then
    for q in "meta" "rank?rank=0&wait=5000" "perf?rank=0" "trace?rank=0&px=500" "slice?rank=0&id=1" "trace.json?rank=0"; do
        curl -s -m 20 -o "$tmp/api-$(printf '%s' "$q" | cut -d'?' -f1)" "${URL}api/$q"
    done
else t_fail "the server did not start: $(cat "$tmp/sout")"; fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=""
# every JSON, parsed from its bytes (strict UTF-8), and the names in it
python3 - "$tmp" >"$tmp/pylog" 2>&1 <<'PY'
import json, sys, re, os
tmp = sys.argv[1]
def load(name):
    try:
        return json.loads(open(os.path.join(tmp, name), "rb").read())
    except Exception as e:
        print("FAIL %s: not valid UTF-8 JSON: %s" % (name, e)); return None
def names(x, out):
    if isinstance(x, dict):
        for v in x.values(): names(v, out)
    elif isinstance(x, list):
        for v in x: names(v, out)
    elif isinstance(x, str): out.add(x)
    return out
want = {"bad\ufffdname\u00e9", "kern\ufffd\ufffdel"}
for f in ["perf.json", "summary.json", "api-meta", "api-rank", "api-perf", "api-trace", "api-slice", "api-trace.json"]:
    d = load(f)
    if d is None: continue
    s = names(d, set())
    if f in ("perf.json", "api-perf"):
        print("ok %s" % f if want <= s else "FAIL %s: names %s not among its strings" % (f, want - s))
    elif f == "api-trace.json":
        dims = [e["args"]["Input Dims"] for e in d["traceEvents"] if e.get("args", {}).get("Input Dims")]
        thr = [e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "thread_name"]
        ok = want <= s and dims == [[["\ufffd"]]] and "th\u0007\ufffd" in thr
        print("ok %s" % f if ok else "FAIL %s: names %s, Input Dims %s, thread %s" % (f, want - s, dims, thr))
    else:
        print("ok %s" % f)
# the report embeds its data as JSON in the page
page = open(os.path.join(tmp, "bytes.html"), "rb").read()
try:
    page.decode("utf-8"); print("ok report page is UTF-8")
except Exception as e:
    print("FAIL report page: %s" % e)
PY
t_log "$tmp/pylog"
t_eq "15: every JSON checked" "$(grep -c '^ok ' "$tmp/pylog")" 9
# 16: text output escapes ESC, BEL, CR, LF, and shows bad bytes as \xHH
out=$("$MEMLENS" perf "$tmp/bytes.json")
t_contains "perf: ESC BEL CR LF escaped" "$out" 'esc\e[31mred\a\r\nFAKE: line'
t_contains "perf: bad bytes as \\xHH" "$out" 'bad\xffname'"$(printf '\303\251')"
t_contains "perf: a kernel name's overlong bytes" "$out" 'kern\xc0\xafel'
t_eq "perf: no control character but LF" "$(printf '%s' "$out" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
t_eq "perf: no line starts with the name's fake line" "$(printf '%s\n' "$out" | grep -c '^FAKE')" 0
"$MEMLENS" summary --by innermost "$tmp/bytes.json" >"$tmp/sum.txt" 2>&1
t_eq "summary: no control character but LF" "$(tr -d '\n' <"$tmp/sum.txt" | LC_ALL=C grep -c '[[:cntrl:]]')" 0
printf '{"traceEvents":[\033[31m]}' >"$tmp/errbyte.json"
"$MEMLENS" perf "$tmp/errbyte.json" 2>"$tmp/err" >/dev/null
t_eq "an error naming input bytes: exit 2" $? 2
t_eq "an error naming input bytes: escaped" "$(LC_ALL=C grep -c '[[:cntrl:]]' "$tmp/err" | head -1) $(wc -l <"$tmp/err")" "0 1"

# ---- 17: operators that cross their parent's end ---------------------------
# outer [0,100) holds inner [10,150) (longer than it) holding leaf [20,30);
# on thread 2, a [200,210) b [205,215) c [212,220) cross one after the other;
# op [300,310) has a runtime call [305,355) longer than itself
{
    X 0 100 cpu_op outer
    X 10 140 cpu_op inner
    X 20 10 cpu_op leaf
    T=2 X 200 10 cpu_op a
    T=2 X 205 10 cpu_op b
    T=2 X 212 8 cpu_op c
    X 300 10 cpu_op shortop '"External id":9'
    X 305 50 cuda_runtime cudaMemcpyAsync '"External id":9,"correlation":1'
} | trace "$tmp/cross.json"
"$MEMLENS" perf --json "$tmp/cross.json" >"$tmp/cross.out" 2>&1
t_eq "17: every call kept, times cut at the parent's end, no negative self" "$(py '
", ".join("%s %d %d %d" % (o["name"], o["calls"], o["host_total_us"], o["host_self_us"]) for o in sorted(d["runs"][0]["operators"], key=lambda o: o["name"]))' <"$tmp/cross.out")" \
    "a 1 10 5, b 1 5 5, c 1 8 8, inner 1 90 80, leaf 1 10 10, outer 1 100 10, shortop 1 10 0"
t_eq "17: the notes" "$(py '"|".join(n for n in d["runs"][0]["notes"] if "operator" in n)' <"$tmp/cross.out")" \
    "2 operator ranges end after the range they start in (ranges on one thread that cross): each is cut at that range's end (the profiler plugin leaves them out)|1 operator had runtime calls or children longer than itself: its host self time is counted as 0, not negative"
t_contains "17: the note in text" "$("$MEMLENS" perf "$tmp/cross.json")" "note: 2 operator ranges end after the range they start in"

# ---- 18: kernel args outside their physical range --------------------------
{
    X 0 100 cpu_op op '"External id":1'
    X 5 5 cuda_runtime cudaLaunchKernel '"External id":1,"correlation":3'
    X 20 40 kernel k1 '"correlation":3,"device":0,"stream":7,"grid":[4,1,1],"block":[0,1,1],"registers per thread":-5,"blocks per SM":1e308,"est. achieved occupancy %":1e9'
    X 70 10 kernel k2 '"device":0,"stream":7,"grid":[4,1,1],"block":[64,1,1],"registers per thread":32'
} | trace "$tmp/args.json"
"$MEMLENS" perf --json "$tmp/args.json" >"$tmp/args.out" 2>&1
t_eq "18: out-of-range args unknown" "$(py '
[(k["name"], k["blocks_per_sm"], k["achieved_occupancy_pct"]) for k in sorted(d["runs"][0]["kernels"], key=lambda k: k["name"])]' <"$tmp/args.out")" \
    "[('k1', None, None), ('k2', None, None)]"
t_eq "18: the note" "$(py '[n for n in d["runs"][0]["notes"] if "kernel arg" in n]' <"$tmp/args.out")" \
    "['4 kernel args outside their physical range (occupancy outside 0-100 %, blocks per SM negative or not finite, sizes below 0 or 1) dropped: shown as unknown']"
out=$("$MEMLENS" perf "$tmp/args.json")
t_contains "18: the note in text" "$out" "note: 4 kernel args outside their physical range"
case $out in *inf*|*10989*|*1000000000*) t_fail "18: an impossible value printed: $out" ;; *) t_pass ;; esac

# ---- 19: one correlation id, two launches -----------------------------------
{
    X 0 300 user_annotation "ProfilerStep#1"
    X 10 20 cpu_op opA '"External id":1'
    X 12 5 cuda_runtime cudaLaunchKernel '"External id":1,"correlation":7'
    X 100 30 cpu_op opB '"External id":2'
    X 110 5 cuda_runtime cudaLaunchKernel '"External id":2,"correlation":7'
    X 20 40 kernel kA '"correlation":7,"device":0,"stream":7'
    X 120 90 kernel kB '"correlation":7,"device":0,"stream":7'
} | trace "$tmp/corr.json"
"$MEMLENS" perf --json "$tmp/corr.json" >"$tmp/corr.out" 2>&1
t_eq "19: each kernel to the launch nearest before it" "$(py '
sorted((o["name"], o["device_self_us"]) for o in d["runs"][0]["operators"])' <"$tmp/corr.out")" "[('opA', 40), ('opB', 90)]"
t_eq "19: the note" "$(py '[n for n in d["runs"][0]["notes"] if "correlation" in n]' <"$tmp/corr.out")" \
    "['1 correlation id repeats across 2 separate launches: GPU work with such an id is given to the launch that began last before it']"

# ---- 20: steps that overlap, go backward, or are cut short ------------------
{
    X 0 100 user_annotation "ProfilerStep#2"
    X 100 100 user_annotation "ProfilerStep#1"
    X 150 100 user_annotation "ProfilerStep#3"
    X 300 100 user_annotation "ProfilerStep#4"
    X 10 5 cuda_runtime cudaLaunchKernel '"correlation":1'
    X 110 5 cuda_runtime cudaLaunchKernel '"correlation":2'
    X 210 5 cuda_runtime cudaLaunchKernel '"correlation":3'
    X 20 10 kernel k '"correlation":1,"device":0,"stream":7'
    X 120 10 kernel k '"correlation":2,"device":0,"stream":7'
    X 220 10 kernel k '"correlation":3,"device":0,"stream":7'
} | trace "$tmp/steps.json"
"$MEMLENS" perf --json "$tmp/steps.json" >"$tmp/steps.out" 2>&1
t_eq "20: the steps kept" "$(py '[s["name"] for s in d["runs"][0]["steps"]]' <"$tmp/steps.out")" \
    "['2', '1', '3']"
t_eq "20: the notes say how many and why" "$(py '"|".join(n for n in d["runs"][0]["notes"] if "step" in n and "ProfilerStep#:" not in n)' <"$tmp/steps.out")" \
    "1 step begins before the step before it ends (overlapping ProfilerStep# ranges): the time they share is counted in the earlier step|1 step is numbered lower than the step before it in time (ProfilerStep# going backward): steps are taken in time order|1 trailing step dropped as cut short by the profiler, as the profiler plugin does: 1 launched no GPU work, 0 less than 80% of the step before"
t_contains "20: the notes in text" "$("$MEMLENS" perf "$tmp/steps.json")" "note: 1 trailing step dropped as cut short by the profiler"
"$MEMLENS" report "$tmp/steps.json" -o "$tmp/steps.html" 2>&1
t_contains "20: the notes in the page's perf object" "$(cat "$tmp/steps.html")" "1 trailing step dropped as cut short by the profiler"

# ---- 14: tables a person can use: the top rows, the rest added up -----------
# 1,500 distinct operators, op_i lasting 1 + i % 9 us: the top 1,000 by host
# self time are listed, the other 500 added up (sums worked out by python)
awk 'BEGIN { printf "{\"traceEvents\":[\n"
    for (i = 0; i < 1500; i++) printf "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%04d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n", i, i * 10, 1 + i % 9
    printf "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"host\"}}]}\n" }' >"$tmp/wide.json"
rest=$(python3 -c 'd = sorted((1 + i % 9 for i in range(1500)), reverse=True); print(len(d[1000:]), sum(d[1000:]))')
"$MEMLENS" perf --json "$tmp/wide.json" >"$tmp/wide.out" 2>&1
t_eq "14: perf --json lists 1,000 operators, then the others added up" "$(python3 -c '
import json, sys
d = json.load(sys.stdin); o = d["runs"][0]["operators"]; r = d["ranks"][0]["operators"]
print(len(o), o[-1]["name"], o[-1]["others"], o[-1]["calls"], o[-1]["host_self_us"], len(r["by_name"]), r["others"]["by_name"]["rows"], r["others"]["by_name"]["host_self_ns"] // 1000, r["others"]["by_shape"]["calls"], d["ranks"][0]["kernels"]["others"]["by_name"])' <"$tmp/wide.out")" \
    "1001 (others) $(echo $rest | cut -d' ' -f1) $(echo $rest | cut -d' ' -f1) $(echo $rest | cut -d' ' -f2) 1000 $(echo $rest | cut -d' ' -f1) $(echo $rest | cut -d' ' -f2) $(echo $rest | cut -d' ' -f1) None"
t_contains "14: text, --top 3: the others line" "$("$MEMLENS" perf --view operators --top 3 "$tmp/wide.json")" \
    "(others: 1,497 more operators)"
"$MEMLENS" report --top 7 "$tmp/wide.json" -o "$tmp/wide.html" 2>&1
t_eq "14: report --top 7: the page's tables hold 7 rows and the others" "$(python3 -c '
import json, re, sys
t = re.search(r"<script type=\"application/json\" id=\"ml-perf-0\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1)
o = json.loads(t)["operators"]
print(len(o["by_name"]), o["others"]["by_name"]["rows"], o["by_name"][0]["hist"] is not None)' "$tmp/wide.html")" "7 1493 True"

# ---- 20: an input with no events is an error --------------------------------
printf '{"traceEvents":[]}' >"$tmp/none.json"
"$MEMLENS" perf "$tmp/none.json" 2>"$tmp/err" >/dev/null
t_eq "no events: exit 2, one line" "$? $(cat "$tmp/err")" "2 memlens: $tmp/none.json: byte 15: no events: the trace's event list is empty"
python3 -c 'import gzip, sys; gzip.open(sys.argv[1], "wb").write(b"{\"traceEvents\":[" + b" \n" * 100000)' "$tmp/ws.json.gz"
"$MEMLENS" summary "$tmp/ws.json.gz" 2>"$tmp/err" >/dev/null
t_eq "a gzip of blanks after the list opens: exit 2, one line" "$? $(cat "$tmp/err")" \
    "2 memlens: $tmp/ws.json.gz: uncompressed byte 15: no events: the trace's event list is empty (and the file ends inside it)"
t_done
