#!/bin/bash
# The layout of the README's Design section, checked on the built library
# (issue 14): the query library's archive holds no shell object, its files call
# each other one way only (no cycle in the graph of which object file uses a
# function another defines, from nm), and no C file carries the pictures'
# JavaScript or CSS (they are real files under query/picture/, embedded at build).
set -euo pipefail
[ -n "${CCT_QUERY_LIB:-}" ] && [ -f "$CCT_QUERY_LIB" ] || { echo "skip: no query library"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "skip: no nm"; exit 77; }
nm "$CCT_QUERY_LIB" | python3 -c '
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
shell = sorted(o for o in objs if o.startswith(("shell", "tui", "format", "main")))
if shell: sys.exit("FAIL: the query library holds shell objects: %s" % shell)
dep = {a: {b for b in objs if b != a and uses[a] & defs[b]} for a in objs}
state = {}
def visit(a, path):
    state[a] = 1
    for b in sorted(dep[a]):
        if state.get(b) == 1: sys.exit("FAIL: a cycle between query files: %s" % " -> ".join(path + [a, b]))
        if not state.get(b): visit(b, path + [a])
    state[a] = 2
for a in sorted(objs):
    if not state.get(a): visit(a, [])
if len(objs) < 10: sys.exit("FAIL: only %d objects read from the library: %s" % (len(objs), sorted(objs)))
print("ok query library: %d files, no shell object, no cycle" % len(objs))
'
if grep -l -E 'addEventListener|getElementById|querySelector|font-family:|stroke-width:' "$CCT_SRC"/query/*.c "$CCT_SRC"/shell/*.c; then
  echo "FAIL: JavaScript or CSS in a C file (above)"; exit 1
fi
echo "ok no JavaScript or CSS inside a .c file"
