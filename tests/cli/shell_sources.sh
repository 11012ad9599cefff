#!/bin/bash
# cctq shell: one input loop for -c, -f and stdin (same output, byte for byte),
# command splitting on ';' and newlines with quotes, exit statuses (0 ok, 1 a
# command failed, 2 usage error), a script stopping at its first failure
# (--keep-going), runs named by title, write failures, and the error
# messages: the checked blocks of tests/cli/blocks/errors.blocks (command,
# expected error lines, exit status; tests/cli/blocks.py runs them).
set -euo pipefail
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
grep -q "^\[1\] .* \* \+[0-9]*  'main' + MPI_Finalize$" out.c || fail "center + did not make two items" # bottomup: the mark, the caller paths (contexts), the label
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
# A script stops at its first failing command (SPEC 6, as sqlite3 -bail), in
# every input source; --keep-going runs on; --bail (the old option) is a no-op.
printf 'flat 1\nbogus\nflat 2\n' | "$CCTQ" cpi.sqlite >out.stop 2>err.stop && fail "stdin with a failure: exit 0"
[ "$(grep -c '^\[' out.stop)" = 1 ] || fail "stdin: a command after the failure ran"
[ "$(cat err.stop)" = "cctq: error: unknown command 'bogus'; enter 'help' for help" ] || { cat err.stop; fail "stdin: errors"; }
printf 'flat 1\nbogus\nflat 2\n' >stop.cctq
"$CCTQ" cpi.sqlite -f stop.cctq -c 'flat 3' >out.stop 2>/dev/null && fail "-f with a failure: exit 0"
[ "$(grep -c '^\[' out.stop)" = 1 ] || fail "-f: a command after the failure ran (or the next -c)"
"$CCTQ" cpi.sqlite -c 'flat 1; bogus; flat 2' -c 'flat 3' >out.stop 2>/dev/null && fail "-c with a failure: exit 0"
[ "$(grep -c '^\[' out.stop)" = 1 ] || fail "-c: a command after the failure ran"
"$CCTQ" cpi.sqlite --bail -c 'flat 1; bogus; flat 2' >out.bail 2>/dev/null && fail "--bail: exit 0"
[ "$(grep -c '^\[' out.bail)" = 1 ] || fail "--bail ran the commands after the failure"
"$CCTQ" cpi.sqlite --keep-going -c 'flat 1; bogus; flat 2' -c 'flat 3' >out.cont 2>/dev/null && fail "--keep-going: exit 0"
[ "$(grep -c '^\[' out.cont)" = 6 ] || fail "--keep-going: the commands after the failure did not run"
printf 'flat 1\nbogus\nflat 2\n' | "$CCTQ" --keep-going cpi.sqlite >out.cont 2>/dev/null && fail "--keep-going stdin: exit 0"
[ "$(grep -c '^\[' out.cont)" = 3 ] || fail "--keep-going stdin: the command after the failure did not run"
# --tui does not start after a failed script (it would show a state not asked for).
[ "$(status "$CCTQ" --tui cpi.sqlite -c 'center nosuch_function')" = 1 ] || fail "--tui after a failure"

# Runs by title wherever a run number goes (issue 25 item 5): 'run old; diff
# new' switched nowhere ('old' was no run number) and diffed run 2 with itself.
"$CCTINGEST" --quiet --title old "$CCT_DATA/classic-hatchet-cpi" runs.sqlite
"$CCTINGEST" --quiet --title new "$CCT_DATA/classic-hatchet-osu-allgather" runs.sqlite
main_of() { # main's inclusive of the first metric of run $1, from the public views
  sqlite3 runs.sqlite "SELECT CAST(f.inclusive AS INTEGER) FROM flat f JOIN functions n USING (run, function)
    WHERE n.name = 'main' AND f.run = $1 AND f.metric = (SELECT min(metric) FROM metrics WHERE run = $1)"; }
old=$(main_of 1) new=$(main_of 2)
[ -n "$old" ] && [ -n "$new" ] && [ "$old" != "$new" ] || fail "setup: main's values '$old' '$new'"
"$CCTQ" runs.sqlite -c 'run old; run; mode csv; center main; topdown 0; diff new' >out.runs 2>err.runs ||
  { cat err.runs; fail "run old; diff new: exit not 0"; }
[ -s err.runs ] && { cat err.runs; fail "run old; diff new: errors"; }
[ "$(sed -n 1p out.runs)" = 1 ] || fail "'run old' did not switch to run 1"
# the diff's row of main: this run's inclusive (old), the other run's (new)
python3 - out.runs "$old" "$new" <<'PY' || fail "diff new is not run 2 beside run 1"
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
d = list(csv.DictReader(lines[lines.index(next(l for l in lines if l.startswith("handle,other_handle"))):]))
m = next(r for r in d if r["name"] == "main")
assert (m["CPUTIME (usec) inclusive"], m["CPUTIME (usec) other inclusive"]) == (sys.argv[2], sys.argv[3]), m
PY
"$CCTQ" runs.sqlite -c 'run nosuch; flat 1' >out.runs 2>err.runs && fail "run nosuch: exit 0"
[ -s out.runs ] && fail "run nosuch: the next command ran"
grep -q "nosuch" err.runs || { cat err.runs; fail "run nosuch: the message does not name the word"; }
"$CCTQ" runs.sqlite -c 'run old; diff nosuch; flat 1' >out.runs 2>err.runs && fail "diff nosuch: exit 0"
[ "$(cat out.runs)" = "" ] || fail "diff nosuch: a command after it ran"
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
