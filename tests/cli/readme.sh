#!/bin/sh
# The README's command reference is exactly what `cctq -c help` prints, and
# the README's demo script names a bundled database that exists.
set -eu
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
"$CCTQ" "$t/a.sqlite" -c help >"$t/help"
sed -n '/^The commands (`cctq -c help`/,/^```$/p' "$CCT_SRC/README.md" | sed '1,3d;$d' >"$t/readme"
if ! diff -u "$t/help" "$t/readme"; then echo "FAIL: README command reference differs from 'cctq -c help'"; exit 1; fi
grep -q "tests/data/classic-hatchet-osu-allgather" "$CCT_SRC/scripts/demo"
[ -d "$CCT_DATA/classic-hatchet-osu-allgather" ]
echo "ok README reference matches help ($(wc -l <"$t/help") lines)"
