# damage.bash: the set-up of the tests that damage copies of a real archive
# and report every check that fails before failing (damaged_page.sh,
# inf_values.sh), sourced after 'set -euo pipefail'.  Gives $t (a temporary
# directory, removed at exit) holding a.sqlite (classic-callflow-lulesh
# ingested), fail MESSAGE (prints it and counts it) and finish (fails when a
# check failed).
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
finish() { [ "$fails" -eq 0 ]; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$t/a.sqlite"
