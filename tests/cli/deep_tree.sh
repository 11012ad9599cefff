#!/bin/bash
# Deep recursion in bounded memory (issue 13 item 15): a chain of N nested
# calls main -> f -> f -> ... (a generated experiment.xml, inclusive N - k at
# level k, exclusive 1 everywhere), shown whole with 'topdown 30000' and
# exported as a picture, under a 60 MB address-space limit.  Rows used to carry
# a copy of their whole path (depth + 1 pointers each: N^2 / 2 in all, 256 MB
# for N = 8000); now a row names its parent and paths are built when printed.
set -euo pipefail
command -v python3 >/dev/null || { echo "deep_tree: SKIP: python3 not found"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
n=8000
python3 - "$n" "$t/chain" <<'PY'
import os, sys
n, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out)
with open(os.path.join(out, "experiment.xml"), "w") as f:
    f.write('''<?xml version="1.0"?>
<HPCToolkitExperiment version="2.0">
<Header n="chain"><Info/></Header>
<SecCallPathProfile i="0" n="chain">
<SecHeader>
  <MetricTable>
    <Metric i="2" n="CPUTIME (usec):Sum (I)" v="derived-incr" t="inclusive" partner="3" show="1" show-percent="1"/>
    <Metric i="3" n="CPUTIME (usec):Sum (E)" v="derived-incr" t="exclusive" partner="2" show="1" show-percent="1"/>
  </MetricTable>
  <LoadModuleTable><LoadModule i="1" n="/bin/chain"/></LoadModuleTable>
  <FileTable><File i="1" n="./src/chain.c"/></FileTable>
  <ProcedureTable><Procedure i="5" n="main"/><Procedure i="6" n="f"/></ProcedureTable>
  <Info/>
</SecHeader>
<SecCallPathProfileData>
''')
    f.write('<M n="2" v="%d"/>\n<PF i="2" s="5" l="1" lm="1" f="1" n="5"><M n="2" v="%d"/><M n="3" v="1"/>\n' % (n, n))
    for d in range(1, n):
        f.write('<C i="%d" s="10" l="10"><M n="2" v="%d"/>\n' % (2 * d + 1, n - d))
        f.write('<PF i="%d" s="6" l="20" lm="1" f="1" n="6"><M n="2" v="%d"/><M n="3" v="1"/>\n' % (2 * d + 2, n - d))
    f.write('</PF></C>\n' * (n - 1))
    f.write('</PF>\n</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n')
PY
"$CCTINGEST" --quiet "$t/chain" "$t/a.sqlite"
lim=60000 # KB; a sanitizer build reserves terabytes of shadow space: no limit there (leaks still checked)
if grep -q __asan_init "$CCTQ"; then lim=unlimited; fi
st=0
(ulimit -v $lim; "$CCTQ" "$t/a.sqlite" -c 'topdown 30000' >"$t/td" 2>"$t/err") || st=$?
[ "$st" = 0 ] || { echo "FAIL topdown 30000 of a $n-deep chain: exit $st"; cat "$t/err"; exit 1; }
# <program>, main, then n - 1 rows of f; the deepest f has inclusive 1 at depth n
rows=$(grep -c '^ *\[[0-9]*\]' "$t/td")
[ "$rows" = $((n + 1)) ] || { echo "FAIL topdown: $rows rows, want $((n + 1))"; exit 1; }
grep '^ *\[[0-9]*\]' "$t/td" >"$t/rows" # (the rows; below them the hot path's line)
last=$(tail -1 "$t/rows" | awk '{print $1, $2, $4, $NF}')
[ "$last" = "[$((n + 1))] 1 1 f" ] || { echo "FAIL deepest row: $last"; exit 1; }
(ulimit -v $lim; "$CCTQ" "$t/a.sqlite" -c "topdown 3; export $t/p.html; export $t/p.svg" >/dev/null 2>"$t/err") || st=$?
[ "$st" = 0 ] && [ -s "$t/p.html" ] && [ -s "$t/p.svg" ] || { echo "FAIL export of the chain: exit $st"; cat "$t/err"; exit 1; }
echo "ok deep tree: a $n-deep chain in topdown 30000 and export .html/.svg within 60 MB"
