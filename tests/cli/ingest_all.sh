#!/bin/bash
# A folder holding several databases (HPCToolkit's own test data layout,
# tests/data/v4-hpctoolkit-tests-dbase; issue 27 item 14): plain cctingest
# refuses it but names every database below it (the list 'find' gives) and says
# how to ingest them; 'cctingest --all DIR OUT' ingests each as a run, titled by
# its path below DIR (checked with sqlite3 on the runs view).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
dir="$CCT_DATA/v4-hpctoolkit-tests-dbase"
(cd "$dir" && find . \( -name meta.db -o -name experiment.xml \) | xargs -n1 dirname | sed 's|^\./||' | sort -u) >"$t/want"
n=$(wc -l <"$t/want")
[ "$n" -ge 2 ] || fail "the folder holds $n databases"
if "$CCTINGEST" --quiet "$dir" "$t/one.sqlite" 2>"$t/err"; then fail "a folder of databases ingested as one"; fi
[ ! -e "$t/one.sqlite" ] || fail "a refused ingest left '$t/one.sqlite'"
grep -q "holds $n databases below it" "$t/err" || fail "no count of the databases: $(cat "$t/err")"
while read -r d; do grep -qx "  $dir/$d" "$t/err" || fail "'$d' not listed: $(cat "$t/err")"; done <"$t/want"
grep -q "cctingest --all $dir OUT.sqlite" "$t/err" || fail "no hint of --all: $(cat "$t/err")"
"$CCTINGEST" --quiet --all "$dir" "$t/all.sqlite"
sqlite3 "$t/all.sqlite" "SELECT title FROM runs ORDER BY title" >"$t/titles"
cmp -s "$t/want" "$t/titles" || { diff "$t/want" "$t/titles"; fail "runs are not one per database, titled by path"; }
sqlite3 "$t/all.sqlite" "SELECT count(*) FROM runs WHERE contexts > 1" | grep -qx "$n" || fail "a run without contexts"
# a folder without any database: one clear error
mkdir "$t/empty"
if "$CCTINGEST" --all "$t/empty" "$t/x.sqlite" 2>"$t/err"; then fail "--all on an empty folder succeeded"; fi
grep -q "no HPCToolkit database" "$t/err" || fail "empty folder: $(cat "$t/err")"
echo "ok $n databases listed and ingested with --all"
