#!/bin/bash
# Function labels follow one rule in every format (issue 27 item 15, SPEC
# section 5; the rule of homonyms.sh): a function row shows its name alone,
# and ' (file:line)' only when another function row of the view has its name
# and another definition's place, ' (module)' when one has its place and
# another module, or when it has no file to show (classic's '~unknown-file~'
# is no file).  Checked against
# the rule applied in Python to csv's name, file, line and module, on a
# classic database (classic-hpcviewer-gauss: eight '~unknown-proc~' functions
# of eight binaries, which all printed '~unknown-proc~ (~unknown-file~)'
# before, and three 'main') and a v4 one (v4-hpcviewer-lmp-openmp: two
# inlined 'vgot(int)' at my_page.h:73 and :74).  A center of several items
# titles its top row by its members in tree and table ('MPI_Finalize + main';
# 'a + b (+2)' from four on) while csv and json keep SPEC's
# '<multiple contexts>' as its name.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-hpcviewer-gauss" "$t/g.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-lmp-openmp" "$t/l.sqlite"
PYTHONPATH="$CCT_SRC/tests/cli" python3 - "$t" <<'PY'
import os, sys
from view_rows import fail, printed
def known(f): return f if f and f != "~unknown-file~" else ""
def place(r): return (known(r["file"]), r["line"])
def check(what, pairs):
    rows = [r for _, r in pairs]
    funcs = [r for r in rows if r["kind"] == "function"]
    labels = set()
    for l, r in pairs:
        want = r["name"] + (" @ " + r["callsite"] if r["callsite"] else "") + (" [inlined]" if r["inlined"] == "1" else "")
        if r["kind"] == "function":
            others = [o for o in funcs if o["name"] == r["name"]]
            by_place = any(place(o) != place(r) for o in others)
            by_module = any(place(o) == place(r) and o["module"] != r["module"] for o in others)
            f = known(r["file"])
            where = ""
            if by_place and f: where = os.path.basename(f) + (":" + r["line"] if r["line"] else "")
            if (by_module or ((by_place or by_module) and not where)) and r["module"]:
                where += (", " if where else "") + os.path.basename(r["module"])
            if where: want += " (%s)" % where
        if not l.endswith(" " + want): fail(what, "%r does not end with %r" % (l, want))
        if r["kind"] == "function": labels.add((want, r["name"], r["file"], r["line"], r["module"]))
    shown = {}
    for want, *ident in labels:  # one label, one function
        if want in shown and shown[want] != ident: fail(what, "%r names %r and %r" % (want, shown[want], ident))
        shown[want] = ident
for a in ("g", "l"):
    for v in ("flat 0", "topdown 8"):
        what = "%s: %s" % (a, v)
        check(what, printed("%s/%s.sqlite" % (sys.argv[1], a), v, what))
PY
"$CCTQ" "$t/g.sqlite" -c "flat 0" >"$t/gflat"
[ "$(grep -c ' ~unknown-proc~ (' "$t/gflat")" = 8 ] || fail "gauss: not eight ~unknown-proc~ rows"
[ "$(grep ' ~unknown-proc~ (' "$t/gflat" | sed 's/.* ~unknown-proc~ //' | sort -u | wc -l)" = 8 ] ||
  { grep '~unknown-proc~' "$t/gflat"; fail "gauss: the eight ~unknown-proc~ rows are not told apart"; }
"$CCTQ" "$t/l.sqlite" -c "topdown 8" >"$t/ltop"
grep -q '::vgot(int) \[inlined\] (my_page.h:74)$' "$t/ltop" || fail "lmp: vgot at line 74"
# A center of several items.
c="center MPI_Finalize; center + main"
"$CCTQ" "$t/g.sqlite" -c "$c; topdown 0; mode table; bottomup 0; mode csv; topdown 0; mode json; topdown 0" >"$t/multi"
[ "$(grep -c ' MPI_Finalize + main *$' "$t/multi")" = 2 ] || { cat "$t/multi"; fail "tree and table: top row not titled by its members"; }
grep -q '^1,0,<multiple contexts>,center,<multiple contexts>,' "$t/multi" || fail "csv: the name is not <multiple contexts>"
grep -q '"kind": "center", "name": "<multiple contexts>"' "$t/multi" || fail "json: the name is not <multiple contexts>"
"$CCTQ" "$t/g.sqlite" -c "$c; center + PMPI_Bcast; center + MPI_Init; topdown 0" >"$t/four"
grep -q ' MPI_Finalize + main (+2)$' "$t/four" || fail "four items: not 'MPI_Finalize + main (+2)'"
# A loop or line center's top row reads as the loop's and line's rows do (one
# label rule): 'loop at common.h:19' whether typed 'loop common.h:19', 'loop at
# common.h:19' or taken from a flat row's '@N' (it read 'loop common.h:19', as
# typed, above a row 'loop at common.h:19'), and 'common.h:19' for 'line common.h:19'.
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-loop-fork-cycles" "$t/f.sqlite"
for item in "loop common.h:19" "loop at common.h:19" "@1"; do
  "$CCTQ" "$t/f.sqlite" -c "mode csv; flat loops 1; center $item; granularity line; hotpath off; topdown 1" >"$t/loop.csv"
  grep -q '^1,0,loop at common.h:19,loop,loop at common.h:19,' "$t/loop.csv" || { cat "$t/loop.csv"; fail "flat loops: no row 'loop at common.h:19'"; }
  grep -q '^1,0,loop at common.h:19,center,loop at common.h:19,' "$t/loop.csv" || { cat "$t/loop.csv"; fail "center $item: top row not 'loop at common.h:19'"; }
  grep -q '^2,1,loop at common.h:19;loop at common.h:19,loop,' "$t/loop.csv" || { cat "$t/loop.csv"; fail "center $item: no row 'loop at common.h:19' below"; }
done
"$CCTQ" "$t/f.sqlite" -c "mode csv; center line common.h:19; topdown 0" >"$t/line.csv"
grep -q '^1,0,common.h:19,center,common.h:19,' "$t/line.csv" || { cat "$t/line.csv"; fail "center line common.h:19: top row not 'common.h:19'"; }
