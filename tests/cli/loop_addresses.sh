#!/bin/bash
# Loops keyed by their address (issue 27 item 5).  HPCToolkit 2023.08 keeps two
# loops on one source line apart by their address (v4 loop contexts with a point,
# flags 6: module and offset; hpctoolkit!834), and classic 2.2 writes 'L v=': cctq
# read neither, so the two loops of loops-cputime-t.d's test_separated_loops, both
# on loops.c:1000, made one row of 4 contexts in flat and in topdown, as did the
# nested pair on loops.c:1010 and the two of classic inline's inline_f.c:14.
# Checked against the raw files read without cctq code (tests/cli/v4read.py, the
# XML): per loop address, the contexts, the inclusive of the outermost ones and the
# exclusive ('function' scope) of those with no context of the same loop between
# them and their frame; the label names the address where two loops share a line
# ('loop at loops.c:1000 (+0x1401)') and where there is no line ('loop at
# [libgomp.so.1.0.0]+0x1f5a0'); then 'center @N', the label typed back, the line's
# item, and topdown at line granularity.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
db="$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cputime-t.d"
a="$t/loops.sqlite"
"$CCTINGEST" --quiet "$db" "$a"
"$CCTQ" "$a" -c "mode csv; flat loops 0" >"$t/flat.csv"
python3 - "$db" "$t/flat.csv" "$(dirname "$0")" <<'PY'
import csv, os, sys
db, flat, here = sys.argv[1:4]
sys.path.insert(0, here)
from v4read import Db, cstr, u64
def fail(m):
    print("FAIL:", m); sys.exit(1)
d = Db(db)
m = d.meta
ex, fu = d.stat("CPUTIME (sec)", "execution"), d.stat("CPUTIME (sec)", "function")
frame = d.frame  # the nearest enclosing function context
S = {}
for c, x in d.ctx.items():
    if x["entry"] or x["lt"] != 1: continue
    if x["module"] is None or not x["file"]: fail("loop context %d without a point or a file" % c)
    S.setdefault((d.file_path(x["file"]), x["line"] or 0, x["offset"]), set()).add(c)
lines = {}
for (path, line, off), cs in S.items():
    lines.setdefault((path, line), set()).add(off)
# the case of the issue: two addresses on one line in one function
fns = {}
for (path, line, off), cs in S.items():
    for c in cs:
        fns.setdefault((path, line, frame(c)), set()).add(off)
if not any(len(v) > 1 for (p, l, f), v in fns.items() if l):
    fail("no two loop addresses on one line of one function in the raw data")
want = {}
for (path, line, off), cs in S.items():
    incl = excl = 0.0
    for c in cs:
        p, outer, counted, f = d.ctx[c]["parent"], True, True, frame(c)
        while p:
            if p in cs:
                outer = False
                if frame(p) == f: counted = False
            p = d.ctx[p]["parent"]
        v = d.summary.get(c, {})
        if outer: incl += v.get(ex, 0.0)
        if counted: excl += v.get(fu, 0.0)
    base = os.path.basename(path)
    if not line: label = "loop at %s+0x%x" % (base, off)
    elif len(lines[(path, line)]) > 1: label = "loop at %s:%d (+0x%x)" % (base, line, off)
    else: label = "loop at %s:%d" % (base, line)
    if incl or excl: want[label] = (len(cs), incl, excl)
got = {r["name"]: (int(r["contexts"]), float(r["CPUTIME (sec) inclusive"]), float(r["CPUTIME (sec) exclusive"]))
       for r in csv.DictReader(open(flat, newline=""))}
if sorted(got) != sorted(want):
    fail("flat loops rows %s\nexpected %s" % (sorted(got), sorted(want)))
for k, (n, i, e) in want.items():
    g = got[k]
    if g[0] != n or abs(g[1] - i) > 1e-9 * max(1, i) or abs(g[2] - e) > 1e-9 * max(1, e):
        fail("%s: got %s, expected %s" % (k, g, (n, i, e)))
