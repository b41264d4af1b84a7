# Unix habits of the command line, for every command: --opt=value as well as
# --opt value, -h/--help and `memlens help CMD` (the same text, on stdout,
# status 0), a missing -o named, a closed standard output (| head) a quiet
# exit 0, and the man page and completions made from the same --help texts
# (tools/man.sh; `man -l` renders the page; make install puts them in place).
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BUILD=${BUILD:-build}
S="$tmp/s.json.gz"
"$BUILD"/tools/gen_trace --steps 2 --seed 1 --gzip --out "$S" >/dev/null 2>&1 || t_fail "gen_trace"
CMDS="summary perf report serve snapshot diff check export"

# --opt=value reads as --opt value
t_eq "summary --top=3" "$($MEMLENS summary --top=3 "$S" | md5sum)" "$($MEMLENS summary --top 3 "$S" | md5sum)"
t_contains "summary --top=3 lists 3 groups" "$($MEMLENS summary --top=3 "$S")" "(8 more groups)"
t_eq "perf --view=kernels --top=2" "$($MEMLENS perf --view=kernels --top=2 "$S" | md5sum)" "$($MEMLENS perf --view kernels --top 2 "$S" | md5sum)"
t_eq "check --max-peak=1GiB" "$($MEMLENS check "$S" --max-peak=1GiB; echo $?)" "$($MEMLENS check "$S" --max-peak 1GiB; echo $?)"
$MEMLENS check "$S" --max-peak=1GiB >/dev/null; t_eq "check --max-peak=1GiB breaks the rule" $? 1
$MEMLENS check "$S" --max-peak=100GiB >/dev/null; t_eq "check --max-peak=100GiB holds" $? 0
t_eq "--by=size" "$($MEMLENS summary --by=size "$S" | md5sum)" "$($MEMLENS summary --by size "$S" | md5sum)"
$MEMLENS summary --json=yes "$S" >/dev/null 2>"$tmp/err"; t_eq "--json=yes refused" $? 2
t_eq "--json=yes message" "$(cat "$tmp/err")" "memlens: --json takes no value (--json=yes)"
$MEMLENS summary --top= "$S" >/dev/null 2>"$tmp/err"; t_eq "--top= (empty) refused" $? 2
t_contains "--top= message" "$(cat "$tmp/err")" "--top : expected a number"
# after --, nothing is split
$MEMLENS summary -- --top=3 >/dev/null 2>&1; t_eq "after -- not an option" $? 2

# one of a thing is not "1 more groups"
t_contains "(1 more group)" "$($MEMLENS summary --top=10 "$S")" "(1 more group)
"
t_eq "no (1 more groups)" "$($MEMLENS summary --top=10 "$S" | grep -c '(1 more groups)')" 0

# binary units: the recommendation as the summary (GiB), the timeline plot's axis
t_contains "perf recommendation in GiB" "$($MEMLENS perf --view overview "$S")" "of the 11.84 GiB reserved (3.05 GiB) held no tensor"
t_contains "summary's reserved peak, the same figure" "$($MEMLENS summary "$S")" "peak reserved    11.84 GiB"
$MEMLENS export "$S" -o "$tmp/plot.html"
t_eq "export .html axis in GiB" "$(grep -c 'Memory (GiB)' "$tmp/plot.html")" 1
t_eq "export .html: no GB" "$(grep -cE '[0-9] GB|\(GB\)' "$tmp/plot.html")" 0

# -h, --help, help CMD: the same text on stdout, nothing on stderr, status 0
for c in $CMDS; do
    $MEMLENS "$c" --help >"$tmp/help" 2>"$tmp/err"; t_eq "$c --help exit" $? 0
    t_contains "$c --help usage" "$(head -1 "$tmp/help")" "usage: memlens $c"
    t_eq "$c --help on stdout only" "$(cat "$tmp/err")" ""
    t_eq "$c -h" "$($MEMLENS "$c" -h | md5sum)" "$(md5sum <"$tmp/help")"
    t_eq "help $c" "$($MEMLENS help "$c" | md5sum)" "$(md5sum <"$tmp/help")"
done
$MEMLENS help nosuch >/dev/null 2>"$tmp/err"; t_eq "help nosuch exit" $? 2
t_contains "help nosuch message" "$(cat "$tmp/err")" "memlens: help nosuch: no such command"
$MEMLENS help >/dev/null; t_eq "help alone" $? 0
esc=$(printf 'x\033[31m')
t_eq "help NAME escapes it" "$($MEMLENS help "$esc" 2>&1 >/dev/null | head -1)" 'memlens: help x\e[31m: no such command'
t_eq "unknown command escaped" "$($MEMLENS "$esc" 2>&1 >/dev/null | head -1)" "memlens: unknown command 'x\e[31m'"

# a missing -o is named
$MEMLENS report "$S" >/dev/null 2>"$tmp/err"; t_eq "report without -o exit" $? 2
t_eq "report without -o message" "$(head -1 "$tmp/err")" "memlens report: no output file: give -o FILE.html (or -o - for standard output)"
$MEMLENS export "$S" >/dev/null 2>"$tmp/err"; t_eq "export without -o exit" $? 2
t_eq "export without -o message" "$(head -1 "$tmp/err")" "memlens: export: no output file: give -o FILE (or -o - with --format)"

