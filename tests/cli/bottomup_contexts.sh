#!/bin/bash
# Bottom-up rows count the caller paths they merge (issue 27 item 13): the
# 'contexts' column of bottomup, as flat has one.  A row's count is the number of
# the center's outermost occurrences whose chain of enclosing function contexts
# starts with the row's path, so the top row counts them all and the level-1
# rows add up to it.  Checked against an independent walk of the public
# 'contexts' view in Python, on gauss (a function center) and LULESH (a loop
# center whose 12 occurrences nest: only the outermost count).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
check() { # DATA CENTER-ITEM PYTHON-MATCH
  local a="$t/$1.sqlite"
  [ -f "$a" ] || "$CCTINGEST" --quiet "$CCT_DATA/$1" "$a"
  "$CCTQ" "$a" -c "mode csv; center $2; bottomup 3" >"$t/bu.csv"
  "$CCTQ" "$a" -c "mode json; center $2; bottomup 3" >"$t/bu.json"
  "$CCTQ" "$a" -c "width 200; center $2; bottomup 3" >"$t/bu.txt"
  python3 - "$a" "$t" "$3" <<'PY'
import csv, json, sqlite3, sys
a, t, match = sys.argv[1], sys.argv[2], sys.argv[3]
def fail(m):
    print("FAIL:", m); sys.exit(1)
db = sqlite3.connect(a)
rows = db.execute("SELECT id, parent, kind, name, file, line FROM contexts WHERE run = 1").fetchall()
par = {r[0]: r[1] for r in rows}
info = {r[0]: r for r in rows}
kind, name, file, line = match.split("|")
O = {r[0] for r in rows if r[2] == kind and (name == "" or r[3] == name)
     and (file == "" or (r[4] or "").endswith(file)) and (line == "" or r[5] == int(line))}
def ancestors(c):
    p = par.get(c)
    while p is not None:
        yield p
        p = par.get(p)
outer = [o for o in O if not any(x in O for x in ancestors(o))]
if len(outer) < 2: fail("a center of several outermost occurrences expected, got %d" % len(outer))
want = {(): len(outer)}
for o in outer:
    # frames merge by function (name, file, line): LULESH's '<inline>' frames are several
    chain = [info[x][3:6] for x in ancestors(o) if info[x][2] == "function"][:3] or [("<program root>",)]
    for k in range(1, len(chain) + 1):
        want[tuple(chain[:k])] = want.get(tuple(chain[:k]), 0) + 1
want = sorted((tuple(f[0] for f in p), c) for p, c in want.items())  # as the csv names them
got = sorted((tuple(r["path"].split(";")[1:]), int(r["contexts"])) for r in csv.DictReader(open(t + "/bu.csv", newline="")))
if got != want: fail("bottomup contexts %s, expected %s" % (got, want))
level1 = sum(c for p, c in got if len(p) == 1)
if level1 != got[0][1]: fail("level-1 paths add up to %d, not the top row's %d" % (level1, got[0][1]))
j = json.load(open(t + "/bu.json"))
if [r["contexts"] for r in j["rows"]] != [int(r["contexts"]) for r in csv.DictReader(open(t + "/bu.csv", newline=""))]:
    fail("json contexts differ from csv")
txt = open(t + "/bu.txt").read()
if "contexts" not in txt.splitlines()[1]: fail("tree header has no contexts column:\n" + txt)
print("ok:", match, got[:4])
PY
}
check classic-hpcviewer-gauss PMPI_Bcast "function|PMPI_Bcast||"
check classic-callflow-lulesh "loop lulesh.cc:2059" "loop||lulesh.cc|2059"
# sorted by the count: the siblings with more caller paths first
"$CCTQ" "$t/classic-hpcviewer-gauss.sqlite" -c "mode csv; center PMPI_Bcast; bottomup 1 by occurrences" >"$t/occ.csv"
python3 - "$t/occ.csv" <<'PY'
import csv, sys
c = [int(r["contexts"]) for r in csv.DictReader(open(sys.argv[1], newline=""))][1:]
if len(c) < 2 or c != sorted(c, reverse=True): print("FAIL: not by occurrences:", c); sys.exit(1)
PY
