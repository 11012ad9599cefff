#!/bin/bash
# cctq shell: every view command on the classic cpi sample in every output
# mode, as the checked blocks of tests/cli/blocks/views.blocks (each a command
# and its expected output or the expected lines of it, worked out from the
# sample's experiment.xml by hand or from the public SQL views with sqlite3:
# the file says how at each block; tests/cli/blocks.py runs them).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/cpi.sqlite"
python3 "$CCT_SRC/tests/cli/blocks.py" "$CCTQ" "$t/cpi.sqlite" "$CCT_SRC/tests/cli/blocks/views.blocks"
# The folded lines of 'topdown 9' add up to main's inclusive.
cd "$t"
COLUMNS=100 "$CCTQ" cpi.sqlite -c "center main; mode folded; topdown 9" |
  awk '{ s += $NF } END { if (s != 3998240) { print "FAIL: folded sum " s; exit 1 } }'
echo ok
