#!/bin/bash
# hpcprof's statistics as metrics (issue 27 item 9, SPEC section 5): gauss'
# experiment.xml stores per context the accumulators of ':Mean', ':StdDev',
# ':CfVar' (sum, sum of squares, number of sources) and ':Min', ':Max'; cctq
# shows them finalized as hpcviewer does ('WALLCLOCK (us):Mean' = $3 / $4,
# StdDev = sqrt($6/$7 - ($5/$7)^2), CfVar = StdDev / Mean) for 'metric',
# 'columns add', csv and json.  Expected figures come from python reading the
# raw XML (the <M> of the root and of main's <PF i="2">), never from cctq.
# A flat row of several contexts has no StdDev/CfVar/Min/Max (not stored),
# statistics have no percentages, stats refuses a statistic, 'metrics' lists them.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-hpcviewer-gauss" "$t/g.sqlite"
python3 - "$CCT_DATA/classic-hpcviewer-gauss/experiment.xml" >"$t/expected" <<'PY'
import math, re, sys
xml = open(sys.argv[1]).read()
body = xml[xml.index("<SecCallPathProfileData>"):]
def ms(chunk): return {int(n): float(v) for n, v in re.findall(r'<M n="(\d+)" v="([^"]+)"/>', chunk)}
root = ms(body[:body.index("<PF ")])
pf = body.index('<PF i="2" ')
main = ms(body[pf:body.index("\n<", body.index("\n", pf) + 1)])
def stats(m, o):  # o = 0 inclusive (Metric i=2..12), 11 exclusive (13..23)
    g = lambda i: m.get(i + o, 0.0)
    mean = g(3) / g(4)
    sd = math.sqrt(g(6) / g(7) - (g(5) / g(7)) ** 2)
    cf = math.sqrt(g(9) / g(10) - (g(8) / g(10)) ** 2) / (g(8) / g(10)) if g(8) else None
    return [mean, sd, cf, g(11), g(12)]
for name, m in (("<program>", root), ("main", main)):
    print(name, *["%r" % x for x in stats(m, 0) + stats(m, 11)])
PY
S="WALLCLOCK (us)"
"$CCTQ" "$t/g.sqlite" -c "metric '$S:Mean'; columns add '$S:StdDev'; columns add '$S:CfVar'; columns add '$S:Min';
  columns add '$S:Max'; mode csv; topdown 1" >"$t/csv"
"$CCTQ" "$t/g.sqlite" -c "metric '$S:Mean'; mode json; topdown 1" >"$t/json"
python3 - "$t/csv" "$t/expected" "$t/json" <<'PY'
import csv, json, math, sys
all_rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rows = {r["name"]: r for r in all_rows if int(r["depth"]) <= 1}  # the hot path adds deeper 'main' rows
# The hot path follows the shown Mean (main: 13.9e6 against Partial Call Paths' 27e3), not
# an operand of it: before, the gcc build followed the count of profiles (64 in both rows,
# the tie went to 'Partial Call Paths' by name) and the clang build the sum.
hot = [r["path"] for r in all_rows if r.get("hot") == "1"]
if hot[:2] != ["<program>", "<program>;main"] or any("Partial" in h for h in hot):
    sys.exit("FAIL: the Mean's hot path is %r" % hot)
S = "WALLCLOCK (us)"
names = [S + s for s in (":Mean", ":StdDev", ":CfVar", ":Min", ":Max")]
n = 0
for line in open(sys.argv[2]):
    name, *vals = line.split()
    vals = [None if v == "None" else float(v) for v in vals]
    r = rows.get(name) or sys.exit("FAIL: no row %s" % name)
    for i, col in enumerate(names):
        for which, want in (("inclusive", vals[i]), ("exclusive", vals[5 + i])):
            if name == "<program>" and which == "exclusive": continue  # the root has no stored exclusive
            got = r[col + " " + which]
            if want is None or (which == "exclusive" and want == 0 and got == ""):
                continue
            if got == "" or not math.isclose(float(got), want, rel_tol=1e-9):
                sys.exit("FAIL: %s %s %s = %r, want %r" % (name, col, which, got, want))
            n += 1
j = json.load(open(sys.argv[3]))
m = j["rows"][0]["values"][S + ":Mean"]["inclusive"]
if not math.isclose(m, float(open(sys.argv[2]).readline().split()[1]), rel_tol=1e-9): sys.exit("FAIL: json mean %r" % m)
print("ok", n, "statistics figures match the raw XML")
PY
# tree mode: the statistic is the display metric, named as hpcviewer names it, without percentages
"$CCTQ" "$t/g.sqlite" -c "metric '$S:max'; topdown 1" >"$t/tree"
grep -q "^ *$S:Max" "$t/tree" || fail "tree header does not name '$S:Max': $(cat "$t/tree")"
grep '\[2\]' "$t/tree" | grep -q '%' && fail "a statistic shows percentages: $(cat "$t/tree")"
# flat: a row of one context has its Max, a row of several has none (Max of a sum is not stored)
"$CCTQ" "$t/g.sqlite" -c "metric '$S:Max'; mode csv; flat 0" >"$t/flat"
python3 - "$t/flat" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
col = "WALLCLOCK (us):Max inclusive"
one = [r for r in rows if r["contexts"] == "1" and r["name"] == "main"]
many = [r for r in rows if r["contexts"] not in ("", "0", "1")]
if not one or one[0][col] != "27273000": sys.exit("FAIL: main's flat Max %r" % (one and one[0][col]))
if not many or any(r[col] != "" for r in many): sys.exit("FAIL: a flat row of several contexts shows a Max")
print("ok flat Max: one-context rows shown, %d rows of several contexts empty" % len(many))
PY
# metrics lists the statistics; stats refuses one; an unknown statistic is an error naming it
"$CCTQ" "$t/g.sqlite" -c "metrics" | grep -q "Mean StdDev CfVar Min Max" || fail "metrics does not list the statistics"
if "$CCTQ" "$t/g.sqlite" -c "metric '$S:Mean'; stats" 2>"$t/err"; then fail "stats on a statistic succeeded"; fi
grep -q "no per-profile values" "$t/err" || fail "stats error: $(cat "$t/err")"
if "$CCTQ" "$t/g.sqlite" -c "metric '$S:Median'" 2>"$t/err"; then fail "':Median' accepted"; fi
grep -q "Median" "$t/err" || fail "error does not name the metric: $(cat "$t/err")"
echo "ok statistics"
