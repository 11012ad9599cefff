#!/bin/bash
# stats says what the figures are and nothing more (issue 27 item 7):
# - loops-cuda-nvidia-t.d (one CPU thread with all of GPUOP's 0.0298 s, the
#   program total 'metrics' lists, and one GPU stream of zeros): the thread's
#   'value 0.0298 (one profile)' and the stream's 'all zero', no histogram of
#   ten equal bins, no 'imbalance 0.000'; json leaves out the histogram of
#   both kinds, the picture their histogram panels.  Before: five figures, an
#   imbalance and ten bins per kind ('0.02979443 .. 0.02979443' ten times).
# - v4-pipit-ping-pong (two ranks 0.131009 and 0.131061 s): figures with 3
#   significant digits as views print them ('mean 0.131', not 0.131035), and
#   histogram edges that all differ and rise (3 digits would print '0.131 ..
#   0.131' ten times, 'stats 10'); by default one bin per profile when fewer than 10.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d" g.sqlite
"$CCTQ" g.sqlite -c "stats; export s.svg" >out
"$CCTQ" g.sqlite -c "mode json; stats" >json
grep -q '^    value      0.0298 (one profile)$' out || { cat out; fail "one CPU thread: no 'value 0.0298 (one profile)'"; }
grep -q '^    all zero$' out || { cat out; fail "GPU streams of zeros: no 'all zero'"; }
! grep -q 'histogram (\|imbalance\|0 \.\. 0' out || { cat out; fail "figures or bins of a kind that has nothing to spread"; }
python3 - <<'PY'
import json, sys
d = json.load(open("json"))
for k in ("cpu", "gpu"):
    if "histogram" in d["kinds"][k]: print("FAIL: json: a histogram for the", k, "kind"); sys.exit(1)
if d["kinds"]["gpu"]["max"] != 0: print("FAIL: json: gpu max"); sys.exit(1)
PY
grep -q 'data-kind="gpu"[^>]*>GPU streams (1): all zero<' s.svg || fail "picture: GPU streams not 'all zero'"
grep -q 'data-kind="cpu"[^>]*>CPU threads (1): value 0.0297944 (one profile)<' s.svg || fail "picture: CPU thread's value"
! grep -q 'class="bin"' s.svg || fail "picture: histogram bins of one value"
"$CCTINGEST" --quiet "$CCT_DATA/v4-pipit-ping-pong" p.sqlite
"$CCTQ" p.sqlite -c "stats" >pp2
# by default no more bins than profiles (before: 10 bins for these 2 ranks, 8 of them empty)
grep -q '^histogram (2 bins):$' pp2 || { cat pp2; fail "stats of 2 profiles: not 2 bins"; }
"$CCTQ" p.sqlite -c "stats 10" >pp
grep -q '^  mean       0.131$' pp || { cat pp; fail "mean not as views print it"; }
python3 - <<'PY'
import re, sys
edges = []
for l in open("pp"):
    m = re.match(r"^ +(\S+) \.\. (\S+) +\d+ ", l)
    if m: edges.append((m.group(1), m.group(2)))
if len(edges) != 10: print("FAIL: %d bins" % len(edges)); sys.exit(1)
for lo, hi in edges:
    if lo == hi or float(lo) >= float(hi): print("FAIL: bin %s .. %s" % (lo, hi)); sys.exit(1)
PY
