#!/bin/bash
# 'percent program|center' and 'threshold' (issue 12 item 6) on the real
# osu-allgather run (20 MPI profiles): with 'percent center' every percentage is
# the row's share of the center's inclusive value (the top row), and the
# threshold cuts at that base; a bare threshold number is a percentage.  The
# expected shares and cuts are computed here from the raw values of mode csv and
# from the program total read with plain SQL.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
a="$t/osu.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
total=$(sqlite3 "$a" "SELECT v.inclusive FROM contexts c JOIN context_values v ON v.run = c.run AND v.id = c.id
                      WHERE c.depth = 0")
c="center pthread_spin_lock"
"$CCTQ" "$a" -c "$c; mode csv; bottomup 2; flat 0" >"$t/csv"
"$CCTQ" "$a" -c "percent; percent center; percent" >"$t/show"
"$CCTQ" "$a" -c "$c; percent center; bottomup 2" >"$t/full"
"$CCTQ" "$a" -c "$c; percent center; threshold 20; threshold; bottomup 2" >"$t/cut"
"$CCTQ" "$a" -c "$c; percent center; mode table; bottomup 2" >"$t/table"
"$CCTQ" "$a" -c "threshold 5; threshold; flat 0" >"$t/flat5"
"$CCTQ" "$a" -c "threshold 0.5; threshold; flat 0" >"$t/flat05"
python3 - "$t" "$total" <<'PY'
import csv, re, sys
t, total = sys.argv[1], float(sys.argv[2])
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
text = open(t + "/csv", newline="").read().replace("\r\n", "\n")
heads = [i for i, l in enumerate(text.split("\n")) if l.startswith("handle,")]
lines = text.split("\n")
bu = list(csv.DictReader(lines[heads[0]:heads[1]]))
flat = list(csv.DictReader(lines[heads[1]:]))
col = next(k for k in bu[0] if k.endswith(" inclusive"))
top = float(bu[0][col])
def read(name): return open(t + "/" + name).read().split("\n")
def tree_rows(lines): return [l.strip() for l in lines if l.lstrip().startswith("[")]
if read("show")[:2] != ["program", "center"]: fail("percent shows %r" % read("show")[:2])
full = read("full")
if "% of the center" not in full[0]: fail("tree header does not name the base: %r" % full[0])
rows = tree_rows(full)
if len(rows) != len(bu): fail("%d rows, csv has %d" % (len(rows), len(bu)))
for l, r in zip(rows, bu):
    f = l.split()
    incl, pct = float(f[1]), float(f[2].rstrip("%"))
    if abs(incl - float(r[col])) > 0.5: fail("row %s value %s vs csv %s" % (f[0], incl, r[col]))
    want = round(100 * float(r[col]) / top, 1)
    if abs(pct - want) > 0.051: fail("row %s: %s%% of the center, want %.1f%%" % (f[0], pct, want))
cut = read("cut")
if cut[0] != "20%": fail("threshold 20 shows %r" % cut[0])
# depth 1 and 2 rows of at least 20 % of the center whose parent is kept (a row goes with its subtree)
kept, ok_parent = 0, {}
for r in bu:
    d = int(r["depth"])
    keep = d == 0 or (float(r[col]) >= 0.2 * top and ok_parent.get(d - 1, False))
    ok_parent[d] = keep
    kept += keep
if len(tree_rows(cut)) != kept or kept == len(bu):
    fail("threshold 20 (of the center) keeps %d rows, want %d of %d" % (len(tree_rows(cut)), kept, len(bu)))
if "% center" not in read("table")[0]: fail("table header does not name the base: %r" % read("table")[0])
fcol = next(k for k in flat[0] if k.endswith(" inclusive"))
for name, p in (("flat5", 5), ("flat05", 0.5)):
    got = read(name)
    if got[0] != ("%g%%" % p): fail("threshold %g shows %r" % (p, got[0]))
    want = [r for r in flat if float(r[fcol]) >= p / 100 * total]
    if len(tree_rows(got)) != len(want) or len(want) == len(flat):
        fail("flat with threshold %g keeps %d rows, want %d of %d" % (p, len(tree_rows(got)), len(want), len(flat)))
print("ok percent center (%d rows, top %g), threshold of the center, bare thresholds as percent" % (len(bu), top))
PY
