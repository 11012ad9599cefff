#!/bin/bash
# A damaged archive page is an error naming the archive, not a wrong view with
# status 0 (issue 26 item 4): 200 bytes overwritten inside the first leaf page of
# scope_total in an archive of LULESH made 'flat 0' list 98 of its 274
# functions and exit 0.  Every archive connection turns on SQLite's cell size
# checks (PRAGMA cell_size_check), the shell's and the SQLite extension's.
set -euo pipefail
. "$CCT_SRC/tests/cli/lib/damage.bash" # $t/a.sqlite, fail, finish
cp "$t/a.sqlite" "$t/bad.sqlite"
page=$(sqlite3 "$t/a.sqlite" "SELECT pageno FROM dbstat WHERE name = 'scope_total' AND pagetype = 'leaf' ORDER BY path LIMIT 1")
size=$(sqlite3 "$t/a.sqlite" "PRAGMA page_size")
python3 - "$t/bad.sqlite" "$page" "$size" <<'PY'
import sys
path, page, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    f.seek((page - 1) * size + 200)  # past the page header, into the cell pointers and cells
    f.write(bytes((i * 37 + 11) % 256 for i in range(200)))
PY
# the damage is real: SQLite with cell checks sees it, without them it reads on
sqlite3 "$t/bad.sqlite" "SELECT count(*) FROM scope_total" >/dev/null || fail "plain SQLite noticed the damage"
! sqlite3 "$t/bad.sqlite" "PRAGMA cell_size_check = ON; SELECT count(*) FROM scope_total" >/dev/null 2>&1 ||
  fail "the damage is not one cell checks see"
"$CCTQ" "$t/a.sqlite" -c "flat 0" >"$t/good" || fail "the intact archive"
for cmd in "flat 0" "flat 5"; do
  if "$CCTQ" "$t/bad.sqlite" -c "$cmd" >"$t/out" 2>"$t/err"; then fail "'$cmd' exited 0 ($(grep -c . "$t/out") lines)"; continue; fi
  grep -q "^cctq: error: '$t/bad.sqlite': database disk image is malformed" "$t/err" || { fail "'$cmd': stderr was:"; cat "$t/err"; }
done
if [ -n "${CCT_EXT:-}" ]; then
  if sqlite3 "$t/bad.sqlite" ".load $CCT_EXT" "SELECT count(*) FROM cct_flat(0)" >"$t/out" 2>"$t/err"; then
    fail "the extension read the damaged page: $(cat "$t/out")"
  fi
  grep -q "malformed" "$t/err" || { fail "extension: stderr was:"; cat "$t/err"; }
fi
finish
