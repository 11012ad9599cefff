#!/bin/bash
# Concurrent ingests into one new archive lose no run (issue 26 item 2): six
# cctingest runs with different databases into one not-yet-existing archive
# all succeed and the archive ends with six runs, one per database (each
# renamed its temporary over the others' and the archive kept one run).  A
# publication never replaces an archive that appeared meanwhile; the ingest
# appends its run to it instead.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fails=0
set -- v4-hpctoolkit-small_v4.0 v4-hatchet-cpi v4-hpcviewer-loop-fork-cycles v4-pipit-ping-pong \
  classic-hatchet-cpi classic-callflow-lulesh
for round in 1 2 3; do
  rm -f "$t/new.sqlite"
  pids=""
  for d in "$@"; do
    "$CCTINGEST" --quiet "$CCT_DATA/$d" "$t/new.sqlite" >"$t/out.$d" 2>&1 &
    pids="$pids $!"
  done
  bad=0
  for p in $pids; do wait "$p" || bad=$((bad + 1)); done
  [ "$bad" -eq 0 ] || { echo "FAIL round $round: $bad ingests failed:"; cat "$t"/out.*; fails=$((fails + 1)); }
  runs=$(sqlite3 "$t/new.sqlite" "SELECT count(*) FROM runs")
  titles=$(sqlite3 "$t/new.sqlite" "SELECT count(DISTINCT title) FROM runs")
  [ "$runs" = 6 ] && [ "$titles" = 6 ] || { echo "FAIL round $round: $runs runs, $titles titles (want 6, 6)"; fails=$((fails + 1)); }
  ls "$t" | grep -q '\.tmp' && { echo "FAIL round $round: temporaries left: $(ls "$t")"; fails=$((fails + 1)); }
  echo "round $round: $runs runs"
done
[ "$fails" -eq 0 ]
