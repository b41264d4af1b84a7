# tests/lib.sh — helpers for shell tests of the memlens command line.
# Source it, call t_ok/t_eq/t_contains, then t_done at the end.
T_PASS=0; T_FAIL=0; T_SKIP=0
T_NAME=$(basename "$0")
: "${MEMLENS:=build/memlens}"
DATA=${MEMLENS_DATA:-../shared/data}
t_pass() { T_PASS=$((T_PASS + 1)); }
t_fail() { echo "FAIL $T_NAME: $*"; T_FAIL=$((T_FAIL + 1)); }
t_skip() { echo "SKIP $T_NAME: $*"; T_SKIP=$((T_SKIP + 1)); }
# t_eq NAME ACTUAL EXPECTED
t_eq() { if [ "$2" = "$3" ]; then t_pass; else t_fail "$1: got '$2', expected '$3'"; fi; }
# t_contains NAME HAYSTACK NEEDLE
t_contains() { case "$2" in *"$3"*) t_pass ;; *) t_fail "$1: '$3' not in: $(printf '%s' "$2" | head -c 300)" ;; esac; }
# t_log LOG [PREFIX]: a browser script's log, "ok NAME" a pass, "FAIL NAME: why" a failure
# (named "PREFIX: NAME: why" with PREFIX); other lines are passed over.
t_log() {
    while IFS= read -r t_line; do
        case "$t_line" in
            ok\ *) t_pass ;;
            FAIL\ *) t_fail "${2:+$2: }${t_line#FAIL }" ;;
        esac
    done <"$1"
}
# t_log_ran LOG STATUS: fails when the script passed no check, or stopped (STATUS not 0) with no FAIL line.
t_log_ran() {
    grep -q '^ok ' "$1" || t_fail "the pages did not run: $(tail -5 "$1")"
    [ "$2" = 0 ] || grep -q '^FAIL ' "$1" || t_fail "the browser script stopped: $(grep -v '^ok ' "$1" | head -8)"
}
# t_browser_setup [COMMAND...]: what every browser script (tests/cli_*_browser.sh)
# starts with.  A function, not a subshell, so that what it sets is the
# script's own: tmp, a temporary folder; spid (one server) and spids (several),
# the servers the script starts, killed on exit and tmp removed (the EXIT
# trap); shots, where screenshots go.  Without chromium ($CHROMIUM), node,
# web/node_modules (scripts/setup) or a COMMAND it needs besides, it counts one
# skip and ends the script there (t_done; exit).
t_browser_setup() {
    tmp=$(mktemp -d)
    spid="" spids=""
    trap 'for p in $spid $spids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
    shots=${BUILD:-build}/screenshots
    t_miss=""
    [ -x "${CHROMIUM:-/usr/bin/chromium}" ] || t_miss="$t_miss ${CHROMIUM:-/usr/bin/chromium}"
    for t_cmd in node "$@"; do command -v "$t_cmd" >/dev/null 2>&1 || t_miss="$t_miss $t_cmd"; done
    [ -d web/node_modules/playwright-core ] || t_miss="$t_miss web/node_modules"
    [ -n "$t_miss" ] || return 0
    t_skip "missing:$t_miss (run scripts/setup)"
    t_done; exit
}
# One browser for a script's pages (web/test-browser/lib.mjs's eachPage): each
# page is a line of a list, t_page LIST NAME ARG...; then t_browse SCRIPT LIST
# LOG START runs them all in one node (and one Chromium), counts the checks
# ("ok NAME: CHECK" and "FAIL NAME: CHECK: why"), echoes the other lines that
# start with "time " or "#" after the page's name, and fails every page whose
# START check (the first one: the page loaded) did not pass, and a script
# that passed nothing or stopped early (t_log_ran).
T_TAB=$(printf '\t')
t_page() {
    t_list=$1; shift
    (IFS=$T_TAB; printf '%s\n' "$*") >>"$t_list"
}
t_browse() {
    [ -s "$2" ] || return 0
    node "$1" --pages "$2" >"$3" 2>&1
    t_st=$?
    t_cur=""
    while IFS= read -r t_line; do
        case "$t_line" in
            ok\ *) t_pass ;;
            FAIL\ *) t_fail "${t_line#FAIL }" ;;
            page\ *) t_cur=${t_line#page } ;;
            time\ *|\#*) echo "$t_cur $t_line" ;;
        esac
    done <"$3"
    t_log_ran "$3" "$t_st"
    while IFS="$T_TAB" read -r t_n t_rest; do
        grep -q "^ok $t_n: $4" "$3" || t_fail "$t_n: the page did not start: $(grep -F "$t_n: " "$3" | grep -v '^ok ' | head -3)"
    done <"$2"
}
# t_serve_url OUT [TRIES]: the URL `memlens serve` printed into OUT, read every 0.1 s
# up to TRIES times (default 100: 10 s); empty when it printed none.
t_serve_url() {
    t_i=0 t_url=""
    while [ -z "$t_url" ] && [ $t_i -lt "${2:-100}" ]; do
        t_url=$(sed -n 's/^memlens serve: \(http:[^ ]*\)$/\1/p' "$1" 2>/dev/null)
        [ -n "$t_url" ] || sleep 0.1
        t_i=$((t_i + 1))
    done
    printf '%s' "$t_url"
}
# t_file_page NAME [REPORT]: whether a browser script checks NAME, the page of a
# report file, in this pass.  Under SAN=1 (make SAN=1 test) it does not: the
# page is a file that the normal pass checks the same way, and the C behind it
# (memlens report) still runs here, under the sanitizers (tests/run fails the
# part on any ASan or LeakSanitizer report); what is left of the page check is
# that REPORT was written to its end (a UBSan finding stops memlens at once).
# The pages `memlens serve` answers are checked in both passes.  A page left
# out counts as one skip; t_done names them all on one line.
T_LEFT=""
t_file_page() {
    [ "${SAN:-0}" = 1 ] || return 0
    T_SKIP=$((T_SKIP + 1)); T_LEFT="$T_LEFT $1"
    if [ -n "${2:-}" ]; then
        case $(tail -c 16 "$2" 2>/dev/null) in *'</html>') t_pass ;; *) t_fail "$1: the report $2 stops short of </html>" ;; esac
    fi
    return 1
}
t_done() {
    [ -z "$T_LEFT" ] || echo "SKIP $T_NAME: report pages checked in the normal pass only (SAN=1):$T_LEFT"
    echo "$T_NAME: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"; [ $T_FAIL -eq 0 ]
}
