# Big plain traces are parsed in two halves on two threads (kineto_split.c): the
# result must be exactly the one-pass result, whatever the split point finds.
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GEN=${BUILD:-build}/tools/gen_trace

one()   { MEMLENS_ONE_THREAD=1 $MEMLENS summary --json --by stack "$@"; }
split() { MEMLENS_SPLIT_MIN_BYTES=1 $MEMLENS summary --json --by stack "$@"; }

$GEN --steps 3 --seed 7 --out "$tmp/t.json" >/dev/null 2>&1
t_eq "generated" $? 0
t_eq "object trace: same result" "$(split "$tmp/t.json")" "$(one "$tmp/t.json")"

# A bare event array (no top-level object).
python3 - "$tmp/t.json" "$tmp/bare.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], 'w') as f:
    f.write('[\n' + ',\n'.join(json.dumps(e) for e in d['traceEvents']) + '\n]\n')
PY
t_eq "bare array: same result" "$(split "$tmp/bare.json")" "$(one "$tmp/bare.json")"

# A decoy "},{" inside a string right at the middle: the guess is wrong, the
# result still right.
python3 - "$tmp/t.json" "$tmp/decoy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
evs = d['traceEvents']
mid = len(evs) // 2
evs.insert(mid, {"ph": "X", "cat": "cpu_op", "name": "x" + "}, {" * 40000, "pid": 1, "tid": 1, "ts": 1, "dur": 1})
json.dump(d, open(sys.argv[2], 'w'), indent=1)
PY
t_eq "decoy split: same result" "$(split "$tmp/decoy.json")" "$(one "$tmp/decoy.json")"

# Ops as B/E pairs (each "E" bare, right after its "B"), every 97th never
# closed, so that each half has "B" events open at its end.
python3 - "$tmp/t.json" "$tmp/be.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out, n = [], 0
for e in d['traceEvents']:
    if e.get('ph') == 'X' and e.get('cat') == 'cpu_op':
        n += 1
        b = dict(e, ph='B')
        b.pop('dur', None)
        out.append(b)
        if n % 97:
            out.append({'ph': 'E', 'pid': e['pid'], 'tid': e['tid'], 'ts': e['ts'] + e.get('dur', 0)})
    else:
        out.append(e)
d['traceEvents'] = out
json.dump(d, open(sys.argv[2], 'w'))
PY
t_eq "B/E pairs: same result" "$(split "$tmp/be.json")" "$(one "$tmp/be.json")"
t_contains "B/E pairs: unclosed ones noted" "$(one "$tmp/be.json")" "operators began"

# Truncated (no closing brackets), and an error in the second half: same
# message, with the offset counted from the start of the file.
python3 - "$tmp/t.json" "$tmp/cut.json" <<'PY'
import sys
b = open(sys.argv[1]).read()
open(sys.argv[2], 'w').write(b[:b.rindex('},', 0, len(b) - 200) + 2])  # after an event and its comma
PY
cut=$(one "$tmp/cut.json"); t_eq "truncated: read" $? 0
t_contains "truncated: noted" "$cut" "without its closing brackets"
t_eq "truncated: same result" "$(split "$tmp/cut.json")" "$cut"
python3 - "$tmp/t.json" "$tmp/bad.json" <<'PY'
import sys
b = open(sys.argv[1]).read()
i = b.index('"ph"', len(b) * 3 // 4)
open(sys.argv[2], 'w').write(b[:i] + '"ph" "X", ' + b[i + 4:])
PY
e1=$(split "$tmp/bad.json" 2>&1 >/dev/null); r1=$?
e2=$(one "$tmp/bad.json" 2>&1 >/dev/null)
t_eq "second-half error exit" "$r1" 2
t_eq "second-half error message" "$e1" "$e2"
t_contains "second-half error names a byte" "$e1" "expected ':' after a key"
t_done
