#!/bin/bash
# The shell's 'filter' command on tests/data/handmade-recursion, whose tree is
#   main (I 100) -> f (60, E 10) -> f (50, 20) -> f (30, 30); main -> a (40, 5) -> b (35, 15) -> a (20, 20)
# (worked by hand from its experiment.xml).  Each block: commands, the expected
# output worked out from that tree, and failure cases with their error line and
# exit status.  Also: every output names the filters, and the SQLite extension
# gives the shell's rows under the same filters.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# filters are computed in memory: $TMPDIR, this test's own, stays empty (checked at the end)
export TMPDIR="$t/tmp"; mkdir "$TMPDIR"
"$CCTINGEST" --quiet "$CCT_DATA/handmade-recursion" "$t/a.sqlite"
fails=0
check() { # check NAME COMMANDS EXPECTED
  got=$("$CCTQ" "$t/a.sqlite" -c "$2" 2>&1) || true
  if [ "$got" != "$3" ]; then printf 'FAIL %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$3" "$got"; fails=$((fails + 1));
  else echo "ok $1"; fi
}
check_error() { # check_error NAME COMMANDS EXPECTED_STDERR EXPECTED_STATUS
  set +e; "$CCTQ" "$t/a.sqlite" -c "$2" >/dev/null 2>"$t/err"; st=$?; set -e
  if [ "$st" != "$4" ] || [ "$(cat "$t/err")" != "$3" ]; then
    printf 'FAIL %s: status %s (expected %s)\n--- expected\n%s\n--- got\n%s\n' "$1" "$st" "$4" "$3" "$(cat "$t/err")"
    fails=$((fails + 1))
  else echo "ok $1"; fi
}

# the list, in order; '- N' removes one; 'reset' all
check list "filter; filter hide f; filter drop b; filter" "(no filters)
1  hide f
2  drop b"
check remove "filter hide f; filter drop b; filter - 1; filter; filter reset; filter" "1  drop b
(no filters)"

