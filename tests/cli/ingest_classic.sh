#!/bin/bash
# Ingests every classic sample of tests/data and checks the archive against
# the XML and metric-db files with an independent Python reader (check_classic.py).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for d in "$CCT_DATA"/classic-*; do
  "$CCTINGEST" --quiet "$d" "$t/one.sqlite"
  python3 "$CCT_SRC/tests/cli/check_classic.py" "$d" "$t/one.sqlite" 1
  rm -f "$t/one.sqlite"
done
