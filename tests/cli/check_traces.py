#!/usr/bin/env python3
"""check_traces.py DBDIR ARCHIVE [RUN]: re-reads the traces of an HPCToolkit
database with Python's own struct module (v4 and prof2 trace.db, classic
*.hpctrace, hpcviewer's experiment.mt) and checks what cctingest stored:

- the metric 'trace (sec)': each context's point value is the sum, over
  profiles, of its records' durations (a record lasts until that profile's next
  one, the last record for none, context 0 idle); inclusive, 'function' and
  'lex_aware' exclusive follow from the point values by hpcprof's rules
  (formats.md 3.4), recomputed here over the archive's public 'contexts' view;
- trace_run (first record, span, record count) and each lane's records, first,
  last and busy time.

Prints a summary line; exits 1 on the first mismatch."""
import glob
import os
import re
import sqlite3
import struct
import sys
from collections import defaultdict


def v4_traces(path):
    b = open(path, "rb").read()
    assert b[:10] == b"HPCTOOLKIT" and b[10:14] == b"trce"
    _, sec = struct.unpack_from("<QQ", b, 0x10)
    ptr, n, sz = struct.unpack_from("<QIB", b, sec)
    for i in range(n):
        prof, a, e = struct.unpack_from("<I4xQQ", b, ptr + i * sz)
        recs = [struct.unpack_from("<QI", b, a + 12 * j) for j in range((e - a) // 12)]
        if recs:
            yield recs


def prof2_traces(path):
    b = open(path, "rb").read()
    assert b[:16] == b"HPCPROF-tracedb_"
    (n,) = struct.unpack_from(">I", b, 18)
    (ptr,) = struct.unpack_from(">Q", b, 32)
    for i in range(n):
        prof, typ, a, e = struct.unpack_from(">IHQQ", b, ptr + 22 * i)
        recs = [struct.unpack_from(">QI", b, a + 12 * j) for j in range((e - a) // 12)]
        if typ == 0 and recs:
            yield recs


def hpctrace(b):
    assert b[:18] == b"HPCRUN-trace______"
    v101 = b[18:23] == b"01.01"
    hdr, scale = (32, 1) if v101 else (24, 1000)
    recsz = 16 if v101 and struct.unpack_from(">Q", b, 24)[0] & 1 else 12
    return [(t * scale, c) for t, c in (struct.unpack_from(">QI", b, hdr + recsz * j)
                                        for j in range((len(b) - hdr) // recsz))]


def classic_traces(db):
    files = sorted(glob.glob(os.path.join(db, "*.hpctrace")))
    if files:
        for f in files:
            recs = hpctrace(open(f, "rb").read())
            if recs:
                yield recs
        return
    mt = os.path.join(db, "experiment.mt")
    if os.path.exists(mt):
        b = open(mt, "rb").read()
        (n,) = struct.unpack_from(">i", b, 4)
        offs = [struct.unpack_from(">iiq", b, 8 + 16 * i)[2] for i in range(n)] + [len(b) - 8]
        for i in range(n):
            recs = hpctrace(b[offs[i]:offs[i + 1]])
            if recs:
                yield recs


def classic_alias(db):
    """Classic records name statements by S@it: it -> the context id S@i."""
    alias = {}
    xml = open(os.path.join(db, "experiment.xml"), encoding="utf-8", errors="replace").read()
    for attrs in re.findall(r"<S\b([^>]*)>", xml):
        i, it = re.search(r'\bi="(\d+)"', attrs), re.search(r'\bit="(\d+)"', attrs)
        if it:
            alias[int(it.group(1))] = int(i.group(1))
    return alias


def main():
    db, archive = sys.argv[1], sys.argv[2]
    run = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    con = sqlite3.connect(archive)
    fmt = con.execute("SELECT format FROM runs WHERE run = ?", (run,)).fetchone()[0]
    if fmt == "v4":
        traces = list(v4_traces(os.path.join(db, "trace.db")))
    elif fmt == "prof2":
        traces = list(prof2_traces(os.path.join(db, "trace.db")))
    else:
        traces = list(classic_traces(db))
    # classic records name statements by S@it; map them to the context ids (S@i)
    alias = classic_alias(db) if fmt.startswith("classic") else {}
    point_ns = defaultdict(int)
    lanes = []
    for recs in traces:
        busy = 0
        for (t, c), (t2, _) in zip(recs, recs[1:]):
            assert t2 >= t, "times out of order"
            if c:
                point_ns[alias.get(c, c) if fmt.startswith("classic") else c] += t2 - t
                busy += t2 - t
        lanes.append((len(recs), recs[0][0], recs[-1][0], busy))
    fail = []
    row = con.execute("SELECT t0, span, records, lanes FROM trace_run WHERE run = ?", (run,)).fetchone()
    if not traces:
        if row is not None:
            fail.append("trace_run row for a database without records")
        print("check_traces: %s: no traces, none stored" % db)
        return 1 if fail else 0
    t0 = min(l[1] for l in lanes)
    want = (t0, max(l[2] for l in lanes) - t0, sum(l[0] for l in lanes), len(lanes))
    if row != want:
        fail.append("trace_run %r, expected %r" % (row, want))
    got_lanes = con.execute("SELECT records, first, last, busy FROM trace_lane WHERE run = ? ORDER BY lane",
                            (run,)).fetchall()
    want_lanes = [(n, a - t0, b - t0, busy) for n, a, b, busy in lanes]
    if got_lanes != want_lanes:
        fail.append("lanes %r, expected %r" % (got_lanes[:3], want_lanes[:3]))
    # the tree from the public view, and the stored values of the trace metric
    ctx = {}
    for cid, parent, kind, rel in con.execute("SELECT id, parent, kind, relation FROM contexts WHERE run = ?", (run,)):
        ctx[cid] = (parent, kind, rel)
    unknown = [c for c in point_ns if c not in ctx]
    if unknown:
        fail.append("records name contexts not in the tree: %r" % unknown[:5])
    vals = {cid: (i, e) for cid, i, e in con.execute(
        "SELECT v.id, v.inclusive, v.exclusive FROM context_values v JOIN metrics m USING (run, metric) "
        "WHERE v.run = ? AND m.name = 'trace (sec)'", (run,))}
    incl = defaultdict(int)
    excl = defaultdict(int)
    for c, ns in point_ns.items():
        excl_chain = True
        x = c
        while x is not None:
            incl[x] += ns
            if excl_chain:
                excl[x] += ns
            parent, kind, rel = ctx[x]
            # a call or inlined frame (or a call-entered instruction) ends the function scope
            if kind == "root" or rel != "lexical" or kind == "function":
                excl_chain = False
            x = parent
    checked = 0
    for cid in ctx:
        gi, ge = vals.get(cid, (0.0, 0.0))
        wi, we = incl[cid] * 1e-9, excl[cid] * 1e-9
        if abs(gi - wi) > 1e-9 * max(1, wi) or abs(ge - we) > 1e-9 * max(1, we):
            fail.append("context %d: trace inclusive %r exclusive %r, expected %r %r" % (cid, gi, ge, wi, we))
        checked += 1
    for f in fail[:10]:
        print("check_traces: %s: %s" % (db, f), file=sys.stderr)
    if fail:
        return 1
    print("check_traces: %s: %d lanes, %d records, %d contexts checked, %.6f s traced" %
          (db, len(lanes), want[2], checked, sum(point_ns.values()) * 1e-9))
    return 0


if __name__ == "__main__":
    sys.exit(main())
