#!/bin/bash
# Stats text and picture give one set of figures per kind of profile (issue 25
# item 4): on hpcviewer's derived-metrics database (36 CPU threads, 4 GPU
# streams) 'stats' and 'export s.svg' both give the CPU threads' and the GPU
# streams' imbalance as an independent reader of profile.db works them out
# (the picture gave one imbalance pooled over all 40 profiles, 1.409, where
# the text said 1.268 for the threads).  A run without per-profile data says
# so instead of "over 0 profiles", in both.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
db="$CCT_DATA/v4-hpcviewer-derived-metrics.db"
"$CCTINGEST" --quiet "$db" "$t/a.sqlite"
cd "$t"
python3 "$CCT_SRC/tests/cli/v4read.py" "$db" imbalance 'GPUOP (sec)' >want
[ "$(wc -l <want)" = 2 ] || fail "the database has not both kinds: $(cat want)"
"$CCTQ" a.sqlite -c "metric 'GPUOP (sec)'; stats; export s.svg" >text
# text: 'CPU threads (36):' ... 'imbalance  1.268 (max / mean)', then the GPU streams'
# (issue 27 item 7: a kind whose every profile is zero, the GPU streams here, says
# 'all zero' instead of figures of zeros, 'imbalance 0.000' and ten bins of '0 .. 0';
# the reader's imbalance of an all-zero kind is 0.000)
awk '/^CPU threads \(/ { k = "cpu" } /^GPU streams \(/ { k = "gpu" }
     /^CPU threads \(|^GPU streams \(/ { n = $3; gsub(/[():]/, "", n) }
     $1 == "imbalance" { print k, n, $2 } $1 == "all" && $2 == "zero" { print k, n, "0.000" }' text >got_text
# picture: one figures line per kind, data-kind="cpu" / "gpu"
sed -n -e 's/.*data-kind="\([a-z]*\)"[^>]*>[A-Za-z ]* (\([0-9]*\)):.*imbalance \([0-9.]*\) .*/\1 \2 \3/p' \
  -e 's/.*data-kind="\([a-z]*\)"[^>]*>[A-Za-z ]* (\([0-9]*\)): all zero<.*/\1 \2 0.000/p' s.svg >got_svg
cmp -s want got_text || { fail "text figures:"; cat got_text; echo "want:"; cat want; }
cmp -s want got_svg || { fail "picture figures:"; cat got_svg; echo "want:"; cat want; }
[ "$(grep -c 'data-kind=' s.svg)" = 2 ] || fail "the picture has figures other than the two kinds'"
! grep -q 'imbalance 0\.000\|0 \.\. 0 ' text s.svg || fail "an all-zero kind still has figures or bins of zeros"
[ "$(grep -c '^  histogram' text)" = 1 ] || fail "not one histogram (the CPU threads'): $(grep -c '^  histogram' text)"
# one bar per profile, each kind's own
[ "$(grep -c 'class="bar"' s.svg)" = 40 ] || fail "bars: $(grep -c 'class="bar"' s.svg)"

# no per-profile data (LULESH: summary values only)
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" l.sqlite
"$CCTQ" l.sqlite -c "center main; stats; export l.svg" >ltext
grep -q "inclusive of 'main': no per-profile data$" ltext || { fail "text without profiles:"; cat ltext; }
! grep -q 'over 0 profiles' ltext l.svg || fail "'over 0 profiles' printed"
grep -q 'inclusive of main: no per-profile data</text>' l.svg || fail "picture without profiles"
[ "$fails" -eq 0 ] || exit 1
echo ok
