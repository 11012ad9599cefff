#!/bin/bash
# 'flat tree N' prints N rows (issue 27 item 4; it printed every row of the N
# heaviest modules: 1,628 on GAMESS): the N heaviest rows of the module > file >
# function > loop > line tree, each with its parent.  Checked on LULESH and gauss
# against 'flat tree 0' (every row; rows of zero cost aside): N rows, each row's
# parent shown, the rows form the tree of 'flat tree 0' with its values, and no
# row left out is heavier than a row shown whose parent is shown (the N heaviest
# that can hang from the rows shown: a best-first cut, as the README says).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in classic-callflow-lulesh classic-hpcviewer-gauss; do
  a="$t/$s.sqlite"
  "$CCTINGEST" --quiet "$CCT_DATA/$s" "$a"
  "$CCTQ" "$a" -c "mode csv; flat tree 0" >"$t/all.csv"
  for n in 1 5 12 40; do
    "$CCTQ" "$a" -c "mode csv; flat tree $n" >"$t/n.csv"
    "$CCTQ" "$a" -c "width 300; flat tree $n" >"$t/n.tree"
    python3 - "$t" "$n" "$s" <<'PY'
import csv, re, sys
t, n, s = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def fail(m):
    print("FAIL %s flat tree %d: %s" % (s, n, m)); sys.exit(1)
def load(name):
    rows = list(csv.DictReader(open(t + "/" + name, newline="")))
    out, stack = [], []
    for r in rows:
        d = int(r["depth"])
        del stack[d:]
        me = (r["kind"], r["name"], r["line"])  # LULESH has many '<inline>' functions, one per line
        key = tuple(stack) + (me,)
        out.append((key, float(next(v for k, v in r.items() if k.endswith(" inclusive")))))
        stack.append(me)
    return out
full, got = load("all.csv"), load("n.csv")
if len(got) != n: fail("%d rows" % len(got))
tree_rows = sum(1 for l in open(t + "/n.tree") if re.match(r"^ *\[\d+\]", l))
if tree_rows != n: fail("tree mode prints %d rows" % tree_rows)
value = dict(full)
shown = {k for k, _ in got}
for k, v in got:
    if k not in value or abs(value[k] - v) > 1e-9 * max(1, abs(v)): fail("row %s not in flat tree 0 with %g" % (k, v))
    if len(k) > 1 and k[:-1] not in shown: fail("row %s without its parent" % (k,))
least = min(v for _, v in got)
for k, v in full:
    if k not in shown and (len(k) == 1 or k[:-1] in shown) and v > least * (1 + 1e-5):  # (classic XML rounds to 6 digits: a line may pass its function)
        fail("%s (%g) left out, heavier than a row shown (%g)" % (k[-1][1], v, least))
print("ok %s flat tree %d" % (s, n))
PY
  done
done
# A derived display metric orders the rows itself (query/vmetric.c): the same N rows.
a="$t/classic-callflow-lulesh.sqlite"
"$CCTQ" "$a" -c "mode csv; flat tree 6" >"$t/plain.csv"
"$CCTQ" "$a" -c "mode csv; metric define half = CPUTIME (usec) / 2; metric half; flat tree 6" >"$t/half.csv"
python3 - "$t" <<'PY'
import csv, sys
t = sys.argv[1]
p = [(r["path"], float(r["CPUTIME (usec) inclusive"]) / 2) for r in csv.DictReader(open(t + "/plain.csv", newline=""))]
h = [(r["path"], float(r["half inclusive"])) for r in csv.DictReader(open(t + "/half.csv", newline=""))]
if len(h) != 6 or p != h: print("FAIL derived metric flat tree 6: %s" % h); sys.exit(1)
print("ok derived metric: the same 6 rows")
PY
