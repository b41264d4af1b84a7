# The README's examples, run on the samples `make sample` writes: every line
# "$ memlens ..." of a ```console block runs (from the repository's root,
# build/ read as $BUILD, `memlens` as $MEMLENS, COLUMNS=100) and must exit 0,
# or N where the line ends in "# exit N"; every output line the README shows
# under it ("..." stands for lines left out) must be a line of what it prints,
# so the outputs shown are real.  Each ```python block must parse (python3's ast).
# The exit-status table must list the codes `memlens --help` lists, and the
# page must stay the user's: at most 700 lines.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BUILD=${BUILD:-build}
README=${README:-README.md}

make -s sample BUILD="$BUILD" SAN="${SAN:-0}" >"$tmp/sample.log" 2>&1
rc=$?
t_eq "make sample" "$rc" 0
[ "$rc" = 0 ] || tail -5 "$tmp/sample.log"

# the console blocks: one file per command (cmd, expected exit, first output line)
awk -v dir="$tmp" '
    /^```console/ { inblock = 1; next }
    /^```/ && inblock { inblock = 0; next }
    !inblock { next }
    /^\$ / {
        n++; f = dir "/cmd." n; cmd = substr($0, 3); want = 0
        if (match(cmd, /  *# exit [0-9]+$/)) { want = substr(cmd, RSTART); sub(/.*# exit /, "", want); cmd = substr(cmd, 1, RSTART - 1) }
        print cmd > (f ".sh"); print want > (f ".rc"); close(f ".sh"); close(f ".rc")
        first[n] = ""; next
    }
    n && $0 != "" && $0 !~ /^ *\.\.\. *$/ { print $0 > (dir "/cmd." n ".want") }
' "$README"
count=$(ls "$tmp"/cmd.*.sh 2>/dev/null | wc -l)
[ "$count" -ge 15 ] && t_pass || t_fail "only $count example commands found in $README"

mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$(cd "$(dirname "$MEMLENS")" && pwd)/$(basename "$MEMLENS")" >"$tmp/bin/memlens"
chmod +x "$tmp/bin/memlens"
i=1
while [ "$i" -le "$count" ]; do
    f="$tmp/cmd.$i"
    cmd=$(sed "s#build/#$BUILD/#g" "$f.sh")
    want=$(cat "$f.rc")
    PATH="$tmp/bin:$PATH" COLUMNS=100 sh -c "$cmd" >"$f.out" 2>"$f.err"
    rc=$?
    t_eq "README \$ $cmd: exit" "$rc" "$want"
    [ "$rc" = "$want" ] || head -3 "$f.err"
    if [ -f "$f.want" ]; then
        sed 's/ *$//' "$f.out" "$f.err" >"$f.got"
        sed "s#build/#$BUILD/#g; s/ *$//" "$f.want" | while IFS= read -r line; do
            grep -qxF -- "$line" "$f.got" || echo "$line"
        done >"$f.missing"
        if [ -s "$f.missing" ]; then t_fail "README \$ $cmd: shows a line it does not print: '$(head -1 "$f.missing")'"
        else t_pass; fi
    fi
    i=$((i + 1))
done

# python snippets parse
if command -v python3 >/dev/null 2>&1; then
    awk -v dir="$tmp" '/^```python/ { n++; on = 1; next } /^```/ { on = 0; next } on { print > (dir "/py." n ".py") }' "$README"
    for p in "$tmp"/py.*.py; do
        [ -f "$p" ] || { t_fail "no python block in $README"; break; }
        python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$p" 2>"$tmp/py.err"
        t_eq "README python block $(basename "$p") parses" $? 0
        [ -s "$tmp/py.err" ] && cat "$tmp/py.err"
    done
else t_skip "python3 not installed: the README's python blocks not parsed"; fi

# the exit status table holds the codes memlens --help lists
codes=$($MEMLENS --help | sed -n 's/^  \([0-9]\)  .*/\1/p' | tr '\n' ' ')
table=$(sed -n '/^## Exit status/,/^## /p' "$README" | sed -n 's/^| `\([0-9]\)` .*/\1/p' | tr '\n' ' ')
t_eq "README exit status table" "$table" "$codes"

lines=$(wc -l <"$README")
[ "$lines" -le 700 ] && t_pass || t_fail "$README has $lines lines (the user's page: at most 700)"
t_eq "README speaks to users" "$(grep -ciE 'this stop|the lead|issue [0-9]+' "$README")" 0
t_done
