#!/bin/sh
# cctq shell: every view command on the classic cpi sample in every output
# mode, compared with tests/cli/expected/shell_views.out (non-tty output,
# COLUMNS=100, so plain text without escapes).
#
# What was checked by hand in the expected file, against
# tests/data/classic-hatchet-cpi/experiment.xml:
# - main's inclusive 3998240 is its PF's <M n="2" v="3.99824e+06"/> (the XML
#   rounds to 6 digits) and equals the program total, so every row of the
#   chain main > MPI_Finalize > PMPI_Finalize > MPID_Finalize > ... shows 100.0%;
#   MPI_Init's subtree has no samples (0, 0.0%).
# - bottomup of psm_dofinalize climbs MPIDI_CH3_Finalize > MPID_Finalize >
#   PMPI_Finalize > MPI_Finalize > main > <program root>: the PF nesting of the XML.
# - flat: <unknown procedure> has exclusive 3962265 (99.1%) and __GI_sched_yield
#   35980 (the XML's n="3" value 35980), the only two non-zero exclusives.
# - the XML's two File records i=498 and i=539 are both '<unknown file>': one
#   flat files row (a file is one row per path), inclusive 3998240 (outermost),
#   exclusive 0 + 3962265.
# - folded: the topdown 9 lines of main add up to 179870 + 3782390 + 35980 =
#   3998240 = main's inclusive (self values), flat lines carry the exclusives.
# - tree connectors: '|- ' for a row with a later sibling, '`- ' for the last,
#   '|  ' continuing an ancestor's line; center rows carry '*'.
# - metrics: the total of CPUTIME (usec) is the program total 3998240 (main's inclusive).
# - flat contexts: <unknown procedure> has 11 function contexts in the XML (the
#   sqlite3 count of kind 'function' contexts by name agrees), every other function
#   and each numbered line 1; lines without a line number (<unknown file>,
#   interp.c) are not counted (blank).
# - json/csv are full precision and never shortened (long /tmp/dpkg paths intact).
set -eu
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/cpi.sqlite"
cd "$t"
COLUMNS=100 "$CCTQ" cpi.sqlite -c "metric; topdown 3; center MPI_Finalize; bottomup 3
center + main; center; topdown 2; center reset; bottomup
center psm_dofinalize; bottomup 6; flat 5; flat files; flat modules 0; flat lines; flat loops
center main; stats 4; granularity line; topdown 3; granularity function
threshold 1%; topdown 9; threshold; threshold 0
mode table; topdown 2; flat 3; mode csv; topdown 2; flat 3; center
mode json; topdown 1; center; metrics
mode folded; topdown 9; flat 0
mode table; sql SELECT name, line FROM functions WHERE run = 1 AND line IS NOT NULL ORDER BY name LIMIT 3
mode csv; sql SELECT name, 'a,\"b\"' AS quoted FROM functions WHERE name = 'main'" >out 2>err
if ! diff -u "$CCT_SRC/tests/cli/expected/shell_views.out" out; then echo "FAIL: views output differs"; exit 1; fi
if [ -s err ]; then echo "FAIL: unexpected stderr:"; cat err; exit 1; fi
# The folded lines of 'topdown 9' add up to main's inclusive.
COLUMNS=100 "$CCTQ" cpi.sqlite -c "center main; mode folded; topdown 9" |
  awk '{ s += $NF } END { if (s != 3998240) { print "FAIL: folded sum " s; exit 1 } }'
echo ok
