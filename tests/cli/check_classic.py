#!/usr/bin/env python3
"""Checks a classic database against its cctq archive, independently of cctq's
code: per-kind context counts equal the element counts of experiment.xml; each
context's inclusive and exclusive 'sum' values equal the <M> values; the
profiles are the *.metric-db files, or else the files embedded in hpcviewer's
merged experiment*.mdb (read here from the layout of formats doc 1.5): their
identities (rank, thread, host) and every value of every MetricDB column equal
the archive's, and they add up to the summary (to the XML's 6 significant
digits).  Usage: check_classic.py DB_DIR ARCHIVE RUN"""
import glob, os, sqlite3, struct, sys
import xml.etree.ElementTree as ET
from readers import blob_values

db_dir, archive, run = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = []

def close(a, b, rel=1e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9

# -- parse the XML with Python's own parser
metrics = {}      # Metric@i -> (name, t)
dbcols = []       # MetricDB: (column in the metric-db, name, t)
counts = {"function": 0, "loop": 0, "line": 0}
values = {}       # node id -> {metric id: value}
loops = {}        # loop id -> (parent loop id or None)
inlined_in = {}   # Pr id -> id of the PF lexically around it (none when a Pr is nearer)
frames = set()    # ids of every PF and Pr
root_vals = {}
stack = []
parent_tag = []
for ev, el in ET.iterparse(os.path.join(db_dir, "experiment.xml"), events=("start", "end")):
    tag = el.tag
    if ev == "start":
        if tag == "Metric":
            metrics[el.get("i")] = (el.get("n"), el.get("t"))
        elif tag == "MetricDB":
            dbcols.append((int(el.get("db-id", el.get("i"))), el.get("n"), el.get("t")))
        elif tag in ("PF", "Pr", "L", "C", "S"):
            counts["function" if tag in ("PF", "Pr") else "loop" if tag == "L" else "line"] += 1
            if tag == "L":
                loops[int(el.get("i"))] = stack[-1] if stack and stack[-1] in loops and parent_tag[-1] == "L" else None
            if tag in ("PF", "Pr"):
                frames.add(int(el.get("i")))
            if tag == "Pr":
                k = len(parent_tag) - 1
                while k >= 0 and parent_tag[k] not in ("PF", "Pr"):
                    k -= 1
                if k >= 0 and parent_tag[k] == "PF":  # a Pr's E holds no Pr (LULESH)
                    inlined_in[int(el.get("i"))] = stack[k]
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
        "SELECT c.id, v.inclusive, v.exclusive_lex FROM value v JOIN context c ON c.pre = v.key % 1099511627776 "
        "JOIN metric m ON m.run=c.run AND m.id = v.key / 1099511627776 "
        "WHERE c.run=? AND m.stat='sum' AND m.id=(SELECT min(id) FROM metric WHERE run=? AND stat='sum')", (run, run)):
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

# -- every <M> value of every Metric column: a column 'BASE[:Stat[:more]] (I|E)'
# is the archive metric (BASE, stat) ('sum' without a statistic); DBL_MIN in
# a Min column means unset (0)
STATS = (":Sum", ":Mean", ":StdDev", ":CfVar", ":Min", ":Max")
def column_key(n, t):
    which = "E" if t == "exclusive" or (t not in ("inclusive", "nil") and n.endswith(" (E)")) else "I"
    if n.endswith(" (I)") or n.endswith(" (E)"):
        n = n[:-4]
    cuts = [k for st in STATS for k in range(len(n)) if n.startswith(st, k) and
            (k + len(st) == len(n) or n[k + len(st)] == ":")]
    if not cuts:
        return n, "sum", which
    return n[:max(cuts)], n[max(cuts) + 1:].lower(), which
arch_all = {}
for cid, name, stat, inc, exc in con.execute(
        "SELECT c.id, m.name, m.stat, v.inclusive, v.exclusive_lex FROM value v JOIN context c ON c.pre = v.key % 1099511627776 "
        "JOIN metric m ON m.run=c.run AND m.id = v.key / 1099511627776 WHERE c.run=?", (run,)):
    arch_all[cid, name, stat] = (inc, exc)
declared = {r for r in con.execute("SELECT name, stat FROM metric WHERE run=?", (run,))}
for mid, (n, t) in metrics.items():
    base, stat, which = column_key(n, t)
    if (base, stat) not in declared:
        fails.append(f"metric column {n!r}: no archive metric ({base!r}, {stat!r})")
        continue
    for cid, vals in list(values.items()) + [(1, root_vals)]:
        want = vals.get(mid, 0.0)
        if stat.startswith("min") and 0 < want < 2.3e-308:
            want = 0.0
        got_v = arch_all.get((cid, base, stat), (0.0, 0.0))[0 if which == "I" else 1]
        if not close(got_v, want):
            fails.append(f"context {cid} {n}: archive {got_v}, <M> {want}")
        checked += 1

