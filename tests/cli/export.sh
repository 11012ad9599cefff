#!/bin/bash
# cctq 'export FILE': the last view (or diff, or stats) written in the format
# of FILE's extension.  .csv/.json/.folded/.txt must be byte for byte what the
# same view prints in mode csv/json/folded/tree (tree at a width that
# shortens nothing); the exported values are checked against the public
# 'flat' view (sqlite3); .svg/.html are pictures (valid XML, from
# query/picture.c when the build has it).  Errors: unknown extension, nothing
# to export, unwritable file (and no file left behind).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
a="$t/cpi.sqlite"
"$CCTINGEST" --quiet --title classic "$CCT_DATA/classic-hatchet-cpi" "$a"
cd "$t"

# Each text format equals the mode's own output of the same view.
for spec in "center main; topdown 4" "center MPI_Finalize; bottomup 3" "flat 5" "center main; granularity line; topdown 3"; do
  for pair in csv:csv json:json folded:folded txt:tree; do
    ext=${pair%%:*} mode=${pair#*:}
    COLUMNS=10000 "$CCTQ" "$a" -c "mode $mode; $spec; export out.$ext" >want
    cmp -s out.$ext want || { diff out.$ext want | head; fail "export .$ext of '$spec' differs from mode $mode"; }
  done
done
# The exported top row is main's row of the public 'flat' view.
"$CCTQ" "$a" -c 'center main; topdown 2; export top.csv' >/dev/null
want=$(sqlite3 "$a" "SELECT printf('%.0f', x.inclusive) FROM flat x JOIN functions f USING (run, function)
                     WHERE x.run = 1 AND f.name = 'main'")
got=$(python3 -c 'import csv, sys; r = next(csv.DictReader(open(sys.argv[1], newline=""))); print(next(v for k, v in r.items() if k.endswith(" inclusive")))' top.csv)
[ "$got" = "$want" ] || fail "exported main inclusive $got, flat view says $want"
python3 -c "import json; d = json.load(open('out.json')); assert d['view'] == 'topdown' and d['rows']" ||
  fail "json export"

# A diff exports as a diff; stats as stats.
"$CCTINGEST" --quiet --title v4 "$CCT_DATA/v4-hatchet-cpi" "$a"
"$CCTQ" "$a" -c 'run 1; center main; hotpath off; topdown 3; diff 2; export d.json; export d.folded; stats 4; export s.json; export s.csv' >/dev/null
python3 - <<'PY'
import json
d = json.load(open("d.json"))
assert d["view"] == "diff" and (d["base_run"], d["run"]) == (1, 2), d
assert {r["status"] for r in d["rows"]} == {"both", "added", "removed"}
s = json.load(open("s.json"))
assert s["view"] == "stats" and s["count"] == 4, s
PY
grep -q '^main;MPI_Finalize;PMPI_Finalize;MPID_Finalize 3998240 0$' d.folded || { cat d.folded; fail "diff .folded"; }
[ "$(head -1 s.csv | tr -d '\r')" = "profile,node,rank,thread,gpucontext,gpustream,kind,value" ] || fail "stats .csv"

# Pictures.
if [ -f "$CCT_SRC/include/cct_picture.h" ]; then
  "$CCTQ" "$a" -c 'run 1; center main; topdown 3; export p.svg; export p.html; stats; export s.svg' >/dev/null
  xmllint --noout p.svg s.svg || fail "svg export is not valid XML"
  grep -q 'class="frame"' p.svg || fail "no frames in p.svg"
  grep -q 'class="bar"' s.svg || fail "no bars in the stats svg"
  grep -qi '<html' p.html || fail "html export"
  if "$CCTQ" "$a" -c 'run 1; topdown 2; diff 2; export d.svg' >/dev/null 2>err; then fail "diff .svg: exit 0"; fi
  grep -q "^cctq: error: export to .svg of a diff is not available" err || { cat err; fail "diff .svg message"; }
else
  if "$CCTQ" "$a" -c 'topdown 2; export p.svg' >/dev/null 2>err; then fail ".svg without pictures: exit 0"; fi
  grep -q "^cctq: error: export to .svg is not available in this build$" err || { cat err; fail ".svg message"; }
fi

# Errors.
if "$CCTQ" "$a" -c 'topdown 1; export out.xyz' >/dev/null 2>err; then fail "unknown extension: exit 0"; fi
grep -q "^cctq: error: unknown export format 'out.xyz'" err || { cat err; fail "extension message"; }
if "$CCTQ" "$a" -c 'export nothing.csv' 2>err; then fail "nothing to export: exit 0"; fi
grep -q "^cctq: error: nothing to export" err || { cat err; fail "nothing message"; }
[ ! -e nothing.csv ] || fail "file left behind"
if "$CCTQ" "$a" -c 'topdown 1; export no/such/dir/x.csv' >/dev/null 2>err; then fail "unwritable: exit 0"; fi
grep -q "^cctq: error: cannot write 'no/such/dir/x.csv': No such file or directory$" err || { cat err; fail "unwritable"; }
"$CCTQ" "$a" -c 'help export' | grep -q '^  .csv' || fail "help export"
echo "ok export"
