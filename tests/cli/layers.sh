#!/bin/bash
# The layout of the README's Design section, checked on the built library
# (issue 14): the query library's archive holds no shell object, its files call
# each other one way only (no cycle in the graph of which object file uses a
# function another defines, from nm), the shell's, common's and schema's files too, and no C file carries the pictures'
# JavaScript or CSS (they are real files under query/picture/, embedded at build), and
# it does not link the ingest library (issue 23).
set -euo pipefail
[ -n "${CCT_QUERY_LIB:-}" ] && [ -f "$CCT_QUERY_LIB" ] || { echo "skip: no query library"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "skip: no nm"; exit 77; }
# The graph check, on the archive $1 (label $2, at least $3 objects).
graph() {
nm "$1" | python3 -c '
import collections, sys
defs, uses, obj = collections.defaultdict(set), collections.defaultdict(set), None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.endswith(".o:"):
        obj = line[:-3].split("/")[-1].replace(".c", "")
        continue
    f = line.split()
    if obj is None or not f: continue
    if len(f) == 3 and f[1] in "TDRB": defs[obj].add(f[2])
    elif len(f) == 2 and f[0] == "U": uses[obj].add(f[1])
objs = set(defs) | set(uses)
label, least = sys.argv[1], int(sys.argv[2])
shell = sorted(o for o in objs if o.startswith(("shell", "tui", "format", "main")))
if label == "query library" and shell: sys.exit("FAIL: the query library holds shell objects: %s" % shell)
dep = {a: {b for b in objs if b != a and uses[a] & defs[b]} for a in objs}
state = {}
def visit(a, path):
    state[a] = 1
    for b in sorted(dep[a]):
        if state.get(b) == 1: sys.exit("FAIL: a cycle between %s files: %s" % (label, " -> ".join(path + [a, b])))
        if not state.get(b): visit(b, path + [a])
    state[a] = 2
for a in sorted(objs):
    if not state.get(a): visit(a, [])
if len(objs) < least: sys.exit("FAIL: only %d objects read from the %s: %s" % (len(objs), label, sorted(objs)))
print("ok %s: %d files, no cycle%s" % (label, len(objs), ", no shell object" if label == "query library" else ""))
' "$2" "$3"
}
graph "$CCT_QUERY_LIB" "query library" 10
# shell/ (issue 24): shell.c < tui.c < shell_output.c, shell_stats.c < format.c <
# shell_file.c, shell_split.c, shell_base.c; before, shell.c and tui.c called each other.
[ -n "${CCT_SHELL_LIB:-}" ] && [ -f "$CCT_SHELL_LIB" ] || { echo "FAIL: no shell library (CCT_SHELL_LIB)"; exit 1; }
graph "$CCT_SHELL_LIB" "shell library" 6
# common/, schema/ and ingest/ too (ingest/: trace.c stores through a sink the writer
# hands it, and the content digest of files is input.c's; they called each other before).
lib=$(dirname "$CCT_QUERY_LIB")
graph "$lib/libcct_common.a" "common library" 5
graph "$lib/libcct_schema.a" "schema library" 1
graph "$CCT_INGEST_LIB" "ingest library" 10
# The query library does not link the ingest library (issue 23): no symbol it uses is one
# the ingest library defines, and CMake does not link them (filters are in memory).
[ -n "${CCT_INGEST_LIB:-}" ] && [ -f "$CCT_INGEST_LIB" ] || { echo "FAIL: no ingest library to compare with"; exit 1; }
defined=$(mktemp)
trap 'rm -f "$defined"' EXIT
nm "$CCT_INGEST_LIB" | awk 'NF == 3 && $2 ~ /^[TDRB]$/ {print $3}' | sort -u > "$defined"
[ -s "$defined" ] || { echo "FAIL: no symbol read from the ingest library"; exit 1; }
both=$(nm "$CCT_QUERY_LIB" | awk '$1 == "U" {print $2}' | sort -u | comm -12 - "$defined")
if [ -n "$both" ]; then echo "FAIL: the query library uses ingest symbols: $both"; exit 1; fi
if grep -n 'target_link_libraries(cct_query[^)]*cct_ingest' "$CCT_SRC/CMakeLists.txt"; then
  echo "FAIL: CMakeLists.txt links the query library with the ingest library"; exit 1
fi
echo "ok the query library uses no symbol of the ingest library"
if grep -l -E 'addEventListener|getElementById|querySelector|font-family:|stroke-width:' "$CCT_SRC"/query/*.c "$CCT_SRC"/shell/*.c; then
  echo "FAIL: JavaScript or CSS in a C file (above)"; exit 1
fi
echo "ok no JavaScript or CSS inside a .c file"