# -- a loop's 'function' scope exclusive adds the loops directly nested in it
if excl_id:
    fx = {}
    for lid in sorted(loops, reverse=True):  # children have larger ids than their parents
        fx[lid] = fx.get(lid, 0.0) + values[lid].get(excl_id, 0.0)
        if loops[lid] is not None:
            fx[loops[lid]] = fx.get(loops[lid], 0.0) + fx[lid]
    got_fx = dict(con.execute("SELECT c.id, v.exclusive FROM value v JOIN context c ON c.pre = v.key % 1099511627776 WHERE c.run=? AND v.key / 1099511627776 ="
                              "(SELECT min(id) FROM metric WHERE run=? AND stat='sum')", (run, run)).fetchall())
    for lid, want in fx.items():
        if not close(got_fx.get(lid, 0.0), want):
            fails.append(f"loop {lid}: function-scope exclusive {got_fx.get(lid, 0.0)}, expected {want}")
    # -- a procedure frame's <M> exclusive holds the inlined code (Pr) lexically inside it
    # (not that inside a Pr, which a Pr's E does not hold); its 'function' scope does
    # not: E(PF) - E(each Pr directly inside it)
    want_f = {fr: values[fr].get(excl_id, 0.0) for fr in frames}  # every frame, Pr in Pr too
    for pr, fr in inlined_in.items():
        want_f.setdefault(fr, values[fr].get(excl_id, 0.0))
        want_f[fr] -= values[pr].get(excl_id, 0.0)
    for fr, want in want_f.items():
        if not close(got_fx.get(fr, 0.0), want, 1e-5) and abs(got_fx.get(fr, 0.0) - want) > 1e-5 * values[fr].get(excl_id, 0.0):
            fails.append(f"frame {fr}: function-scope exclusive {got_fx.get(fr, 0.0)}, expected {want}")

# -- per-profile values: the archive's blobs equal the metric-db files, and
# (except in gauss, whose metric-db files cover 2 of its 4 ranks) add up to <M>
def name_identity(name):
    """rank, thread, host from <grp>.<exe>-<rank>-<thread>-<hostid>-<pid>-<gen>.metric-db"""
    parts = name[:-len(".metric-db")].split("-")
    return int(parts[-5]), int(parts[-4]), int(parts[-3], 16)

profiles = []  # (label, (rank, thread, node or None), metric-db bytes)
for path in sorted(glob.glob(os.path.join(db_dir, "*.metric-db"))):
    profiles.append((os.path.basename(path), name_identity(os.path.basename(path)), open(path, "rb").read()))
merged = sorted(glob.glob(os.path.join(db_dir, "experiment*.mdb")))
if not profiles and merged:
    data = open(merged[0], "rb").read()
    if struct.unpack(">Q", data[-8:])[0] != 0xFFFFFFFFDEADF00D:
        fails.append("merged file: no end marker")
    nfiles = struct.unpack_from(">i", data, 4)[0]
    index = [struct.unpack_from(">iiq", data, 8 + 16 * k) for k in range(nfiles)]
    ends = [off for _, _, off in index[1:]] + [len(data) - 8]
    for k, ((proc, thread, off), end) in enumerate(zip(index, ends)):
        profiles.append((f"{os.path.basename(merged[0])} file {k + 1}", (proc, thread, None), data[off:end]))

def split_name(n):
    """('cycles', 'I') from 'cycles (I)' or 'cycles:Sum (I)'"""
    base, which = n[:-4], n[-2]
    return base[:-4] if base.endswith(":Sum") else base, which

if profiles and dbcols:
    nprof = con.execute("SELECT profiles FROM runs WHERE run=?", (run,)).fetchone()[0]
    if nprof != len(profiles):
        fails.append(f"profiles: archive {nprof}, files {len(profiles)}")
    sum_metric = dict(con.execute("SELECT name, id FROM metric WHERE run=? AND stat='sum'", (run,)).fetchall())
    summary = {split_name(n): i for i, (n, t) in sum_ids.items()}
    ident = {r[0]: r[1:] for r in con.execute("SELECT id, rank, thread, node FROM profile WHERE run=?", (run,))}
    total = {}
    for k, (label, (rank, thread, node), data) in enumerate(profiles, 1):
        got_id = ident.get(k)
        want_id = (rank, thread, node)
        if got_id is None or got_id[0] != rank or got_id[1] != thread or (node is not None and got_id[2] != node):
            fails.append(f"{label}: archive identity (rank, thread, node) {got_id}, expected {want_id}")
        if data[:18] != b"HPCPROF-metricdb__":
            fails.append(f"{label}: not a metric-db")
            continue
        nodes, ncol = struct.unpack(">II", data[24:32])
        blobs = {}
        for col, n, t in dbcols:
            base, which = split_name(n)
            metric = sum_metric.get(base)
            if metric not in blobs:
                row = con.execute("SELECT data FROM profile_value WHERE run=? AND profile=? AND metric=?",
                                  (run, k, metric)).fetchone()
                blobs[metric] = blob_values(row[0]) if row else {}
            for node_id in range(1, nodes + 1):
                v = struct.unpack_from(">d", data, 32 + ((node_id - 1) * ncol + col) * 8)[0]
                key = (base, which)
                total[key, node_id] = total.get((key, node_id), 0.0) + v
                if node_id in values:
                    stored = blobs[metric].get(node_id, (0.0, 0.0))[0 if which == "I" else 1]
                    if stored != v:
                        fails.append(f"{label} node {node_id} {n}: archive {stored}, file {v}")
                    checked += 1
    if "gauss" not in db_dir:
        for (key, cid), tot in total.items():
            if cid in values and key in summary and not close(tot, values[cid].get(summary[key], 0.0)):
                fails.append(f"context {cid} {key}: metric-db sum {tot} != <M> {values[cid].get(summary[key], 0.0)}")

print(f"{os.path.basename(db_dir)}: {sum(counts.values())} contexts, {checked} values checked, "
      f"{len(profiles)} profiles, {len(fails)} failures")
for f in fails[:20]:
    print("  FAIL", f)
sys.exit(1 if fails else 0)
