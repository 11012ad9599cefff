#!/bin/bash
# Trace ingest (SPEC section 5, Time windows): every traced sample of
# tests/data (the trace files are kept apart in tests/data/traces/, so that the
# other tests see the databases as before) is assembled with its profile,
# ingested, and checked against the raw files by an independent Python reader
# (check_traces.py: per-context traced time, inclusive and exclusive, the span
# and every lane).  Then: the hottest function by 'trace (sec)' is the hottest
# by the run's sampled time; damaged traces give one error naming the file and
# no archive; a database without records has no trace rows.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# traced DIR: a directory $t/NAME with the files of $CCT_DATA/DIR and of its traces
traced() {
  n=$(basename "$1")
  mkdir -p "$t/$n"
  for f in "$CCT_DATA/$1"/* "$CCT_DATA/traces/$1"/*; do ln -sf "$f" "$t/$n/"; done
  echo "$t/$n"
}

for d in v4-hpcviewer-inline.meta.db v4-hpctoolkit-tests-dbase/loops-cputime-t.d v4-hpctoolkit-tests-dbase/small.d \
         v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d v4-hpctoolkit-tests-dbase/loops-hip-amd-t.d \
         v4-pipit-ping-pong v4-hpcviewer-loop-fork-cycles v4-hpctoolkit-small_v4.0 v4-hpcviewer-lmp-openmp \
         classic-hpcviewer-gauss classic-hpcviewer-inline.xml.db; do
  db=$(traced "$d")
  "$CCTINGEST" --quiet "$db" "$db.sqlite"
  python3 "$CCT_SRC/tests/cli/check_traces.py" "$db" "$db.sqlite"
done
# prof2 keeps its trace.db beside its profile in tests/data
"$CCTINGEST" --quiet "$CCT_DATA/prof2-pipit-ping-pong" "$t/prof2.sqlite"
python3 "$CCT_SRC/tests/cli/check_traces.py" "$CCT_DATA/prof2-pipit-ping-pong" "$t/prof2.sqlite"
# its two trace headers: records at bytes 176..464 and 464..752, 12 bytes each: 24 + 24
[ "$(sqlite3 "$t/prof2.sqlite" 'SELECT records FROM trace_run')" = 48 ] || fail "prof2: 48 records expected"

# kripke-trace (hatchet's) has no trace files despite its name: no trace rows, 'window' says so
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-kripke-trace" "$t/kripke.sqlite"
[ "$(sqlite3 "$t/kripke.sqlite" "SELECT count(*) FROM trace_run")" = 0 ] || fail "kripke: trace rows"
"$CCTQ" "$t/kripke.sqlite" -c window >"$t/out"
[ "$(cat "$t/out")" = "run 1 has no traces" ] || fail "kripke: window: $(cat "$t/out")"
# lmp-openmp's trace.db has 24 empty traces: no trace rows, no metric
[ "$(sqlite3 "$t/v4-hpcviewer-lmp-openmp.sqlite" "SELECT count(*) FROM trace_run")" = 0 ] || fail "lmp: trace rows"
[ "$(sqlite3 "$t/v4-hpcviewer-lmp-openmp.sqlite" "SELECT count(*) FROM metrics WHERE name = 'trace (sec)'")" = 0 ] ||
  fail "lmp: a trace metric without records"

# The hottest function by traced time is the hottest by sampled time (exclusive, the flat view's
# figures, from the public views), where both cover the same threads.  Not on gauss: its traces
# are of ranks 0-3, thread 0 (107 s in all), its profiles of ranks 0-1, threads 0-1 (894 s of
# WALLCLOCK, 516 s of it in main's own code, most on the threads 1 that have no trace).  Not on
# classic inline.xml.db: its cycles are not time, and its trace records name the statement of
# f._omp_fn.0 that calls no one (S i=33 it=195, 1542 records), never the inlined loop's lines
# (no 'it'), so by trace f._omp_fn.0 is hot and its '<inline>' code has nothing.
# The trace side is taken among the functions the samples saw (prof2's '<no activity>', where
# the trace puts idle time, has no sample).  Not on loop-fork-cycles: 'test' leads by trace and
# has no cycles of its own, the cycles are in 'loop'.
hottest() {
  sqlite3 "$1" "SELECT f.name FROM flat x JOIN functions f USING (run, function) JOIN metrics m
                ON m.run = x.run AND m.metric = x.metric WHERE m.name = '$2' ORDER BY x.exclusive DESC LIMIT 1"
}
hottest_traced() { # ARCHIVE METRIC: by 'trace (sec)', among the functions with a sampled exclusive value of METRIC
  sqlite3 "$1" "SELECT f.name FROM flat x JOIN functions f USING (run, function) JOIN metrics m
                ON m.run = x.run AND m.metric = x.metric JOIN flat y ON y.run = x.run AND y.function = x.function
                JOIN metrics n ON n.run = y.run AND n.metric = y.metric AND n.name = '$2'
                WHERE m.name = 'trace (sec)' AND y.exclusive > 0 ORDER BY x.exclusive DESC LIMIT 1"
}
for p in v4-hpcviewer-inline.meta.db:cycles loops-cputime-t.d:'CPUTIME (sec)' v4-pipit-ping-pong:'CPUTIME (sec)' \
         small.d:'CPUTIME (sec)' loops-cuda-nvidia-t.d:'GPUOP (sec)' loops-hip-amd-t.d:'GPUOP (sec)' \
         v4-hpctoolkit-small_v4.0:cycles prof2:'CPUTIME (sec)'; do
  a="$t/${p%%:*}.sqlite" m=${p#*:}
  h1=$(hottest "$a" "$m") h2=$(hottest_traced "$a" "$m")
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "${p%%:*}: hottest by $m is '$h1', by trace '$h2'"
done
# and through cctq: 'flat 1 by exclusive' names the same function under both metrics
"$CCTQ" "$t/small.d.sqlite" -c "mode csv; metric CPUTIME; flat 1 by exclusive; metric trace; flat 1 by exclusive" >"$t/hot"
[ "$(grep -c ',spinsleep,' "$t/hot")" = 2 ] || fail "small.d: flat 1 by exclusive: $(cat "$t/hot")"

# Damaged traces: one error line naming the file, exit status non-zero, no archive.
bad() { # NAME PYTHON-EDIT EXPECTED-WORDS
  db=$(traced v4-hpctoolkit-tests-dbase/loops-cputime-t.d)
  rm -f "$db/trace.db"
  cp "$CCT_DATA/traces/v4-hpctoolkit-tests-dbase/loops-cputime-t.d/trace.db" "$db/trace.db"
  chmod u+w "$db/trace.db"
  python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); $2; open(p,'wb').write(b)" "$db/trace.db"
  if "$CCTINGEST" --quiet "$db" "$t/bad.sqlite" 2>"$t/err"; then fail "$1: ingest succeeded"; fi
  [ "$(wc -l <"$t/err")" = 1 ] || fail "$1: not one error line: $(cat "$t/err")"
  grep -q "trace.db" "$t/err" || fail "$1: error does not name the file: $(cat "$t/err")"
  grep -q "$3" "$t/err" || fail "$1: error lacks '$3': $(cat "$t/err")"
  [ ! -e "$t/bad.sqlite" ] || fail "$1: an archive was left"
}
# record 5 of the first trace an hour before record 4
bad order "import struct; a=struct.unpack_from('<Q',b,struct.unpack_from('<Q',b,0x18)[0])[0]; \
o=struct.unpack_from('<Q',b,a+8)[0]; t=struct.unpack_from('<Q',b,o+12*4)[0]; struct.pack_into('<Q',b,o+12*5,t-3600*10**9)" \
  "out of order"
bad truncated "del b[len(b)//2:]" "truncated"
bad footer "b[-1]=0" "footer"
# every record of the first trace names a context that is not in the tree
bad foreign "import struct; a=struct.unpack_from('<Q',b,struct.unpack_from('<Q',b,0x18)[0])[0]; \
o,e=struct.unpack_from('<QQ',b,a+8); [struct.pack_into('<I',b,o+12*j+8,99999) for j in range((e-o)//12)]" \
  "not in the tree"
# one stray record: counted as idle, the ingest goes on
db=$(traced v4-hpctoolkit-tests-dbase/loops-cputime-t.d)
rm -f "$db/trace.db"
cp "$CCT_DATA/traces/v4-hpctoolkit-tests-dbase/loops-cputime-t.d/trace.db" "$db/trace.db"
chmod u+w "$db/trace.db"
python3 -c "import sys,struct; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); a=struct.unpack_from('<Q',b,struct.unpack_from('<Q',b,0x18)[0])[0]; o=struct.unpack_from('<Q',b,a+8)[0]; struct.pack_into('<I',b,o+12*3+8,99999); open(p,'wb').write(b)" "$db/trace.db"
"$CCTINGEST" --quiet "$db" "$t/stray.sqlite" 2>"$t/err"
[ "$(sqlite3 "$t/stray.sqlite" 'SELECT strays FROM trace_run')" = 1 ] || fail "stray: not counted"
n=$(sqlite3 "$t/stray.sqlite" 'SELECT records FROM trace_run')
grep -q "^cctingest: note: $db: 1 of $n trace records name contexts that are not in the tree; they are stored as idle" \
  "$t/err" || fail "stray: no note: $(cat "$t/err")"
# the stray's time is not busy time: the first lane's busy = its records' durations, record 3 and idle ones aside
busy=$(python3 -c "import sys,struct; b=open(sys.argv[1],'rb').read(); a=struct.unpack_from('<Q',b,struct.unpack_from('<Q',b,0x18)[0])[0]
o,e=struct.unpack_from('<QQ',b,a+8); r=[struct.unpack_from('<QI',b,o+12*j) for j in range((e-o)//12)]
print(sum(r[j+1][0]-r[j][0] for j in range(len(r)-1) if r[j][1] and j != 3))" "$db/trace.db")
[ "$(sqlite3 "$t/stray.sqlite" 'SELECT busy FROM trace_lane WHERE lane = 1')" = "$busy" ] || fail "stray: busy time"

# The traces are part of a database's content: the same database again is refused, the same
# profile with other traces (the stray's) or without traces is another run.
cp "$t/stray.sqlite" "$t/digest.sqlite"
if "$CCTINGEST" --quiet "$db" "$t/digest.sqlite" 2>"$t/err"; then fail "digest: the same traces ingested twice"; fi
grep -q "is already run 1 of" "$t/err" || fail "digest: $(cat "$t/err")"
"$CCTINGEST" --quiet "$(traced v4-hpctoolkit-tests-dbase/loops-cputime-t.d)" "$t/digest.sqlite" 2>/dev/null ||
  fail "digest: other traces of the same profile refused"
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-tests-dbase/loops-cputime-t.d" "$t/digest.sqlite" ||
  fail "digest: the profile without its traces refused"
[ "$(sqlite3 "$t/digest.sqlite" 'SELECT count(*) FROM runs')" = 3 ] || fail "digest: 3 runs expected"
echo "traces: ok"
