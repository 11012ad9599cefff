#!/bin/bash
# What a person reads (issue 12 items 2, 3, 4): widths, columns and numbers.
# - Off a terminal nothing is cut and the tree keeps its connectors: every row
#   of a piped deep top-down view on v4-hpcviewer-lmp-openmp (long C++ names)
#   carries its whole name (as csv mode gives it) after the connectors its
#   depth asks for, with and without $COLUMNS; before, names were cut at 100
#   columns and connectors dropped.
# - 'width 80' cuts names (only names: every line stays within 80 columns but
#   where deep connectors leave a name its minimum of 12) and keeps the connectors,
#   2 columns per level in a tree too deep for 3.
# - The display metric only by default; 'columns add/remove' for more.
# - Numbers: the cpi archive with every value divided by 1e9 (sqlite3), so
#   interp.c's 35980 usec becomes 3.598e-05: tree and table print '3.60e-05'
#   (3 significant digits) and 0.9 %, csv and json 3.598e-05 (shortest
#   round trip), zero prints '0'; before, tree and table printed '0.000'.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-lmp-openmp" "$t/l.sqlite"
unset COLUMNS
"$CCTQ" "$t/l.sqlite" -c "topdown 12" | cat >"$t/tree"
COLUMNS=50 "$CCTQ" "$t/l.sqlite" -c "topdown 12" | cat >"$t/tree50"
"$CCTQ" "$t/l.sqlite" -c "width 80; topdown 12" >"$t/tree80"
"$CCTQ" "$t/l.sqlite" -c "mode csv; topdown 12" >"$t/csv"
python3 - "$t" <<'PY'
import csv, re, sys
t = sys.argv[1]
def fail(m): print("FAIL:", m); sys.exit(1)
rows = list(csv.DictReader(open(t + "/csv", newline="")))
def tree(name): return [l.rstrip("\n") for l in open(t + "/" + name) if re.match(r"^ *\[\d+\]", l)]
for name in ("tree", "tree50"):
    lines = tree(name)
    if len(lines) != len(rows): fail("%s: %d rows, csv %d" % (name, len(lines), len(rows)))
    for l, r in zip(lines, rows):
        d = int(r["depth"])
        # after the value columns and the mark: 3 columns per level of connectors
        m = re.match(r"^ *\[\d+\](?:  +\S+ +\S+%){2} [ *] (.*)$", l)
        if not m: fail("%s: cannot read %r" % (name, l))
        rest = m.group(1)
        conn, label = rest[:3 * d], rest[3 * d:]
        if d and not re.fullmatch(r"(?:[| ]  )*[|`]- ", conn): fail("%s: connectors lost: %r" % (name, l))
        if not label.startswith(r["name"]) or "..." in label: fail("%s: name cut: %r, want %r" % (name, label, r["name"]))
lines = tree("tree80")
if not any("..." in l for l in lines): fail("width 80 cut no name")
# a tree this deep (12 levels) at 80 columns draws 2 columns of connectors per level
# ('|-', '`-', '| '), not 3: its deepest names had 12 columns
for l, r in zip(lines, rows):
    d = int(r["depth"])
    m = re.match(r"^ *\[\d+\](?:  +\S+ +\S+%){2} [ *] (.*)$", l)
    conn = m.group(1)[:2 * d]
    if d and not re.fullmatch(r"(?:[| ] )*[|`]-", conn): fail("width 80: connectors lost: %r" % l)
    if not m.group(1)[2 * d:] or m.group(1)[2 * d] == " ": fail("width 80: not 2 columns per level: %r" % l)
    # within 80 columns, unless deep connectors leave the name its minimum of 12
    if len(l) > 80 and len(m.group(1)) - 2 * d > 12: fail("width 80: line wider than 80: %r" % l)
