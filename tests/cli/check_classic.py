#!/usr/bin/env python3
"""Checks a classic database against its cctq archive, independently of cctq's
code: per-kind context counts equal the element counts of experiment.xml; each
context's inclusive and exclusive 'sum' values equal the <M> values; where
metric-db files exist, per-profile values add up to the summary (to the XML's
6 significant digits).  Usage: check_classic.py DB_DIR ARCHIVE RUN"""
import glob, os, sqlite3, struct, subprocess, sys
import xml.etree.ElementTree as ET

db_dir, archive, run = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = []

def close(a, b, rel=1e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9

# -- parse the XML with Python's own parser
metrics = {}      # Metric@i -> (name, t)
counts = {"function": 0, "loop": 0, "line": 0}
values = {}       # node id -> {metric id: value}
loops = {}        # loop id -> (parent loop id or None)
root_vals = {}
stack = []
parent_tag = []
for ev, el in ET.iterparse(os.path.join(db_dir, "experiment.xml"), events=("start", "end")):
    tag = el.tag
    if ev == "start":
        if tag == "Metric":
            metrics[el.get("i")] = (el.get("n"), el.get("t"))
        elif tag in ("PF", "Pr", "L", "C", "S"):
            counts["function" if tag in ("PF", "Pr") else "loop" if tag == "L" else "line"] += 1
            if tag == "L":
                loops[int(el.get("i"))] = stack[-1] if stack and stack[-1] in loops and parent_tag[-1] == "L" else None
            stack.append(int(el.get("i")))
            parent_tag.append(tag)
            values[stack[-1]] = {}
        elif tag == "M":
            target = values[stack[-1]] if stack else root_vals
            target[el.get("n")] = float(el.get("v"))
    else:
        if tag in ("PF", "Pr", "L", "C", "S"):
            stack.pop()
            parent_tag.pop()
        el.clear()

con = sqlite3.connect(archive)
got = dict(con.execute("SELECT kind, count(*) FROM contexts WHERE run=? GROUP BY kind", (run,)).fetchall())
for k, n in counts.items():
    if got.get(k, 0) != n:
        fails.append(f"{k} contexts: archive {got.get(k, 0)}, experiment.xml {n}")
if got.get("root") != 1:
    fails.append("expected exactly one root context")

# the 'sum' statistic pair: ':Sum (I)' / ':Sum (E)' or names without a statistic
def is_sum(name):
    base = name.rsplit(" (", 1)[0]
    return ":Sum" in base or ":" not in base.replace("::", "")
sum_ids = {i: (n, t) for i, (n, t) in metrics.items() if is_sum(n)}
arch = {}
for cid, inc, exc in con.execute(
        "SELECT c.id, v.inclusive, v.exclusive_lex FROM value v JOIN context c ON c.pre=v.pre "
        "JOIN metric m ON m.run=v.run AND m.id=v.metric "
        "WHERE v.run=? AND m.stat='sum' AND m.id=(SELECT min(id) FROM metric WHERE run=? AND stat='sum')", (run, run)):
    arch[cid] = (inc, exc)
first_sum = sorted(((n, i, t) for i, (n, t) in sum_ids.items()), key=lambda x: int(x[1]))
incl_id = next((i for n, i, t in first_sum if t in ("inclusive", "nil", None)), None)
excl_id = next((i for n, i, t in first_sum if t == "exclusive"), None)
checked = 0
for cid, vals in list(values.items()) + [(1, root_vals)]:
    inc = vals.get(incl_id, 0.0) if incl_id else 0.0
    exc = vals.get(excl_id, 0.0) if excl_id else 0.0
    a = arch.get(cid, (0.0, 0.0))
    if not close(a[0], inc) or not close(a[1], exc):
        fails.append(f"context {cid}: archive ({a[0]}, {a[1]}), <M> ({inc}, {exc})")
    checked += 1

# -- a loop's 'function' scope exclusive adds the loops directly nested in it
if excl_id:
    fx = {}
    for lid in sorted(loops, reverse=True):  # children have larger ids than their parents
        fx[lid] = fx.get(lid, 0.0) + values[lid].get(excl_id, 0.0)
        if loops[lid] is not None:
            fx[loops[lid]] = fx.get(loops[lid], 0.0) + fx[lid]
    got_fx = dict(con.execute("SELECT c.id, v.exclusive FROM value v JOIN context c ON c.pre=v.pre WHERE v.run=? AND v.metric="
                              "(SELECT min(id) FROM metric WHERE run=? AND stat='sum')", (run, run)).fetchall())
    for lid, want in fx.items():
        if not close(got_fx.get(lid, 0.0), want):
            fails.append(f"loop {lid}: function-scope exclusive {got_fx.get(lid, 0.0)}, expected {want}")

# -- per-profile values: the archive's blobs equal the metric-db files, and
# (except in gauss, whose metric-db files cover 2 of its 4 ranks) add up to <M>
def blob_values(blob):
    raw = subprocess.run(["zstd", "-dc"], input=blob, stdout=subprocess.PIPE, check=True).stdout
    n = struct.unpack_from("<I", raw, 0)[0]
    ctx = struct.unpack_from(f"<{n}I", raw, 4)
    inc = struct.unpack_from(f"<{n}d", raw, 4 + 4 * n)
    return dict(zip(ctx, inc))

mdbs = sorted(glob.glob(os.path.join(db_dir, "*.metric-db")))
if mdbs and incl_id:
    nprof = con.execute("SELECT profiles FROM runs WHERE run=?", (run,)).fetchone()[0]
    if nprof != len(mdbs):
        fails.append(f"profiles: archive {nprof}, files {len(mdbs)}")
    metric = con.execute("SELECT min(id) FROM metric WHERE run=? AND stat='sum'", (run,)).fetchone()[0]
    total = {}
    for k, path in enumerate(mdbs, 1):
        data = open(path, "rb").read()
        nodes, ncol = struct.unpack(">II", data[24:32])
        row = con.execute("SELECT data FROM profile_value WHERE run=? AND profile=? AND metric=?",
                          (run, k, metric)).fetchone()
        stored = blob_values(row[0]) if row else {}
        for node in range(1, nodes + 1):
            v = struct.unpack_from(">d", data, 32 + ((node - 1) * ncol) * 8)[0]
            total[node] = total.get(node, 0.0) + v
            if node in values and stored.get(node, 0.0) != v:
                fails.append(f"{os.path.basename(path)} node {node}: archive {stored.get(node)}, file {v}")
    if "gauss" not in db_dir:
        for cid, vals in values.items():
            if not close(total.get(cid, 0.0), vals.get(incl_id, 0.0)):
                fails.append(f"context {cid}: metric-db sum {total.get(cid)} != <M> {vals.get(incl_id)}")

print(f"{os.path.basename(db_dir)}: {sum(counts.values())} contexts, {checked} value pairs checked, "
      f"{len(mdbs)} metric-db files, {len(fails)} failures")
for f in fails[:20]:
    print("  FAIL", f)
sys.exit(1 if fails else 0)
