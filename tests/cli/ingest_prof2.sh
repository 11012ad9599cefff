#!/bin/bash
# Ingests every prof2 sample of tests/data (experiment.xml 4.0 + big-endian
# profile.db) and checks the archive against the files with an independent
# Python reader (check_prof2.py).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for d in "$CCT_DATA"/prof2-*; do
  "$CCTINGEST" --quiet "$d" "$t/one.sqlite"
  python3 "$CCT_SRC/tests/cli/check_prof2.py" "$d" "$t/one.sqlite" 1
  [ "$(sqlite3 "$t/one.sqlite" 'SELECT format FROM runs')" = prof2 ] || { echo "FAIL $d: format"; exit 1; }
  rm -f "$t/one.sqlite"
done
# the classic run opened in hpcviewer says so
"$CCTINGEST" --quiet "$CCT_DATA/classic-hpcviewer-inline.xml.db" "$t/one.sqlite"
[ "$(sqlite3 "$t/one.sqlite" 'SELECT format FROM runs')" = classic+mdb ] || { echo "FAIL inline: format"; exit 1; }
"$CCTQ" -c runs "$t/one.sqlite" | grep -q " classic+mdb " || { echo "FAIL inline: runs does not show classic+mdb"; exit 1; }
