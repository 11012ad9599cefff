#!/bin/bash
# JavaScript and CSS live in their own files (query/picture/*.js, *.css), embedded
# at build time by scripts/embed.cmake: no C file carries a style sheet or a
# script as string literals, and the pictures contain the files' text verbatim.
set -euo pipefail
: "${CCT_SRC:?} ${CCTINGEST:?} ${CCT_DATA:?}"
bad=$(grep -rlE '"[^"]*(function \(|\{(font|fill|stroke|margin|display)[a-z-]*:)' \
  "$CCT_SRC"/common "$CCT_SRC"/ingest "$CCT_SRC"/query "$CCT_SRC"/schema "$CCT_SRC"/tests --include='*.c' \
  | grep -v '/tests/fuzz/' || true)
[ -z "$bad" ] || { echo "FAIL: JavaScript or CSS inside C files:"; echo "$bad"; exit 1; }
echo "ok no JavaScript or CSS in .c files"
if [ -z "${CCT_PICTURE_RENDER:-}" ]; then echo "skip: picture_render not built"; exit 77; fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
"$CCT_PICTURE_RENDER" "$t/a.sqlite" -c main -s "$t/a.svg" -H "$t/a.html" -S "$t/s.svg"
python3 - "$CCT_SRC/query/picture" "$t" <<'PY'
import sys
src, t = sys.argv[1], sys.argv[2]
for asset, out in [("page.js", "a.html"), ("page.css", "a.html"), ("sandwich.css", "a.svg"), ("stats.css", "s.svg")]:
    a = open(f"{src}/{asset}", encoding="utf-8").read()
    o = open(f"{t}/{out}", encoding="utf-8").read()
    if a not in o:
        print("FAIL:", asset, "is not embedded verbatim in", out); sys.exit(1)
print("ok the pictures embed query/picture/ verbatim")
PY
