#!/bin/bash
# cctq shell: names from the archive never reach the output raw (issue 13
# items 2, 5, 8).  An archive of the classic cpi sample gets hostile names
# written into it with sqlite3: a function name with a screen-clearing CSI
# (ESC [2J), an OSC title (ESC ]0;...BEL), the C1 control U+009B, a line break
# and the invalid UTF-8 byte 0xFF; a source file name with ESC; and a run title
# with an OSC 8 link.  Expected forms, worked out by hand from the escaping
# rules (cct_escape.h): ESC -> '\x1b', BEL -> '\x07', U+009B -> '\u009b',
# line feed -> '\n', 0xFF -> U+FFFD (bytes EF BF BD); JSON: '\u001b',
# '\u0007', '\u009b', '\n', U+FFFD.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"
"$CCTINGEST" --quiet --title "$(printf 'evil\033]8;;http://x\033\\link\033]8;;\033\\')" \
  "$CCT_DATA/classic-hatchet-cpi" cpi.sqlite
sqlite3 cpi.sqlite "UPDATE function SET name = 'MPI_' || char(27) || '[2J' || char(27) || ']0;pwn' || char(7)
  || 'Fin' || char(155) || 'alize' || char(10) || 'X' || CAST(x'ff' AS TEXT) WHERE name = 'MPI_Finalize';
  UPDATE file SET path = path || char(27) || '[31m' WHERE id = (SELECT min(id) FROM file);"
esc=$(printf '\033'); bel=$(printf '\007'); c1=$(printf '\302\233')
# No control byte and valid UTF-8: the raw bytes ESC, BEL, C2 9B, FF are absent.
clean() { # FILE WHAT
  if LC_ALL=C grep -q "[$esc$bel]" "$1"; then fail "$2: raw ESC or BEL in the output"; fi
  if LC_ALL=C grep -q "$c1" "$1"; then fail "$2: raw C1 control in the output"; fi
  python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null ||
    fail "$2: output is not valid UTF-8"
}
name='MPI_\x1b[2J\x1b]0;pwn\x07Fin\u009balize\nX'"$(printf '\357\277\275')"
for mode in tree table csv folded; do
  COLUMNS=300 "$CCTQ" cpi.sqlite -c "mode $mode; topdown 3; flat 5; flat files; runs" >out.$mode
  clean out.$mode "mode $mode"
  want=$name; [ $mode = folded ] && want=$(printf '%s' "$name" | tr ';' ':') # ';' splits frames
  grep -qF "$want" out.$mode || { cat out.$mode; fail "mode $mode: the name is not shown escaped"; }
done
grep -qF 'evil\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\' out.table || fail "runs: title not shown escaped"
grep -qF '\x1b[31m' out.table || fail "flat files: file name not shown escaped"
# csv and folded: one record per line (the name's line feed does not split it).
# Every folded line ends with its value; every csv record of a view starts with
# its handle, or is a header line.
"$CCTQ" cpi.sqlite -c "mode folded; topdown 3; flat 5" >out.folded2
! grep -qv ' [0-9][0-9.]*$' out.folded2 || fail "folded: a record split"
! grep -v '^handle,\|^run,' out.csv | grep -qv '^[0-9]' || fail "csv: a record split"
# Cut names: a narrow table cuts the name with '...' and leaves no sequence open.
COLUMNS=40 "$CCTQ" cpi.sqlite -c "mode table; topdown 3" >out.narrow
clean out.narrow "narrow table"
# JSON: escapes of its own, valid UTF-8.
"$CCTQ" cpi.sqlite -c "mode json; topdown 3; runs" >out.json
clean out.json json
grep -qF 'MPI_\u001b[2J\u001b]0;pwn\u0007Fin\u009balize\nX'"$(printf '\357\277\275')" out.json ||
  fail "json: name not escaped as expected"
# Messages: the 'did you mean' hint quotes the name escaped.
"$CCTQ" cpi.sqlite -c "center MPI_" >/dev/null 2>err || true
clean err "error message"
grep -qF "did you mean 'MPI_\\x1b[2J" err || { cat err; fail "the hint does not show the name escaped"; }
# Invalid UTF-8 from 'sql' in every mode: U+FFFD, never the raw byte.
for mode in tree table csv json folded; do
  "$CCTQ" cpi.sqlite -c "mode $mode; sql SELECT CAST(x'41ff42c0af' AS TEXT) AS s, char(27) || '[2J' AS e" >out.sql
  clean out.sql "sql in mode $mode"
  grep -qF "A$(printf '\357\277\275')B$(printf '\357\277\275\357\277\275')" out.sql || fail "sql in mode $mode: no U+FFFD"
done
# Statements without columns print nothing and read nothing out of bounds.
for mode in tree table csv; do
  "$CCTQ" cpi.sqlite -c "mode $mode; sql BEGIN; sql PRAGMA cache_size=10; sql COMMIT" >out.zero
  [ ! -s out.zero ] || { od -c out.zero; fail "sql without columns printed something in mode $mode"; }
done
echo ok
