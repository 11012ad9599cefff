#!/bin/bash
# Pictures are of the value shown (issue 24): 'export FILE.svg' / '.html' draw
# the view the last command showed (its metric, threshold, center, filters;
# stats in its order), not the session's settings at the time of the export.
# Before, 'metric X; topdown 2; metric Y; export t.svg' drew Y's values, and
# 'stats by thread; export s.svg' drew the bars by value.  Expected values come
# from sqlite3 on the archive (public views and the profile table).  The
# stats text export named the session's center and filters at export time.
set -euo pipefail
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-perf.d" perf.sqlite
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" osu.sqlite
"$CCTQ" perf.sqlite -c 'export nothing.svg' 2>/dev/null && fail "export before any view wrote a file"
[ ! -e nothing.svg ] || fail "a refused export left a file"

# The metric of the view shown, not the one set after it.
"$CCTQ" perf.sqlite -c 'metric perf::cpu-clock; topdown 2; metric perf::task-clock; export t.svg; export t.html' >/dev/null
root_total() { # the program total of metric $2 in archive $1: the root context's inclusive
  sqlite3 "$1" "SELECT v.inclusive FROM context_values v JOIN contexts c ON c.run = v.run AND c.id = v.id
                JOIN metrics m ON m.run = v.run AND m.metric = v.metric
                WHERE c.kind = 'root' AND m.name = '$2'"
}
cpu=$(root_total perf.sqlite perf::cpu-clock) task=$(root_total perf.sqlite perf::task-clock)
python3 - t.svg t.html "$cpu" "$task" <<'PY' || fail "the picture is not of the metric shown"
import json, re, sys
import xml.etree.ElementTree as ET
svg, html, cpu, task = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
assert cpu != task, "the two metrics have one total: the test shows nothing"
root = ET.parse(svg).getroot()
assert root.get("data-metric") == "perf::cpu-clock", root.get("data-metric")
assert float(root.get("data-total")) == cpu, (root.get("data-total"), cpu)
data = json.loads(re.search(r'<script id="cct-data" type="application/json">\n(.*?)\n</script>', open(html).read(), re.S).group(1))
assert data["metric"] == "perf::cpu-clock" and data["total"] == cpu, (data["metric"], data["total"])
PY

# The threshold of the view shown: every frame drawn is at least 5% of the program total.
"$CCTQ" osu.sqlite -c 'threshold 5; center main; topdown 4; threshold 0; export th.svg' >/dev/null
"$CCTQ" osu.sqlite -c 'center main; topdown 4; export all.svg' >/dev/null
python3 - th.svg all.svg <<'PY' || fail "the picture is not of the threshold shown"
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
def frames(path):
    root = ET.parse(path).getroot()
    return float(root.get("data-total")), [float(g.get("data-inclusive")) for g in root.iter(ns + "g") if g.get("class") == "frame"]
total, th = frames(sys.argv[1])
_, every = frames(sys.argv[2])
assert any(v < 0.05 * total for v in every), "no frame below 5%: the test shows nothing"
assert th and all(v >= 0.05 * total for v in th), [v / total for v in th]
PY

# The center shown, not the one set after it: main's frame has main's flat inclusive.
"$CCTQ" osu.sqlite -c 'center main; topdown 2; center MPI_Finalize; export c.svg' >/dev/null
main=$(sqlite3 osu.sqlite "SELECT f.inclusive FROM flat f JOIN functions n ON n.run = f.run AND n.function = f.function
                           WHERE n.name = 'main'")
python3 - c.svg "$main" <<'PY' || fail "the picture is not of the center shown"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("data-center") == "main", root.get("data-center")
mid = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-part") == "center"]
assert len(mid) == 1 and float(mid[0].get("data-inclusive")) == float(sys.argv[2]), (mid and mid[0].attrib, sys.argv[2])
PY

# The filters shown, not those left after 'filter reset'.
"$CCTQ" osu.sqlite -c 'filter hide PMPI_Allgather; topdown 3; filter reset; export f.svg' >/dev/null
grep -q "filters: hide PMPI_Allgather" f.svg || fail "the picture does not name the filter of the view shown"
grep -q 'data-name="PMPI_Allgather"' f.svg && fail "the picture shows the hidden PMPI_Allgather"

# stats by thread: the bars in thread order (the profile table's), as printed; the center shown.
"$CCTQ" osu.sqlite -c 'center main; stats by thread; center MPI_Finalize; export s.svg' >/dev/null
sqlite3 osu.sqlite "SELECT id FROM profile WHERE run = 1 ORDER BY thread, rank, id" >bythread.txt
python3 - s.svg bythread.txt <<'PY' || fail "the stats picture is not the stats shown"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("data-center") == "main", root.get("data-center")
bars = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "bar"]
ids = [int(r.get("data-profile")) for r in bars]
want = [int(x) for x in open(sys.argv[2]).read().split()]
assert ids == want, (ids, want)
vals = [float(r.get("data-value")) for r in bars]
assert vals != sorted(vals, reverse=True), "thread order is value order here: the test shows nothing"
assert "sorted by thread" in open(sys.argv[1]).read()
PY
# The text export of stats names the center and filters it was computed with.
"$CCTQ" osu.sqlite -c 'center main; filter hide PMPI_Allgather; stats; center MPI_Finalize; filter reset; export s.json' >/dev/null
python3 - s.json <<'PY' || fail "the stats export names the session's center or filters, not those shown"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["center"] == ["main"] and d["filters"] == ["hide PMPI_Allgather"], (d["center"], d.get("filters"))
PY
echo "ok shown picture: .svg/.html draw the view and stats shown (metric, threshold, center, filters, order)"
