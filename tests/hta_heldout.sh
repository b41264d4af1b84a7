# Held-out check of memlens's GPU-time fields against HolisticTraceAnalysis,
# on real traces that are not in ../shared/data: the other traces of HTA's own
# test data.  Not part of `make test` (it needs HTA's repository and pandas):
#
#   apt-get install python3-pandas python3-networkx python3-plotly python3-psutil python3-yaml
#   git clone https://github.com/facebookresearch/HolisticTraceAnalysis hta
#   git -C hta checkout f4d0062
#   HTA_REPO=hta sh tests/hta_heldout.sh        (a bare clone works too)
#
# Copies the traces below into a temporary folder, runs HTA on each
# (tests/hta_gold.py, under Debian's /usr/bin/python3), then compares
# `memlens perf --json` with HTA's answers and with tests/hta_rules.py
# (tests/hta_agree.py).  Traces HTA cannot analyse (no GPU kernels: HTA's
# get_temporal_breakdown raises) are left out.
set -u
: "${MEMLENS:=build/memlens}"
: "${HTA_REPO:?set HTA_REPO to a clone of facebookresearch/HolisticTraceAnalysis}"
PY=${HTA_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces="
call_stack/backward_thread.json
critical_path/cuda_event_sync/event_sync_trace.json.gz
critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz
critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz
execution_trace/benchmark_simple_add_trace.json.gz
negative_queue_length_values_check/rank0.json.gz
ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
trace_compare/base/base.json.gz
trace_compare/test/test.json.gz
trace_diff/control/control.json.gz
trace_diff/test/test.json.gz
trace_file_list/inference_rank_1.json.gz
"
# HTA's own source: a checkout, or the tree of a bare clone's HEAD
if [ -f "$HTA_REPO/hta/__init__.py" ]; then src=$HTA_REPO
else
    mkdir "$tmp/src" && git -C "$HTA_REPO" archive --format=tar HEAD hta | tar x -C "$tmp/src" || exit 2
    src=$tmp/src
fi
mkdir "$tmp/held"
for t in $traces; do
    name=$(printf '%s' "$t" | tr '/' '_' | sed 's/\.pt\.trace//')
    if [ -f "$HTA_REPO/tests/data/$t" ]; then cp "$HTA_REPO/tests/data/$t" "$tmp/held/$name"
    else git -C "$HTA_REPO" show "HEAD:tests/data/$t" >"$tmp/held/$name" || { echo "missing: $t"; continue; }
    fi
    gold=$tmp/held/${name%%.json*}.hta.json
    if ! HTA_SRC=$src "$PY" tests/hta_gold.py "$tmp/held/$name" "$gold" >"$tmp/held/$name.log" 2>&1; then
        echo "HTA could not analyse $t: $(tail -1 "$tmp/held/$name.log")"
        rm -f "$gold"
    fi
done
python3 tests/hta_agree.py "$MEMLENS" "$tmp/held"
