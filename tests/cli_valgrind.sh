# memcheck over one input of each kind (and the two-thread paths: summary, report): no invalid
# reads or writes, no uninitialised values, no leaks.  Skipped under the
# sanitizer build (ASan and valgrind do not mix) and where valgrind is absent.
. tests/lib.sh
if [ "${SAN:-0}" = 1 ] || ! command -v valgrind >/dev/null 2>&1; then
    t_skip "valgrind not available (or sanitizer build)"
    t_done
    exit
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg() { # NAME ARGS...
    name=$1; shift
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$MEMLENS" "$@" >/dev/null 2>"$tmp/vg.txt"
    rc=$?
    if [ $rc -eq 9 ]; then t_fail "$name: $(head -c 600 "$tmp/vg.txt")"; else t_pass; fi
}
${BUILD:-build}/tools/gen_trace --steps 1 --seed 3 --out "$tmp/t.json" >/dev/null 2>&1
vg generated summary --by stack "$tmp/t.json"
MEMLENS_SPLIT_MIN_BYTES=1 vg two-halves summary "$tmp/t.json"
gzip -c "$tmp/t.json" >"$tmp/t.json.gz"; vg gzip summary --json "$tmp/t.json.gz"
head -c 5000 "$tmp/t.json" >"$tmp/cut.json"; vg truncated summary "$tmp/cut.json"
vg report report "$tmp/t.json" -o "$tmp/r.html" # blobs encoded on two threads, category curves on a third
if [ -d "$DATA" ]; then
    vg old-kineto summary "$DATA/kineto/tbplugin_resnet50_w0.pt.trace.json.gz"
    vg snapshot summary --by frame "$DATA/snapshot/silmont_mem_snapshot.pickle"
    vg ascend-text summary --all "$DATA/ascend/text_level1"
    vg ascend-db summary "$DATA/ascend/db_level1"
else
    t_skip "../shared/data absent"
fi
t_done
