#!/bin/bash
# Newcomer center items (issue 27 item 11): 'center line FILE:LINE' is
# 'center FILE:LINE' (as 'loop FILE:LINE' names loops), and a C++ function is
# named by its part before '(' or '<' (or its last '::' components, blanks
# aside): one function centers, several are an error listing them.  Checked
# with sqlite3 on the public views of LULESH and LAMMPS.
set -euo pipefail
incl() { python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin))[0]; print([v for k,v in r.items() if k.endswith(" inclusive")][0])'; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$t/lul.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-lmp-openmp" "$t/lmp.sqlite"
want=$(sqlite3 "$t/lul.sqlite" "SELECT printf('%d,%d', sum(v.inclusive), count(*)) FROM contexts c JOIN context_values v USING (run, id)
  WHERE c.kind = 'line' AND c.file LIKE '%/lulesh.cc' AND c.line = 1146")
got=$("$CCTQ" "$t/lul.sqlite" -c "center line lulesh.cc:1146; mode csv; topdown 0" | incl)
[ "$got,1" = "$want" ] || fail "center line lulesh.cc:1146: inclusive $got, want $want (sum, contexts)"
"$CCTQ" "$t/lul.sqlite" -c "center lulesh.cc:1146; mode csv; topdown 0" | incl | grep -qx "$got" ||
  fail "'line FILE:LINE' differs from 'FILE:LINE'"
if "$CCTQ" "$t/lul.sqlite" -c "center line lulesh.cc" 2>"$t/err"; then fail "'line lulesh.cc' accepted"; fi
grep -q "expected 'line FILE:LINE'" "$t/err" || fail "bad 'line' item: $(cat "$t/err")"
# a function by the part of its name before '<': one name, every frame of it
name='LAMMPS_NS::PairLJCutOMP::eval<1, 1, 1>(int, int, LAMMPS_NS::ThrData*) [liblammps.so.0]'
n=$(sqlite3 "$t/lmp.sqlite" "SELECT count(*) FROM contexts WHERE kind = 'function' AND name = '$name'")
[ "$n" -gt 0 ] || fail "the sample has no '$name'"
"$CCTQ" "$t/lmp.sqlite" -c "center 'PairLJCutOMP::eval<1,1,1>'; center" >"$t/c"
grep -q "($n occurrences\?)" "$t/c" || fail "center 'PairLJCutOMP::eval<1,1,1>': $(cat "$t/c"), want $n occurrences"
"$CCTQ" "$t/lmp.sqlite" -c "center 'PairLJCutOMP::eval<1,1,1>'; mode csv; topdown 0" | incl >"$t/a"
"$CCTQ" "$t/lmp.sqlite" -c "center '$name'; mode csv; topdown 0" | incl | cmp -s - "$t/a" ||
  fail "the short name's values differ from the full name's"
# several functions: an error listing every one
if "$CCTQ" "$t/lmp.sqlite" -c "center eval" 2>"$t/err"; then fail "'center eval' accepted though it names several"; fi
sqlite3 "$t/lmp.sqlite" "SELECT DISTINCT name FROM functions WHERE name LIKE '%::eval<%'" >"$t/evals"
k=$(wc -l <"$t/evals")
grep -q "'eval' names $k functions" "$t/err" || fail "want $k functions named: $(cat "$t/err")"
while read -r f; do grep -qF "'$f'" "$t/err" || fail "'$f' not listed: $(cat "$t/err")"; done <"$t/evals"
echo "ok center line FILE:LINE and C++ names without parameters ($n occurrences, $k evals)"