if max(int(r["depth"]) for r in rows) < 10: fail("the tree is not deep")
PY
# The display metric only; columns add / remove by name or prefix; remembered.
g="$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d"
"$CCTINGEST" --quiet "$g" "$t/g.sqlite"
"$CCTQ" "$t/g.sqlite" -c "flat 2" >"$t/one"
[ "$(sed -n 1p "$t/one" | tr -s ' ')" = " GPUOP (sec)" ] || { cat "$t/one"; fail "default: not the display metric alone"; }
"$CCTQ" "$t/g.sqlite" -c "columns add gker:blk_thr; columns; flat 2; columns remove GKER:BLK_THR_ACUMU; flat 2" >"$t/two"
grep -q '^GKER:BLK_THR_ACUMU$' "$t/two" || fail "columns does not list the added metric"
[ "$(grep -c 'GKER:BLK_THR_ACUMU' "$t/two")" = 2 ] || { cat "$t/two"; fail "added column not shown once, then removed"; }
grep -q '3200 100.0%' "$t/two" || fail "added column has not its values (3200 = its total)"
# A metric past the run's fourth 'sum' column shows too (tree and table compute the display metric
# and the 'columns' ones, not the first four): GKER:BLKS_ACUMU, metric 34, total 3200 by the
# public view metrics.
want=$(sqlite3 "$t/g.sqlite" "SELECT printf('%d', inclusive) FROM flat f JOIN metrics m USING (run, metric)
                              WHERE m.name = 'GKER:BLKS_ACUMU' ORDER BY inclusive DESC LIMIT 1")
"$CCTQ" "$t/g.sqlite" -c "columns add GKER:BLKS_ACUMU; flat 1" >"$t/late"
sed -n 1p "$t/late" | grep -q 'GKER:BLKS_ACUMU' && grep -q " $want 100.0%" "$t/late" ||
  { cat "$t/late"; fail "a metric past the fourth column has no values ($want)"; }
"$CCTQ" "$t/g.sqlite" -c "mode csv; columns add GKER:BLKS_ACUMU; flat 1" >"$t/late.csv"
[ "$(head -1 "$t/late.csv" | tr ',' '\n' | grep -c 'inclusive$')" = 4 ] && head -1 "$t/late.csv" | grep -q 'GPUOP (sec) inclusive,GPUOP (sec) exclusive,GKER:BLKS_ACUMU inclusive' ||
  { cat "$t/late.csv"; fail "csv: not the display metric, the added one, then others, four in all"; }
if "$CCTQ" "$t/g.sqlite" -c "columns add GKER" 2>"$t/err"; then fail "ambiguous prefix accepted"; fi
grep -q "ambiguous metric 'GKER'" "$t/err" || fail "columns add GKER: $(cat "$t/err")"
# Numbers.
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/s.sqlite"
sqlite3 "$t/s.sqlite" "UPDATE value SET inclusive = inclusive / 1e9, exclusive = exclusive / 1e9,
  exclusive_lex = exclusive_lex / 1e9; UPDATE scope_total SET inclusive = inclusive / 1e9, exclusive = exclusive / 1e9;"
for m in tree table; do
  "$CCTQ" "$t/s.sqlite" -c "mode $m; flat files" >"$t/n.$m"
  grep -q '3\.60e-05  *0\.9%  *3\.60e-05  *0\.9%.*interp\.c' "$t/n.$m" || { cat "$t/n.$m"; fail "$m: 3.598e-05 not shown"; }
  grep -q ' 0   0\.0% .*cpi\.c' "$t/n.$m" || { cat "$t/n.$m"; fail "$m: zero not '0'"; }
done
"$CCTQ" "$t/s.sqlite" -c "mode csv; flat files" | grep -q '^7,0,interp\.c,.*,3\.598e-05,3\.598e-05' || fail "csv: 3.598e-05"
"$CCTQ" "$t/s.sqlite" -c "mode json; flat files" | grep -q '"inclusive": 3\.598e-05, "exclusive": 3\.598e-05' || fail "json"
echo ok
