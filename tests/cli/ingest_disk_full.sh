#!/bin/bash
# Disk full (issue 13, item 9): on a small tmpfs, an append is tried with less
# and less free space left.  Whatever the space, the error contract holds:
# exit 0 and the run is in the archive, or exit 1 with one 'cctingest: error:'
# line naming the archive, the archive unchanged (one run, integrity ok), and
# a retry once space is freed succeeds (not "already run 2").  A new archive
# likewise: exit 0, or exit 1 with no output and no temporary left.  Needs
# root (mount); skips otherwise (exit 77, ctest's SKIP_RETURN_CODE).
set -euo pipefail
skip() { echo "ingest_disk_full: SKIP: $1"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (needs mount -t tmpfs)"
t=$(mktemp -d); m="$t/fs"; mkdir "$m"
mount -t tmpfs -o size=4m tmpfs "$m" 2>/dev/null || { rmdir "$m" "$t"; skip "cannot mount a tmpfs"; }
trap 'umount "$m"; rm -rf "$t"' EXIT
base="$CCT_DATA/classic-callflow-lulesh" new="$CCT_DATA/classic-hatchet-cpi"
"$CCTINGEST" --quiet "$base" "$t/base.sqlite"
fails=0

# fill LEFT: fills the tmpfs so that LEFT bytes stay free.
fill() {
  rm -f "$m/fill"
  set -- "$1" $(stat -f -c '%a %S' "$m")
  fallocate -l $(($2 * $3 - $1)) "$m/fill"
}
runs() { sqlite3 "$1" 'SELECT count(*) FROM runs; PRAGMA integrity_check;' | tr '\n' ' '; }

# try_append LEFT: one append with LEFT bytes free; checks the contract; exit 0 when it succeeded.
try_append() {
  rm -f "$m"/a.sqlite*; cp "$t/base.sqlite" "$m/a.sqlite"; fill "$1"
  if "$CCTINGEST" --quiet "$new" "$m/a.sqlite" 2>"$t/err"; then
    [ "$(runs "$m/a.sqlite")" = "2 ok " ] || { echo "FAIL append left=$1: exit 0 but $(runs "$m/a.sqlite")"; fails=$((fails + 1)); }
    return 0
  fi
  rm -f "$m/fill"
  st=$(runs "$m/a.sqlite")
  if [ "$st" != "1 ok " ] || [ "$(wc -l <"$t/err")" -ne 1 ] || ! grep -q "^cctingest: error: .*'$m/a.sqlite'" "$t/err"; then
    echo "FAIL append left=$1: exit non-zero and the archive has: $st; stderr:"; cat "$t/err"; fails=$((fails + 1))
  fi
  "$CCTINGEST" --quiet "$new" "$m/a.sqlite" 2>"$t/err2" ||
    { echo "FAIL append left=$1: the retry with space failed: $(cat "$t/err2")"; fails=$((fails + 1)); }
  return 1
}

# Coarse steps to the first success, then every 4 KB page below it (where the
# commit fits and the work after it may not).
left=0
while ! try_append $left; do
  left=$((left + 65536)); [ $left -lt 4000000 ] || { echo "FAIL: no append succeeded"; exit 1; }
done
hi=$left tried=0
left=$((hi > 65536 ? hi - 65536 : 0))
while [ $left -lt $hi ]; do try_append $left || true; left=$((left + 4096)); tried=$((tried + 1)); done
echo "ok append: first success with $hi bytes free (coarse), $tried appends with less space kept the contract"

# A new archive with little space: no output, no temporary, one error line.
for left in 0 16384 65536 131072; do
  rm -f "$m"/a.sqlite*; fill $left
  if "$CCTINGEST" --quiet "$base" "$m/a.sqlite" 2>"$t/err"; then
    [ "$(runs "$m/a.sqlite")" = "1 ok " ] || { echo "FAIL new left=$left: exit 0 but $(runs "$m/a.sqlite")"; fails=$((fails + 1)); }
  else
    if ls "$m"/a.sqlite* >/dev/null 2>&1 || [ "$(wc -l <"$t/err")" -ne 1 ] ||
       ! grep -q "^cctingest: error: .*'$m/a.sqlite'" "$t/err"; then
      echo "FAIL new left=$left: $(ls "$m"); stderr:"; cat "$t/err"; fails=$((fails + 1))
    fi
  fi
done
echo "ok new archive: no output and no temporary left by a disk-full error ($(cat "$t/err"))"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