for k in ("loop at loops.c:1000 (+0x1401)", "loop at loops.c:1000 (+0x1448)", "loop at loops.c:1010 (+0x14d5)"):
    if k not in want: fail("expected the row %s" % k)
print("ok: %d loops by address, as the raw meta.db and profile.db have them" % len(want))
PY
# 'center @N' on a row and its label typed back center on that one loop, whose top row
# is the flat row; 'loop at loops.c:1000' still centers both loops of the line, and
# flat marks both rows.
row=$(awk -F, '$5 == "loop at loops.c:1000 (+0x1401)" { print $1, $14, $12; exit }' "$t/flat.csv")
read -r h n incl <<<"$row"
[ "$n" = 2 ] || fail "row of loop at loops.c:1000 (+0x1401): '$row'"
"$CCTQ" "$a" -c "mode csv; flat loops 0; center @$h; center; topdown 0" | tr -d '\r' >"$t/at.txt"
"$CCTQ" "$a" -c "mode csv; center loop at loops.c:1000 (+0x1401); center; topdown 0" | tr -d '\r' >"$t/typed.txt"
for f in at typed; do
  grep -q '^loop at loops.c:1000 (+0x1401),2$' "$t/$f.txt" || { cat "$t/$f.txt"; fail "$f: center listing"; }
  top=$(awk -F, '/^handle,/ { h = 1; next } h { top = $12; h = 0 } END { print top }' "$t/$f.txt") # the last view's
  python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-9 * b)" "$top" "$incl" ||
    fail "$f: top row $top, flat row $incl"
done
"$CCTQ" "$a" -c "mode csv; center loop at loops.c:1000; center; flat loops 0" | tr -d '\r' >"$t/line.txt"
grep -q '^loop at loops.c:1000,4$' "$t/line.txt" || { cat "$t/line.txt"; fail "center loop at loops.c:1000"; }
[ "$(grep -c '^[0-9]*,0,loop at loops.c:1000 (+0x1[04][04][18]),.*,1,' "$t/line.txt")" = 2 ] ||
  { cat "$t/line.txt"; fail "flat loops does not mark both loops of loops.c:1000"; }
# An address that no loop of the line has: the error lists those it has.
if "$CCTQ" "$a" -c "center loop at loops.c:1000 (+0x1402)" 2>"$t/err"; then fail "a wrong address centered"; fi
grep -q "no loop at 'loops.c:1000 (+0x1402)'.*did you mean 'loop at loops.c:1000 (+0x1401)', 'loop at loops.c:1000 (+0x1448)'" "$t/err" ||
  { cat "$t/err"; fail "error for a wrong address"; }
# Top-down at line granularity: the two sibling loops of test_separated_loops are two rows.
"$CCTQ" "$a" -c "mode csv; granularity line; center test_separated_loops; topdown 1" >"$t/td.csv"
[ "$(grep -c ',loop,loop at loops.c:1000 (+0x1[04][04][18]),' "$t/td.csv")" = 2 ] ||
  { cat "$t/td.csv"; fail "topdown: the two loops of loops.c:1000"; }
echo "ok: center @$h, the typed label, the line's item and topdown"

# Classic 2.2 (hpcviewer's inline test): 'L v=' in the binary of the enclosing frame;
# per (file, line, address) the contexts and the inclusive of the outermost ones, from
# the XML's summary values (printed with 6 digits).
db="$CCT_DATA/classic-hpcviewer-inline.xml.db"
"$CCTINGEST" --quiet "$db" "$t/inline.sqlite"
"$CCTQ" "$t/inline.sqlite" -c "mode csv; flat loops 0" >"$t/inline.csv"
python3 - "$db/experiment.xml" "$t/inline.csv" <<'PY'
import csv, os, sys
import xml.etree.ElementTree as ET
xml, flat = sys.argv[1:3]
def fail(m):
    print("FAIL:", m); sys.exit(1)
