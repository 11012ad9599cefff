#!/bin/bash
# Messages that used to mislead (issue 12 item 9), on real samples: an
# HPCToolkit database given to cctq, a FILE:LINE center naming the wrong kind of
# line, the quotes of the stats header, and the elided-context-ids note.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. cctq on a database directory (v4 and classic) or on one of its files:
#    say what it is and give the cctingest command, exit 2
v4="$CCT_DATA/v4-hpctoolkit-tests-dbase/small.d"
for arg in "$v4" "$v4/" "$v4/meta.db"; do
  if "$CCTQ" "$arg" -c flat >"$t/out" 2>"$t/err"; then fail "cctq accepted '$arg'"; else rc=$?; fi
  [ "$rc" = 2 ] || fail "exit $rc for '$arg'"
  grep -q "is .*an HPCToolkit database, not a cctq archive" "$t/err" || { cat "$t/err"; fail "no hint for '$arg'"; }
  grep -qF "cctingest $v4 small.sqlite" "$t/err" || { cat "$t/err"; fail "no cctingest command for '$arg'"; }
  ! grep -q "disk I/O" "$t/err" || fail "disk I/O error for '$arg'"
done
classic="$CCT_DATA/classic-hatchet-cpi"
"$CCTQ" "$classic" -c flat 2>"$t/err" && fail "cctq accepted a classic database directory"
grep -qF "cctingest $classic classic-hatchet-cpi.sqlite" "$t/err" || { cat "$t/err"; fail "classic directory"; }
echo "ok database directories"

