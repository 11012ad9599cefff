#!/bin/bash
# 'timer on|off' (SPEC 6): after each command, one line on standard output as
# sqlite3's '.timer' prints it, 'Run Time: real R user U sys S' (seconds: wall
# clock, CPU time of cctq in user and system mode).  Checked: off by default;
# one line after each command while on, failed commands included, none for
# 'timer on' and 'timer off' themselves; a CPU-bound command's figures are
# plausible against the wall clock of the whole process measured outside.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$a"
fail() { echo "FAIL: $*"; exit 1; }

"$CCTQ" "$a" -c 'timer; flat 1' >"$t/off"
[ "$(sed -n 1p "$t/off")" = off ] || fail "timer is not off by default"
grep -q '^Run Time' "$t/off" && fail "timer off printed a time"

st=0
"$CCTQ" --keep-going "$a" -c 'timer on; timer; mode csv; flat 1; bogus; timer off; flat 1; timer' >"$t/on" 2>/dev/null || st=$?
[ "$st" = 1 ] || fail "exit $st, want 1 (bogus failed)"
# timer on: nothing; timer -> on + time; mode: time; flat 1: 2 rows + time;
# bogus: time; timer off: nothing; flat 1: 2 rows; timer: off.
python3 - "$t/on" <<'PY' || fail "the lines with timer on"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
kinds = ["T" if re.fullmatch(r"Run Time: real \d+\.\d{3} user \d+\.\d{6} sys \d+\.\d{6}", l) else l.split(",")[0]
         for l in lines]
want = ["on", "T", "T", "handle", "1", "T", "T", "handle", "1", "off"]
assert kinds == want, (kinds, lines)
PY

# A CPU-bound command: real and user time near what the process took.
sql="sql WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c"
t0=$(date +%s%N)
"$CCTQ" "$a" -c "timer on; $sql" >"$t/cpu"
t1=$(date +%s%N)
python3 - "$t/cpu" "$(( (t1 - t0) / 1000 ))" <<'PY' || fail "figures of a CPU-bound command: $(cat "$t/cpu")"
import re, sys
out = open(sys.argv[1]).read()
assert "2000000" in out, out
real, user, sys_ = map(float, re.search(r"Run Time: real (\S+) user (\S+) sys (\S+)", out).groups())
wall = int(sys.argv[2]) / 1e6  # the whole process, measured outside
assert 0.05 < real <= wall, (real, wall)
assert 0.02 < user + sys_ <= real * 1.1 + 0.02, (user, sys_, real)
PY

st=0
"$CCTQ" "$a" -c 'timer maybe' 2>"$t/err" || st=$?
[ "$st" = 1 ] && grep -q "maybe" "$t/err" || fail "timer maybe: exit $st, $(cat "$t/err")"
echo "ok timer: one sqlite3-style line after each command while on"
