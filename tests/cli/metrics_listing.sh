#!/bin/bash
# 'metrics' (issue 12 item 11) on real GPU and CPU samples: every metric of the
# run once, with its program total (the root context's inclusive value, worked
# out here with plain SQL on the public views) and unit, the display metric
# marked current = 1 and listed first, then metrics with a non-zero total
# before the others, each group in file order (issue 27 item 8); whole totals
# print as integers in the text modes ('3200', not '3200.000').
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for d in v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d v4-hpctoolkit-tests-dbase/loops-hip-amd-t.d classic-hatchet-cpi; do
  a="$t/a.sqlite"; rm -f "$a"
  "$CCTINGEST" --quiet "$CCT_DATA/$d" "$a"
  "$CCTQ" "$a" -c "mode csv; metrics" >"$t/listing"
  "$CCTQ" "$a" -c "metric" >"$t/current"
  sqlite3 -csv "$a" "SELECT m.metric, m.name, coalesce(m.unit, ''), coalesce(v.inclusive, 0) FROM metrics m
                     JOIN contexts c ON c.run = m.run AND c.depth = 0
                     LEFT JOIN context_values v ON v.run = c.run AND v.id = c.id AND v.metric = m.metric
                     WHERE m.run = (SELECT max(run) FROM runs) ORDER BY m.metric" >"$t/expected"
  python3 - "$t/listing" "$t/expected" "$(cat "$t/current")" "$d" <<'PY'
import csv, sys
got = list(csv.DictReader(open(sys.argv[1], newline="")))
exp = [(int(r[0]), r[1], r[2], float(r[3])) for r in csv.reader(open(sys.argv[2], newline=""))]
current, name = sys.argv[3], sys.argv[4]
def fail(msg):
    print("FAIL", name + ":", msg); sys.exit(1)
if len(got) != len(exp): fail("%d rows, want %d" % (len(got), len(exp)))
want = [e for e in exp if e[1] == current] + [e for e in exp if e[3] != 0 and e[1] != current] + \
       [e for e in exp if e[3] == 0 and e[1] != current]  # the current one, then non-zero first, file order
for g, e in zip(got, want):
    if int(g["metric"]) != e[0] or g["name"] != e[1] or g["unit"] != e[2]:
        fail("row %s, want %s" % (g, e))
    if abs(float(g["total"]) - e[3]) > 1e-9 * max(1, abs(e[3])):
        fail("total of %s is %s, want %s" % (e[1], g["total"], e[3]))
    if int(g["current"]) != (g["name"] == current):
        fail("current mark of %s" % e[1])
if sum(int(g["current"]) for g in got) != 1: fail("not exactly one current metric")
print("ok", name, len(got), "metrics,", sum(1 for e in exp if e[3] != 0), "with data")
PY
  # text mode: a whole total is an integer, a fractional one keeps its digits
  "$CCTQ" "$a" -c "mode table; metrics" >"$t/table"
  python3 - "$t/table" "$t/expected" "$d" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
exp = {r[1]: float(r[3]) for r in csv.reader(open(sys.argv[2], newline=""))}
for name, total in exp.items():
    row = [l for l in lines if (" " + name + " ") in l]
    if not row: print("FAIL", sys.argv[3], "no row for", name); sys.exit(1)
    if total == int(total) and (" %d " % total) not in row[0] + " ":
        print("FAIL", sys.argv[3], name, "total", total, "not printed as an integer:", row[0]); sys.exit(1)
print("ok", sys.argv[3], "whole totals print as integers")
PY
done

# The stored total and the top-level rows (issue 25 item 6): classic experiment.xml keeps 6
# significant digits of every value, so the root's stored total (hpcviewer's aggregate row,
# the base of every percentage) can differ from what its children add up to (FLASH-2:
# 3,453,500,000 against a 100 % flat row of 3,453,490,000).  'metrics' says so in a note
# naming the children's sum, worked out here from the XML with Python; a metric whose
# children add up to its total has no note.
for d in classic-hpcviewer-gauss classic-hatchet-osu-allgather classic-hatchet-cpi; do
  a="$t/a.sqlite"; rm -f "$a"
  "$CCTINGEST" --quiet "$CCT_DATA/$d" "$a"
  "$CCTQ" "$a" -c "mode csv; metrics" >"$t/listing"
  python3 - "$CCT_DATA/$d/experiment.xml" "$t/listing" "$d" <<'PY'
import csv, sys, xml.etree.ElementTree as ET
xml, listing, name = sys.argv[1:4]
root = ET.parse(xml).getroot()
ids = {m.get("n")[:-len(":Sum (I)")]: m.get("i") for m in root.iter("Metric") if m.get("n").endswith(":Sum (I)")}
data = next(root.iter("SecCallPathProfileData"))
def val(el, i):
    return sum(float(m.get("v")) for m in el.findall("M") if m.get("n") == i)
rows = {r["name"]: r for r in csv.DictReader(open(listing, newline=""))}
checked = 0
for metric, i in ids.items():
    total, kids = val(data, i), sum(val(c, i) for c in data if c.tag != "M")
    got = rows[metric]
    if abs(float(got["total"]) - total) > 1e-9 * abs(total):
        print("FAIL", name, metric, "total", got["total"], "want", total); sys.exit(1)
    if abs(kids - total) > 1e-9 * abs(total):
        want = "its top-level contexts add up to %d (experiment.xml keeps 6 significant digits of each value)" % kids
        if got["note"] != want:
            print("FAIL", name, metric, "note", repr(got["note"]), "want", repr(want)); sys.exit(1)
        checked += 1
    elif got["note"]:
        print("FAIL", name, metric, "has a note but its children add up:", got["note"]); sys.exit(1)
print("ok", name, checked, "metrics whose top-level contexts differ from the stored total")
PY
done

# Tree and table: the note is a line below the rows, not a column that pushed every row past 80
# columns, and a column empty in every row (gauss' description) is left out.
a="$t/classic-hpcviewer-gauss.sqlite"
[ -f "$a" ] || "$CCTINGEST" --quiet "$CCT_DATA/classic-hpcviewer-gauss" "$a"
"$CCTQ" "$a" -c "width 80; metrics" >"$t/text"
head -2 "$t/text" >"$t/grid"
if awk 'length($0) > 80 { bad = 1 } END { exit !bad }' "$t/grid" || grep -q 'description\|note' "$t/grid"; then
  cat "$t/text"; echo "FAIL: gauss metrics: the grid is wider than 80 columns or keeps an empty column"; exit 1
fi
grep -qx 'note on WALLCLOCK (us): its top-level contexts add up to 894137690 (experiment.xml keeps 6 significant digits of each value)' "$t/text" ||
  { cat "$t/text"; echo "FAIL: gauss metrics: no note line below the rows"; exit 1; }
echo "ok gauss metrics: grid within 80 columns, the note below it"
