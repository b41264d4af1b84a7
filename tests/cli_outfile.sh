# `-o` destinations of `report` and `export` (outfile.c), as Unix tools treat
# them: "-" is standard output; a symlink is followed and its target replaced
# atomically; a FIFO or device is written straight through, never renamed
# over; a write error (ENOSPC, EPIPE) is one line and exit 2 (but a closed
# standard output, -o - | head, is a quiet exit 0); nothing is left
# behind (the C side, test_outfile, kills a run mid-write).
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":20,"args":{"Device Type":1,"Device Id":0,"Addr":99,"Bytes":1048576,"Total Allocated":3145728,"Total Reserved":4194304}}]}' >"$tmp/t.json"
T="$tmp/t.json"
left() { ls -a "$1" | grep -c '\.tmp\.'; }
# same A B: "same" when the files match, the report's "created" time aside
same() { cmp -s "$1" "$2" || [ "$(sed 's/"created":"[^"]*"//' "$1" | md5sum)" = "$(sed 's/"created":"[^"]*"//' "$2" | md5sum)" ] && echo same; }

# -o -: standard output.
$MEMLENS report "$T" -o - >"$tmp/stdout.html" 2>"$tmp/err"; t_eq "report -o - exit" $? 0
t_eq "report -o - is the page" "$(head -c 15 "$tmp/stdout.html")" "<!doctype html>"
t_eq "report -o - quiet" "$(cat "$tmp/err")" ""
$MEMLENS report "$T" -o "$tmp/file.html"
t_eq "report -o - same as a file" "$(same "$tmp/file.html" "$tmp/stdout.html")" same
$MEMLENS export "$T" -o - --format csv >"$tmp/stdout.csv" 2>"$tmp/err"; t_eq "export -o - exit" $? 0
$MEMLENS export "$T" -o "$tmp/file.csv"
t_eq "export -o - same as a file" "$(cmp "$tmp/file.csv" "$tmp/stdout.csv" && echo same)" same
$MEMLENS export "$T" -o - --format timeline.gz | gzip -dc >"$tmp/stdout.json"; t_eq "export -o - gz" $? 0
$MEMLENS export "$T" -o "$tmp/file.timeline.json"
t_eq "export -o - json.gz same as .json" "$(cmp "$tmp/file.timeline.json" "$tmp/stdout.json" && echo same)" same
$MEMLENS export "$T" -o - 2>"$tmp/err" >/dev/null; t_eq "export -o - without --format exit" $? 2
t_contains "export -o - without --format says so" "$(cat "$tmp/err")" "needs --format"
$MEMLENS export "$T" -o - --format xml 2>"$tmp/err" >/dev/null; t_eq "export bad --format exit" $? 2

# A symlink is followed: its target is replaced, the link stays a link.
mkdir "$tmp/real" "$tmp/links"
echo old >"$tmp/real/target.html"
chmod 640 "$tmp/real/target.html"
ln -s ../real/target.html "$tmp/links/link.html"
$MEMLENS report "$T" -o "$tmp/links/link.html" 2>"$tmp/err"; t_eq "symlink exit" $? 0
t_eq "symlink still a link" "$(test -L "$tmp/links/link.html" && readlink "$tmp/links/link.html")" "../real/target.html"
t_eq "symlink target written" "$(same "$tmp/file.html" "$tmp/real/target.html")" same
t_eq "symlink target keeps its mode" "$(stat -c %a "$tmp/real/target.html")" 640
t_eq "symlink no temp beside link" "$(left "$tmp/links")" 0
t_eq "symlink no temp beside target" "$(left "$tmp/real")" 0
ln -s ../real/new.csv "$tmp/links/dangling.csv"
$MEMLENS export "$T" -o "$tmp/links/dangling.csv"; t_eq "dangling symlink exit" $? 0
t_eq "dangling symlink: target created" "$(cmp "$tmp/file.csv" "$tmp/real/new.csv" && echo same)" same
t_eq "dangling symlink still a link" "$(test -L "$tmp/links/dangling.csv" && echo link)" link
ln -s loop1 "$tmp/loop2"; ln -s loop2 "$tmp/loop1"
$MEMLENS report "$T" -o "$tmp/loop1" 2>"$tmp/err"; t_eq "symlink loop exit" $? 2
t_contains "symlink loop message" "$(cat "$tmp/err")" "$tmp/loop1: cannot write there: Too many levels of symbolic links"

# A directory: an error, untouched.
mkdir "$tmp/dir.html"
$MEMLENS report "$T" -o "$tmp/dir.html" 2>"$tmp/err"; t_eq "directory exit" $? 2
t_eq "directory message" "$(cat "$tmp/err")" "memlens: $tmp/dir.html: is a directory"
t_eq "directory still one" "$(test -d "$tmp/dir.html" && echo dir)" dir

# A FIFO is written through and stays a FIFO.
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/from_fifo.csv" &
reader=$!
$MEMLENS export "$T" -o "$tmp/fifo" --format csv; t_eq "fifo exit" $? 0
wait $reader
t_eq "fifo still a FIFO" "$(test -p "$tmp/fifo" && echo fifo)" fifo
t_eq "fifo carried the file" "$(cmp "$tmp/file.csv" "$tmp/from_fifo.csv" && echo same)" same
t_eq "fifo no temp" "$(left "$tmp")" 0

# EPIPE: the reader goes away; one line, exit 2 (SIGPIPE ignored while writing).
mkfifo "$tmp/fifo2"
timeout 20 head -c 10 "$tmp/fifo2" >/dev/null &
reader=$!
$MEMLENS report "$T" -o "$tmp/fifo2" 2>"$tmp/err"; t_eq "epipe exit" $? 2
wait $reader
t_eq "epipe message" "$(cat "$tmp/err")" "memlens: $tmp/fifo2: write failed: Broken pipe"
t_eq "epipe fifo stays" "$(test -p "$tmp/fifo2" && echo fifo)" fifo
# ... but the reader of standard output going away (| head) is a quiet stop, status 0
{ $MEMLENS report "$T" -o - 2>"$tmp/err"; echo $? >"$tmp/rc"; } | head -c 10 >/dev/null
t_eq "epipe on -o - is quiet" "$(cat "$tmp/err")" ""
t_eq "epipe on -o - exit" "$(cat "$tmp/rc")" 0

# Character devices: /dev/null's and /dev/full's numbers, private copies.
if mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
    $MEMLENS report "$T" -o "$tmp/null"; t_eq "null device exit" $? 0
    t_eq "null device stays a device" "$(test -c "$tmp/null" && echo dev)" dev
    $MEMLENS report "$T" -o "$tmp/full" 2>"$tmp/err"; t_eq "full device exit" $? 2
    t_eq "full device message" "$(cat "$tmp/err")" "memlens: $tmp/full: write failed: No space left on device"
    t_eq "full device stays a device" "$(test -c "$tmp/full" && echo dev)" dev
    $MEMLENS export "$T" -o "$tmp/full" --format timeline.gz 2>"$tmp/err"; t_eq "full device gz exit" $? 2
    t_eq "full device gz message" "$(cat "$tmp/err")" "memlens: $tmp/full: write failed: No space left on device"
    ln -s full "$tmp/full-link"
    $MEMLENS export "$T" -o "$tmp/full-link" --format csv 2>"$tmp/err"; t_eq "link to device exit" $? 2
    t_eq "link to device: still a device" "$(test -c "$tmp/full" && echo dev)" dev
    $MEMLENS report "$T" -o - >"$tmp/full" 2>"$tmp/err"; t_eq "-o - onto a full device exit" $? 2
    t_eq "-o - onto a full device message" "$(cat "$tmp/err")" "memlens: <stdout>: write failed: No space left on device"
    t_eq "devices: no temp" "$(left "$tmp")" 0
else
    t_skip "mknod not permitted: character device cases"
fi

# A regular file is replaced atomically (a new inode), keeping its mode.
echo old >"$tmp/keep.csv"; chmod 600 "$tmp/keep.csv"
$MEMLENS export "$T" -o "$tmp/keep.csv"; t_eq "regular exit" $? 0
t_eq "regular mode kept" "$(stat -c %a "$tmp/keep.csv")" 600
t_eq "regular written" "$(cmp "$tmp/file.csv" "$tmp/keep.csv" && echo same)" same
t_eq "no temp left at all" "$(left "$tmp")" 0
t_done
