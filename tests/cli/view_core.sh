#!/bin/bash
# The view core computes views without side effects (issue 14): after 'export'
# (which computes the picture's own top-down and bottom-up views), 'diff' and
# 'stats', '@N' still names row N of the view the user saw, and the session's
# threshold is unchanged.  Before the core, 'export' left '@N' naming rows of
# the picture's bottom-up view.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
# row 2 and 3 of 'topdown 1' around main, as printed (json)
"$CCTQ" "$a" -c 'mode json; center main; topdown 1' >"$t/td.json"
row() { python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(v['rows'][int(sys.argv[2]) - 1]['name'])" "$t/td.json" "$1"; }
r2=$(row 2) r3=$(row 3)
[ -n "$r2" ] && [ "$r2" != "$r3" ] || { echo "FAIL setup: rows '$r2' '$r3'"; exit 1; }
for between in "export $t/p.svg" "export $t/p.html" 'diff 1' 'stats'; do
  "$CCTQ" "$a" -c "center main; threshold 1%; topdown 1; $between; center @2; center + @3; center; threshold" \
    >"$t/out" 2>"$t/err" || { echo "FAIL '$between': exit $?"; cat "$t/err"; exit 1; }
  [ ! -s "$t/err" ] || { echo "FAIL '$between': stderr:"; cat "$t/err"; exit 1; }
  out=$(tail -n 3 "$t/out")
  want="$r2  (1 occurrence)
$r3  (1 occurrence)
1%"
  [ "$out" = "$want" ] || { printf 'FAIL after %s: @N or the threshold changed:\n%s\nwant:\n%s\n' "$between" "$out" "$want"; exit 1; }
done
echo "ok view core: export, diff and stats leave '@N' and the threshold alone"

# After 'diff', '@N' names the handles the diff shows (its base view has no
# threshold, so they can go past the rows of the view before it).
"$CCTQ" "$a" -c 'mode json; center main; threshold 1%; topdown 3; diff 1' >"$t/diff.json"
set -- $(python3 -c "
import json, sys
t = open(sys.argv[1]).read(); d = json.loads(t[t.index('{\"view\": \"diff'):])
r = max((r for r in d['rows'] if r.get('handle')), key=lambda r: r['handle'])
print(r['handle'], r['name'])" "$t/diff.json")
"$CCTQ" "$a" -c "center main; threshold 1%; topdown 3; diff 1; center @$1; center" >"$t/out" 2>"$t/err" ||
  { echo "FAIL center @$1 after diff: exit $?"; cat "$t/err"; exit 1; }
[ ! -s "$t/err" ] || { echo "FAIL center @$1 after diff: stderr:"; cat "$t/err"; exit 1; }
out=$(tail -n 1 "$t/out")
case "$out" in "$2  ("*) ;; *) false ;; esac || { echo "FAIL center @$1 after diff: '$out', want '$2'"; exit 1; }
echo "ok view core: after diff, @$1 is the diff's row $2"