root = ET.parse(xml).getroot()
files = {f.get("i"): f.get("n") for f in root.iter("File")}
incl_id = [x.get("i") for x in root.iter("Metric") if x.get("n") == "cycles:Sum (I)"][0]
S = {}
def walk(e, open_keys):
    for c in e:
        k = None
        if c.tag == "L":
            k = (files[c.get("f")], int(c.get("l")), int(c.get("v"), 16))
            v = sum(float(m.get("v")) for m in c if m.tag == "M" and m.get("n") == incl_id)
            n, i = S.get(k, (0, 0.0))
            S[k] = (n + 1, i + (0 if k in open_keys else v))
        walk(c, open_keys | ({k} if k else set()))
walk(root.find(".//SecCallPathProfileData"), set())
lines = {}
for (f, l, v) in S: lines.setdefault((f, l), set()).add(v)
want = {}
for (f, l, v), (n, i) in S.items():
    if not i: continue
    base = os.path.basename(f)
    label = "loop at %s+0x%x" % (base, v) if not l else \
        "loop at %s:%d (+0x%x)" % (base, l, v) if len(lines[(f, l)]) > 1 else "loop at %s:%d" % (base, l)
    want[label] = (n, i)
got = {r["name"]: (int(r["contexts"]), float(r["cycles inclusive"])) for r in csv.DictReader(open(flat, newline=""))}
if sorted(got) != sorted(want): fail("classic flat loops %s\nexpected %s" % (sorted(got), sorted(want)))
for k, (n, i) in want.items():
    if got[k][0] != n or abs(got[k][1] - i) > 1e-5 * i: fail("%s: got %s, expected %s" % (k, got[k], (n, i)))
for k in ("loop at inline_f.c:14 (+0x400705)", "loop at inline_f.c:14 (+0x400710)", "loop at [libgomp.so.1.0.0]+0x1f5a0"):
    if k not in got: fail("no row %s" % k)
print("ok: classic: %d loops by address, as the XML has them" % len(want))
PY
"$CCTQ" "$t/inline.sqlite" -c "mode csv; center loop at [libgomp.so.1.0.0]+0x1f5a0; center" | tr -d '\r' >"$t/gomp.txt"
grep -q '^loop at \[libgomp.so.1.0.0\]+0x1f5a0,2$' "$t/gomp.txt" || { cat "$t/gomp.txt"; fail "center loop at [libgomp...]+0x1f5a0"; }
echo "ok: classic center by address"

# diff matches a loop by its line, its address aside: the v4 inline.meta.db (2022, no
# loop addresses: one 'loop at inline_f.c:14') against classic inline's two loops on
# that line; the row of the same loop address would be preferred (likeness).
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-inline.meta.db" "$t/inline.sqlite"
"$CCTQ" "$t/inline.sqlite" -c "run 1; flat loops 0; mode csv; diff 2" | tr -d '\r' >"$t/diff.csv"
awk -F, '$4 == "both" && $7 == "loop at inline_f.c:14 (+0x400705)" { ok = 1 } END { exit !ok }' "$t/diff.csv" ||
  { cat "$t/diff.csv"; fail "diff: loop at inline_f.c:14 (+0x400705) not matched with the v4 run's loop at inline_f.c:14"; }
echo "ok: diff matches loops by line"

# An address that does not parse ('L v="bogus"') is none: the loop is keyed by its
# line, and the ingest goes on (it refused the file).
mkdir "$t/bad"
sed 's/<L i="35" s="6661" l="14" f="6635" v="0x400705">/<L i="35" s="6661" l="14" f="6635" v="bogus">/' \
  "$db/experiment.xml" >"$t/bad/experiment.xml"
grep -q 'v="bogus"' "$t/bad/experiment.xml" || fail "the sample changed: no L i=35 to spoil"
"$CCTINGEST" --quiet "$t/bad" "$t/bad.sqlite" || fail "an L with a bad v refused"
"$CCTQ" "$t/bad.sqlite" -c "mode csv; flat loops 0" | tr -d '\r' >"$t/bad.csv"
grep -q ',loop at inline_f.c:14,' "$t/bad.csv" && grep -q ',loop at inline_f.c:14 (+0x400710),' "$t/bad.csv" ||
  { cat "$t/bad.csv"; fail "rows of the loop without an address"; }
echo "ok: an address that does not parse is none"
