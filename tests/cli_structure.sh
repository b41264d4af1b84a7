#!/bin/sh
# The layout rules of src/ (issue 37 items 2 and 7), by tests/structure.py:
# no include cycle between modules, no C file over 1,500 lines.  First the
# checker itself on small trees made here, then on src/.
. tests/lib.sh
if ! command -v python3 >/dev/null 2>&1; then t_skip "no python3"; t_done; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/loop/a" "$tmp/loop/b"
printf '#include "y.h"\n' >"$tmp/loop/a/x.c"; : >"$tmp/loop/a/x.h"
printf '#include "z.h"\n' >"$tmp/loop/b/y.c"; : >"$tmp/loop/b/y.h"
printf '#include "x.h"\n' >"$tmp/loop/b/z.c"; : >"$tmp/loop/b/z.h"
out=$(python3 tests/structure.py --root "$tmp/loop" cycles); rc=$?
t_eq "a loop of three modules in two folders is found" "$rc $(printf '%s\n' "$out" | head -1)" \
    "1 include cycle: $tmp/loop/a/x <-> $tmp/loop/b/y <-> $tmp/loop/b/z"
: >"$tmp/loop/b/z.c"
out=$(python3 tests/structure.py --root "$tmp/loop" cycles); rc=$?
t_eq "a chain is no loop" "$rc $out" "0 cycles: 2 modules, 2 includes"
mkdir -p "$tmp/long"
python3 -c 'print("int x;\n" * 1501, end="")' >"$tmp/long/big.c"
python3 -c 'print("int y;\n" * 1500, end="")' >"$tmp/long/ok.c"
out=$(python3 tests/structure.py --root "$tmp/long" lines); rc=$?
t_eq "a file of 1,501 lines is named, one of 1,500 is not" "$rc $(printf '%s\n' "$out" | head -1)" \
    "1 over 1500 lines: $tmp/long/big.c has 1501"

out=$(python3 tests/structure.py cycles); rc=$?
t_eq "src/: no include cycle" "$rc" 0
[ "$rc" = 0 ] || t_fail "$out"
out=$(python3 tests/structure.py lines); rc=$?
t_eq "src/: no C file over 1,500 lines" "$rc" 0
[ "$rc" = 0 ] || t_fail "$out"
t_done
