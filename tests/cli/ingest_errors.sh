#!/bin/sh
# Bad input (SPEC section 8): each damaged database made here from a good
# sample gives one 'cctingest: error:' line naming the file and the problem,
# a non-zero exit status, no output file, and leaves an existing archive as it was.
set -eu
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
good="$CCT_DATA/classic-hatchet-cpi"
fails=0

# expect_fail NAME DB_DIR PATTERN: ingest into a fresh path must fail with PATTERN on stderr.
expect_fail() {
  name=$1 dir=$2 pattern=$3
  if "$CCTINGEST" "$dir" "$t/out.sqlite" 2>"$t/err"; then
    echo "FAIL $name: exit status 0"; fails=$((fails + 1)); return
  fi
  lines=$(wc -l <"$t/err")
  if ! grep -q "^cctingest: error: .*$pattern" "$t/err" || [ "$lines" -ne 1 ]; then
    echo "FAIL $name: stderr was:"; cat "$t/err"; fails=$((fails + 1))
  fi
  if ls "$t"/out.sqlite* >/dev/null 2>&1; then
    echo "FAIL $name: output file left behind"; fails=$((fails + 1)); rm -f "$t"/out.sqlite*
  fi
  echo "ok $name: $(cat "$t/err")"
}

# mkdb NAME: a copy of the good sample to damage
mkdb() { rm -rf "$t/$1"; cp -r "$good" "$t/$1"; chmod -R u+w "$t/$1"; }

expect_fail missing-dir "$t/no-such-dir" "cannot open '$t/no-such-dir'"
mkdir "$t/empty"
expect_fail no-experiment "$t/empty" "neither experiment.xml nor meta.db"
mkdb trunc; head -c 12000 "$good/experiment.xml" >"$t/trunc/experiment.xml"
expect_fail truncated-xml "$t/trunc" "experiment.xml' line [0-9]*: malformed XML"
mkdb garbage; printf '<?xml version="1.0"?>\n<html><body/></html>\n' >"$t/garbage/experiment.xml"
expect_fail not-hpctoolkit "$t/garbage" "not an HPCToolkit experiment"
mkdb badver; sed 's/HPCToolkitExperiment version="2.0"/HPCToolkitExperiment version="3.7"/' "$good/experiment.xml" >"$t/badver/experiment.xml"
expect_fail unknown-version "$t/badver" "unsupported experiment.xml version"
mkdb dangling; sed 's/<PF i="4" s="7" l="19" lm="2" f="3" n="7"/<PF i="4" s="7" l="19" lm="2" f="3" n="99999"/' "$good/experiment.xml" >"$t/dangling/experiment.xml"
expect_fail dangling-procedure "$t/dangling" "line [0-9]*: reference to an undeclared procedure"
mkdb dupid; sed 's/<C i="5" /<C i="4" /' "$good/experiment.xml" >"$t/dupid/experiment.xml"
expect_fail duplicate-id "$t/dupid" "context id 4 appears twice"
mkdb badfile; sed 's/lm="2" f="3" n="7"/lm="2" f="777" n="7"/' "$good/experiment.xml" >"$t/badfile/experiment.xml"
expect_fail dangling-file "$t/badfile" "unknown file 777"
mkdb badm; sed '0,/<M n="2"/s//<M n="42"/' "$good/experiment.xml" >"$t/badm/experiment.xml"
expect_fail undeclared-metric "$t/badm" "undeclared metric"
mkdb truncmdb; f=$(ls "$t/truncmdb"/*.metric-db | head -n 1); head -c 100 "$f" >"$f.x"; mv "$f.x" "$f"
expect_fail truncated-metric-db "$t/truncmdb" "metric-db': size 100 does not match"
mkdb endian; f=$(ls "$t/endian"/*.metric-db | head -n 1); printf 'l' | dd of="$f" bs=1 seek=23 conv=notrunc 2>/dev/null
expect_fail wrong-endian-metric-db "$t/endian" "metric-db': not big-endian"
mkdb magic; f=$(ls "$t/magic"/*.metric-db | tail -n 1); printf 'XXXX' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_fail bad-magic-metric-db "$t/magic" "bad magic"
expect_fail prof2 "$CCT_DATA/prof2-pipit-ping-pong" "prof2 database .* not supported yet"
if "$CCTINGEST" "$good" "$t/no/such/dir/out.sqlite" 2>"$t/err"; then echo "FAIL unwritable: exit 0"; fails=$((fails + 1)); fi
grep -q "^cctingest: error: cannot write '$t/no/such/dir/out.sqlite'" "$t/err" || { echo "FAIL unwritable:"; cat "$t/err"; fails=$((fails + 1)); }

# An existing archive is unchanged by a failed append, and a same-content
# ingest is refused unless --replace.
"$CCTINGEST" --quiet "$good" "$t/a.sqlite"
if "$CCTINGEST" --quiet "$t/trunc" "$t/a.sqlite" 2>"$t/err"; then echo "FAIL append-bad: exit 0"; fails=$((fails + 1)); fi
[ "$(sqlite3 "$t/a.sqlite" 'SELECT count(*) FROM runs; PRAGMA integrity_check;' | tr '\n' ' ')" = "1 ok " ] ||
  { echo "FAIL append-bad: archive changed"; fails=$((fails + 1)); }
if "$CCTINGEST" --quiet "$good" "$t/a.sqlite" 2>"$t/err"; then echo "FAIL same-content: exit 0"; fails=$((fails + 1)); fi
grep -q "is already run 1 of .*; use --replace" "$t/err" || { echo "FAIL same-content:"; cat "$t/err"; fails=$((fails + 1)); }
"$CCTINGEST" --quiet --replace --title again "$good" "$t/a.sqlite"
[ "$(sqlite3 "$t/a.sqlite" 'SELECT group_concat(run || title) FROM runs; SELECT count(DISTINCT run) FROM context;' | tr '\n' ' ')" = "1again 1 " ] ||
  { echo "FAIL replace: $(sqlite3 "$t/a.sqlite" 'SELECT * FROM runs')"; fails=$((fails + 1)); }

# kill -9 in the middle of an append: the reader blocks on a metric-db FIFO
# with the new run half written; readers still see the archive, and after the
# kill it holds exactly its earlier run.
mkdb fifo; f=$(ls "$t/fifo"/*.metric-db | head -n 1); rm "$f"; mkfifo "$f"
sed -i 's/CPUTIME/CPUTIME2/' "$t/fifo/experiment.xml" # other content, so not refused as a duplicate
"$CCTINGEST" --quiet "$t/fifo" "$t/a.sqlite" 2>/dev/null & pid=$!
sleep 30 >"$f" & holder=$!
sleep 1
during=$(sqlite3 "$t/a.sqlite" 'SELECT count(*) FROM runs')
kill -9 "$pid"; kill "$holder" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
after=$(sqlite3 "$t/a.sqlite" 'SELECT count(*) FROM runs; SELECT count(*) FROM context; PRAGMA integrity_check;' | tr '\n' ' ')
[ "$during" = 1 ] && [ "$after" = "1 60 ok " ] || { echo "FAIL kill-9: during=$during after=$after"; fails=$((fails + 1)); }
echo "ok kill -9 during append: archive kept its run (during=$during, after=$after)"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