# values (mode csv: handle, depth, path, ..., inclusive, exclusive of CPUTIME; every level, no hot path)
rows() { "$CCTQ" "$t/a.sqlite" -c "mode csv; hotpath off; $1" | python3 -c '
import csv, sys
r = list(csv.reader(sys.stdin)); h = r[0]
i = next(k for k, x in enumerate(h) if x.endswith(" inclusive"))
name = h.index("name")
print(" ".join("%s:%s/%s" % (x[name], float(x[i]).__format__("g"), float(x[i + 1]).__format__("g")) for x in r[1:]))'; }
expect_rows() { # NAME COMMANDS EXPECTED
  got=$(rows "$2")
  if [ "$got" != "$3" ]; then printf 'FAIL %s\n expected %s\n got      %s\n' "$1" "$3" "$got"; fails=$((fails + 1)); else echo "ok $1"; fi
}
expect_rows "drop b: a and main lose b's 35" "filter drop b; topdown 2" "<program>:65/0 main:65/0 f:60/10 a:5/5"
expect_rows "hide f: main gets every f's own cost" "filter hide f; topdown 1" "<program>:100/0 main:100/60"
expect_rows "keep b: the path to b, exclusive 0 above it" "filter keep b; topdown 4" \
  "<program>:35/0 main:35/0 a:35/0 b:35/15 a:20/20"
expect_rows "prune a: a's 40 all its own" "filter prune a; center a; topdown 3" "a:40/40"
expect_rows "recursion: f is one row, the inner a folds into the outer" "filter recursion; topdown 3" \
  "<program>:100/0 main:100/0 f:60/60 a:40/25 b:15/15"
expect_rows "flat under keep a: a's contexts and their callers" "filter keep a; flat" \
  "a:40/25 main:40/0 b:35/15"
expect_rows "the center is resolved after the filters" "filter recursion; center f; bottomup 1" "f:60/60 main:60/60"

# every output names the filters
check "tree names them" "filter hide f; filter drop b; topdown 0" "filters: hide f; drop b
     CPUTIME (usec)
     inclusive  exclusive   name
[1]  65 100.0%   0   0.0%   <program>"
"$CCTQ" "$t/a.sqlite" -c "mode json; filter hide f; topdown 1" | grep -q '"filters": \["hide f"\]' &&
  echo "ok json names them" || { echo "FAIL json has no filters member"; fails=$((fails + 1)); }
"$CCTQ" "$t/a.sqlite" -c "filter drop b; topdown 3; export $t/x.svg; export $t/x.json; stats" >"$t/stats"
grep -q 'filters: drop b' "$t/x.svg" && grep -q '"filters": \["drop b"\]' "$t/x.json" && grep -q '^filters: drop b$' "$t/stats" &&
  echo "ok exports and stats name them" || { echo "FAIL an export or stats lacks the filters"; fails=$((fails + 1)); }

# failure cases: one error line, exit 1, nothing changed
check_error "unknown kind" "filter bogus f" \
  "cctq: error: unknown filter 'bogus' for 'filter'; usage: filter [keep|drop|hide|prune ITEM | recursion [ITEM] | - N | reset]" 1
check_error "missing item" "filter hide" \
  "cctq: error: need an ITEM after 'hide' for 'filter'; usage: filter [keep|drop|hide|prune ITEM | recursion [ITEM] | - N | reset]" 1
check_error "no such filter" "filter hide f; filter - 3" "cctq: error: no filter 3 (1 active)" 1
check_error "an item that matches nothing" "filter drop nosuch" "cctq: error: filter drop nosuch: no function 'nosuch' in run 1" 1
check_error "a center gone after the filters" "filter drop b; center b" \
  "cctq: error: no function 'b' in run 1 as filtered ('filter' lists the filters); did you mean 'a', 'f'?" 1
got=$("$CCTQ" "$t/a.sqlite" -c "center b; filter drop a; center" 2>&1 || true)
case "$got" in *"note: the center lost 'b' (no occurrence left in the filtered tree)"*) echo "ok a center losing its item says so";;
  *) echo "FAIL center losing its item: $got"; fails=$((fails + 1));; esac

# the extension under the same filters gives the shell's rows
if [ -n "${CCT_EXT:-}" ]; then
  a=$(sqlite3 -csv "$t/a.sqlite" ".load $CCT_EXT" "SELECT name, inclusive, exclusive FROM cct_topdown(NULL, 3, NULL, NULL, 'hide f; drop b')")
  want='<program>,65.0,0.0
main,65.0,60.0
a,5.0,5.0'
  [ "$a" = "$want" ] && echo "ok extension" || { printf 'FAIL extension\n%s\n' "$a"; fails=$((fails + 1)); }
  if sqlite3 "$t/a.sqlite" ".load $CCT_EXT" "SELECT * FROM cct_flat(5, NULL, NULL, 'bogus x')" 2>"$t/err"; then
    echo "FAIL extension: bad filter accepted"; fails=$((fails + 1))
  else grep -q "unknown filter 'bogus'" "$t/err" && echo "ok extension refuses a bad filter"; fi
fi
# damaged archives (a mutation sweep found a double finalize here): the corpus seed with bytes
# changed in the pages of the tables a filter reads back, 'filter recursion' on each: exit 0
# (the bytes did not matter), 1 or 2, at most one error line, never a crash (under ASan too)
seed="$CCT_SRC/tests/fuzz/corpus/archive/seed-handmade-recursion.sqlite"
pages=$(sqlite3 "$seed" "SELECT group_concat(pageno) FROM dbstat WHERE name IN ('file', 'function', 'module',
                         'metric', 'context', 'value', 'run', 'sqlite_schema')")
