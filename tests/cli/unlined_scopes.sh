#!/bin/bash
# Loops and lines of binaries without a line map (issue 27 item 5): hpcprof gives
# them the file '[libfoo.so]' and line 0, and these v4 databases store no
# address for them, so flat made one row of every loop of a binary ('loop at
# [libopen-pal.so.40.30.2]': 40 loops) with a blank contexts column, and
# 'center @N' on it failed.  They are kept apart by their enclosing function
# ('loop in opal_progress [libopen-pal.so.40.30.2]').  Checked against the raw
# meta.db and profile.db of LAMMPS read by tests/cli/v4read.py (no cctq code):
# per (binary, function), the contexts, the inclusive of the outermost ones and
# the exclusive ('function' scope) of those with no context of the same scope
# between them and their frame; then 'center @N' on such rows, and the label
# typed back as an item, give the flat row's values.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
db="$CCT_DATA/v4-hpcviewer-lmp-openmp"
a="$t/lmp.sqlite"
"$CCTINGEST" --quiet "$db" "$a"
"$CCTQ" "$a" -c "mode csv; flat loops 100000" >"$t/flat.csv"
"$CCTQ" "$a" -c "mode csv; flat lines 100000" >"$t/lines.csv"
python3 - "$db" "$t" "$(dirname "$0")" <<'PY'
import csv, io, os, sys
db, t, here = sys.argv[1:4]
sys.path.insert(0, here)
from v4read import Db, cstr, u64
def fail(m):
    print("FAIL:", m); sys.exit(1)
d = Db(db)
m = d.meta
ex, fu = d.stat("REALTIME (sec)", "execution"), d.stat("REALTIME (sec)", "function")
frame = d.frame  # the nearest enclosing function context
def name(c):
    f = frame(c)
    return cstr(m, u64(m, d.ctx[f]["fn"])) if f and d.ctx[f]["fn"] else None
want = {}
for lt, word in ((1, "loop"), (2, "line")):
    S = {}
    for c, x in d.ctx.items():
        if x["entry"] or x["lt"] != lt or x["line"] or not x["file"]: continue
        path = d.file_path(x["file"])
        S.setdefault((path, name(c)), set()).add(c)
    for (path, fn), cs in S.items():
        incl = excl = 0.0
        for c in cs:
            p, outer, counted = d.ctx[c]["parent"], True, True
            f = frame(c)
            while p:
                if p in cs:
                    outer = False
                    if f and d.ctx[p]["parent"] is not None and frame(p) == f: counted = False
                p = d.ctx[p]["parent"]
            v = d.summary.get(c, {})
            if outer: incl += v.get(ex, 0.0)
            if counted: excl += v.get(fu, 0.0)
        base = os.path.basename(path)
        label = "%s in %s" % (word, fn) + ("" if base in fn or base[0] in "<~" else " " + base if base[0] == "[" else " (%s)" % base)
        if incl or excl: want[label] = (len(cs), incl, excl)
if len([k for k in want if k.startswith("loop in") and "libopen-pal" in k]) < 3:
    fail("expected several libopen-pal loop scopes in the raw data, got %s" % sorted(want))
got = {}
for f in ("flat.csv", "lines.csv"):
    for r in csv.DictReader(open(t + "/" + f, newline="")):
        if " in " in r["name"] and r["name"].split(" ")[0] in ("loop", "line"):
            got[r["name"]] = (int(r["contexts"] or -1), float(r["REALTIME (sec) inclusive"]), float(r["REALTIME (sec) exclusive"]))
if sorted(got) != sorted(want):
    fail("rows %s\nexpected %s" % (sorted(set(got) ^ set(want)), len(want)))
for k, (n, i, e) in want.items():
    g = got[k]
    if g[0] != n or abs(g[1] - i) > 1e-6 * max(1, i) or abs(g[2] - e) > 1e-6 * max(1, e):
        fail("%s: got %s, expected %s" % (k, g, (n, i, e)))
print("ok: %d loop and line scopes of binaries without line maps" % len(want))
PY
# 'center @N' on such a row centers on its contexts (it failed: 'row @N has no source
# line'); the top row equals the flat row, and the row's label centers the same.
row=$(python3 - "$t/flat.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["name"] == "loop in opal_progress [libopen-pal.so.40.30.2]": print(r["handle"], r["contexts"], r["REALTIME (sec) inclusive"]); break
PY
)
read -r h n incl <<<"$row"
[ "$n" = 14 ] || { echo "FAIL: opal_progress's loops: '$row'"; exit 1; }
"$CCTQ" "$a" -c "mode csv; flat loops 100000; center @$h; center; topdown 1" >"$t/at.txt"
"$CCTQ" "$a" -c "mode csv; center loop in opal_progress; topdown 1" >"$t/typed.txt"
grep -q "^loop in opal_progress \[libopen-pal.so.40.30.2\],14\b" "$t/at.txt" ||
  { echo "FAIL: center @$h:"; cat "$t/at.txt"; exit 1; }
python3 - "$t" "$incl" <<'PY'
import csv, io, sys
t, incl = sys.argv[1], float(sys.argv[2])
for f in ("at.txt", "typed.txt"):
    text = open(t + "/" + f).read()
    top = next(csv.DictReader(io.StringIO(text[text.rindex("handle,"):])))
    if abs(float(top["REALTIME (sec) inclusive"]) - incl) > 1e-9 * incl:
        print("FAIL: %s: top row %s, flat row %s" % (f, top, incl)); sys.exit(1)
PY
echo "ok: center @$h and 'loop in opal_progress' give the flat row ($incl)"
