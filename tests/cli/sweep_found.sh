#!/bin/bash
# Defects scripts/sweep (the mutation sweep, README "Reliability") found, one
# check each, on damage made here the way the sweep made it.
# 1. An append into an archive whose 'run' table root page holds a copy of
#    another page failed with "cannot write run: database disk image is
#    malformed": no archive named.
# 2. Damage SQLite's cell checks do not see gave wrong views with status 0: a
#    page of the function table swapped with another page listed numbers as
#    function names (here, module paths); a 200-byte run inside a scope_total leaf made 'flat 0' lose
#    rows.  The tables of names are checked at open, scope_total before its
#    first read (SQLite's integrity_check of the table): an error naming the
#    archive and the table.
# 3. A damaged page under 'sql' and corrupt per-profile values under 'stats'
#    were errors without the archive's name.
# 4. A classic experiment.xml declaring a <File> (or <LoadModule>) id twice:
#    "file id 3 declared twice", no file named.
# 5. A v4 meta.db whose line field reads past the tree's range: "run 1: the
#    context tree is inconsistent: node 67: a field out of range", no file named.
# 6. A hand-edited trace_run row (a span shorter than the records): "damaged
#    trace records of run 1", no archive named.
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

# 2a. the function table's first leaf holds a copy of the module table's: module paths
# as function names
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" l.sqlite
"$CCTQ" l.sqlite -c 'flat 0' >want.txt
damage() { # damage FILE PAGE OFFSET BYTES: BYTES bytes of a fixed pattern at OFFSET of PAGE (an index leaf: FROM)
  python3 - "$@" <<'PY'
import sys
path, page, off, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "r+b") as f:
    f.seek((page - 1) * 4096 + off)
    f.write(bytes((i * 37 + 11) % 256 for i in range(n)))
PY
}
leaf() { sqlite3 "$1" "SELECT pageno FROM dbstat WHERE name = '$2' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET $3"; }
[ "$(sqlite3 l.sqlite 'PRAGMA page_size')" = 4096 ] || fail "setup: page size"
cp l.sqlite f.sqlite
fpage=$(leaf f.sqlite function 0); cpage=$(leaf f.sqlite module 0)
python3 - f.sqlite "$cpage" "$fpage" <<'PY'
import sys
path, src, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    f.seek((src - 1) * 4096); page = f.read(4096)
    f.seek((dst - 1) * 4096); f.write(page)
PY
sqlite3 f.sqlite "PRAGMA cell_size_check = ON; PRAGMA quick_check" >qc.txt 2>&1 || true
[ "$(cat qc.txt)" = ok ] || fail "setup: the swapped page is one cell checks see: $(head -c 200 qc.txt)"
st=0; "$CCTQ" f.sqlite -c 'flat 0' >out.txt 2>err || st=$?
[ "$st" = 2 ] && [ ! -s out.txt ] && [ "$(grep -c . err)" = 1 ] &&
  grep -q "^cctq: error: '.*/f.sqlite': database disk image is malformed (function: " err ||
  fail "a function page swapped: exit $st, $(grep -c . out.txt) lines, $(cat err)"

# 2b. 200 bytes inside a scope_total leaf, past its cell pointers: flat lost rows
found=0
for off in 1000 2000 3000; do
  cp l.sqlite s.sqlite
  damage s.sqlite "$(leaf s.sqlite scope_total 0)" "$off" 200
  sqlite3 s.sqlite "PRAGMA cell_size_check = ON; SELECT count(*) FROM scope_total" >/dev/null 2>&1 || continue
  sqlite3 s.sqlite "PRAGMA integrity_check(scope_total)" >ic.txt 2>&1 || true
  [ "$(cat ic.txt)" != ok ] || continue
  found=$((found + 1))
  st=0; "$CCTQ" s.sqlite -c 'flat 0' >out.txt 2>err || st=$?
  [ "$st" = 1 ] && [ ! -s out.txt ] && [ "$(grep -c . err)" = 1 ] &&
    grep -q "^cctq: error: '.*/s.sqlite': database disk image is malformed (scope_total: " err ||
    fail "scope_total damaged at $off: exit $st, $(grep -c . out.txt) of $(grep -c . want.txt) lines, $(cat err)"
done
[ "$found" -gt 0 ] || fail "setup: no offset damaged scope_total past the cell checks"
# the intact archive: the same flat as before the checks
"$CCTQ" l.sqlite -c 'flat 0' >out.txt && cmp -s out.txt want.txt || fail "the intact archive's flat changed"