python3 - "$seed" "$t" "$pages" <<'PY'
import random, sys
seed = open(sys.argv[1], 'rb').read()
size = 65536 if seed[16:18] == b'\x00\x01' else int.from_bytes(seed[16:18], 'big')
pages = [int(p) for p in sys.argv[3].split(',')]
r = random.Random(1)
for k in range(60):
    d = bytearray(seed)
    for _ in range(r.randint(1, 8)):
        p = r.choice(pages)
        d[(p - 1) * size + r.randrange(100 if p == 1 else 0, size)] = r.randrange(256)
    open('%s/bad%d.sqlite' % (sys.argv[2], k), 'wb').write(d)
PY
bad=0 errors=0
for k in $(seq 0 59); do
  set +e; "$CCTQ" "$t/bad$k.sqlite" -c "filter recursion" >/dev/null 2>"$t/err"; st=$?; set -e
  [ "$st" = 0 ] || errors=$((errors + 1))
  if [ "$st" -gt 2 ] || [ "$(wc -l <"$t/err")" -gt 1 ] || { [ "$st" != 0 ] && ! grep -q '^cctq: error: ' "$t/err"; }; then
    echo "FAIL damaged archive (mutation $k): status $st: $(head -c 300 "$t/err")"; bad=$((bad + 1))
  fi
done
[ "$bad" = 0 ] && echo "ok damaged archives: 60 mutations, $errors refused with one error line, the others harmless" || fails=$((fails + 1))
# no file for a filter: with TMPDIR a directory that does not exist (and none under this
# test's own), every filter kind gives the same rows as with a usable one (issue 23)
for f in "hide f" "drop b" "keep a" "prune a" "recursion"; do
  want=$("$CCTQ" "$t/a.sqlite" -c "filter $f; flat 5; topdown 3; stats")
  set +e; got=$(TMPDIR=/nonexistent/cctq-test "$CCTQ" "$t/a.sqlite" -c "filter $f; flat 5; topdown 3; stats" 2>&1); st=$?; set -e
  if [ "$st" != 0 ] || [ "$got" != "$want" ]; then echo "FAIL TMPDIR missing: filter $f: status $st: $got"; fails=$((fails + 1)); fi
done
echo "ok filters with TMPDIR pointing at no directory"
[ -z "$(ls -A "$TMPDIR")" ] || { echo "FAIL files left in \$TMPDIR: $(ls -A "$TMPDIR")"; fails=$((fails + 1)); }
# a damaged root 'last' in the context table (issue 26 item 6: derive.c sized its arrays
# from it, 'out of memory filtering the run'): filters read the checked tree image
cp "$t/a.sqlite" "$t/last.sqlite"
sqlite3 "$t/last.sqlite" "UPDATE context SET last = 1099511627775 WHERE parent IS NULL"
set +e; got=$("$CCTQ" "$t/last.sqlite" -c "filter hide f; flat 5" 2>&1); st=$?; set -e
if [ "$st" != 0 ] || [ "$got" != "$("$CCTQ" "$t/a.sqlite" -c "filter hide f; flat 5")" ]; then
  echo "FAIL damaged root last: status $st: $got"; fails=$((fails + 1))
else echo "ok a damaged root 'last' does not size a filter"; fi
# corrupt per-profile values under a filter (issue 26 item 7: derive.c leaked the statement):
# one error line naming the damage (the ASan suite's LeakSanitizer sees any leak)
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$t/pv.sqlite" # 20 profiles
sqlite3 "$t/pv.sqlite" "UPDATE profile_value SET data = X'28b52ffd0400' || randomblob(40)"
set +e; "$CCTQ" "$t/pv.sqlite" -c "filter recursion; center main; stats" >/dev/null 2>"$t/err"; st=$?; set -e
if [ "$st" = 0 ] || [ "$(wc -l <"$t/err")" != 1 ] || ! grep -q "^cctq: error: .*corrupt" "$t/err"; then
  echo "FAIL corrupt per-profile values under a filter: status $st: $(cat "$t/err")"; fails=$((fails + 1))
else echo "ok corrupt per-profile values under a filter: $(cat "$t/err")"; fi
[ "$fails" = 0 ]
