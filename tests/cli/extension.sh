#!/bin/bash
# The SQLite extension (cctq.so) loads into the stock sqlite3 program and its
# table-valued functions return the same rows as the shell for the same
# center and depth (handles, paths, inclusive and exclusive values).
set -euo pipefail
if [ -z "${CCT_EXT:-}" ]; then echo "skip: extension not built (sanitizer build)"; exit 77; fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
compare() { # compare ARCHIVE SQL_CALL SHELL_COMMANDS
  sqlite3 -csv "$1" ".load $CCT_EXT" "SELECT handle, path, inclusive, exclusive FROM $2" >"$t/ext"
  "$CCTQ" "$1" -c "mode csv; $3" | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
i = next(k for k, h in enumerate(rows[0]) if h.endswith(" inclusive"))  # the display metric
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows[1:]:
    w.writerow([r[0], r[2], float(r[i]), float(r[i + 1])])
' >"$t/shell"
  python3 - "$t/ext" "$t/shell" "$2" <<'PY'
import csv, sys
a = [(r[0], r[1], float(r[2]), float(r[3])) for r in csv.reader(open(sys.argv[1]))]
b = [(r[0], r[1], float(r[2]), float(r[3])) for r in csv.reader(open(sys.argv[2]))]
if not a or a != b:
    print("FAIL", sys.argv[3], "\n extension:", a[:5], "\n shell:    ", b[:5]); sys.exit(1)
print("ok", sys.argv[3], len(a), "rows")
PY
}
for d in classic-hatchet-cpi classic-hpcviewer-gauss v4-hpctoolkit-small_v4.0; do
  [ -d "$CCT_DATA/$d" ] || continue
  rm -f "$t/a.sqlite"; "$CCTINGEST" --quiet "$CCT_DATA/$d" "$t/a.sqlite"
  compare "$t/a.sqlite" "cct_topdown(NULL, 3)" "topdown 3"
  compare "$t/a.sqlite" "cct_flat(10)" "flat 10"
done
rm -f "$t/a.sqlite"; "$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
compare "$t/a.sqlite" "cct_topdown('main', 4)" "center main; topdown 4"
compare "$t/a.sqlite" "cct_bottomup('MPI_Finalize', 3)" "center MPI_Finalize; bottomup 3"
compare "$t/a.sqlite" "cct_topdown('glob MPI*', 2, 1)" "run 1; center glob MPI*; topdown 2"
# errors come back as SQL errors naming the item
if sqlite3 "$t/a.sqlite" ".load $CCT_EXT" "SELECT * FROM cct_topdown('no_such_function', 2)" 2>"$t/err"; then
  echo "FAIL: unknown center accepted"; exit 1; fi
grep -q "no_such_function" "$t/err" || { echo "FAIL error text:"; cat "$t/err"; exit 1; }
echo "ok extension errors"

# One SQLite on the file, the host's (issue 13 item 17).  The module exports only its
# entry point, imports no sqlite3_* symbol (every call goes through the host's
# sqlite3_api) and does not link libsqlite3.
if command -v nm >/dev/null 2>&1; then
  exports=$(nm -D --defined-only "$CCT_EXT" | awk '{print $3}' | sort | tr '\n' ' ')
  [ "$exports" = "sqlite3_cctq_init " ] || { echo "FAIL: cctq.so exports more than its entry point: $exports" | cut -c1-400; exit 1; }
  imports=$(nm -D --undefined-only "$CCT_EXT" | awk '{print $2}' | grep -i sqlite || true)
  [ -z "$imports" ] || { echo "FAIL: cctq.so calls SQLite directly:" $imports | cut -c1-400; exit 1; }
  echo "ok cctq.so exports only sqlite3_cctq_init and imports no SQLite symbol"
else
  echo "skip: no nm"
fi
if ldd "$CCT_EXT" | grep -i sqlite; then echo "FAIL: cctq.so links its own SQLite"; exit 1; fi
echo "ok cctq.so links no libsqlite3"
# The views read through the host's connection: an archive restored into a memory
# database (no file for a second connection to open) gives the same rows...
sqlite3 -csv "$t/a.sqlite" ".load $CCT_EXT" "SELECT handle, path, inclusive FROM cct_topdown('main', 4)" >"$t/file.csv"
sqlite3 -csv :memory: ".restore '$t/a.sqlite'" ".load $CCT_EXT" "SELECT handle, path, inclusive FROM cct_topdown('main', 4)" \
  >"$t/mem.csv" 2>"$t/err" || { echo "FAIL: views on a memory database:"; cat "$t/err"; exit 1; }
[ -s "$t/file.csv" ] && cmp -s "$t/file.csv" "$t/mem.csv" || { echo "FAIL: memory database rows differ"; exit 1; }
echo "ok views of an archive restored into :memory:"
# ...and inside the host's open transaction the views see its uncommitted change
# (a second connection would see the committed name), and leave it open.
sqlite3 -csv "$t/a.sqlite" ".load $CCT_EXT" "BEGIN" "UPDATE function SET name = 'renamed_main' WHERE name = 'main'" \
  "SELECT name FROM cct_topdown('renamed_main', 1) WHERE depth = 0" "SELECT count(*) FROM function WHERE name = 'renamed_main'" \
  "ROLLBACK" >"$t/txn.csv" 2>"$t/err" || { echo "FAIL: views in the host's transaction:"; cat "$t/err"; exit 1; }
printf 'renamed_main\n1\n' | cmp -s - "$t/txn.csv" || { echo "FAIL: views in the host's transaction:"; cat "$t/txn.csv" "$t/err"; exit 1; }
[ "$(sqlite3 "$t/a.sqlite" "SELECT count(*) FROM function WHERE name = 'main'")" = 1 ] || { echo "FAIL: the rollback was lost"; exit 1; }
echo "ok views read the host's transaction"
