#!/bin/bash
# 'mode folded' read by a real flame-graph tool: Brendan Gregg's flamegraph.pl
# as Debian ships it in libdevel-nytprof-perl (scripts/setup installs it).
# For real samples, the SVG it draws must be valid XML and its 'all' frame
# must count exactly the top row's inclusive value, computed here from the
# public views with sqlite3: main's flat inclusive (classic cpi, usec), the
# program total (v4 cpi, sec: --factor 1000000 prints usec, as flamegraph.pl
# prints whole counts) and, for 'diff' (two columns: a differential flame
# graph), the other run's total.  No line may be ignored as invalid.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
fg=$(command -v flamegraph.pl || true)
[ -n "$fg" ] || fg=/usr/share/perl5/Devel/NYTProf/flamegraph.pl
if [ ! -f "$fg" ]; then
  [ -n "${CI:-}" ] && fail "flamegraph.pl not found (scripts/setup installs libdevel-nytprof-perl)"
  echo "folded_flamegraph: SKIP: flamegraph.pl not found (apt-get install libdevel-nytprof-perl)"
  exit 77
fi
a="$t/cpi.sqlite"
"$CCTINGEST" --quiet --title classic "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --quiet --title v4 "$CCT_DATA/v4-hatchet-cpi" "$a"
q() { sqlite3 "$a" "$1"; }

# render NAME FACTOR: NAME.folded -> NAME.svg; prints the 'all' frame's count (commas removed).
render() {
  perl "$fg" --factor "$2" "$t/$1.folded" >"$t/$1.svg" 2>"$t/$1.err" || { cat "$t/$1.err"; fail "flamegraph.pl failed on $1"; }
  [ ! -s "$t/$1.err" ] || { cat "$t/$1.err"; fail "flamegraph.pl complained about $1"; }
  xmllint --noout "$t/$1.svg" || fail "$1.svg is not valid XML"
  grep -q '<svg' "$t/$1.svg" || fail "$1.svg has no <svg>"
  sed -n 's/.*<title>all (\([0-9,]*\) samples, 100%)<\/title>.*/\1/p' "$t/$1.svg" | tr -d ,
}

# Classic cpi, center main: main's inclusive (usec, whole numbers).
"$CCTQ" "$a" -c 'run 1; center main; mode folded; topdown 5' >"$t/classic.folded"
want=$(q "SELECT printf('%.0f', x.inclusive) FROM flat x JOIN functions f USING (run, function) WHERE x.run = 1 AND f.name = 'main'")
got=$(render classic 1)
[ "$got" = "$want" ] || fail "classic: flame graph counts $got, main's inclusive is $want"
grep -q '<title>main (3,998,240 samples, 100.00%)</title>' "$t/classic.svg" || fail "classic: no main frame"
echo "ok classic cpi: all = main = $got"

# v4 cpi, no center: the program total in seconds, printed by flamegraph.pl in usec.
"$CCTQ" "$a" -c 'run 2; mode folded; topdown 5' >"$t/v4.folded"
want=$(q "SELECT printf('%.0f', sum(v.inclusive) * 1e6) FROM contexts c JOIN context_values v USING (run, id) WHERE c.run = 2 AND c.parent IS NULL")
got=$(render v4 1000000)
[ "$got" = "$want" ] || fail "v4: flame graph counts $got usec, the program total is $want usec"
echo "ok v4 cpi: all = program total = $got usec"

# Differential: 'diff 2' from run 1 (usec), center main: the other run's main, in usec.
"$CCTQ" "$a" -c "run 1; center main; topdown 5; diff 2; export $t/diff.folded" >/dev/null
awk 'NF < 3 { bad = 1 } END { exit bad }' "$t/diff.folded" || { cat "$t/diff.folded"; fail "diff lines need two counts"; }
want=$(q "SELECT printf('%.0f', x.inclusive * 1e6) FROM flat x JOIN functions f USING (run, function) WHERE x.run = 2 AND f.name = 'main'")
got=$(render diff 1)
[ "$got" = "$want" ] || fail "diff: flame graph counts $got, run 2's main is $want usec"
grep -q '<title>main (281,820 samples, 100.00%; ' "$t/diff.svg" || fail "diff: main frame"
echo "ok differential: all = run 2's main = $got usec"
