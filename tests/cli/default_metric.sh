#!/bin/bash
# The default display metric (issue 12 item 1) on every real v4 sample, GPU ones
# included: its program total is non-zero (worked out with plain SQL on the
# public views), it is a time metric where the run has a non-zero one, `flat`
# prints rows, and the extension's cct_flat/cct_topdown take a metric argument.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# program_total ARCHIVE METRIC: the root context's inclusive value of METRIC, by SQL
program_total() {
  sqlite3 "$1" "SELECT coalesce(max(v.inclusive), 0) FROM metrics m
                JOIN contexts c ON c.run = m.run AND c.depth = 0
                LEFT JOIN context_values v ON v.run = c.run AND v.id = c.id AND v.metric = m.metric
                WHERE m.name = '$2'"
}
n=0
for d in "$CCT_DATA"/v4-hpctoolkit-tests-dbase/*.d "$CCT_DATA"/v4-* "$CCT_DATA"/classic-hatchet-cpi; do
  [ -f "$d/meta.db" ] || [ -f "$d/experiment.xml" ] || continue
  a="$t/a.sqlite"; rm -f "$a"
  "$CCTINGEST" --quiet "$d" "$a" 2>/dev/null || continue # refused layouts (v4pre) are not this test's
  m=$("$CCTQ" "$a" -c metric)
  total=$(program_total "$a" "$m")
  python3 -c "import sys; sys.exit(0 if float('$total') != 0 else 1)" ||
    fail "$(basename "$d"): default metric '$m' has a zero program total"
  # a time metric with a non-zero total exists: the default must be one
  timed=$(sqlite3 "$a" "SELECT m.name FROM metrics m JOIN contexts c ON c.run = m.run AND c.depth = 0
                        JOIN context_values v ON v.run = c.run AND v.id = c.id AND v.metric = m.metric
                        WHERE v.inclusive <> 0 AND (m.unit IN ('sec', 'usec', 'us', 'nsec')
                              OR m.name LIKE 'CPUTIME%' OR m.name LIKE 'REALTIME%') LIMIT 1")
  if [ -n "$timed" ]; then
    case "$m" in *"(sec)" | *"(usec)" | *"(us)" | *"(nsec)" | CPUTIME* | REALTIME*) ;;
    *) fail "$(basename "$d"): default '$m' is not a time metric though '$timed' has data" ;; esac
  fi
  "$CCTQ" "$a" -c 'flat 3' >"$t/flat"
  grep -q '^\[1\]' "$t/flat" || { cat "$t/flat"; fail "$(basename "$d"): 'flat 3' prints no rows"; }
  n=$((n + 1))
  echo "ok $(basename "$d"): $m = $total"
done
[ "$n" -ge 8 ] || fail "only $n samples checked"

# GPU samples: CPU time is absent, GPU time wins over earlier counters with data
a="$t/gpu.sqlite"; rm -f "$a"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cuda-nvidiapc-t.d" "$a"
m=$("$CCTQ" "$a" -c metric)
[ "$m" = "GPUOP (sec)" ] || fail "nvidiapc default is '$m', not 'GPUOP (sec)'"

if [ -n "${CCT_EXT:-}" ]; then
  # cct_flat(5) returns rows of the default metric; a metric argument selects another
  rows=$(sqlite3 "$a" ".load $CCT_EXT" "SELECT count(*) FROM cct_flat(5) WHERE metric = 'GPUOP (sec)'")
  [ "$rows" -gt 0 ] || fail "cct_flat(5) returns no rows of the default metric"
  # the extension's flat values for GKER:COUNT against the public flat view
  sqlite3 -csv "$a" ".load $CCT_EXT" \
    "SELECT name, inclusive, exclusive FROM cct_flat(0, NULL, 'GKER:COUNT') WHERE name <> '<program root>' ORDER BY name" >"$t/ext"
  sqlite3 -csv "$a" "SELECT f.name, x.inclusive, x.exclusive FROM flat x JOIN functions f USING (run, function)
                     JOIN metrics m ON m.run = x.run AND m.metric = x.metric AND m.name = 'GKER:COUNT'
                     WHERE x.inclusive <> 0 ORDER BY f.name" >"$t/sql"
  [ -s "$t/sql" ] && cmp -s "$t/ext" "$t/sql" || { diff "$t/ext" "$t/sql" || true; fail "cct_flat with metric 'GKER:COUNT' differs from the flat view"; }
  got=$(sqlite3 "$a" ".load $CCT_EXT" "SELECT DISTINCT metric FROM cct_topdown(NULL, 2, NULL, 'gker (sec)')")
  [ "$got" = "GKER (sec)" ] || fail "cct_topdown metric argument gives '$got'"
  if sqlite3 "$a" ".load $CCT_EXT" "SELECT * FROM cct_flat(5, NULL, 'no_such_metric')" 2>"$t/err"; then
    fail "unknown metric accepted"; fi
  grep -q "no_such_metric" "$t/err" || { cat "$t/err"; fail "error does not name the metric"; }
  echo "ok extension metric argument"
fi

# A run whose every value is zero (hatchet's kripke trace sample: no <M> in the
# XML, metric-db files of zeros) says so instead of printing '(no rows)' alone.
a="$t/kripke.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-kripke-trace" "$a"
for cmd in "flat 3" "topdown 1" "bottomup 1; center main; bottomup 1"; do
  "$CCTQ" "$a" -c "$cmd" >"$t/out" 2>&1 || fail "'$cmd' failed"
  grep -q "^note: every value of 'CPUTIME (usec)' is zero in run 1" "$t/out" || { cat "$t/out"; fail "'$cmd': no zero note"; }
done
"$CCTQ" "$a" -c "mode json; flat 3" | python3 -c "import json,sys; o=json.load(sys.stdin); assert o['rows']==[] and 'is zero' in o['note'], o" \
  || fail "json flat has no zero note"
echo "ok all-zero run noted"
