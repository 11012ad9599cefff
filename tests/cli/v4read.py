#!/usr/bin/env python3
"""v4read.py: an independent reader of HPCToolkit v4 databases (meta.db and
profile.db), written from docs/hpctoolkit-formats.md section 3 alone, for tests
that check cctq's figures against the files.  No cctq code is used.

As a module: Db(dir) gives
  ctx[id] = dict(parent, lt (0 function, 1 loop, 2 line, 3 instruction),
                 rel (0 lexical, 1 call, 2 inlined), fn, file, line, module, offset
                 (the point: instructions, and loops since HPCToolkit 2023.08; else None))
  metrics = [dict(name, scopes={scope name: (propMetricId, statMetricId of the
                 ($$, sum) summary or None)})]
  summary = {ctxId: {statMetricId: value}} (profile 0)
  profiles = number of non-summary profiles
As a script: v4read.py DIR loops METRIC prints, for every loop context of
meta.db, 'file line ctxid lex_aware' (lex_aware 0 when none is stored), the
loop's file by path, for comparison with cctq's line-granularity views;
v4read.py DIR values ARCHIVE checks that the archive's only run has the
database's profile count and, for every context of meta.db and every metric,
the summary execution (inclusive) and function (exclusive) sums as its
context_values (0 where none is stored); prints one line per difference and
exits 1 if any.  v4read.py DIR loopcheck METRIC < CSV checks the loop rows of
cctq's line-granularity top-down tree of the whole program (mode csv) against
the database's stored lex_aware values of METRIC (0 where none is stored): per
loop header (file, line), the rows' exclusive values are the contexts' values
(as sorted lists when there are as many rows as contexts, else as sums, rows
merging contexts); exits 1 on any difference.  v4read.py DIR lexmetrics
prints the names of up to 3 metrics with a lex_aware scope, those with a
value on some loop first.  v4read.py DIR ingested ARCHIVE does 'values', then
'loopcheck' of each of those metrics on the csv of $CCTQ (one process for all).
v4read.py DIR imbalance METRIC prints, per kind of
profile present ('cpu', 'gpu': a GPUCONTEXT or GPUSTREAM in its id tuple),
'KIND COUNT IMBALANCE' of the program's inclusive METRIC (max / mean over the
profiles of that kind, 0 when the mean is 0), with 3 decimals.  v4read.py DIR
ranksums METRIC prints 'KIND RANK SUM' per kind and RANK (the logical id of
the tuple's RANK element): the program's inclusive METRIC over its profiles."""
import os
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopcheck import compare_loops, cctq_loop_rows  # noqa: E402  (shared with the classic/prof2 check)


def u8(b, o): return b[o]
def u16(b, o): return struct.unpack_from("<H", b, o)[0]
def u32(b, o): return struct.unpack_from("<I", b, o)[0]
def u64(b, o): return struct.unpack_from("<Q", b, o)[0]


def cstr(b, o):
    return b[o:b.index(b"\0", o)].decode("utf-8", "replace") if o else None


