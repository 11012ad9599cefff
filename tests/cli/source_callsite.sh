#!/bin/bash
# A centered source view marks the call sites leading into the center with '>',
# but they lie outside it: their 'center' cell (the line's cost inside the
# center) printed 0 beside the '>', which read as "nothing of the center here"
# (issue 27's walk).  It is '-' in tree and table, empty in csv and null in json
# (the TUI prints '-'); the center's own lines keep their figures.  Checked on
# loops-cputime-t.d, 'center func2': the call-site lines are read from the raw
# meta.db (tests/cli/v4read.py: the line contexts whose child is a call of func2).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
db="$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cputime-t.d"
"$CCTINGEST" --quiet "$db" "$t/a.sqlite"
"$CCTQ" "$t/a.sqlite" -c "center func2; mode csv; source; mode json; source; mode tree; width 80; source" >"$t/out"
python3 - "$db" "$t/out" "$(dirname "$0")" <<'PY'
import csv, io, json, re, sys
db, out, here = sys.argv[1:4]
sys.path.insert(0, here)
from v4read import Db, cstr, u64
def fail(m):
    print("FAIL:", m); sys.exit(1)
d = Db(db)
name = lambda c: cstr(d.meta, u64(d.meta, d.ctx[c]["fn"])) if d.ctx[c]["fn"] else None
calls = {d.ctx[d.ctx[c]["parent"]]["line"] for c, x in d.ctx.items()
         if not x["entry"] and x["lt"] == 0 and x["rel"] == 1 and name(c) == "func2" and d.ctx[x["parent"]]["lt"] == 2}
if not calls: fail("no call site of func2 in the raw data")
text = open(out, newline="").read()
c, rest = text.split("\n{", 1)
j, tree = ("{" + rest).split("\n]}\n", 1)
rows = list(csv.DictReader(io.StringIO(c)))
dash = {int(r["line"]) for r in rows if r["CPUTIME (sec) center"] == ""}
if dash != calls: fail("csv: empty center cells on lines %s, call sites of func2 %s" % (sorted(dash), sorted(calls)))
own = [r for r in rows if r["mark"] == "1" and int(r["line"]) not in calls]
if not own or any(r["CPUTIME (sec) center"] == "" for r in own): fail("csv: the center's own lines lost their figures")
jrows = json.loads(j + "\n]}")["rows"]
nulls = {r["line"] for r in jrows if r["values"]["CPUTIME (sec)"]["center"] is None}
if nulls != calls: fail("json: null center on lines %s, call sites %s" % (sorted(nulls), sorted(calls)))
for l in calls:
    m = [x for x in tree.splitlines() if re.match(r"\[\d+\] > +%d " % l, x)]
    if len(m) != 1 or not re.search(r"  -  *$", m[0]): fail("tree: call-site line %d: %s" % (l, m))
print("ok: call sites of func2 %s print '-' / empty / null, %d own lines keep their figures" % (sorted(calls), len(own)))
PY
