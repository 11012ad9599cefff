#!/bin/bash
# A call site whose callee frame is missing keeps its cost (issue 25 item 3):
# FLASH's classic database has <C i="7" l="0"> under driver_initflash_ with an
# inclusive value and no <PF> below; at line granularity that cost was in no
# row (children summed to less than the frame's inclusive).  It shows as a
# plain line row of the caller.  The fixture (tests/data/handmade-flash-callsite)
# is hand-made with FLASH's shape; the expected figures are its XML's values.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/handmade-flash-callsite" "$t/a.sqlite"
"$CCTQ" "$t/a.sqlite" -c "granularity line; center driver_initflash_; hotpath off; mode csv; topdown 1" >"$t/raw"
tr -d '\r' <"$t/raw" >"$t/csv"
# the center row (depth 0) and its children (depth 1): inclusive is the 12th column, exclusive the 13th
# (the last: the rows of zero cost left out, none)
out=$(awk -F, 'NR > 1 && $2 == 0 { incl = $12; excl = $13 } NR > 1 && $2 == 1 { kids += $12; n++ }
               END { printf "%s %s %d %s\n", incl, excl, n, kids }' "$t/csv")
# PF 4: inclusive 1000, exclusive 100; children C 6 (850), S 5 (100), C 7 (50)
[ "$out" = "1000 100 3 1000" ] || { echo "FAIL center, its exclusive, children and their sum: $out (want 1000 100 3 1000)"; cat "$t/csv"; exit 1; }
grep -q ',line,line in driver_initflash_ (Driver_initFlash.F90),.*,50,0,0$' "$t/csv" || { echo "FAIL no line row for the call site without callee"; cat "$t/csv"; exit 1; }
# the real call site (C 6) still folds into its callee's row
grep -q ',function,grid_init_,.*,850,850,0$' "$t/csv" || { echo "FAIL grid_init_ row"; cat "$t/csv"; exit 1; }
echo "ok"
