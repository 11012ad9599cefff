#!/bin/bash
# A filtered run's metrics other than the run's primary one (issue 23): a filter
# carries only the primary metric's values; another metric's values and program
# total are read when a view first shows it.  On a generated v4 run of two
# metrics, 'filter drop malloc' leaves each metric's program total less malloc's
# outermost-rule inclusive (scripts/gen-db's own facts), as the value of the root
# row and as the base of its percentage, whichever metric is shown first.
set -euo pipefail
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
python3 "$CCT_SRC/scripts/gen-db" --format v4 --nodes 2000 --profiles 1 --metrics 2 --seed 3 --facts "$t/f.json" -q "$t/g"
"$CCTINGEST" --quiet "$t/g" "$t/a.sqlite"
python3 - "$t/f.json" >"$t/want" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
m = [x for x in f["functions"] if x["name"] == "malloc"][0]
for k in sorted(f["root_inclusive"]):
    print("%s %.0f" % (k, f["root_inclusive"][k] - m["inclusive"][k]))
PY
fails=0
while read -r metric want; do
  for first in "$metric" other; do # the other metric first, or this one at once
    cmds="filter drop malloc; metric $metric; topdown 0"
    [ "$first" = other ] && cmds="filter drop malloc; metric $(grep -v "^$metric " "$t/want" | cut -d' ' -f1); topdown 0; metric $metric; topdown 0"
    "$CCTQ" "$t/a.sqlite" -c "$cmds" >"$t/out"
    row=$(awk '/^\[1\]/ { r = $0 } END { print r }' "$t/out" | tr -s ' ')
    if [ "$row" != "[1] $want 100.0% 0 0.0% <program>" ]; then
      echo "FAIL $metric ($first first): '$row', want $want at 100.0%"; cat "$t/out"; fails=$((fails + 1))
    else echo "ok $metric ($first first): $want"; fi
  done
done <"$t/want"
[ "$fails" = 0 ]
