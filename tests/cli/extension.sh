#!/bin/sh
# The SQLite extension (cctq.so) loads into the stock sqlite3 program and its
# table-valued functions return the same rows as the shell for the same
# center and depth (handles, paths, inclusive and exclusive values).
set -eu
if [ -z "${CCT_EXT:-}" ]; then echo "skip: extension not built (sanitizer build)"; exit 0; fi
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
