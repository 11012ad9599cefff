#!/bin/bash
# The shell keeps the value of the last view it showed (issue 24): 'export'
# writes that value, not a view computed again from the session's settings.
# Before, 'stats by rank; export s.csv' wrote the profiles in value order (the
# order was dropped) and 'flat 5; source @3; export a.txt' failed with "no row
# @3" (export resolved '@3' against the source view's own rows).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"
export COLUMNS=10000
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" osu.sqlite
"$CCTINGEST" --quiet "$CCT_DATA/handmade-src" src.sqlite

# stats by rank,thread: the file holds the profiles by rank, then thread, as printed.
"$CCTQ" osu.sqlite -c 'center main; stats by rank,thread; export s.csv' >/dev/null
"$CCTQ" osu.sqlite -c 'center main; mode csv; stats by rank,thread' >want.csv
cmp -s s.csv want.csv || { diff want.csv s.csv | head; fail "export of 'stats by rank' is not what it printed"; }
python3 - s.csv <<'PY' || fail "export of 'stats by rank' is not in rank order"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = [(int(r["rank"]), int(r["thread"])) for r in rows]
assert len(rows) > 2 and key == sorted(key), key
vals = [float(r["value"]) for r in rows]
assert vals != sorted(vals, reverse=True), "values happen to be in rank order: the test shows nothing"
PY
for order in thread; do
  "$CCTQ" osu.sqlite -c "center main; stats by $order; export s.json" >/dev/null
  "$CCTQ" osu.sqlite -c "center main; mode json; stats by $order" >want.json
  cmp -s s.json want.json || fail "export of 'stats by $order' to .json"
done

# source @3 of a flat view: the file is the source view printed.
"$CCTQ" src.sqlite -c 'flat 5; source @3' >want.txt
st=0; "$CCTQ" src.sqlite -c 'flat 5; source @3; export a.txt' >out 2>err || st=$?
[ "$st" = 0 ] || { cat err; fail "flat 5; source @3; export a.txt: exit $st"; }
tail -n +8 want.txt >want.src # the source view after flat's 7 lines
cmp -s a.txt want.src || { diff want.src a.txt | head; fail "export a.txt is not the source view printed"; }
grep -q "^\[1\] *230 " a.txt || fail "export a.txt is not the source of row 3's line 230"
# csv carries every metric: computed again from the kept spec, '@3' still row 3 of flat 5
"$CCTQ" src.sqlite -c 'flat 5; source @3; export a.csv' >/dev/null
"$CCTQ" src.sqlite -c 'mode csv; flat 5; source @3' | tail -n +7 >want.csv
cmp -s a.csv want.csv || { diff want.csv a.csv | head; fail "export a.csv of source @3"; }

# The settings after the view do not change what is exported.
"$CCTQ" osu.sqlite -c 'center main; topdown 2; threshold 50%; granularity line; export t.csv' >/dev/null
"$CCTQ" osu.sqlite -c 'mode csv; center main; topdown 2' >want.csv
cmp -s t.csv want.csv || { diff want.csv t.csv | head; fail "export after threshold/granularity changed"; }
"$CCTQ" osu.sqlite -c 'mode csv; center main; topdown 2; center MPI_Finalize; export t.csv' >printed.csv
cmp -s t.csv printed.csv || fail "export after the center changed is not the view shown"
# A run switch forgets the view (its rows were another run's).
st=0; "$CCTQ" osu.sqlite -c 'topdown 2; run 1; export r.csv' 2>err || st=$?
[ "$st" = 1 ] && grep -q "nothing to export" err || { cat err; fail "export after 'run': exit $st"; }
echo "ok shown value: export writes the view shown (stats order, source @N, settings changed after it)"
