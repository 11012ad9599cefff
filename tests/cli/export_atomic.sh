#!/bin/bash
# 'export FILE' never destroys the file that was there (issue 26 item 1):
# every refusal comes before the file is touched, the content goes to a
# temporary file beside it that is renamed over it once complete, and a
# symbolic link is refused (its target is never truncated).  Before the fix,
# 'stats; export report.html' and 'diff 1; export keep.svg' deleted the file,
# a link's target was truncated to 0 bytes, and a process killed while writing
# (here by the file size limit, SIGXFSZ, at a fixed point) left a partial file.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$t"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" a.sqlite
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" a.sqlite
old() { printf 'the old %s, to be kept\n' "$1" >"$1"; }
kept() { [ "$(cat "$1")" = "the old $1, to be kept" ] || fail "$2: '$1' changed: $(head -c 200 "$1")"; }
no_temps() { [ -z "$(ls -A | grep '\.cctq-')" ] || fail "$1: a temporary file was left: $(ls -A)"; }
refused() { # refused CMDS FILE MESSAGE: exit 1, the message, the file kept
  st=0
  "$CCTQ" a.sqlite -c "$1" >/dev/null 2>err || st=$?
  [ "$st" = 1 ] || fail "'$1': exit $st, want 1"
  grep -qF "$3" err || { cat err; fail "'$1': message"; }
  kept "$2" "$1"
  no_temps "$1"
}

if [ -f "$CCT_SRC/include/cct_picture.h" ]; then
  old report.html; refused 'stats; export report.html' report.html "export of 'stats' to .html is not available"
  old keep.svg; refused 'topdown 2; diff 1; export keep.svg' keep.svg "export to .svg of a diff is not available"
fi
old src.folded; refused 'run 1; center main; source; export src.folded' src.folded "export of 'source' to .folded is not available"
old v.csv; refused 'flat 3; center no_such_function; export v.csv' v.csv "no_such_function"

# A symbolic link is refused; the file it names and the link stay.
printf 'the old target.csv, to be kept\n' >target.csv
ln -s target.csv link.csv
refused 'flat 3; export link.csv' target.csv "cannot write 'link.csv': it is a symbolic link"
[ -L link.csv ] && [ "$(readlink link.csv)" = target.csv ] || fail "the link changed"
ln -s missing.csv dangling.csv
st=0; "$CCTQ" a.sqlite -c 'flat 3; export dangling.csv' 2>err || st=$?
[ "$st" = 1 ] && grep -qF "cannot write 'dangling.csv': it is a symbolic link" err || { cat err; fail "a dangling link"; }
[ -L dangling.csv ] && [ ! -e missing.csv ] || fail "the dangling link was followed"
mkdir dir.csv
st=0; "$CCTQ" a.sqlite -c 'flat 3; export dir.csv' 2>err || st=$?
[ "$st" = 1 ] && grep -qF "cannot write 'dir.csv': it is a directory" err || { cat err; fail "a directory"; }

# Success replaces the file: the same bytes as the mode prints, its mode kept.
old r.csv; chmod 640 r.csv
"$CCTQ" a.sqlite -c 'center main; topdown 3; export r.csv' >/dev/null
"$CCTQ" a.sqlite -c 'mode csv; center main; topdown 3' >want.csv
cmp -s r.csv want.csv || fail "the replaced r.csv is not the view's csv"
[ "$(stat -c %a r.csv)" = 640 ] || fail "r.csv's mode changed to $(stat -c %a r.csv)"
"$CCTQ" a.sqlite -c 'center main; topdown 3; export new.csv' >/dev/null
[ "$(stat -c %a new.csv)" = "$(umask 0022; touch u; stat -c %a u)" ] || fail "a new file's mode $(stat -c %a new.csv)"
no_temps "success"

# Killed while writing: the file size limit (ulimit -f 400: 200 KB in sh's
# 512-byte blocks, 400 KB in bash's) stops the process (SIGXFSZ) inside the
# json of LULESH's tree (over 1 MB); the old file is whole (the temporary is
# what was cut).  With SIGXFSZ ignored the write fails (EFBIG): an error naming
# the file, the old file whole, no temporary left.
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" l.sqlite
old big.json
"$CCTQ" l.sqlite -c 'mode json; granularity line; topdown 60' >full.json
[ "$(wc -c <full.json)" -gt 800000 ] || fail "setup: the json is too small to cut"
st=0; (ulimit -f 400; exec "$CCTQ" l.sqlite -c 'granularity line; topdown 60; export big.json') 2>/dev/null || st=$?
[ "$st" -gt 128 ] || fail "the size limit did not kill the export (exit $st)"
kept big.json "killed during the export"
[ -n "$(ls -A | grep '^\.big\.json\.cctq-')" ] || fail "setup: the kill was not during the export"
rm -f .big.json.cctq-*
st=0; (trap '' XFSZ; ulimit -f 400; exec "$CCTQ" l.sqlite -c 'granularity line; topdown 60; export big.json') 2>err || st=$?
[ "$st" = 1 ] && grep -qF "cannot write 'big.json': File too large" err || { cat err; fail "EFBIG: exit $st"; }
kept big.json "a failed write"
no_temps "a failed write"
"$CCTQ" l.sqlite -c 'granularity line; topdown 60; export big.json' >/dev/null
cmp -s big.json full.json || fail "big.json after a successful export"
echo "ok export: refusals, links, kills and write errors keep the old file; success replaces it"
