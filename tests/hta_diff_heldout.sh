# Held-out check of `memlens diff --json`'s operators[] against HolisticTraceAnalysis'
# TraceDiff itself, on real trace pairs that are not in ../shared/data: the two pairs
# HTA's own tests diff (tests/data/trace_diff control/test: rank 3 of an 8-GPU A100 job
# against rank 1 of a 2-GPU V100 one; tests/data/trace_compare base/test).  Not part of
# `make test` (it needs HTA's repository, pandas and networkx):
#
#   apt-get install python3-pandas python3-networkx
#   git clone https://github.com/facebookresearch/HolisticTraceAnalysis hta
#   git -C hta checkout f4d0062
#   HTA_REPO=hta sh tests/hta_diff_heldout.sh        (a bare clone works too)
#
# Runs TraceDiff.compare_traces over every iteration (tests/hta_diff_gold.py, under
# Debian's /usr/bin/python3), then checks memlens row for row with tests/diff_expected.py:
# calls exactly, durations within 2 µs or 0.2 %, and the same rows as its own reading
# of the trace JSON.  Prints "ok N rows ..." per pair; exit 1 on any difference.
set -u
: "${MEMLENS:=build/memlens}"
: "${HTA_REPO:?set HTA_REPO to a clone of facebookresearch/HolisticTraceAnalysis}"
PY=${HTA_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# HTA's own source: a checkout, or the tree of a bare clone's HEAD
if [ -f "$HTA_REPO/hta/__init__.py" ]; then src=$HTA_REPO
else
    mkdir "$tmp/src" && git -C "$HTA_REPO" archive --format=tar HEAD hta | tar x -C "$tmp/src" || exit 2
    src=$tmp/src
fi
# get PATH OUT: a file of HTA's test data, from the checkout or the bare clone
get() {
    if [ -f "$HTA_REPO/tests/data/$1" ]; then cp "$HTA_REPO/tests/data/$1" "$2"
    else git -C "$HTA_REPO" show "HEAD:tests/data/$1" >"$2"; fi
}
status=0
for pair in "trace_diff/control/control.json.gz trace_diff/test/test.json.gz" \
            "trace_compare/base/base.json.gz trace_compare/test/test.json.gz"; do
    set -- $pair
    name=$(dirname "$(dirname "$1")")
    mkdir -p "$tmp/$name/base" "$tmp/$name/new" # HTA reads a folder per side
    if ! get "$1" "$tmp/$name/base/$(basename "$1")" || ! get "$2" "$tmp/$name/new/$(basename "$2")"; then
        echo "FAIL $name: missing in $HTA_REPO"; status=1; continue
    fi
    if ! "$PY" tests/hta_diff_gold.py "$src" "$tmp/$name/base" "$tmp/$name/new" >"$tmp/$name/gold.json" 2>"$tmp/$name/log"; then
        echo "FAIL $name: HTA failed: $(tail -1 "$tmp/$name/log")"; status=1; continue
    fi
    b=$tmp/$name/base/$(basename "$1") n=$tmp/$name/new/$(basename "$2")
    "$MEMLENS" diff --json "$b" "$n" >"$tmp/$name/memlens.json" || { echo "FAIL $name: memlens diff failed"; status=1; continue; }
    printf '%s: ' "$name"
    python3 tests/diff_expected.py "$b" "$n" "$tmp/$name/memlens.json" "$tmp/$name/gold.json" || status=1
done
exit $status
