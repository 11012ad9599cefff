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
# marked CENTER: "lines A-B", the first and last line the csv of CENTER's source marks '>', or "line A"
marked() {
  "$CCTQ" "$a" -c "$1; mode csv; source" >"$t/csv"
  python3 -c '
import csv, sys
ls = [int(r["line"]) for r in csv.DictReader(open(sys.argv[1])) if r.get("mark") not in ("", "0")]
print("line %d" % ls[0] if min(ls) == max(ls) else "lines %d-%d" % (min(ls), max(ls)))' "$t/csv"
}
"$CCTQ" "$a" -c "center main; source" >"$t/src"
range=$(marked "center main")
case $range in lines*) ;; *) fail "main's source marks one line: $range" ;; esac
sed -n 1p "$t/src" | grep -qxF "source: $file, the center's $range" || fail "header: $(sed -n 1p "$t/src"), want $file $range"
# one line marked: "the center's line N" (it read "lines N-N")
line=$(sqlite3 "$a" "SELECT line FROM contexts WHERE kind = 'line' AND file = '$file' ORDER BY line DESC LIMIT 1")
"$CCTQ" "$a" -c "center ${file##*/}:$line; source" >"$t/src1"
one=$(marked "center ${file##*/}:$line")
[ "$one" = "line $line" ] || fail "center ${file##*/}:$line marks $one"
sed -n 1p "$t/src1" | grep -qxF "source: $file, the center's line $line" || fail "header: $(sed -n 1p "$t/src1"), want line $line"
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
