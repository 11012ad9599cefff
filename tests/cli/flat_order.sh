#!/bin/bash
# The flat view's 'contexts' column and the orders 'by inclusive|exclusive|
# occurrences|name' of flat rows and of topdown/bottomup siblings (issue 12
# item 5), on the real osu-allgather run (classic, no instruction contexts).
# Counts are checked against plain SQL on the public views; orders against the
# rows of 'flat 0' (mode csv).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/osu.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
sqlite3 -csv "$a" "SELECT name, count(*) FROM contexts WHERE kind = 'function' GROUP BY name" >"$t/fn_count"
sqlite3 -csv "$a" "SELECT name, count(DISTINCT function) FROM functions GROUP BY name" >"$t/fn_ids"
sqlite3 -csv "$a" "SELECT file, line, count(*) FROM contexts WHERE kind = 'loop' GROUP BY file, line" >"$t/loop_count"
q() { "$CCTQ" "$a" -c "mode csv; $1" >"$t/$2"; }
q "flat 0" all
q "flat 0 by occurrences" by_occ
q "flat 0 by exclusive" by_excl
q "flat 0 by name" by_name
q "flat 0 by inclusive" by_incl
q "flat 5 by exclusive" top_excl
q "flat loops 0" loops
q "center pthread_spin_lock; bottomup 3 by name" bu_name
q "topdown 4 by exclusive" td_excl
if "$CCTQ" "$a" -c "topdown 2 by occurrences" 2>"$t/err"; then echo "FAIL: topdown by occurrences accepted"; exit 1; fi
grep -q "only flat and bottomup rows sort by occurrences" "$t/err" || { cat "$t/err"; echo "FAIL: error text"; exit 1; }
if "$CCTQ" "$a" -c "flat 3 by size" 2>"$t/err"; then echo "FAIL: flat by size accepted"; exit 1; fi
grep -q "unknown sort key .* 'size'" "$t/err" || { cat "$t/err"; echo "FAIL: error text"; exit 1; }
python3 - "$t" <<'PY'
import csv, sys
t = sys.argv[1]
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
def rows(name):
    r = list(csv.DictReader(open("%s/%s" % (t, name), newline="")))
    if not r: fail(name + ": no rows")
    return r
inc = lambda r: float(next(v for k, v in r.items() if k.endswith(" inclusive")))
exc = lambda r: float(next(v for k, v in r.items() if k.endswith(" exclusive")))
count = {n: int(c) for n, c in csv.reader(open(t + "/fn_count"))}
ids = {n: int(c) for n, c in csv.reader(open(t + "/fn_ids"))}
every = rows("all")
if "contexts" not in every[0]: fail("flat has no contexts column")
checked = 0
for r in every:
    if r["name"] in ids and ids[r["name"]] == 1:  # one function of that name: its contexts by SQL
        if int(r["contexts"]) != count[r["name"]]: fail("%s: %s contexts, SQL counts %d" % (r["name"], r["contexts"], count[r["name"]]))
        checked += 1
if checked < 100: fail("only %d functions checked" % checked)
if int(next(r for r in every if r["name"] == "pthread_spin_lock")["contexts"]) != 29: fail("pthread_spin_lock")
def nonincreasing(vals, what):
    if any(a < b for a, b in zip(vals, vals[1:])): fail(what + " not in descending order")
o = rows("by_occ"); nonincreasing([int(r["contexts"]) for r in o], "by occurrences")
if sorted(r["name"] for r in o) != sorted(r["name"] for r in every): fail("by occurrences: other rows")
if int(o[0]["contexts"]) != max(int(r["contexts"]) for r in every): fail("by occurrences: first row")
e = rows("by_excl"); nonincreasing([exc(r) for r in e], "by exclusive")
nonincreasing([inc(r) for r in rows("by_incl")], "by inclusive")
names = [r["name"].encode() for r in rows("by_name")]
if names != sorted(names): fail("by name not ascending")
top = rows("top_excl")
if sorted(exc(r) for r in top) != sorted(exc(r) for r in every)[-5:]: fail("flat 5 by exclusive is not the 5 largest exclusives")
loops = {(f, int(l)): int(c) for f, l, c in csv.reader(open(t + "/loop_count")) if l}
for r in rows("loops"):
    if r["line"] and (r["file"], int(r["line"])) in loops and int(r["contexts"]) != loops[(r["file"], int(r["line"]))]:
        fail("loop %s: %s contexts, SQL counts %d" % (r["name"], r["contexts"], loops[(r["file"], int(r["line"]))]))
kids = {}
for r in rows("bu_name"):
    if int(r["depth"]): kids.setdefault(r["path"].rsplit(";", 1)[0], []).append(r["name"].encode())
for parent, ks in kids.items():
    if ks != sorted(ks): fail("bottomup by name: siblings under %s out of order" % parent)
rs = rows("td_excl")
kids = {}
for r in rs:
    if int(r["depth"]): kids.setdefault(r["path"].rsplit(";", 1)[0], []).append(exc(r))
for parent, ks in kids.items(): nonincreasing(ks, "topdown by exclusive under " + parent)
print("ok flat contexts (%d functions against SQL), flat by occurrences/exclusive/name, siblings by name/exclusive" % checked)
PY
