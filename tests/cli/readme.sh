#!/bin/bash
# The README's command reference is exactly what `cctq -c help` prints, and
# the README's demo script names a bundled database that exists, and the
# README's SQL examples give the right answers (below).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
"$CCTQ" "$t/a.sqlite" -c help >"$t/help"
sed -n '/^The commands (`cctq -c help`/,/^```$/p' "$CCT_SRC/README.md" | sed '1,3d;$d' >"$t/readme"
if ! diff -u "$t/help" "$t/readme"; then echo "FAIL: README command reference differs from 'cctq -c help'"; exit 1; fi
grep -q "tests/data/classic-hatchet-osu-allgather" "$CCT_SRC/scripts/demo"
[ -d "$CCT_DATA/classic-hatchet-osu-allgather" ]
echo "ok README reference matches help ($(wc -l <"$t/help") lines)"

# The README's SQL examples, run as written on an archive like the demo's
# (osu as run 1) that also holds a GPU run (run 2, 53 metrics) and cpi (run 3);
# then again on the GPU run with its metric named instead of CPUTIME.  Every
# value is checked against the shell's flat view (mode csv) of the same run and
# metric; a query that mixed metrics would list a function once per metric.
a="$t/osu.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d" "$a"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$a"
python3 - "$CCT_SRC/README.md" "$t" <<'PY'
import re, sys
text, t = open(sys.argv[1]).read(), sys.argv[2]
def block(after, lang):
    i = text.index(after)
    m = re.compile(r"^```" + lang + r"\n(.*?)^```$", re.S | re.M).search(text, i)
    return m.group(1)
open(t + "/top10.sh", "w").write(block("costliest functions", "sh"))
open(t + "/across.py", "w").write(block("across every run", "python"))
ext = block("from any SQLite client", "")
open(t + "/ext.sql", "w").write("".join(l[len("sqlite> "):] + "\n" for l in ext.splitlines()
                                        if l.startswith("sqlite> ") and not l.startswith("sqlite> .load")))
PY
# (the archive's path substituted; the Python one asks for main, which every run has)
grep -q '/tmp/osu.sqlite' "$t/top10.sh" && grep -q '"archive.sqlite"' "$t/across.py" &&
  grep -q '"PMPI_Allgather"' "$t/across.py" || { echo "FAIL: README examples changed: adapt readme.sh"; exit 1; }
for f in top10.sh across.py; do
  sed "s|/tmp/osu.sqlite|$a|; s|\"archive.sqlite\"|\"$a\"|; s/\"PMPI_Allgather\"/\"main\"/" "$t/$f" >"$t/as_written.$f"
  sed "s/x.run = 1/x.run = 2/; s/CPUTIME (usec)/GPUOP (sec)/" "$t/as_written.$f" >"$t/gpu.$f"
done
"$CCTQ" "$a" -c "run 1; metric CPUTIME (usec); mode csv; flat 0" >"$t/flat1"
"$CCTQ" "$a" -c "run 2; metric GPUOP (sec); mode csv; flat 0" >"$t/flat2"
"$CCTQ" "$a" -c "run 3; metric CPUTIME (usec); mode csv; flat 0" >"$t/flat3"
"$CCTQ" "$a" -c "mode csv; runs" >"$t/runs"
sh "$t/as_written.top10.sh" >"$t/top10.1"
sh "$t/gpu.top10.sh" >"$t/top10.2"
python3 "$t/as_written.across.py" >"$t/across.cpu"
python3 "$t/gpu.across.py" >"$t/across.gpu"
python3 - "$t" <<'PY'
import csv, sys
t = sys.argv[1]
def fail(msg):
    print("FAIL README SQL example:", msg); sys.exit(1)
def flat(run):  # name -> inclusive of the shell's flat view
    rows = list(csv.reader(open("%s/flat%d" % (t, run), newline="")))
    col = next(i for i, h in enumerate(rows[0]) if h.endswith(" inclusive"))
    out = {}
    for r in rows[1:]:
        out.setdefault(r[4], float(r[col]))
    return out
for run in (1, 2):
    got = [l.rsplit("|", 1) for l in open("%s/top10.%d" % (t, run)).read().splitlines()]
    names = [g[0] for g in got]
    want = flat(run)
    if len(names) != len(set(names)): fail("run %d: functions listed more than once (metrics mixed): %s" % (run, names))
    if len(got) != min(10, len(want)): fail("run %d: %d rows" % (run, len(got)))
    for name, v in got:
        if name not in want or abs(float(v) - want[name]) > 1e-9 * max(1, want[name]):
            fail("run %d: %s = %s, shell flat says %s" % (run, name, v, want.get(name)))
    top = sorted(want.values(), reverse=True)[:len(got)]
    if any(abs(x - y) > 1e-9 * max(1, y) for x, y in zip(sorted((float(v) for _, v in got), reverse=True), top)):
        fail("run %d: not the largest ten" % run)
titles = {int(r["run"]): r["title"] for r in csv.DictReader(open(t + "/runs", newline=""))}
for f, runs in (("cpu", (1, 3)), ("gpu", (2,))):
    got = [l.rsplit(" ", 1) for l in open("%s/across.%s" % (t, f)).read().splitlines()]
    want = [[titles[r], flat(r)["main"]] for r in runs]
    if [g[0] for g in got] != [w[0] for w in want] or any(abs(float(g[1]) - w[1]) > 1e-9 * max(1, w[1])
                                                         for g, w in zip(got, want)):
        fail("across runs (%s): %s, want %s" % (f, got, want))
print("ok README SQL examples (top ten of 2 runs, one function across runs)")
PY
if [ -n "${CCT_EXT:-}" ]; then # on the demo's archive: osu only
  a="$t/demo.sqlite"
  "$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
  while IFS= read -r q; do
    n=$(sqlite3 "$a" ".load $CCT_EXT" "SELECT count(*) FROM (${q%;})") || { echo "FAIL: README extension example: $q"; exit 1; }
    [ "$n" -gt 0 ] || { echo "FAIL: README extension example returns no rows: $q"; exit 1; }
  done <"$t/ext.sql"
  echo "ok README extension examples ($(wc -l <"$t/ext.sql") statements)"
fi
