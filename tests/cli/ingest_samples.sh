#!/bin/bash
# Every real database ingests (issue 25 item 1): each database directory under
# tests/data (or under $CCT_SAMPLES, e.g. ../shared/samples, when set) loads,
# the pre-release v4 layout excepted (refused by design), and for each v4 one
# an independent reader (v4read.py, from the format description) finds the
# archive's profile count and every context's inclusive and exclusive values
# as the files store them; and at line granularity every loop row's exclusive
# is the database's lex_aware value of the loop contexts it merges, 0 where
# hpcprof stored none (classic: the <L>'s exclusive, prof2: profile.db's exclusive,
# read by loopcheck.py; issue 25 item 2: ingest took the function-scope value
# then, so loops-cputime-t.d's outer loop loops.c:1010 showed 0.963 s of
# exclusive, the cost of the loops nested in it).  hpcviewer's derived-metrics database, whose
# profile.db has values for 40 of meta.db's 226 contexts, was refused as "does
# not belong to meta.db" before.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
top=${CCT_SAMPLES:-$CCT_DATA}
fails=0 n=0
# One python3 per database checks it all (values, then each metric's loop rows, the
# csv from cctq run by the checker): one per check was 72 starts of python3.
for d in $(cd "$top" && find . \( -name meta.db -o -name experiment.xml \) -printf '%h\n' | sort -u); do
  case $d in *v4pre-*) continue ;; esac
  rm -f "$t/a.sqlite"
  n=$((n + 1))
  if ! "$CCTINGEST" --quiet "$top/$d" "$t/a.sqlite" 2>"$t/err"; then
    echo "FAIL $d: $(cat "$t/err")"; fails=$((fails + 1)); continue
  fi
  if [ -e "$top/$d/meta.db" ]; then
    python3 "$CCT_SRC/tests/cli/v4read.py" "$top/$d" ingested "$t/a.sqlite" >"$t/out" ||
      { echo "FAIL $d: values or loop exclusives differ from the database's:"; cat "$t/out"; fails=$((fails + 1)); continue; }
  else # classic and prof2: loopcheck.py reads experiment.xml (and profile.db)
    python3 "$CCT_SRC/tests/cli/loopcheck.py" "$top/$d" ingested "$t/a.sqlite" >"$t/out" ||
      { echo "FAIL $d: loop exclusives differ from the database's:"; cat "$t/out"; fails=$((fails + 1)); continue; }
  fi
  echo "ok $d"
done
[ "$n" -ge 20 ] || { echo "FAIL only $n databases found under $top"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n failed"; exit 1; }
