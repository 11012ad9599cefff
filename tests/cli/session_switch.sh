#!/bin/bash
# A failed 'run N' or 'open FILE' leaves the session as it was (issue 13 item
# 4): run 1 of the archive has lost its root context (run.root points nowhere),
# so switching to it fails; the views after it must be those of the session
# before the attempt (run 2, the same center), as printed by a session that
# never tried, and nothing may crash.  The views run after the failure with
# --keep-going (a script stops at its first error otherwise).  Before the fix the switch left the
# session half-switched and 'flat' dereferenced NULL.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
sqlite3 "$a" "UPDATE run SET root = -5 WHERE run = 1"
cp "$a" "$t/bad.sqlite"
sqlite3 "$t/bad.sqlite" "UPDATE run SET root = -5"

views='flat 3; topdown 2; center; bottomup 2; source; run'
"$CCTQ" "$a" -c "center main; $views" >"$t/want" 2>&1 || { echo "FAIL reference session"; cat "$t/want"; exit 1; }
grep -q '^2$' "$t/want" || { echo "FAIL reference session is not on run 2"; exit 1; }

for switch in 'run 1' "open $t/bad.sqlite" 'run 1; run 1' "run 7; open $t/missing.sqlite"; do
  st=0
  "$CCTQ" --keep-going "$a" -c "center main; $switch; $views" >"$t/out" 2>"$t/err" || st=$?
  [ "$st" = 1 ] || { echo "FAIL '$switch': exit $st (want 1)"; cat "$t/err"; exit 1; }
  cmp -s "$t/out" "$t/want" || { echo "FAIL '$switch': the session changed:"; diff "$t/want" "$t/out" | head; exit 1; }
  grep -q "^cctq: error: " "$t/err" && ! grep -qv "^cctq: error: " "$t/err" ||
    { echo "FAIL '$switch': errors"; cat "$t/err"; exit 1; }
done
[ "$("$CCTQ" "$a" -c 'run 1' 2>&1)" = "cctq: error: run 1 has no root context" ] || { echo "FAIL message of 'run 1'"; exit 1; }
# A diff against the broken run fails the same way and keeps the session.
st=0
"$CCTQ" --keep-going "$a" -c "center main; topdown 2; diff 1; $views" >"$t/out" 2>"$t/err" || st=$?
"$CCTQ" "$a" -c "center main; topdown 2; $views" >"$t/want2" 2>&1
[ "$st" = 1 ] && cmp -s "$t/out" "$t/want2" || { echo "FAIL diff 1: exit $st"; diff "$t/want2" "$t/out" | head; exit 1; }
echo "ok session switch: a failed run/open/diff leaves the session as it was"
