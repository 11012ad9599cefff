#!/bin/bash
# The packed tree image (issue 23, common/cct_tree.h): every ingested run has one,
# of as many nodes as contexts; an archive of schema version 4 (no images) is
# refused with a message naming 'cctingest --reindex', which adds them and gives
# the same views; a damaged image is one error naming the archive, never a view,
# never a crash.
set -euo pipefail
command -v sqlite3 >/dev/null 2>&1 || { echo "skip: no sqlite3"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
"$CCTINGEST" --quiet "$CCT_DATA/handmade-recursion" "$a"
# one image per run, its node count the run's contexts, the header's magic first
got=$(sqlite3 "$a" "SELECT group_concat(r.run || ':' || (i.nodes = r.contexts) || ':' || hex(substr(i.data, 1, 7)), ' ')
                    FROM run r JOIN tree_image i ON i.run = r.run")
[ "$got" = "1:1:43435454524545 2:1:43435454524545" ] || { echo "FAIL images: $got"; exit 1; }
views='center PMPI_Allgather; bottomup 4; topdown 3; granularity line; topdown 4; flat 5'
"$CCTQ" "$a" -c "run 1; $views; run 2; center main; topdown 9" >"$t/want" 2>&1
# an archive of an older cctq: no images, version 4
cp "$a" "$t/old.sqlite"
sqlite3 "$t/old.sqlite" "DROP TABLE tree_image; PRAGMA user_version = 4;"
st=0; "$CCTQ" "$t/old.sqlite" -c 'flat 1' >"$t/out" 2>"$t/err" || st=$?
[ "$st" != 0 ] && [ ! -s "$t/out" ] && grep -q "cctingest --reindex $t/old.sqlite" "$t/err" ||
  { echo "FAIL version 4 archive: exit $st"; cat "$t/out" "$t/err"; exit 1; }
"$CCTINGEST" --reindex "$t/old.sqlite" 2>"$t/err" || { echo "FAIL reindex"; cat "$t/err"; exit 1; }
[ "$(sqlite3 "$t/old.sqlite" 'PRAGMA user_version; SELECT count(*) FROM tree_image')" = "5
2" ] || { echo "FAIL reindex: no images"; exit 1; }
"$CCTQ" "$t/old.sqlite" -c "run 1; $views; run 2; center main; topdown 9" >"$t/got" 2>&1
cmp -s "$t/want" "$t/got" || { echo "FAIL reindexed archive answers differently"; diff "$t/want" "$t/got" | head; exit 1; }
# damaged images of run 1 (osu-allgather): header, size, the parent, last, kind arrays and a
# value (each caught by the checksum; tests/unit/test_tree.c breaks each invariant itself)
n=$(sqlite3 "$a" "SELECT nodes FROM tree_image WHERE run = 1")   # 40-byte header, then the arrays
par=$((40 + 40 * n))           # the parent array (after id, offset, incl, excl, lex)
pad4=$(( (4 * n + 7) / 8 * 8 ))
last=$((par + pad4))
kind=$((par + 15 * pad4))      # after the 15 int32 arrays
damage() { # $1: SQL expression of the new data, $2: what
  cp "$a" "$t/d.sqlite"
  sqlite3 "$t/d.sqlite" "UPDATE tree_image SET data = $1 WHERE run = 1"
  st=0; "$CCTQ" --bail "$t/d.sqlite" -c 'run 1; center PMPI_Allgather; topdown 3' >"$t/out" 2>"$t/err" || st=$?
  [ -n "${VERBOSE:-}" ] && cat "$t/err"
  if [ "$st" = 0 ] || [ -s "$t/out" ] || [ "$st" -gt 2 ] || [ "$(wc -l <"$t/err")" != 1 ] ||
     ! grep -q "^cctq: error: '$t/d.sqlite'.*tree image of run 1" "$t/err"; then
    echo "FAIL damaged image ($2): exit $st"; cat "$t/out" "$t/err"; exit 1
  fi
}
patch() { echo "substr(data, 1, $1) || X'$2' || substr(data, $1 + 1 + length(X'$2'))"; }
damage "X'00'" "one byte"
damage "substr(data, 1, length(data) - 8)" "truncated"
damage "$(patch 0 4e4f5452)" "magic"
damage "$(patch 8 07000000)" "version"
damage "$(patch 12 ffffff7f)" "node count"
damage "$(patch $((par + 8)) 05000000)" "a parent after its child"
damage "$(patch $((par + 4 * (n - 1))) 00000000)" "the last node moved under the root"
damage "$(patch $((last + 4)) 00000000)" "a subtree ending before its node"
damage "$(patch $((last)) 00000100)" "the root's subtree past the end"
damage "$(patch $((kind + 3)) 09)" "a kind out of range"
damage "$(patch $((40 + 16 * n + 8)) 0000000000002440)" "a value (the checksum)"
# the image is read on first use: listing runs and metrics and SQL never read it, even when
# the run the shell opens on (the last, 2) has a damaged one; its first view says so
cp "$a" "$t/d.sqlite"
sqlite3 "$t/d.sqlite" "UPDATE tree_image SET data = X'00' WHERE run = 2"
"$CCTQ" --bail "$t/d.sqlite" -c 'runs; metrics; sql SELECT count(*) FROM run' >"$t/out" 2>"$t/err" ||
  { echo "FAIL runs, metrics, sql read the damaged image"; cat "$t/err"; exit 1; }
[ ! -s "$t/err" ] && grep -q "handmade-recursion" "$t/out" || { echo "FAIL lazy image: output"; cat "$t/out" "$t/err"; exit 1; }
st=0; "$CCTQ" --bail "$t/d.sqlite" -c 'runs; topdown 2' >"$t/out" 2>"$t/err" || st=$?
[ "$st" != 0 ] && [ "$(wc -l <"$t/err")" = 1 ] && grep -q "^cctq: error: '$t/d.sqlite'.*tree image of run 2" "$t/err" ||
  { echo "FAIL lazy image: the first view does not refuse the damaged image (exit $st)"; cat "$t/err"; exit 1; }
st=0; "$CCTQ" --bail "$t/d.sqlite" -c 'filter hide main' >"$t/out" 2>"$t/err" || st=$?
[ "$st" != 0 ] && grep -q "tree image of run 2" "$t/err" || { echo "FAIL lazy image: a filter"; cat "$t/err"; exit 1; }
cp "$a" "$t/d.sqlite"
sqlite3 "$t/d.sqlite" "DELETE FROM tree_image WHERE run = 1"
st=0; "$CCTQ" "$t/d.sqlite" -c 'run 1; flat 1' >"$t/out" 2>"$t/err" || st=$?
[ "$st" != 0 ] && grep -q "'$t/d.sqlite': no tree image of run 1" "$t/err" || { echo "FAIL missing image"; cat "$t/err"; exit 1; }
echo "ok tree images: one per run, --reindex, damaged images refused"
