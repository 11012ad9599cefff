#!/bin/bash
# hpcviewer's merged metric file beyond the real sample: the metric-db files
# of classic-hatchet-cpi (4 MPI ranks) and classic-hatchet-osu-allgather (20
# ranks/threads) are merged here the way hpcviewer does (formats doc 1.5,
# written from MergeDataFiles' layout, not from cctq's code), the originals
# removed, and the archive checked by check_classic.py (ranks and threads from
# the merged header, every value).  With the originals still beside the
# merged file, they are read instead (format 'classic').
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
merge() { # merge DIR: DIR/*.metric-db -> DIR/experiment-1.mdb, originals removed
  python3 - "$1" <<'PY'
import glob, os, struct, sys
d = sys.argv[1]
files = sorted(glob.glob(os.path.join(d, "*.metric-db")))
kind, index, blobs = 0, b"", []
offset = 8 + 16 * len(files)
for f in files:
    parts = os.path.basename(f)[:-len(".metric-db")].split("-")
    proc, thread = int(parts[-5]), int(parts[-4])
    kind |= (1 if proc else 0) | (2 if thread else 0)
    data = open(f, "rb").read()
    index += struct.pack(">iiq", proc, thread, offset)
    offset += len(data)
    blobs.append(data)
with open(os.path.join(d, "experiment-1.mdb"), "wb") as out:
    out.write(struct.pack(">ii", kind, len(files)) + index + b"".join(blobs) + struct.pack(">Q", 0xFFFFFFFFDEADF00D))
for f in files:
    os.remove(f)
PY
}
for s in classic-hatchet-cpi classic-hatchet-osu-allgather; do
  cp -r "$CCT_DATA/$s" "$t/$s"; chmod -R u+w "$t/$s"
  cp -r "$t/$s" "$t/$s-both"
  merge "$t/$s"
  [ "$(ls "$t/$s" | grep -c 'metric-db$' || true)" = 0 ] || { echo "FAIL $s: originals left"; exit 1; }
  "$CCTINGEST" --quiet "$t/$s" "$t/$s.sqlite"
  [ "$(sqlite3 "$t/$s.sqlite" 'SELECT format FROM runs')" = classic+mdb ] || { echo "FAIL $s: format"; exit 1; }
  python3 "$CCT_SRC/tests/cli/check_classic.py" "$t/$s" "$t/$s.sqlite" 1
  # the merged file beside the originals: the originals are read
  cp "$t/$s/experiment-1.mdb" "$t/$s-both/"
  "$CCTINGEST" --quiet "$t/$s-both" "$t/$s-both.sqlite"
  [ "$(sqlite3 "$t/$s-both.sqlite" 'SELECT format FROM runs')" = classic ] || { echo "FAIL $s-both: format"; exit 1; }
  python3 "$CCT_SRC/tests/cli/check_classic.py" "$t/$s-both" "$t/$s-both.sqlite" 1
done
