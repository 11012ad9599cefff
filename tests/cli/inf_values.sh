#!/bin/bash
# inf and NaN from a hand-edited archive never reach the views and pictures
# (issue 26 item 5): the reader checks values where it reads them, an error
# naming the archive.  A stored value set to inf (UPDATE value) made
# 'export s.svg' write width="inf" (UBSan: inf outside the range of 'long' in
# svg_frame); an inf in the context table went into the tree image of
# 'cctingest --reindex'.
set -euo pipefail
. "$CCT_SRC/tests/cli/lib/damage.bash" # $t/a.sqlite, fail, finish
cp "$t/a.sqlite" "$t/v.sqlite"
sqlite3 "$t/v.sqlite" "UPDATE value SET inclusive = 9e999; UPDATE scope_total SET inclusive = 9e999"
cd "$t"
for cmd in "flat 3" "center main; topdown 2" "center main; topdown 2; export p.svg" "center main; bottomup 2"; do
  if "$CCTQ" v.sqlite -c "$cmd" >out 2>err; then
    ! grep -qi 'inf\|nan' out || fail "'$cmd' printed inf: $(grep -i 'inf\|nan' out | head -2)"
  else
    grep -q "^cctq: error: '.*v.sqlite': a stored metric value is infinite (the archive is damaged)$" err ||
      { fail "'$cmd': stderr was:"; cat err; }
  fi
done
! grep -qi '="inf\|="nan\|="-inf' p.svg 2>/dev/null || fail "the picture has inf coordinates"
# the tree image is built from checked values: --reindex of a context table with inf refuses it
cp a.sqlite r.sqlite
sqlite3 r.sqlite "UPDATE context SET inclusive = 9e999 WHERE pre = (SELECT min(pre) FROM context WHERE kind = 1);
                  DELETE FROM tree_image; PRAGMA user_version = 4"
if "$CCTINGEST" --reindex r.sqlite 2>err; then fail "--reindex accepted inf"; else
  grep -q "a value is not a finite number" err || { fail "--reindex: stderr was:"; cat err; }
fi
finish
