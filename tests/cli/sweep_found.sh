#!/bin/bash
# Defects scripts/sweep (the mutation sweep, README "Reliability") found, one
# check each, on damage made here the way the sweep made it.
# 1. An append into an archive whose 'run' table root page holds a copy of
#    another page failed with "cannot write run: database disk image is
#    malformed": no archive named.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"

# 1. the run table's root page overwritten by the page after it
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" a.sqlite
root=$(sqlite3 a.sqlite "SELECT rootpage FROM sqlite_master WHERE name = 'run'")
size=$(sqlite3 a.sqlite "PRAGMA page_size")
python3 - a.sqlite "$root" "$size" <<'PY'
import sys
path, root, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    f.seek(root * size)  # the next page
    page = f.read(size)
    f.seek((root - 1) * size)
    f.write(page)
PY
cp a.sqlite before.sqlite
st=0; "$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-small_v4.0" a.sqlite 2>err || st=$?
[ "$st" = 1 ] || fail "append into a damaged run table: exit $st"
[ "$(grep -c . err)" = 1 ] && grep -q "^cctingest: error: .*'a.sqlite'.*database disk image is malformed" err ||
  fail "append into a damaged run table: $(cat err)"
cmp -s a.sqlite before.sqlite || fail "the failed append changed the archive"
echo "ok sweep findings"