class Db:
    def __init__(self, d):
        m = open(os.path.join(d, "meta.db"), "rb").read()
        p = open(os.path.join(d, "profile.db"), "rb").read()
        assert m[:10] == b"HPCTOOLKIT" and m[10:14] == b"meta"
        assert p[:10] == b"HPCTOOLKIT" and p[10:14] == b"prof"
        sec = lambda b, i: (u64(b, 0x10 + 16 * i), u64(b, 0x18 + 16 * i))
        # metrics (section 2)
        _, mp = sec(m, 2)
        pm, nm, szm = u64(m, mp), u32(m, mp + 8), u8(m, mp + 0x0c)
        szpsi, szss = u8(m, mp + 0x0d), u8(m, mp + 0x0e)
        self.metrics = []
        for i in range(nm):
            md = pm + i * szm
            name = cstr(m, u64(m, md))
            ppsi, pss, npsi, nss = u64(m, md + 8), u64(m, md + 0x10), u16(m, md + 0x18), u16(m, md + 0x1a)
            scopes = {}
            for j in range(npsi):
                x = ppsi + j * szpsi
                scopes[cstr(m, u64(m, u64(m, x)))] = [u16(m, x + 8), None]
            for j in range(nss):
                x = pss + j * szss
                sname = cstr(m, u64(m, u64(m, x)))
                if cstr(m, u64(m, x + 8)) == "$$" and u8(m, x + 0x10) == 0 and sname in scopes:
                    scopes[sname][1] = u16(m, x + 0x12)
            self.metrics.append(dict(name=name, scopes={k: tuple(v) for k, v in scopes.items()}))
        # context tree (section 3): pre-order walk from the entry points
        _, cp = sec(m, 3)
        pep, nep, szep = u64(m, cp), u16(m, cp + 8), u8(m, cp + 0x0a)
        self.ctx = {}
        stack = []
        for i in range(nep):
            e = pep + i * szep
            cid = u32(m, e + 0x10)
            self.ctx[cid] = dict(parent=0, lt=0, rel=1, fn=None, file=None, line=None, module=None, offset=None,
                                 entry=True)
            stack.append((u64(m, e + 8), u64(m, e), cid))
        while stack:
            q, sz, owner = stack.pop()
            end = q + sz
            while q < end:
                cid, flags, rel, lt, nflex = u32(m, q + 0x10), m[q + 0x14], m[q + 0x15], m[q + 0x16], m[q + 0x17]
                f, w = {}, q + 0x20
                if flags & 1:
                    f["fn"] = u64(m, w); w += 8
                if flags & 2:
                    f["file"] = u64(m, w); f["line"] = u32(m, w + 8); w += 16
                if flags & 4:
                    f["module"] = u64(m, w); f["offset"] = u64(m, w + 8); w += 16
                self.ctx[cid] = dict(parent=owner, lt=lt, rel=rel, fn=f.get("fn"), file=f.get("file"),
                                     line=f.get("line"), module=f.get("module"), offset=f.get("offset"),
                                     entry=False)
                if u64(m, q):
                    stack.append((u64(m, q + 8), u64(m, q), cid))
                q += 0x20 + 8 * nflex
        self.meta = m
        # profile.db: profile 0 is the summary
        _, pp = sec(p, 0)
        ppi, npi, szpi = u64(p, pp), u32(p, pp + 8), u8(p, pp + 0x0c)
        self.profiles = npi - 1
        self.root = []  # per non-summary profile: (id-tuple kinds, {propMetricId: value at context 0})
        self.ranks = []  # per non-summary profile: its RANK's logical id, or None
        for i in range(1, npi):
            pi = ppi + i * szpi
            pt = u64(p, pi + 0x20)
            kinds = [p[pt + 8 + 16 * k] for k in range(u16(p, pt))] if pt else []
            rank = [u32(p, pt + 8 + 16 * k + 4) for k in range(len(kinds)) if kinds[k] == 2]
            self.ranks.append(rank[0] if rank else None)
            nv, pv, nc, px = u64(p, pi), u64(p, pi + 8), u32(p, pi + 0x10), u64(p, pi + 0x18)
            vals = {}
            if nc and struct.unpack_from("<I", p, px)[0] == 0:
                stop = struct.unpack_from("<IQ", p, px + 12)[1] if nc > 1 else nv
                vals = {u16(p, pv + 10 * j): struct.unpack_from("<d", p, pv + 10 * j + 2)[0] for j in range(stop)}
            self.root.append((kinds, vals))
        nvals, pvals, nctxs, pidx = u64(p, ppi), u64(p, ppi + 8), u32(p, ppi + 0x10), u64(p, ppi + 0x18)
        self.summary = {}
        for i in range(nctxs):
            cid, start = struct.unpack_from("<IQ", p, pidx + 12 * i)
            stop = struct.unpack_from("<IQ", p, pidx + 12 * (i + 1))[1] if i + 1 < nctxs else nvals
            self.summary[cid] = {u16(p, pvals + 10 * j): struct.unpack_from("<d", p, pvals + 10 * j + 2)[0]
                                 for j in range(start, stop)}

    def file_path(self, off):
        return cstr(self.meta, u64(self.meta, off + 8)) if off else None

    def frame(self, c):
        """The nearest enclosing function context of context c (0 or None at the top)."""
        p = self.ctx[c]["parent"]
        while p and self.ctx[p]["lt"] != 0:
            p = self.ctx[p]["parent"]
        return p

    def stat(self, metric, scope):
        for md in self.metrics:
            if md["name"] == metric and scope in md["scopes"]:
                return md["scopes"][scope][1]
        return None


def loop_want(db, metric):
    """{(file, line): [lex_aware values of metric]} of every loop context, for compare_loops."""
    sid = db.stat(metric, "lex_aware")
    want = {}
    for cid, c in db.ctx.items():
        if c["lt"] == 1:
            v = db.summary.get(cid, {}).get(sid, 0.0) if sid is not None else 0.0
            want.setdefault((db.file_path(c["file"]) or "", c["line"] or 0), []).append(v)
    return want


