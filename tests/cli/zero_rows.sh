#!/bin/bash
# Rows of zero cost are left out and counted (issue 27 item 3): on the GPU run
# v4-hpcviewer-derived-metrics.db with 'metric GPUOP' (most of its calling
# contexts have no GPU time, as GAMESS' 70 rows of '0 0.0%' had), topdown,
# bottomup and flat print no row whose display metric is zero in it and in all
# its subtree; tree and table say how many they left out, csv carries the count
# in its column 'zero rows left out' and json in "zero_rows"; tree, table, csv
# and json show the same rows (the csv's other metrics do not bring rows back).
# Counts are checked against the public 'flat' view in sqlite3: shown + left
# out = every function of the run.  'columns add' of a metric with data brings
# back the rows it has cost in (GXCOPY's copies under 'metric GKER').  csv adds only metrics that have data.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/g.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-derived-metrics.db" "$a"
m="metric GPUOP"
for v in "topdown 6" "hotpath off; topdown 6" "center main._omp_fn.0; bottomup 4" "center glob *; bottomup 2" "flat 0"; do
  "$CCTQ" "$a" -c "$m; width 300; $v" >"$t/tree"
  "$CCTQ" "$a" -c "$m; mode table; $v" >"$t/table"
  "$CCTQ" "$a" -c "$m; mode csv; $v" >"$t/csv"
  "$CCTQ" "$a" -c "$m; mode json; $v" >"$t/json"
  "$CCTQ" "$a" -c "mode csv; metrics" >"$t/metrics"
  python3 - "$t" "$v" <<'PY'
import csv, json, re, sys
t, v = sys.argv[1], sys.argv[2]
def fail(m):
    print("FAIL %s: %s" % (v, m)); sys.exit(1)
rows = list(csv.DictReader(open(t + "/csv", newline="")))
j = json.load(open(t + "/json"))
tree = open(t + "/tree").read().splitlines()
table = [l for l in open(t + "/table") if l.split()[:1] and l.split()[0].isdigit()]
nt = sum(1 for l in tree if re.match(r"^ *\[\d+\]", l))
if not (len(rows) == len(j["rows"]) == nt == len(table)): fail("rows: csv %d json %d tree %d table %d" % (len(rows), len(j["rows"]), nt, len(table)))
zero = {int(r["zero rows left out"]) for r in rows}
if len(zero) != 1 or zero != {j["zero_rows"]}: fail("csv zero counts %s, json %s" % (zero, j["zero_rows"]))
z = j["zero_rows"]
if z == 0 and "topdown" in v: fail("nothing left out")
if z == 0: print("ok %s: %d rows, nothing to leave out" % (v, len(rows))); sys.exit(0)
say = "(%d row%s of zero cost left out: every value shown is 0)" % (z, "" if z == 1 else "s")
if say not in tree or say not in open(t + "/table").read(): fail("no line %r" % say)
# no row is zero in GPUOP with only zeros below it (the top row of topdown/bottomup stays)
inc = [float(r["GPUOP (sec) inclusive"]) for r in rows]
exc = [float(r["GPUOP (sec) exclusive"]) for r in rows]
dep = [int(r["depth"]) for r in rows]
for i in range(len(rows)):
    below = [k for k in range(i + 1, len(rows)) if all(dep[x] > dep[i] for x in range(i + 1, k + 1))]
    if inc[i] == 0 and exc[i] == 0 and not any(inc[k] or exc[k] for k in below) and not (dep[i] == 0 and "flat" not in v):
        fail("zero row shown: %s" % rows[i]["path"])
# csv/json add only metrics that have data (a non-zero total in 'mode csv; metrics')
total = {r["name"]: float(r["total"]) for r in csv.DictReader(open(t + "/metrics", newline=""))}
added = [k[:-len(" inclusive")] for k in rows[0] if k.endswith(" inclusive")][1:]
if not added or any(total[a] == 0 for a in added): fail("csv adds %s" % [(a, total.get(a)) for a in added])
print("ok %s: %d rows, %d left out" % (v, len(rows), z))
PY
done
# flat functions: shown + left out = the functions of the public flat view
"$CCTQ" "$a" -c "$m; mode csv; flat 0" >"$t/flat.csv"
all=$(sqlite3 "$a" "SELECT count(*) FROM flat x JOIN metrics m ON m.run = x.run AND m.metric = x.metric
                    WHERE x.run = 1 AND m.name = 'GPUOP (sec)'")
zero=$(sqlite3 "$a" "SELECT count(*) FROM flat x JOIN metrics m ON m.run = x.run AND m.metric = x.metric
                     WHERE x.run = 1 AND m.name = 'GPUOP (sec)' AND x.inclusive = 0 AND x.exclusive = 0")
python3 - "$t/flat.csv" "$all" "$zero" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
a, z = int(sys.argv[2]), int(sys.argv[3])
left = int(rows[0]["zero rows left out"])
if len(rows) + left != a or left != z: print("FAIL flat: %d shown + %d left out, the flat view has %d (%d zero)" % (len(rows), left, a, z)); sys.exit(1)
print("ok flat: %d + %d = %d functions" % (len(rows), left, a))
PY
# a column with data brings back the rows it has cost in (tree and csv alike)
k="metric GKER (sec)" # kernels only: the copies' rows are zero, until their metric is a column
"$CCTQ" "$a" -c "$k; mode csv; hotpath off; topdown 6" >"$t/one.csv"
"$CCTQ" "$a" -c "$k; columns add 'GXCOPY (sec)'; mode csv; hotpath off; topdown 6" >"$t/two.csv"
"$CCTQ" "$a" -c "$k; columns add 'GXCOPY (sec)'; width 300; hotpath off; topdown 6" >"$t/two.tree"
python3 - "$t" <<'PY'
import csv, re, sys
t = sys.argv[1]
one = list(csv.DictReader(open(t + "/one.csv", newline="")))
two = list(csv.DictReader(open(t + "/two.csv", newline="")))
n = sum(1 for l in open(t + "/two.tree") if re.match(r"^ *\[\d+\]", l))
if not len(two) > len(one): print("FAIL: columns add GXCOPY: %d rows, GPUOP alone %d" % (len(two), len(one))); sys.exit(1)
if n != len(two): print("FAIL: tree %d rows, csv %d" % (n, len(two))); sys.exit(1)
print("ok GXCOPY brings back %d rows" % (len(two) - len(one)))
PY
