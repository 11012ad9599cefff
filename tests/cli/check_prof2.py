#!/usr/bin/env python3
"""Checks a prof2 database (experiment.xml version 4.0 + big-endian profile.db)
against its cctq archive, independently of cctq's code, from the layout of
docs/hpctoolkit-formats.md section 2: the contexts (positive ids of the XML;
negative ids are synthetic wrappers whose children hang from the nearest
positive ancestor, the root being context 0) with their kinds and parents;
every summary value (profile 0, keyed by the PARTIAL ids the visible metrics'
view formulas name) of every context; every value of every thread profile
(keyed by the MetricDB ids) and each profile's identity (id tuple); the count
of elided context ids; and that the profiles add up to the summary.
Usage: check_prof2.py DB_DIR ARCHIVE RUN"""
import os, sqlite3, sys
from prof2read import read_profiles
from readers import blob_values
import xml.etree.ElementTree as ET

db_dir, archive, run = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = []

def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-12

# -- experiment.xml
KIND = {"PF": "function", "Pr": "function", "L": "loop", "C": "line", "S": "line"}
parent = {}          # positive id -> parent positive id (0 = root)
kind = {}
summary_ids = []     # (base, 'I'|'E', id in the summary profile)
profile_ids = []     # (base, 'I'|'E', MetricDB id in the thread profiles)
stack = [0]
pending = None
for ev, el in ET.iterparse(os.path.join(db_dir, "experiment.xml"), events=("start", "end")):
    tag = el.tag
    if ev == "start":
        if tag == "Metric":
            pending = el.get("n")
        elif tag == "MetricFormula" and el.get("t") == "view" and pending and ":PARTIAL:" not in pending:
            base, which = pending[:-4], pending[-2]
            assert base.endswith(":Sum"), pending
            summary_ids.append((base[:-4], which, int(el.get("frm")[1:])))
        elif tag == "MetricDB":
            n = el.get("n")
            profile_ids.append((n[:-4], n[-2], int(el.get("i"))))
        elif tag in KIND:
            i = int(el.get("i"))
            if i > 0:
                parent[i] = stack[-1]
                kind[i] = KIND[tag]
                stack.append(i)
            else:
                stack.append(stack[-1])
    else:
        if tag in KIND:
            stack.pop()
        el.clear()

# -- profile.db
profiles, bad = read_profiles(db_dir)
fails += bad
nprof = len(profiles)

con = sqlite3.connect(archive)
checked = 0

# -- the tree
rows = {i: (p, k) for i, p, k in con.execute("SELECT id, parent, kind FROM contexts WHERE run=?", (run,))}
if rows.get(0, (None, None))[1] != "root":
    fails.append("context 0 is not the root")
for i in parent:
    got = rows.get(i)
    if got is None or got[1] != kind[i]:
        fails.append(f"context {i}: archive {got}, experiment.xml {kind[i]}")
    elif (got[0] if got[0] is not None else 0) != parent[i]:
        fails.append(f"context {i}: parent {got[0]} in the archive, {parent[i]} in experiment.xml")
    checked += 1
if len(rows) != len(parent) + 1:
    fails.append(f"{len(rows)} contexts in the archive, {len(parent) + 1} in experiment.xml (with the root)")
elided = sum(1 for c in profiles[0][1] if c != 0 and c not in parent)
got_elided = con.execute("SELECT elided FROM run WHERE run=?", (run,)).fetchone()[0]
if got_elided != elided:
    fails.append(f"elided: archive {got_elided}, profile.db {elided}")

# -- summary values: profile 0 (a loop's exclusive includes its nested loops: function scope)
metric = dict(con.execute("SELECT name, metric FROM metrics WHERE run=?", (run,)).fetchall())
arch = {(i, m): (inc, exc) for i, m, inc, exc in
        con.execute("SELECT id, metric, inclusive, exclusive FROM context_values WHERE run=?", (run,))}
lex = {(i, m): (e, l) for i, m, e, l in con.execute(
    "SELECT c.id, v.key / 1099511627776, v.exclusive, v.exclusive_lex FROM value v JOIN context c ON c.pre = v.key % 1099511627776 "
    "WHERE c.run=?", (run,))}
for base, which, mid in summary_ids:
    if base not in metric:
        fails.append(f"metric {base!r} missing from the archive")
        continue
    for ctx in [0] + sorted(parent):
        want = profiles[0][1].get(ctx, {}).get(mid, 0.0)
        got = arch.get((ctx, metric[base]), (0.0, 0.0))[0 if which == "I" else 1]
        if got != want:
            fails.append(f"summary {base} ({which}) of context {ctx}: archive {got}, profile.db {want}")
        e, l = lex.get((ctx, metric[base]), (0.0, 0.0))
        if e != l:
            fails.append(f"context {ctx}: exclusive_lex {l} != exclusive {e} (prof2 has no lex_aware)")
        checked += 1

# -- thread profiles: identity from the id tuple, every value of every MetricDB column
nprofiles = con.execute("SELECT profiles FROM runs WHERE run=?", (run,)).fetchone()[0]
if nprofiles != nprof - 1:
    fails.append(f"profiles: archive {nprofiles}, profile.db {nprof - 1} besides the summary")
ident = {r[0]: r[1:] for r in con.execute("SELECT id, node, rank, thread, core, source FROM profile WHERE run=?", (run,))}
total = {}
for k in range(1, nprof):
    ids, ctxs = profiles[k]
    want = {"node": None, "rank": None, "thread": None, "core": None}
    for kd, phys, logi in ids:
        name = {1: "node", 2: "rank", 3: "thread", 7: "core"}.get(kd & 0x3FFF)
        if name:
            want[name] = phys if name == "node" else logi
    got = ident.get(k)
    if got is None or list(got[:4]) != [want["node"], want["rank"], want["thread"], want["core"]] or \
            got[4] != f"profile.db#{k}":
        fails.append(f"profile {k}: archive identity {got}, id tuple {want}")
    blobs = {}
    for base, which, mid in profile_ids:
        if metric[base] not in blobs:
            row = con.execute("SELECT data FROM profile_value WHERE run=? AND profile=? AND metric=?",
                              (run, k, metric[base])).fetchone()
            blobs[metric[base]] = blob_values(row[0]) if row else {}
        for ctx in [0] + sorted(parent):
            v = ctxs.get(ctx, {}).get(mid, 0.0)
            got_v = blobs[metric[base]].get(ctx, (0.0, 0.0))[0 if which == "I" else 1]
            if got_v != v:
                fails.append(f"profile {k} context {ctx} {base} ({which}): archive {got_v}, profile.db {v}")
            total[base, which, ctx] = total.get((base, which, ctx), 0.0) + v
            checked += 1
        extra = set(blobs[metric[base]]) - set(parent) - {0}
        if extra:
            fails.append(f"profile {k}: values for contexts not in the tree: {sorted(extra)[:5]}")
# the thread profiles add up to the summary
sid = {(b, w): m for b, w, m in summary_ids}
for (base, which, ctx), tot in total.items():
    want = profiles[0][1].get(ctx, {}).get(sid.get((base, which)), 0.0)
    if not close(tot, want, 1e-6):
        fails.append(f"context {ctx} {base} ({which}): profiles add up to {tot}, the summary is {want}")

print(f"{os.path.basename(db_dir)}: {len(parent) + 1} contexts, {checked} values checked, {nprof - 1} profiles, "
      f"{elided} elided, {len(fails)} failures")
for f in fails[:20]:
    print("  FAIL", f)
sys.exit(1 if fails else 0)
