#!/bin/bash
# Files of one database only (issue 13 item 12): a profile.db beside another
# database's meta.db, or a metric-db file of another database beside an
# experiment.xml, is refused with one line naming the file, instead of
# ingesting values of the wrong run.  The real databases themselves still load.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# refused NAME DIR PATTERN
refused() {
  if "$CCTINGEST" --quiet "$2" "$t/out.sqlite" 2>"$t/err"; then fail "$1: accepted"; rm -f "$t/out.sqlite"; return; fi
  [ "$(grep -c . "$t/err")" = 1 ] && grep -q "^cctingest: error: $3" "$t/err" || { fail "$1: stderr was:"; cat "$t/err"; return; }
  [ ! -e "$t/out.sqlite" ] || fail "$1: archive written"
  echo "ok $1: $(cat "$t/err")"
}
# pair M P: meta.db of sample M with profile.db of sample P
pair() { rm -rf "$t/p"; mkdir "$t/p"; cp "$CCT_DATA/$1/meta.db" "$CCT_DATA/$2/profile.db" "$t/p/"; }
for a in v4-hpctoolkit-small_v4.0 v4-hatchet-cpi v4-hpcviewer-loop-fork-cycles v4-pipit-ping-pong; do
  for b in v4-hpctoolkit-small_v4.0 v4-hatchet-cpi v4-hpcviewer-loop-fork-cycles v4-pipit-ping-pong; do
    [ "$a" != "$b" ] || continue
    pair "$a" "$b"
    refused "meta.db of $a, profile.db of $b" "$t/p" "'$t/p/profile.db' does not belong to '$t/p/meta.db': "
  done
  "$CCTINGEST" --quiet "$CCT_DATA/$a" "$t/own.sqlite" || fail "$a with its own profile.db refused"; rm -f "$t/own.sqlite"
done

# classic: a metric-db of osu-allgather (1944 nodes) among cpi's (60 nodes), and one of kripke (36)
for other in classic-hatchet-osu-allgather classic-hatchet-kripke-trace; do
  rm -rf "$t/c"; cp -r "$CCT_DATA/classic-hatchet-cpi" "$t/c"; chmod -R u+w "$t/c"
  m=$(ls "$t/c"/*.metric-db | tail -n 1); cp "$(ls "$CCT_DATA/$other"/*.metric-db | head -n 1)" "$m"
  refused "a metric-db of $other" "$t/c" "'$m': [0-9]* nodes, but the tree of '$t/c/experiment.xml' has 60"
done
[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
