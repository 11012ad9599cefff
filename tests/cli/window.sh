#!/bin/bash
# Time windows and the timeline (SPEC section 5, Time windows) on the real traced
# samples, against the raw trace files read by Python (check_window.py): every traced
# context's 'trace (sec)' in four windows (the whole run, two halves, one more) with
# records cut at the edges, the halves adding up to the whole, flat functions and
# 'diff window' in two windows, and the timeline's shares per lane and column for a
# center.  Then: a window over the whole run gives the stored flat rows of every kind;
# outputs name the window; the commands' messages.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
err() { # COMMANDS EXPECTED
  if "$CCTQ" "$2" -c "$1" >/dev/null 2>"$t/err"; then fail "'$1' succeeded"; fi
  grep -q "$3" "$t/err" || fail "'$1': $(cat "$t/err")"
}
traced() { # DIR: $t/NAME with the files of $CCT_DATA/DIR and of its traces (tests/data/traces)
  n=$(basename "$1")
  mkdir -p "$t/$n"
  for f in "$CCT_DATA/$1"/* "$CCT_DATA/traces/$1"/*; do ln -sf "$f" "$t/$n/"; done
  echo "$t/$n"
}
for x in v4-hpcviewer-inline.meta.db:gomp_team_barrier_wait_end v4-hpctoolkit-tests-dbase/loops-cputime-t.d:main \
         v4-pipit-ping-pong:psm_progress_wait classic-hpcviewer-gauss:smpi_net_lookup \
         classic-hpcviewer-inline.xml.db:f._omp_fn.0; do
  db=$(traced "${x%%:*}")
  "$CCTINGEST" --quiet "$db" "$db.sqlite"
  python3 "$CCT_SRC/tests/cli/check_window.py" "$db" "$db.sqlite" "${x#*:}"
done
"$CCTINGEST" --quiet "$CCT_DATA/prof2-pipit-ping-pong" "$t/prof2.sqlite"
python3 "$CCT_SRC/tests/cli/check_window.py" "$CCT_DATA/prof2-pipit-ping-pong" "$t/prof2.sqlite" main

a="$t/v4-hpcviewer-inline.meta.db.sqlite"
# same_csv A B: the csv outputs A and B agree (text fields equal, numbers to 1e-9; 'window' lines aside)
same_csv() {
  python3 -c '
import sys
def rows(p):
    return [l.rstrip("\n").split(",") for l in open(p) if not l.startswith("window ")]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
def same(x, y):
    try:
        return abs(float(x) - float(y)) <= 1e-9 * max(1, abs(float(x)))
    except ValueError:
        return x == y
sys.exit(len(a) != len(b) or any(len(r) != len(q) or not all(map(same, r, q)) for r, q in zip(a, b)))
' "$1" "$2"
}
# flat in memory over 'window 0 100%' = the stored flat of the whole run (scope_total), every kind
for s in "$t"/*.sqlite; do
  k="flat functions 0; flat loops 0; flat lines 0; flat files 0; flat modules 0; flat tree 0"
  "$CCTQ" "$s" -c "metric trace; mode csv; $k" >"$t/stored.csv"
  "$CCTQ" "$s" -c "metric trace; window 0 100%; mode csv; $k" >"$t/window.csv"
  same_csv "$t/stored.csv" "$t/window.csv" || fail "$s: flat over the whole window differs from the stored one"
done
# filters under a window: over the whole run, every kind of filter gives what the filter engine makes of
# the stored metric (topdown, bottomup, flat; stats, from the records in both)
k="topdown 4; flat functions 0; flat loops 0; flat lines 0; flat tree 0; center f._omp_fn.0; bottomup 3; stats"
for f in "keep f._omp_fn.0" "drop gomp_team_barrier_wait_end" "hide gomp_thread_start" "prune f._omp_fn.0" "recursion"; do
  "$CCTQ" "$a" -c "metric trace; filter $f; mode csv; $k" >"$t/stored.csv"
  "$CCTQ" "$a" -c "metric trace; filter $f; window 0 100%; mode csv; $k" >"$t/window.csv"
  same_csv "$t/stored.csv" "$t/window.csv" || fail "filter $f: the whole window differs from the stored values"
done
# exports: of the view shown, over its window even after 'window' changed (csv, json, pictures); pictures
# name the window
"$CCTQ" "$a" -c 'metric trace; window 0.5 1; mode csv; topdown 2' >"$t/shown.csv"
"$CCTQ" "$a" -c "metric trace; window 0.5 1; topdown 2; window 3 4; export $t/x.csv; export $t/x.json" >/dev/null
grep -v '^window ' "$t/shown.csv" >"$t/shown2.csv"
cmp -s "$t/shown2.csv" "$t/x.csv" || fail "export .csv after the window changed is not the view shown"
grep -q '"window": {"from": 0.5, "to": 1}' "$t/x.json" || fail "export .json after the window changed"
"$CCTQ" "$a" -c "metric trace; center f._omp_fn.0; window 0.5 1; topdown 2; window 3 4; export $t/x.svg; export $t/x.html" >/dev/null
grep -q 'window 0.5 s - 1 s (trace (sec) only)' "$t/x.svg" || fail "the svg does not name the view's window"
grep -q 'window 0.5 s - 1 s (trace (sec) only)' "$t/x.html" || fail "the html does not name the view's window"
# every output names the window: the filters line, json "window", stats
"$CCTQ" "$a" -c 'metric trace; window 1 2; flat 3; mode json; flat 3; topdown 1; stats; mode tree; stats' >"$t/named"
[ "$(grep -c '^filters: window 1 s - 2 s (trace (sec) only)$' "$t/named")" = 2 ] || fail "tree outputs do not name the window"
[ "$(grep -c '"window": {"from": 1, "to": 2}' "$t/named")" = 3 ] || fail "json outputs do not name the window"
"$CCTQ" "$a" -c 'metric trace; window 1 2; mode json; diff window 2 3' >"$t/named"
grep -q '"base_window": {"from": 1, "to": 2}, "window": {"from": 2, "to": 3}' "$t/named" || fail "diff window json"
"$CCTQ" "$a" -c 'metric cycles; diff window 0 50%' >"$t/named"
grep -q "^diff topdown 3: run 1 'v4-hpcviewer-inline.meta.db' window 0 s - 4.69098 s -> window 0 s - 2.34549 s, trace (sec)$" "$t/named" ||
  fail "diff window title: $(cat "$t/named")"
# span: the first record (lane 2, ...788463000 ns) to the last (lane 7, ...237479441000): 4.690978 s
"$CCTQ" "$a" -c 'window' | grep -q '^window 0 s - 4.69098 s of 4.69098 s (0% - 100%), the whole run; 9845 records in 8 lanes$' ||
  fail "window: $("$CCTQ" "$a" -c window)"
# views name the window; 'window reset' and changing runs end it
"$CCTQ" "$a" -c 'window 1 2; topdown 1' >"$t/out"
grep -q '^filters: window 1 s - 2 s (trace (sec) only)$' "$t/out" || fail "topdown does not name the window"
"$CCTQ" "$a" -c 'window 1 2; window reset; topdown 1' >"$t/out"
if grep -q 'filters:' "$t/out"; then fail "window reset: still windowed"; fi
# errors: one line each, exit status 1
err 'window 2 1' "$a" "ends (1 s) before it starts (2 s)"
err 'window soon' "$a" "'soon' is not a time"
err 'diff window 1' "$a" "need a window's start and end for 'diff'"
err 'diff window 1 soon' "$a" "'soon' is not a time"
err 'diff window 2 1' "$a" "ends (1 s) before it starts (2 s)"
err 'diff window 1 2 later' "$a" "unknown option 'later' for 'diff'"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-inline.meta.db" "$t/untraced.sqlite"
err 'window 1 2' "$t/untraced.sqlite" "run 1 has no traces: no window"
err 'timeline' "$t/untraced.sqlite" "run 1 has no traces: no timeline"
err 'diff window 1 2' "$t/untraced.sqlite" "run 1 has no traces: no window"
"$CCTQ" "$t/untraced.sqlite" -c window >"$t/out"
grep -q '^run 1 has no traces$' "$t/out" || fail "window without traces"
# the text timeline at 80 columns: one line per lane, 8 lanes, the heading and the axis
"$CCTQ" "$a" -c 'width 80; center gomp_team_barrier_wait_end; timeline' >"$t/out"
n=$(awk 'length($0) > 80 {print "long"} /^thread /{n++} END {print n}' "$t/out")
[ "$n" = 8 ] || fail "timeline at width 80: $n"
echo "window: ok"
