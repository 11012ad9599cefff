#!/bin/bash
# Bad input (SPEC section 8): each damaged database made here from a good
# sample gives one 'cctingest: error:' line naming the file and the problem,
# a non-zero exit status, no output file, and leaves an existing archive as it was.
set -euo pipefail
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
mkdb utf8; sed '0,/<Procedure i="[0-9]*" n="/s//&\xf9g/' "$good/experiment.xml" >"$t/utf8/experiment.xml"
expect_fail bad-utf8-xml "$t/utf8" "experiment.xml' line [0-9]*: malformed XML: Input is not proper UTF-8, indicate encoding ! Bytes: 0xF9"
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

# hpcviewer's merged metric file experiment-1.mdb (8 embedded metric-db files
# of 86 nodes x 4 columns; index entry k at 8 + 16k: rank, thread, offset).
mdbgood="$CCT_DATA/classic-hpcviewer-inline.xml.db"
mkmdb() { rm -rf "$t/$1"; cp -r "$mdbgood" "$t/$1"; chmod -R u+w "$t/$1"; m="$t/$1/experiment-1.mdb"; }
poke() { printf "$2" | dd of="$m" bs=1 seek="$1" conv=notrunc 2>/dev/null; } # poke OFFSET BYTES
mkmdb mdbtrunc; head -c 10000 "$mdbgood/experiment-1.mdb" >"$m"
expect_fail mdb-truncated "$t/mdbtrunc" "experiment-1.mdb': no end marker"
mkmdb mdbshort; head -c 12 "$mdbgood/experiment-1.mdb" >"$m"
expect_fail mdb-truncated-header "$t/mdbshort" "experiment-1.mdb': truncated (12 bytes)"
mkmdb mdbmarker; poke 22413 '\001'
expect_fail mdb-bad-marker "$t/mdbmarker" "experiment-1.mdb': no end marker"
mkmdb mdbcount; poke 7 '\011'
expect_fail mdb-header-lies-count "$t/mdbcount" "experiment-1.mdb': header says file 1 of 9 starts at offset 136, expected 152"
mkmdb mdbhuge; poke 4 '\177\377\377\377'
expect_fail mdb-header-lies-huge-count "$t/mdbhuge" "experiment-1.mdb': header says it holds 2147483647 files, more than"
mkmdb mdbzero; poke 4 '\000\000\000\000'
expect_fail mdb-header-no-files "$t/mdbzero" "experiment-1.mdb': header says it holds 0 files"
mkmdb mdboffset; poke 55 '\100'
expect_fail mdb-header-lies-offset "$t/mdboffset" "experiment-1.mdb' embedded file 2 of 8 (rank 0, thread 1): size 2776 does not match its header (86 nodes x 4 metrics)"
mkmdb mdbpast; poke 48 '\001'
expect_fail mdb-header-offset-past-end "$t/mdbpast" "header says file 3 of 8 starts at offset 72057594037933640, past the end"
mkmdb mdbback; poke 54 '\000\010'
expect_fail mdb-header-offset-backwards "$t/mdbback" "header says file 3 of 8 starts at offset 8, before the end of the previous file"
mkmdb mdbnodes; poke 2947 '\125'
expect_fail mdb-embedded-header-lies "$t/mdbnodes" "embedded file 2 of 8 (rank 0, thread 1): size 2784 does not match its header (85 nodes x 4 metrics)"
mkmdb mdbmagic; poke 136 'X'
expect_fail mdb-embedded-bad-magic "$t/mdbmagic" "embedded file 1 of 8 (rank 0, thread 0): bad magic"
mkmdb mdbtype; poke 3 '\010'
expect_fail mdb-bad-type "$t/mdbtype" "unknown type flags 0x8"
mkmdb mdbfifo; rm "$m"; mkfifo "$m"
expect_fail mdb-fifo "$t/mdbfifo" "experiment-1.mdb' is not a regular file"
mkmdb mdbtwo; cp "$m" "$t/mdbtwo/experiment-2.mdb"
expect_fail mdb-several "$t/mdbtwo" "several merged metric files ('experiment-1.mdb', 'experiment-2.mdb')"

