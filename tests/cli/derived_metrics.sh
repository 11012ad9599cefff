#!/bin/bash
# Derived metrics (issue 27 item 10, SPEC section 5) on a real database with
# two metrics (v4-hpcviewer-inline.meta.db: cycles and instructions):
# 'metric define ipc = instructions / cycles' works as the display metric and
# in 'columns add', in csv, json and tree, and from --define; each of a row's
# inclusive and exclusive comes from the operands' (worked out here with
# sqlite3 on the public views: the root's and each flat function's values);
# a division by zero is an empty value, min() max() and parentheses parse,
# bad expressions are errors that say where.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-inline.meta.db" "$a"
"$CCTQ" "$a" -c "metric define ipc = instructions / cycles; metric define z = max(cycles, instructions) - min(cycles, 2 * instructions) / (1 + 1)
  metric ipc; columns add z; mode csv; flat 0" >"$t/flat"
sqlite3 -csv "$a" "SELECT f.name, c.inclusive, c.exclusive, i.inclusive, i.exclusive FROM functions f
  JOIN metrics mc ON mc.run = f.run AND mc.name = 'cycles' JOIN metrics mi ON mi.run = f.run AND mi.name = 'instructions'
  JOIN flat c ON c.run = f.run AND c.function = f.function AND c.metric = mc.metric
  JOIN flat i ON i.run = f.run AND i.function = f.function AND i.metric = mi.metric" >"$t/expected"
python3 - "$t/flat" "$t/expected" <<'PY'
import csv, math, sys
got = {}
for r in csv.DictReader(open(sys.argv[1], newline="")): got.setdefault(r["name"], r)
n = empty = 0
for name, ci, ce, ii, ie in csv.reader(open(sys.argv[2], newline="")):
    if name not in got: continue  # a function whose flat row is a merged identity
    r = got[name]
    ci, ce, ii, ie = map(float, (ci, ce, ii, ie))
    for which, c, i in (("inclusive", ci, ii), ("exclusive", ce, ie)):
        g = r["ipc " + which]
        if c == 0:
            if g != "": sys.exit("FAIL: %s ipc %s = %r on zero cycles, want empty" % (name, which, g))
            empty += 1
        elif not math.isclose(float(g), i / c, rel_tol=1e-12):
            sys.exit("FAIL: %s ipc %s = %s, want %r" % (name, which, g, i / c))
        z = max(c, i) - min(c, 2 * i) / 2
        if not math.isclose(float(r["z " + which]), z, rel_tol=1e-12, abs_tol=1e-9):
            sys.exit("FAIL: %s z %s = %s, want %r" % (name, which, r["z " + which], z))
        n += 1
if n < 10 or empty < 1: sys.exit("FAIL: only %d figures checked, %d empty" % (n, empty))
# the view is sorted by the derived display metric, largest first (empty last)
vals = [float(r["ipc inclusive"]) if r["ipc inclusive"] else -1 for r in csv.DictReader(open(sys.argv[1], newline=""))]
if vals != sorted(vals, reverse=True): sys.exit("FAIL: flat rows not sorted by ipc: %r" % vals[:8])
print("ok", n, "derived figures match the public views,", empty, "divisions by zero empty")
PY
# the root by hand: instructions 22006525862 / cycles 101017054876 (the run's program totals)
tot=$(sqlite3 "$a" "SELECT printf('%.17g', i.inclusive / c.inclusive) FROM contexts x
  JOIN metrics mc ON mc.name = 'cycles' JOIN metrics mi ON mi.name = 'instructions'
  JOIN context_values c ON c.id = x.id AND c.metric = mc.metric JOIN context_values i ON i.id = x.id AND i.metric = mi.metric
  WHERE x.depth = 0")
"$CCTQ" "$a" --define 'ipc = instructions / cycles' -c "columns add ipc; mode json; topdown 0" >"$t/json"
python3 - "$t/json" "$tot" <<'PY'
import json, math, sys
v = json.load(open(sys.argv[1]))["rows"][0]["values"]
if not math.isclose(v["ipc"]["inclusive"], float(sys.argv[2]), rel_tol=1e-12): sys.exit("FAIL: json root ipc %r" % v["ipc"])
if v["ipc"]["exclusive"] is not None: sys.exit("FAIL: root exclusive ipc (0 / 0) is %r, want null" % v["ipc"]["exclusive"])
if not math.isclose(22006525862 / 101017054876, float(sys.argv[2]), rel_tol=1e-12): sys.exit("FAIL: hand figure")
print("ok --define and json: root ipc", v["ipc"]["inclusive"])
PY
# tree: the derived column is named, shown without percentages; 'metric define' lists definitions
"$CCTQ" "$a" -c "metric define ipc = instructions / cycles; columns add ipc; topdown 1; metric define" >"$t/tree"
grep -q 'ipc' "$t/tree" || fail "tree does not show ipc"
grep -q '^ipc = instructions / cycles$' "$t/tree" || fail "'metric define' does not list the definition: $(cat "$t/tree")"
# errors: where the expression goes wrong, unknown names, names of stored metrics
for bad in "x = cycles +" "x = (cycles" "x = nosuch / 2" "cycles = instructions" "x = cycles $ 2"; do
  if "$CCTQ" "$a" -c "metric define $bad" 2>"$t/err"; then fail "'metric define $bad' accepted"; fi
  grep -q 'cctq: error:' "$t/err" || fail "no error for '$bad'"
done
if "$CCTQ" "$a" -c "metric define x = (cycles" 2>"$t/err"; then fail "'metric define x = (cycles' accepted"; fi
grep -q "expected ')' at character" "$t/err" || fail "no position in syntax error: $(cat "$t/err")"
if "$CCTQ" "$a" --define 'x = nosuch' -c "metric" 2>/dev/null; then fail "bad --define accepted"; fi
echo "ok derived metrics"