# 2. center loop FILE:LINE / FILE:LINE on a line that is something else: never
#    suggest the rejected item, say what is there.  Expected facts by plain SQL.
a="$t/lulesh.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$a"
q() { sqlite3 "$a" "$1"; }
# a source line (no call below it) that is no loop header and no function's line
line=$(q "SELECT c.line FROM contexts c WHERE c.kind = 'line' AND c.file LIKE '%/lulesh.cc'
          AND NOT EXISTS (SELECT 1 FROM contexts k WHERE k.run = c.run AND k.parent = c.id)
          AND c.line NOT IN (SELECT line FROM contexts WHERE kind = 'loop' AND file LIKE '%/lulesh.cc' AND line IS NOT NULL)
          AND c.line NOT IN (SELECT line FROM functions WHERE file LIKE '%/lulesh.cc' AND line IS NOT NULL)
          ORDER BY c.line LIMIT 1")
[ -n "$line" ] || fail "no plain line found by SQL"
"$CCTQ" "$a" -c "center loop lulesh.cc:$line" 2>"$t/err" && fail "loop at a plain line accepted"
cat "$t/err"
grep -q "no loop at 'lulesh.cc:$line'" "$t/err" || fail "message does not name the item"
sed 's/.*did you mean//' "$t/err" | grep -q "lulesh.cc:$line'" && fail "suggests the rejected item lulesh.cc:$line"
grep -q "lulesh.cc:$line is a source line (center lulesh.cc:$line)" "$t/err" || fail "does not say a line is there"
# a call site line (a line context with a call below it)
cline=$(q "SELECT c.line FROM contexts c WHERE c.kind = 'line' AND c.file LIKE '%/lulesh.cc'
           AND EXISTS (SELECT 1 FROM contexts k WHERE k.run = c.run AND k.parent = c.id AND k.relation = 'call')
           AND c.line NOT IN (SELECT line FROM contexts WHERE kind = 'loop' AND file LIKE '%/lulesh.cc' AND line IS NOT NULL)
           ORDER BY c.line LIMIT 1")
"$CCTQ" "$a" -c "center loop lulesh.cc:$cline" 2>"$t/err" && fail "loop at a call site accepted"
grep -q "lulesh.cc:$cline is a call site (center lulesh.cc:$cline)" "$t/err" || { cat "$t/err"; fail "call site"; }
# suggestions for a loop are loop headers (every one listed by SQL as a loop)
for s in $(sed -n "s/.*did you mean //p" "$t/err" | tr -d "'?," | sed 's/loop //g'); do
  l=${s##*:}
  [ "$(q "SELECT count(*) FROM contexts WHERE kind = 'loop' AND file LIKE '%/lulesh.cc' AND line = $l")" -gt 0 ] ||
    fail "suggested $s is no loop header"
done
# a function's definition line with no loop or line context
fline=$(q "SELECT f.line FROM functions f WHERE f.file LIKE '%/lulesh.cc' AND f.line NOT IN
           (SELECT line FROM contexts WHERE file LIKE '%/lulesh.cc' AND line IS NOT NULL AND kind IN ('loop', 'line'))
           ORDER BY f.line LIMIT 1")
fname=$(q "SELECT name FROM functions WHERE file LIKE '%/lulesh.cc' AND line = $fline ORDER BY name LIMIT 1")
"$CCTQ" "$a" -c "center loop lulesh.cc:$fline" 2>"$t/err" && fail "loop at a function line accepted"
cat "$t/err"
grep -qF "function $fname is defined at lulesh.cc:$fline" "$t/err" ||
  grep -qF "function '$fname' is defined at lulesh.cc:$fline" "$t/err" || fail "does not name function $fname"
sed 's/.*did you mean//' "$t/err" | grep -q "lulesh.cc:$fline'" && fail "suggests the rejected item"
# a loop header asked as a line
lline=$(q "SELECT line FROM contexts WHERE kind = 'loop' AND file LIKE '%/lulesh.cc' AND line NOT IN
           (SELECT line FROM contexts WHERE kind = 'line' AND file LIKE '%/lulesh.cc' AND line IS NOT NULL) ORDER BY line LIMIT 1")
"$CCTQ" "$a" -c "center lulesh.cc:$lline" 2>"$t/err" && fail "line at a loop header accepted"
cat "$t/err"
grep -qF "lulesh.cc:$lline is a loop header (center loop lulesh.cc:$lline)" "$t/err" || fail "does not say a loop is there"
echo "ok FILE:LINE messages"

# 3. stats after 'center @N' on a name that needs quotes: quoted once
a="$t/osu.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
"$CCTQ" "$a" -c "center pthread_spin_lock; bottomup 1; center @2; stats 2" | grep "inclusive of" >"$t/out"
cat "$t/out"
grep -q "''" "$t/out" && fail "stats header doubles quotes"
grep -q "inclusive of '<unknown procedure> 0x[0-9a-f]* \[libpsm_infinipath.so.1.16\]' over 20 profiles" "$t/out" ||
  fail "stats header"
"$CCTQ" "$a" -c "center pthread_spin_lock; stats 2" | grep -q "inclusive of 'pthread_spin_lock' over" || fail "plain item"
echo "ok stats header"

# 4. elided context ids (3 in loops-cuda-nvidia-t.d: INVENTORY.md 'hidden 3'): no
#    warning at ingest, a note in cctingest --list and in runs
a="$t/gpu.sqlite"
"$CCTINGEST" "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d" "$a" 2>"$t/err"
grep -q "not in meta.db" "$t/err" && { cat "$t/err"; fail "ingest still warns about elided ids"; }
"$CCTINGEST" --list "$a" >"$t/out"
grep -q "note: 3 context ids of profile.db are not in meta.db" "$t/out" || { cat "$t/out"; fail "--list note"; }
"$CCTQ" "$a" -c "mode csv; runs" >"$t/out"
python3 - "$t/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows and rows[0].get("note", "").startswith("3 context ids have values but no context in the database"), rows
PY
# in tree mode the note is printed below the grid, named by its run (it said 'note on ?')
"$CCTQ" "$a" -c "runs" | grep -q "^note on run 1: 3 context ids have values but no context" || fail "runs note in tree mode"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --list "$a" | grep -c "note:" | grep -qx 1 || fail "a note for a run without elided ids"
echo "ok elided note"