# A closed standard output: quiet, status 0.  Each output is larger than a
# pipe's buffer (64 KiB), so the reader's going away is met mid-write.
pipe_quiet() { # NAME COMMAND...
    name=$1; shift
    { "$@" 2>"$tmp/err"; echo $? >"$tmp/rc"; } | head -c 100 >/dev/null
    t_eq "$name | head: exit" "$(cat "$tmp/rc")" 0
    t_eq "$name | head: quiet" "$(cat "$tmp/err")" ""
}
pipe_quiet "perf --json" $MEMLENS perf --json --view all "$S"
pipe_quiet "export -o -" $MEMLENS export "$S" -o - --format csv
pipe_quiet "export trace -o -" $MEMLENS export "$S" -o - --format trace.json
pipe_quiet "report -o -" $MEMLENS report "$S" -o -
pipe_quiet "diff --json" $MEMLENS diff "$S" "$S" --json
pipe_quiet "summary --json --by=stack" $MEMLENS summary --json --by stack --top 100000 "$S"
[ "$($MEMLENS perf --json --view all "$S" | wc -c)" -gt 65536 ] && t_pass || t_fail "perf --json output under 64 KiB: the pipe test cannot bite"
# a full disk is still an error, for every command writing to stdout
$MEMLENS perf "$S" >/dev/full 2>"$tmp/err"; t_eq "perf >/dev/full exit" $? 1
t_contains "perf >/dev/full message" "$(cat "$tmp/err")" "memlens: standard output: write failed"
$MEMLENS diff "$S" "$S" >/dev/full 2>/dev/null; t_eq "diff >/dev/full exit" $? 1

# Exit status table: in the general help and in the man page, the same rows
sh tools/man.sh man "$MEMLENS" >"$tmp/memlens.1"; t_eq "man.sh man" $? 0
if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$tmp/memlens.1" >"$tmp/man.txt" 2>"$tmp/man.err"; t_eq "man -l renders" $? 0
    t_eq "man -l no warnings" "$(cat "$tmp/man.err")" ""
    man=$(tr -s ' ' <"$tmp/man.txt")
    t_contains "man NAME" "$man" "memlens - where did the accelerator memory and time go?"
    for c in $CMDS; do t_contains "man has memlens $c" "$man" " memlens $c
"; done
    t_contains "man has check's rules" "$man" "--max-peak-growth PCT"
    t_contains "man EXIT STATUS" "$man" "EXIT STATUS"
    t_contains "man exit 2" "$man" "bad options or input"
    t_contains "man export synopsis" "$man" "memlens export INPUT -o FILE"
else t_skip "man is not installed (scripts/setup installs man-db)"; fi
$MEMLENS --help | sed -n 's/^  \([0-3]\)  .*/\1/p' | tr '\n' ' ' >"$tmp/codes"
t_eq "exit codes in --help" "$(cat "$tmp/codes")" "0 1 2 3 "
t_eq "man exit codes" "$(sed -n '/^\.SH EXIT STATUS/,/^\.SH ENV/p' "$tmp/memlens.1" | sed -n 's/^\.B //p' | tr '\n' ' ')" "0 1 2 3 "

# completion: bash's parses and completes a command and an option
sh tools/man.sh bash "$MEMLENS" >"$tmp/memlens.bash"; t_eq "man.sh bash" $? 0
if command -v bash >/dev/null 2>&1; then
    got=$(bash -c ". '$tmp/memlens.bash'; COMP_WORDS=(memlens su); COMP_CWORD=1; _memlens; echo \${COMPREPLY[*]}")
    t_eq "bash completes a command" "$got" "summary"
    got=$(bash -c ". '$tmp/memlens.bash'; COMP_WORDS=(memlens check x --max-peak-g); COMP_CWORD=3; _memlens; echo \${COMPREPLY[*]}")
    t_eq "bash completes an option" "$got" "--max-peak-growth"
    got=$(bash -c ". '$tmp/memlens.bash'; COMP_WORDS=(memlens perf --view cr); COMP_CWORD=3; _memlens; echo \${COMPREPLY[*]}")
    t_eq "bash completes an option's value" "$got" "critical-path"
    got=$(bash -c ". '$tmp/memlens.bash'; COMP_WORDS=(memlens snapshot s); COMP_CWORD=2; _memlens; echo \${COMPREPLY[*]}")
    t_eq "bash completes snapshot's subcommand" "$got" "segments"
fi
sh tools/man.sh zsh "$MEMLENS" >"$tmp/_memlens"; t_eq "man.sh zsh" $? 0
t_eq "zsh #compdef" "$(head -1 "$tmp/_memlens")" "#compdef memlens"
if command -v zsh >/dev/null 2>&1; then zsh -n "$tmp/_memlens"; t_eq "zsh -n" $? 0; fi

# make install / uninstall into a scratch prefix
if [ -f Makefile ] && [ "${SAN:-0}" != 1 ]; then
    make -s install BUILD="$BUILD" PREFIX=/usr DESTDIR="$tmp/root" MPI=0 >"$tmp/inst.log" 2>&1; t_eq "make install" $? 0
    for f in bin/memlens share/man/man1/memlens.1 share/bash-completion/completions/memlens share/zsh/site-functions/_memlens; do
        t_eq "installed $f" "$(test -f "$tmp/root/usr/$f" && echo yes)" yes
    done
    t_eq "installed binary runs" "$("$tmp/root/usr/bin/memlens" --version)" "$($MEMLENS --version)"
    make -s uninstall PREFIX=/usr DESTDIR="$tmp/root" >/dev/null 2>&1; t_eq "make uninstall" $? 0
    t_eq "uninstall leaves no file" "$(find "$tmp/root" -type f | wc -l)" 0
fi
t_done
