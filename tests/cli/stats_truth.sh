#!/bin/bash
# cctq 'stats' as a user reads it (issue 11 point 5), on real samples: a run
# without per-profile data says so; gauss' metric-db files (54.5 M of 894 M)
# are said to cover part of the run; 'stats by rank,thread' / 'by thread' list the
# profiles in that order (gauss' files are 1.gauss_mpi-00000R-00T-...: ranks 0
# and 1, threads 0 and 1); CPU threads and GPU streams are shown apart
# (loops-cuda-nvidia-t.d: one of each); a bad order is a usage error.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$t/lulesh.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hpcviewer-gauss" "$t/gauss.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d" "$t/cuda.sqlite"

"$CCTQ" "$t/lulesh.sqlite" -c stats >"$t/out"
grep -q "^note: run 1 has no per-profile data" "$t/out" || { cat "$t/out"; fail "lulesh: no 'no per-profile data' note"; }
! grep -q "^  sum " "$t/out" || fail "lulesh: figures printed without data"

"$CCTQ" "$t/gauss.sqlite" -c "stats by rank,thread" >"$t/out"
grep -q "^note: the 4 profiles add up to 5.446e+07 of the program's 8.941e+08" "$t/out" ||
  { cat "$t/out"; fail "gauss: no partial-coverage note"; }
sed -n '/^profiles by rank, thread:/,/^histogram/p' "$t/out" | grep -o 'rank [0-9]* thread [0-9]*' >"$t/order"
printf 'rank 0 thread 0\nrank 0 thread 1\nrank 1 thread 0\nrank 1 thread 1\n' | diff - "$t/order" || fail "gauss: order by rank"
"$CCTQ" "$t/gauss.sqlite" -c "stats by thread" | sed -n '/^profiles by thread:/,/^histogram/p' |
  grep -o 'rank [0-9]* thread [0-9]*' >"$t/order"
printf 'rank 0 thread 0\nrank 1 thread 0\nrank 0 thread 1\nrank 1 thread 1\n' | diff - "$t/order" || fail "gauss: order by thread"

"$CCTQ" "$t/cuda.sqlite" -c "stats 2" >"$t/out"
grep -q "^CPU threads (1):" "$t/out" && grep -q "^GPU streams (1):" "$t/out" || { cat "$t/out"; fail "cuda: kinds not apart"; }

if "$CCTQ" "$t/gauss.sqlite" -c "stats by node" 2>"$t/err"; then fail "'stats by node' accepted"; else rc=$?; fi
[ "$rc" = 1 ] || fail "'stats by node' exit $rc (a command that failed)"
grep -q "unknown order 'node'" "$t/err" || { cat "$t/err"; fail "'stats by node' message"; }
echo ok
