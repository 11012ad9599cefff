#!/bin/bash
# Read-only archives (issue 13 item 11): a reading session leaves a writable
# archive one file, unchanged; an archive in a read-only directory,
# or a read-only file there, opens for reading in cctq and gives the same view
# as a writable copy; an unreadable archive is reported as unreadable, not as
# "not a cctq archive".  As root (who ignores permissions) cctq runs as nobody.
set -euo pipefail
t=$(mktemp -d); trap 'chmod -R u+w "$t"; rm -rf "$t"' EXIT
chmod 755 "$t"
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; else "$@"; fi; }
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
chmod 644 "$t/a.sqlite"
"$CCTQ" -c 'flat 5' "$t/a.sqlite" >"$t/want"
grep -q MPIDI_CH3_Finalize "$t/want" || { echo "FAIL: no reference view"; cat "$t/want"; exit 1; }

# A reading session leaves the archive one file, unchanged: SQLite's WAL files
# (-wal, -shm) go with the last connection (a read-only one used to leave them).
mkdir "$t/rw"; cp "$t/a.sqlite" "$t/rw/a.sqlite"
"$CCTQ" -c 'flat 5; center main; topdown 3; stats' "$t/rw/a.sqlite" >/dev/null
[ "$(ls -A "$t/rw")" = a.sqlite ] || { echo "FAIL: a reading session left files beside the archive:"; ls -A "$t/rw"; exit 1; }
cmp -s "$t/a.sqlite" "$t/rw/a.sqlite" || { echo "FAIL: a reading session changed the archive"; exit 1; }
echo "ok a reading session leaves one file, unchanged"

mkdir "$t/ro"; cp "$t/a.sqlite" "$t/ro/a.sqlite"; chmod 555 "$t/ro"
if ! as_user "$CCTQ" -c 'flat 5' "$t/ro/a.sqlite" >"$t/got" 2>"$t/err"; then
  echo "FAIL read-only directory: exit non-zero"; cat "$t/err"; exit 1
fi
cmp -s "$t/want" "$t/got" || { echo "FAIL read-only directory: view differs"; diff "$t/want" "$t/got"; exit 1; }
[ ! -s "$t/err" ] || { echo "FAIL read-only directory: messages"; cat "$t/err"; exit 1; }
ls "$t/ro" | grep -qv '^a.sqlite$' && { echo "FAIL read-only directory: files appeared"; ls "$t/ro"; exit 1; }
echo "ok read-only directory"

chmod 755 "$t/ro"; chmod 444 "$t/ro/a.sqlite"; chmod 555 "$t/ro"
as_user "$CCTQ" -c 'flat 5' "$t/ro/a.sqlite" >"$t/got" 2>"$t/err" || { echo "FAIL read-only file: exit non-zero"; cat "$t/err"; exit 1; }
cmp -s "$t/want" "$t/got" || { echo "FAIL read-only file: view differs"; exit 1; }
echo "ok read-only file in a read-only directory"

# an archive nobody may read: the message says so and does not blame the archive
chmod 755 "$t/ro"; cp "$t/a.sqlite" "$t/ro/m0.sqlite"; chmod 000 "$t/ro/m0.sqlite"
if as_user "$CCTQ" -c 'flat 5' "$t/ro/m0.sqlite" >/dev/null 2>"$t/err"; then echo "FAIL mode 000: exit 0"; exit 1; fi
[ "$(wc -l <"$t/err")" = 1 ] && grep -q "^cctq: error: cannot open '.*m0.sqlite': Permission denied$" "$t/err" ||
  { echo "FAIL mode 000 message:"; cat "$t/err"; exit 1; }
echo "ok unreadable archive: $(cat "$t/err")"
