#!/bin/bash
# topdown opens the hot path (issue 27 item 1), in every mode: on LULESH (a chain
# of 100 % rows '<program>' > '<program root>' > main, then a deep path of inlined
# frames) and cpi.  Checked in Python against 'hotpath off; topdown 40' (every
# level, the view without a hot path): the rows marked hot are the chain from
# the top of heaviest children of >= 50 % of their parent, the last one has no
# such child, and 'topdown D' is exactly the rows of the deep view whose level
# (depth less the hot rows above) is <= D, values included.  Tree, table, json
# and folded show the same rows; 'hotpath 100%' stops the path sooner; 'hotpath
# off' gives the old view.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in classic-callflow-lulesh classic-hatchet-cpi; do
  a="$t/$s.sqlite"
  "$CCTINGEST" --quiet "$CCT_DATA/$s" "$a"
  q() { "$CCTQ" "$a" -c "$1" >"$t/$2"; }
  q "mode csv; hotpath off; topdown 40" deep.csv
  q "mode csv; topdown 2" hot2.csv
  q "mode csv; hotpath 100%; topdown 2" hot100.csv
  q "mode json; topdown 2" hot2.json
  q "mode table; topdown 2" hot2.table
  q "width 300; topdown 2" hot2.tree
  q "mode folded; topdown 2" hot2.folded
  q "hotpath; hotpath off; hotpath; hotpath 70; hotpath" settings
  python3 - "$t" <<'PY'
import csv, json, sys
t = sys.argv[1]
def fail(m):
    print("FAIL:", m); sys.exit(1)
def rows(name):
    r = list(csv.DictReader(open(t + "/" + name, newline="")))
    for x in r:
        x["depth"] = int(x["depth"]); x["incl"] = float(next(v for k, v in x.items() if k.endswith(" inclusive")))
    return r
deep = rows("deep.csv")
# the deep view's tree: parent by depth, pre-order
par, stack = [], []
for i, r in enumerate(deep):
    del stack[r["depth"]:]
    par.append(stack[-1] if stack else -1)
    stack.append(i)
kids = {i: [j for j in range(len(deep)) if par[j] == i] for i in range(len(deep))}
def hot_chain(frac):
    chain, h = [0], 0
    while kids[h]:
        c = max(kids[h], key=lambda j: deep[j]["incl"])  # siblings sort by inclusive: the first is the heaviest
        if not (deep[h]["incl"] > 0 and deep[c]["incl"] >= frac * deep[h]["incl"] and deep[c]["incl"] > 0): break
        chain.append(c); h = c
    return chain
for frac, name in ((0.5, "hot2.csv"), (1.0, "hot100.csv")):
    chain = set(hot_chain(frac))
    level = []
    for i in range(len(deep)):
        level.append(0 if i in chain else level[par[i]] + 1)
    want = [(r["path"], r["incl"], "1" if i in chain else "0") for i, r in enumerate(deep) if i == 0 or level[par[i]] < 2]
    got = [(r["path"], r["incl"], r["hot"]) for r in rows(name)]
    if got != want: fail("%s: %d rows, expected %d: %s" % (name, len(got), len(want), [g for g in got if g not in want][:3] or [w for w in want if w not in got][:3]))
    if len(chain) < 3: fail("a hot path of %d rows only" % len(chain))
    print("ok %s: %d rows, a hot path of %d" % (name, len(got), len(chain)))
n = len(rows("hot2.csv"))
j = json.load(open(t + "/hot2.json"))
if len(j["rows"]) != n or j["hotpath"] != 0.5: fail("json rows %d, csv %d" % (len(j["rows"]), n))
if [r["hot"] for r in j["rows"]] != [r["hot"] == "1" for r in rows("hot2.csv")]: fail("json hot flags")
table = [l for l in open(t + "/hot2.table") if l.split()[:1] and l.split()[0].isdigit()]
if len(table) != n: fail("table rows %d, csv %d" % (len(table), n))
tree = open(t + "/hot2.tree").read().splitlines()
if sum(1 for l in tree if l.lstrip().startswith("[")) != n: fail("tree rows")
nhot = sum(r["hot"] == "1" for r in rows("hot2.csv"))
if not tree[-1].startswith("hot path: @1 > @2 > ") or "(each >= 50% of its parent) uses no depth" not in tree[-1] \
   or "@%d " % nhot not in tree[-1]: fail("tree footer: " + tree[-1])
folded = open(t + "/hot2.folded").read().split("\n")
if len([l for l in folded if l]) > n: fail("folded has more lines than rows")
if open(t + "/settings").read() != "50%\noff\n70%\n": fail("settings: " + open(t + "/settings").read())
PY
done
# hotpath off is the old view: depth levels and no footer
"$CCTQ" "$t/classic-hatchet-cpi.sqlite" -c "hotpath off; topdown 3" >"$t/off"
[ "$(grep -c '^\[' "$t/off")" = 4 ] || { cat "$t/off"; echo "FAIL: hotpath off: not the 4 rows of 3 levels"; exit 1; } # (MPI_Init, 0, left out)
! grep -q "hot path" "$t/off" || { echo "FAIL: a footer without a hot path"; exit 1; }
"$CCTQ" "$t/classic-hatchet-cpi.sqlite" -c "hotpath 101" 2>"$t/err" && { echo "FAIL: hotpath 101 accepted"; exit 1; }
grep -q "hot-path threshold '101' is above 100%" "$t/err" || { cat "$t/err"; echo "FAIL: error text"; exit 1; }
echo "ok hot path"