def lexmetrics(db):
    """Up to 3 metrics with a lex_aware scope, those with a value on some loop first."""
    loops = [cid for cid, c in db.ctx.items() if c["lt"] == 1]
    lex = [md for md in db.metrics if md["scopes"].get("lex_aware", (0, None))[1] is not None]
    names = sorted((not any(db.summary.get(cid, {}).get(md["scopes"]["lex_aware"][1], 0) for cid in loops), i,
                    md["name"]) for i, md in enumerate(lex))
    return [n for _, _, n in names][:3]


if __name__ == "__main__":
    db = Db(sys.argv[1])
    if sys.argv[2] == "loops":
        sid = db.stat(sys.argv[3], "lex_aware")
        for cid, c in sorted(db.ctx.items()):
            if c["lt"] == 1:
                v = db.summary.get(cid, {}).get(sid, 0.0) if sid is not None else 0.0
                print(db.file_path(c["file"]), c["line"], cid, repr(v))
    elif sys.argv[2] in ("values", "ingested"):
        con = sqlite3.connect(sys.argv[3])
        bad = []
        (profiles,), = con.execute("SELECT profiles FROM runs")
        if profiles != db.profiles:
            bad.append(f"profiles: archive {profiles}, profile.db {db.profiles}")
        got = {}
        for cid, name, inc, exc in con.execute(
                "SELECT v.id, m.name, v.inclusive, v.exclusive FROM context_values v JOIN metrics m USING (run, metric)"):
            got[(cid, name)] = (inc, exc)
        checked = 0
        for md in db.metrics:
            e, f = md["scopes"].get("execution", (0, None))[1], md["scopes"].get("function", (0, None))[1]
            if e is None or f is None:
                continue
            for cid in list(db.ctx) + [0]:
                vals = db.summary.get(cid, {})
                want = (vals.get(e, 0.0), vals.get(f, 0.0))
                have = got.get((cid, md["name"]), (0.0, 0.0))
                checked += 1
                if any(abs(a - b) > 1e-9 * max(abs(a), abs(b)) for a, b in zip(want, have)):
                    bad.append(f"context {cid} {md['name']}: archive {have}, database {want}")
        for line in bad[:20]:
            print(line)
        print(f"{checked} values checked, {len(bad)} differ")
        if bad or not checked:
            sys.exit(1)
        # ingested: then the loopcheck of each lexmetric, the csv from $CCTQ (one process for it all)
        for metric in (lexmetrics(db) if sys.argv[2] == "ingested" else []):
            if compare_loops(loop_want(db, metric), cctq_loop_rows(sys.argv[3], metric).splitlines(True), metric,
                             "lex_aware"):
                print(f"loop exclusive of {metric} differs")
                bad.append(metric)
        sys.exit(1 if bad else 0)
    elif sys.argv[2] == "loopcheck":
        metric = sys.argv[3]
        sys.exit(1 if compare_loops(loop_want(db, metric), sys.stdin, metric, "lex_aware") else 0)
    elif sys.argv[2] == "lexmetrics":
        for n in lexmetrics(db):
            print(n)
    elif sys.argv[2] == "ranksums":
        md = [x for x in db.metrics if x["name"] == sys.argv[3]][0]
        prop = md["scopes"]["execution"][0]
        per = {}
        for (kinds, vals), rank in zip(db.root, db.ranks):
            k = "gpu" if 5 in kinds or 6 in kinds else "cpu"
            per.setdefault(k, {}).setdefault(rank, 0.0)
            per[k][rank] += vals.get(prop, 0.0)
        for k in ("cpu", "gpu"):
            for r in sorted(per.get(k, {})):
                print(k, r, repr(per[k][r]))
    elif sys.argv[2] == "imbalance":
        md = [x for x in db.metrics if x["name"] == sys.argv[3]][0]
        prop = md["scopes"]["execution"][0]
        per = {}
        for kinds, vals in db.root:
            per.setdefault("gpu" if 5 in kinds or 6 in kinds else "cpu", []).append(vals.get(prop, 0.0))
        for k in ("cpu", "gpu"):
            if k in per:
                mean = sum(per[k]) / len(per[k])
                print(k, len(per[k]), "%.3f" % (max(per[k]) / mean if mean else 0))