# prof2 (experiment.xml 4.0 + big-endian profile.db: 3 profiles, infos of 52
# bytes at 128; profile 1's block at 424: 65 values, 48 contexts, 'end!' at
# 1650; the summary's block at 2708).
p2good="$CCT_DATA/prof2-pipit-ping-pong"
mkp2() { rm -rf "$t/$1"; cp -r "$p2good" "$t/$1"; chmod -R u+w "$t/$1"; m="$t/$1/profile.db"; }
mkp2 p2none; rm "$m"
expect_fail prof2-no-profile-db "$t/p2none" "cannot open '$t/p2none/profile.db'"
mkp2 p2short; head -c 40 "$p2good/profile.db" >"$m"
expect_fail prof2-truncated-header "$t/p2short" "profile.db': truncated (40 bytes"
mkp2 p2trunc; head -c 3000 "$p2good/profile.db" >"$m"
expect_fail prof2-truncated "$t/p2trunc" "profile.db': no footer"
mkp2 p2cut; head -c 3000 "$p2good/profile.db" >"$m"; tail -c 8 "$p2good/profile.db" >>"$m"
expect_fail prof2-truncated-keeping-footer "$t/p2cut" "profile.db': truncated: the values of profile 0 .* end past the end"
mkp2 p2magic; poke 3 'X'
expect_fail prof2-bad-magic "$t/p2magic" "profile.db': not a prof2 profile.db (bad magic)"
mkp2 p2ver; poke 16 '\002'
expect_fail prof2-other-version "$t/p2ver" "profile.db': prof2 profile.db version 2.0"
mkp2 p2count; poke 21 '\004'
expect_fail prof2-header-lies-count "$t/p2count" "4 profiles do not fit in the profile info section"
mkp2 p2mark; poke 1650 'E'
expect_fail prof2-bad-end-marker "$t/p2mark" "the values of profile 1 do not end with the marker"
mkp2 p2nvals; poke 219 '\102'
expect_fail prof2-info-lies-values "$t/p2nvals" "the values of profile 1 do not end with the marker"
mkp2 p2order; poke 1089 '\000'
expect_fail prof2-ctx-order "$t/p2order" "profile 1: context ids out of order (0 after 0)"
mkp2 p2inf; poke 424 '\177\360\000\000\000\000\000\000'
expect_fail prof2-not-finite "$t/p2inf" "value of context 0 in profile 1 is not a finite number"
mkp2 p2suminf; poke 2708 '\377\370\000\000\000\000\000\000'
expect_fail prof2-summary-not-finite "$t/p2suminf" "summary value of context 0 is not a finite number"
mkp2 p2xml; head -c 9000 "$p2good/experiment.xml" >"$t/p2xml/experiment.xml"
expect_fail prof2-truncated-xml "$t/p2xml" "experiment.xml' line [0-9]*: malformed XML"
mkp2 p2frm; sed -i 's/frm="\$512"/frm="$512 \/ $1"/' "$t/p2frm/experiment.xml"
expect_fail prof2-formula "$t/p2frm" "experiment.xml' line [0-9]*: metric 'CPUTIME (sec):Sum (I)' is the formula '\$512 / \$1'; cctq reads only stored values"
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

# kill -9 in the middle of an append: a generated database large enough that
# the kill (when CCTINGEST_TRACE reports the tree written) lands while the new
# run is half written; readers still see the archive, and after the kill it
# holds exactly its earlier run.
python3 "$CCT_SRC/scripts/gen-db" --format classic --nodes 100000 --profiles 8 "$t/big" >/dev/null 2>&1
# kill_at_tree OUT: ingests $t/big into OUT and kill -9s it once the tree is written
kill_at_tree() {
  CCTINGEST_TRACE=1 "$CCTINGEST" --quiet "$t/big" "$1" 2>"$t/trace" & pid=$!
  i=0; while ! grep -q ' tree$' "$t/trace" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  during=$(sqlite3 "$t/a.sqlite" 'SELECT count(*) FROM runs')
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
  ! grep -q 'commit' "$t/trace" || { echo "FAIL kill -9: the ingest finished before the kill"; fails=$((fails + 1)); }
}
kill_at_tree "$t/a.sqlite"
after=$(sqlite3 "$t/a.sqlite" 'SELECT count(*) FROM runs; SELECT count(*) FROM context; PRAGMA integrity_check;' | tr '\n' ' ')
[ "$during" = 1 ] && [ "$after" = "1 60 ok " ] || { echo "FAIL kill-9: during=$during after=$after"; fails=$((fails + 1)); }
echo "ok kill -9 during append: archive kept its run (during=$during, after=$after)"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