# 3. damage under 'sql', corrupt per-profile values under 'stats': the archive named
cp l.sqlite q.sqlite
damage q.sqlite "$(leaf q.sqlite context 2)" 0 100
st=0; "$CCTQ" q.sqlite -c 'sql SELECT count(*) FROM contexts' >/dev/null 2>err || st=$?
[ "$st" = 1 ] && grep -q "^cctq: error: '.*/q.sqlite': database disk image is malformed in 'sql'$" err ||
  fail "'sql' on a damaged page: exit $st, $(cat err)"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" p.sqlite
sqlite3 p.sqlite "UPDATE profile_value SET data = x'28b52ffd0000' WHERE profile = 1"
st=0; "$CCTQ" p.sqlite -c 'stats' >/dev/null 2>err || st=$?
[ "$st" = 1 ] && grep -q "^cctq: error: '.*/p.sqlite': per-profile values of profile [0-9]* are corrupt$" err ||
  fail "'stats' on corrupt per-profile values: exit $st, $(cat err)"

# 4. a <File> element twice in experiment.xml: the file and its line named
cp -r "$CCT_DATA/classic-hatchet-cpi" twice
python3 - twice/experiment.xml <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"<File [^>]*>", s)
open(sys.argv[1], "w").write(s[:m.end()] + m.group(0) + s[m.end():])
PY
st=0; "$CCTINGEST" --quiet twice n.sqlite 2>err || st=$?
[ "$st" = 1 ] && [ ! -e n.sqlite ] && [ "$(grep -c . err)" = 1 ] &&
  grep -q "^cctingest: error: 'twice/experiment.xml' line [0-9]*: file id [0-9]* declared twice$" err ||
  fail "a File declared twice: exit $st, $(cat err)"
echo "ok sweep findings"

# 5. a line context of v4-hpcviewer-inline.meta.db given line 0xfffffff0
mkdir db5
cp "$CCT_DATA/v4-hpcviewer-inline.meta.db"/* db5/
python3 - db5/meta.db "$CCT_SRC/tests/cli" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[2])
from v4read import u8, u16, u64
m = bytearray(open(sys.argv[1], "rb").read())
cp = u64(m, 0x18 + 16 * 3)  # the context tree section
pep, nep, szep = u64(m, cp), u16(m, cp + 8), u8(m, cp + 0x0a)
todo = [(u64(m, pep + i * szep + 8), u64(m, pep + i * szep)) for i in range(nep)]
while todo:
    q, size = todo.pop()
    end = q + size
    while q < end:
        if m[q + 0x16] == 2 and m[q + 0x14] == 2:  # a line context with a file and line only
            struct.pack_into("<I", m, q + 0x28, 0xFFFFFFF0)
            open(sys.argv[1], "wb").write(m)
            sys.exit(0)
        if u64(m, q): todo.append((u64(m, q + 8), u64(m, q)))
        q += 0x20 + 8 * m[q + 0x17]
sys.exit("no line context")
PY
st=0; "$CCTINGEST" --quiet db5 a5.sqlite 2>err || st=$?
[ "$st" = 1 ] && [ ! -e a5.sqlite ] || fail "a damaged meta.db tree: exit $st"
[ "$(grep -c . err)" = 1 ] && grep -q "^cctingest: error: 'db5/meta.db': .*context tree is inconsistent" err ||
  fail "a damaged meta.db tree: $(cat err)"

# 6. trace_run's span cut to 1 us: the records run past it
mkdir db6
for f in "$CCT_DATA/v4-hpcviewer-loop-fork-cycles"/* "$CCT_DATA/traces/v4-hpcviewer-loop-fork-cycles"/*; do ln -s "$f" db6/; done
"$CCTINGEST" --quiet db6 a6.sqlite
sqlite3 a6.sqlite "UPDATE trace_run SET span = 1000"
st=0; "$CCTQ" a6.sqlite -c "center main; timeline 1" >out 2>err || st=$?
[ "$st" = 1 ] || fail "damaged trace records: exit $st"
[ "$(grep -c . err)" = 1 ] && grep -q "^cctq: error: '[^']*a6.sqlite': damaged trace records of run 1" err ||
  fail "damaged trace records: $(cat err)"
echo "ok: a damaged meta.db tree and damaged trace records name their file"
