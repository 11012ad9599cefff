#!/bin/bash
# 'stats by rank' adds up each rank's profiles (issue 27 item 7): an
# MPI+OpenMP user asks first how the ranks compare, then the threads.  On
# hpcviewer's derived-metrics database (4 ranks of 9 CPU threads and one GPU
# stream each), every rank's sum of GPUOP over its CPU threads is what an
# independent reader of profile.db adds up (v4read.py ranksums), the figures
# are over the 4 ranks (imbalance max / mean of those sums), and the GPU
# streams stay apart ('all zero').  Before, 'by rank' listed the 40 profiles.
# 'by rank,thread' lists every profile by rank then thread, as 'by rank' did.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
db="$CCT_DATA/v4-hpcviewer-derived-metrics.db"
"$CCTINGEST" --quiet "$db" "$t/a.sqlite"
cd "$t"
python3 "$CCT_SRC/tests/cli/v4read.py" "$db" ranksums 'GPUOP (sec)' >want
"$CCTQ" a.sqlite -c "metric 'GPUOP (sec)'; mode csv; stats by rank" >csv
"$CCTQ" a.sqlite -c "metric 'GPUOP (sec)'; stats by rank; export r.svg" >text
"$CCTQ" a.sqlite -c "metric 'GPUOP (sec)'; mode csv; stats by rank,thread" >all
python3 - <<'PY'
import csv, re, sys
def fail(m): print("FAIL:", m); sys.exit(1)
want = [l.split() for l in open("want")]
rows = list(csv.DictReader(open("csv", newline="")))
got = sorted((r["kind"], r["rank"], float(r["value"]), int(r["profiles"])) for r in rows)
exp = sorted((k, r, float(v)) for k, r, v in want)
if len(got) != len(exp): fail("%d rank rows, want %d" % (len(got), len(exp)))
for g, e in zip(got, exp):
    if g[:2] != e[:2] or abs(g[2] - e[2]) > 1e-12 * max(1, abs(e[2])): fail("%r, want %r" % (g, e))
if [g[3] for g in got if g[0] == "cpu"] != [9, 9, 9, 9]: fail("CPU ranks not of 9 profiles each")
cpu = [e[2] for e in exp if e[0] == "cpu"]
imb = "%.3f" % (max(cpu) / (sum(cpu) / len(cpu)))
text = open("text").read()
if "over 8 ranks (each the sum of its profiles; 40 profiles)" not in text: fail("title: " + text.splitlines()[0])
if not re.search(r"CPU threads per rank \(4\):\n(.*\n)*? +imbalance  %s \(max / mean\)" % re.escape(imb), text):
    fail("imbalance over the ranks is not %s:\n%s" % (imb, text))
if not re.search(r"GPU streams per rank \(4\):\n +all zero", text): fail("GPU streams not apart")
svg = open("r.svg").read()
if "over 8 ranks</text>" not in svg or "imbalance %s" % imb not in svg: fail("the picture is not over the ranks")
if svg.count('class="bar"') != 8: fail("picture: %d bars, want 8" % svg.count('class="bar"'))
alls = list(csv.DictReader(open("all", newline="")))
if len(alls) != 40: fail("by rank,thread: %d rows" % len(alls))
keys = [(int(r["rank"]), int(r["thread"] or -1)) for r in alls if r["kind"] == "cpu"]
if keys != sorted(keys): fail("by rank,thread not in rank, thread order")
PY
