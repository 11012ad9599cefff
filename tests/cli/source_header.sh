#!/bin/bash
# 'source' names its file and the center's line range in its header, and says
# at once (not after the rows) when the database has no copy of the text and
# where cctingest looked (issue 27 item 6).  The file is the functions view's
# file of the center, the range the first and last line the rows mark '>', the
# place looked in the runs view's path + the file's path under src/.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
a="$t/lul.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$a"
file=$(sqlite3 "$a" "SELECT file FROM functions WHERE name = 'main'")
db=$(sqlite3 "$a" "SELECT path FROM runs")
"$CCTQ" "$a" -c "center main; source" >"$t/src"
"$CCTQ" "$a" -c "center main; mode csv; source" >"$t/csv"
range=$(python3 -c '
import csv, sys
ls = [int(r["line"]) for r in csv.DictReader(open(sys.argv[1])) if r.get("mark") not in ("", "0")]
print("%d-%d" % (min(ls), max(ls)))' "$t/csv")
sed -n 1p "$t/src" | grep -qxF "source: $file, the center's lines $range" || fail "header: $(sed -n 1p "$t/src"), want $file $range"
rel=${file#./}
sed -n 2p "$t/src" | grep -qF "note: no stored copy of $file: cctingest looked for $db/$rel" || fail "note: $(sed -n 2p "$t/src")"
[ "$(grep -c '^note:' "$t/src")" -eq 1 ] || fail "the note is printed more than once"
# with a stored copy: the header names the file, no note
"$CCTINGEST" --quiet "$CCT_DATA/handmade-src" "$t/src.sqlite"
"$CCTQ" "$t/src.sqlite" -c "source" >"$t/s2" 2>&1 || true
f2=$(sqlite3 "$t/src.sqlite" "SELECT path FROM file WHERE source IS NOT NULL LIMIT 1")
"$CCTQ" "$t/src.sqlite" -c "source '$f2'" >"$t/s2"
sed -n 1p "$t/s2" | grep -qxF "source: $f2" || fail "header with a copy: $(sed -n 1p "$t/s2")"
grep -q '^note:' "$t/s2" && fail "a note though the text is stored: $(cat "$t/s2")"
echo "ok source header ($file $range)"
