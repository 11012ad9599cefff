#!/bin/bash
# Damaged archives (issue 13 item 6): one page of a real archive overwritten
# with garbage, page by page over the tables and indexes the views read.  Each
# view either reads around the page and prints exactly what it prints on the
# intact archive (exit 0), or fails with one error line naming the archive and
# SQLite's "database disk image is malformed" (and the damaged table and its first problem
# when SQLite's integrity check found it) and prints nothing (exit 1, or 2
# when the page is one that opening the archive reads): never a partial view,
# never "(no rows)".  Every command must meet the damage at least once.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
psize=$(sqlite3 "$a" 'PRAGMA page_size')
pages=$(sqlite3 "$a" "SELECT pageno FROM dbstat WHERE name IN ('context', 'value', 'scope_total', 'function',
                      'function_by_name', 'context_by_id', 'context_frame_level', 'context_by_function')
                      ORDER BY pageno")
set -- 'flat 100' 'flat tree 30' 'topdown 30' 'center PMPI_Allgather' 'center PMPI_Allgather; bottomup 30' \
  'center main; topdown 5' 'center PMPI_Allgather; source'
i=0
for cmd in "$@"; do
  i=$((i + 1))
  "$CCTQ" "$a" -c "$cmd" >"$t/want.$i" 2>&1 || { echo "FAIL intact archive: $cmd"; cat "$t/want.$i"; exit 1; }
  echo 0 >"$t/failed.$i"
done
cp "$a" "$t/clean"
for pg in $pages; do
  cp "$t/clean" "$a"
  head -c "$psize" /dev/zero | tr '\0' '\377' | dd of="$a" bs="$psize" seek=$((pg - 1)) conv=notrunc status=none
  i=0
  for cmd in "$@"; do
    i=$((i + 1))
    st=0
    "$CCTQ" --bail "$a" -c "$cmd" >"$t/out" 2>"$t/err" || st=$?
    if [ "$st" = 0 ]; then
      [ ! -s "$t/err" ] && cmp -s "$t/out" "$t/want.$i" ||
        { echo "FAIL page $pg, '$cmd': exit 0 with a different answer:"; head -5 "$t/out" "$t/err"; exit 1; }
      continue
    fi
    { [ "$st" = 1 ] || [ "$st" = 2 ]; } && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" = 1 ] &&
      grep -Eq "^cctq: error: .*'$a'.*database disk image is malformed( \(.*\))?$" "$t/err" ||
      { echo "FAIL page $pg, '$cmd': exit $st:"; head -5 "$t/out" "$t/err"; exit 1; }
    echo 1 >"$t/failed.$i" # exit 1, or 2 when opening found it (the tables of names are checked then)
  done
done
i=0
for cmd in "$@"; do
  i=$((i + 1))
  [ "$(cat "$t/failed.$i")" = 1 ] || { echo "FAIL '$cmd' never met a damaged page (test too weak)"; exit 1; }
done
echo "ok damaged archive: $(echo "$pages" | wc -l) pages x $# commands, each an error or the intact answer"
