# The Kineto importer reads an event three ways (kineto_event.c): by a shape
# learned from events written alike, straight from the buffer (fast_event),
# and by tokens (read_event, with its own readers of the args).  The three
# must agree on every field: the same trace, its events forced onto the
# token path, or only their args onto the token readers, must give exactly
# the same summary and perf results (perf's text with fewer args read: no
# shapes but the collectives').  An escaped string ("\n") anywhere in
# an event, or in its args, is what makes the fast paths give up.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GEN=${BUILD:-build}/tools/gen_trace
mkdir -p "$tmp/plain" "$tmp/tokens" "$tmp/args"

# variants FILE: FILE as $tmp/plain/t.json, every event with an escaped
# string first (the token path for all), and every args object with one
# (fast_trace_args and memory_args_at give up: read_args, read_trace_arg).
variants() {
    case "$1" in
        *.gz) zcat "$1" >"$tmp/plain/t.json" ;;
        *) cp "$1" "$tmp/plain/t.json" ;;
    esac
    sed 's/"ph": /"z": "\\n", "ph": /g' "$tmp/plain/t.json" >"$tmp/tokens/t.json"
    sed 's/"args": {/"args": {"z": "\\n", /g' "$tmp/plain/t.json" >"$tmp/args/t.json"
}

# same NAME: each command's output on the three variants is the same (and not empty).
same() {
    for c in "summary --json" "summary --by category --json" "perf --json" "perf"; do
        want=$(cd "$tmp/plain" && MEMLENS_ONE_THREAD=1 "$ml" $c t.json 2>&1)
        case $c in *--json) read='"rank"' ;; *) read='== t.json' ;; esac
        t_contains "$1: $c reads the trace" "$want" "$read"
        for v in tokens args; do
            got=$(cd "$tmp/$v" && MEMLENS_ONE_THREAD=1 "$ml" $c t.json 2>&1)
            t_eq "$1: $c, $v path" "$got" "$want"
        done
    done
}

ml=$(cd "$(dirname "$MEMLENS")" && pwd)/$(basename "$MEMLENS")

$GEN --steps 3 --seed 7 --out "$tmp/g.json" >/dev/null 2>&1
t_eq "generated" $? 0
variants "$tmp/g.json"
t_eq "every event forced onto the token path" "$(grep -c '"z": "\\n", "ph"' "$tmp/tokens/t.json")" \
    "$(grep -c '"ph": ' "$tmp/plain/t.json")"
same "generated"

# Shapes that part late: cpu_ops with and without "Sequence number" after
# their shapes, alternating (each tried on the other's shape first fails in
# its run of args, and the other resumes there), their shapes and types
# changing from event to event; ops whose args hold two runs (the second
# run's keys); "Input Dims" twice (a run that may not be taken back).
awk 'BEGIN {
    printf "{\"traceEvents\": [\n"
    for (i = 0; i < 240; i++) {
        ts = 1000 + i * 10; d = i % 7 + 1; t = (i % 3 == 0) ? "\"float\"" : "\"long int\""
        a = "\"External id\": " i ", \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\"], \"Input type\": [" t ", \"\"], \"Input Strides\": [[4, 1], []], \"Input Dims\": [[" d ", 4], []]"
        if (i % 5 == 4) a = a ", \"Input Dims\": [[9, " d "]]"
        if (i % 2) a = a ", \"Sequence number\": " i ", \"Fwd thread id\": 0"
        if (i % 4 == 3) a = "\"x\": 1, \"y\": [1], \"External id\": " i ", \"u\": [" d "], \"v\": 3, \"Input Dims\": [[" d "]]"
        printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {%s, \"Ev Idx\": %d}},\n", i % 3, ts, a, i
    }
    printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::end\", \"pid\": 1, \"tid\": 1, \"ts\": 9000, \"dur\": 1}\n]}\n"
}' >"$tmp/late.json"
variants "$tmp/late.json"
want=$(cd "$tmp/plain" && MEMLENS_ONE_THREAD=1 "$ml" perf --view all --group-by shape t.json 2>&1)
t_contains "late: shapes read" "$want" "[[7, 4], []]"
for v in tokens args; do
    got=$(cd "$tmp/$v" && MEMLENS_ONE_THREAD=1 "$ml" perf --view all --group-by shape t.json 2>&1)
    t_eq "late: perf by shape, $v path" "$got" "$want"
done
same "late"

# Real traces: NCCL collectives' args, and a profile_memory trace's memory events.
for f in "$DATA/kineto/hta_nccl_data.json.gz" "$DATA/kineto/particle_transformer_A100_fwd_bs128_profile_memory.pt.trace.json"; do
    if [ -f "$f" ]; then
        variants "$f"
        same "$(basename "$f")"
    else
        t_skip "no $f"
    fi
done
t_done
