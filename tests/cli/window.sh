#!/bin/bash
# Time windows and the timeline (SPEC section 5, Time windows) on the real traced
# samples, against the raw trace files read by Python (check_window.py): every traced
# context's 'trace (sec)' in four windows (the whole run, two halves, one more) with
# records cut at the edges, the halves adding up to the whole, and the timeline's
# shares per lane and column for a center.  Then the commands' messages.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
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
# span: the first record (lane 2, ...788463000 ns) to the last (lane 7, ...237479441000): 4.690978 s
"$CCTQ" "$a" -c 'window' | grep -q '^window 0 s - 4.69098 s of 4.69098 s (0% - 100%), the whole run; 9845 records in 8 lanes$' ||
  fail "window: $("$CCTQ" "$a" -c window)"
# views name the window; 'window reset' and changing runs end it
"$CCTQ" "$a" -c 'window 1 2; topdown 1' | grep -q '^filters: window 1 s - 2 s (trace (sec) only)$' || fail "topdown does not name the window"
"$CCTQ" "$a" -c 'window 1 2; window reset; topdown 1' | grep -q 'filters:' && fail "window reset: still windowed"
# errors: one line each, exit status 1
err() { # COMMANDS EXPECTED
  if "$CCTQ" "$2" -c "$1" >/dev/null 2>"$t/err"; then fail "'$1' succeeded"; fi
  grep -q "$3" "$t/err" || fail "'$1': $(cat "$t/err")"
}
err 'window 2 1' "$a" "ends (1 s) before it starts (2 s)"
err 'window soon' "$a" "'soon' is not a time"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-inline.meta.db" "$t/untraced.sqlite"
err 'window 1 2' "$t/untraced.sqlite" "run 1 has no traces: no window"
err 'timeline' "$t/untraced.sqlite" "run 1 has no traces: no timeline"
"$CCTQ" "$t/untraced.sqlite" -c window | grep -q '^run 1 has no traces$' || fail "window without traces"
# the text timeline at 80 columns: one line per lane, 8 lanes, the heading and the axis
n=$("$CCTQ" "$a" -c 'width 80; center gomp_team_barrier_wait_end; timeline' | awk 'length($0) > 80 {print "long"} /^thread /{n++} END {print n}')
[ "$n" = 8 ] || fail "timeline at width 80: $n"
echo "window: ok"
