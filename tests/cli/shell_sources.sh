#!/bin/sh
# cctq shell: one input loop for -c, -f and stdin (same output, byte for byte),
# command splitting on ';' and newlines with quotes, exit statuses (0 ok, 1 a
# command failed, 2 usage error), --bail, write failures, and the error
# messages: the checked blocks of tests/cli/blocks/errors.blocks (command,
# expected error lines, exit status; tests/cli/blocks.py runs them).
set -eu
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/cpi.sqlite"
cd "$t"
export COLUMNS=100
fail() { echo "FAIL: $*"; exit 1; }
status() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }

# Parity: the same commands from -c, -f, stdin and several -c in a row.
cmds="center 'main'; topdown 2
# a comment line; not a command
center + MPI_Finalize ;center;  bottomup 2
mode json; flat 3"
printf '%s\n' "$cmds" >script.cctq
"$CCTQ" cpi.sqlite -c "$cmds" >out.c
"$CCTQ" cpi.sqlite -f script.cctq >out.f
"$CCTQ" cpi.sqlite <script.cctq >out.stdin
"$CCTQ" cpi.sqlite -f - <script.cctq >out.dash
"$CCTQ" cpi.sqlite -c "center 'main'; topdown 2" -c "center + MPI_Finalize ;center;  bottomup 2" -c "mode json; flat 3" >out.cc
for o in f stdin dash cc; do cmp -s out.c out.$o || { diff out.c out.$o; fail "-c and $o differ"; }; done
grep -q '^\[1\] .* \* <multiple contexts>$' out.c || fail "center + did not make two items"
# A quote open at the end of a line continues on the next (as in the terminal):
# the value holds the line break, which table output shows as '\n' (one line).
printf "sql SELECT 'a\nb' AS s\n" | "$CCTQ" cpi.sqlite >out.q
[ "$(cat out.q)" = "$(printf 's\na\\nb')" ] || { cat out.q; fail "quoted newline"; }

# Exit statuses.
[ "$(status "$CCTQ" cpi.sqlite -c 'topdown 1; flat 1')" = 0 ] || fail "ok commands: exit not 0"
[ "$(status "$CCTQ" cpi.sqlite -c 'topdwn 1; flat 1')" = 1 ] || fail "failed command: exit not 1"
[ "$(status "$CCTQ" cpi.sqlite -c 'quit; topdwn')" = 0 ] || fail "quit: exit not 0"
[ "$(status "$CCTQ" -x)" = 2 ] || fail "bad option: exit not 2"
[ "$(status "$CCTQ" cpi.sqlite -c)" = 2 ] || fail "-c without argument: exit not 2"
[ "$(status "$CCTQ" cpi.sqlite -f missing.cctq)" = 2 ] || fail "missing script: exit not 2"
[ "$(status "$CCTQ" missing.sqlite -c help)" = 2 ] || fail "missing archive: exit not 2"
[ "$(status "$CCTQ" script.cctq -c help)" = 2 ] || fail "not an archive: exit not 2"
[ "$(status "$CCTQ" cpi.sqlite extra.sqlite)" = 2 ] || fail "two archives: exit not 2"
printf 'flat 1\nbogus\nflat 2\n' | "$CCTQ" cpi.sqlite >out.cont 2>/dev/null && fail "stdin with a failure: exit 0"
[ "$(grep -c '^\[' out.cont)" = 3 ] || fail "the command after a failure did not run"
"$CCTQ" cpi.sqlite --bail -c 'flat 1; bogus; flat 2' >out.bail 2>/dev/null && fail "--bail: exit 0"
[ "$(grep -c '^\[' out.bail)" = 1 ] || fail "--bail ran the commands after the failure"
if [ -w /dev/full ]; then
  [ "$(status "$CCTQ" cpi.sqlite -c 'flat 0')" = 0 ] || fail "flat 0"
  set +e; "$CCTQ" cpi.sqlite -c 'flat 0' >/dev/full 2>err.full; rc=$?; set -e
  [ "$rc" = 1 ] || fail "write to /dev/full: exit $rc"
  grep -q '^cctq: error: writing the output failed' err.full || fail "write failure message"
fi
# Without an archive, commands that need one say so; help and mode work.
"$CCTQ" -c 'mode json; mode; help top' >out.noarch
grep -q '^json$' out.noarch && grep -q '^usage: topdown \[DEPTH\] \[by KEY\]$' out.noarch || fail "no-archive commands"

# Error messages (stderr) and exit statuses.
python3 "$CCT_SRC/tests/cli/blocks.py" "$CCTQ" "$t/cpi.sqlite" "$CCT_SRC/tests/cli/blocks/errors.blocks"
# A file that is not an archive.
set +e; "$CCTQ" script.cctq 2>err.notarch; rc=$?; set -e
[ "$rc" = 2 ] || fail "not an archive: exit $rc"
[ "$(cat err.notarch)" = "cctq: error: 'script.cctq' is not a cctq archive: file is not a database" ] ||
  { cat err.notarch; fail "not an archive: message"; }
echo ok
