#!/usr/bin/env python3
"""check_window.py DBDIR ARCHIVE FUNCTION: checks cctq's time windows and
timeline against the raw trace files (read by check_traces.py's readers),
independently of cctq's code:

- for windows [0, 100%), [0, 50%), [50%, 100%) and [10%, 35%) of the span,
  every traced context's 'trace (sec)' inclusive and exclusive (cctq: 'center
  #ID; topdown 0') equals the time its records (and its subtree's, by the
  scope rules of formats.md 3.4) spend inside the window, each record cut at
  the window's edges; and the two halves add up to the whole;
- 'flat' (functions) in [10%, 35%): per function (name and module), the
  inclusive time of its outermost frames and the exclusive time of all of them;
- 'diff window 50% 100%' under 'window 10% 35%', per context (its 'topdown 0'
  top row): both windows' values and the change, and a flat diff with 'sort'
  ordered by the absolute change;
- 'timeline' (json, 100 columns) with FUNCTION as the center: per lane and
  column, the share of the column's time whose record lies inside a frame of
  FUNCTION, and per lane the seconds on it.
Exits 1 on the first mismatch."""
import json
import os
import subprocess
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_traces as ct  # noqa: E402


def lanes_of(db, fmt):
    if fmt == "v4":
        return list(ct.v4_traces(os.path.join(db, "trace.db")))
    if fmt == "prof2":
        return list(ct.prof2_traces(os.path.join(db, "trace.db")))
    return list(ct.classic_traces(db))


def main():
    db, archive, function = sys.argv[1:4]
    cctq = os.environ["CCTQ"]
    con = sqlite3.connect(archive)
    fmt = con.execute("SELECT format FROM runs WHERE run = 1").fetchone()[0]
    lanes = lanes_of(db, fmt)
    if fmt.startswith("classic"):
        alias = ct.classic_alias(db)
        lanes = [[(t, alias.get(c, 0) if c else 0) for t, c in l] for l in lanes]
    ctx = {cid: (parent, kind, rel, name) for cid, parent, kind, rel, name in
           con.execute("SELECT id, parent, kind, relation, name FROM contexts WHERE run = 1")}
    module = dict(con.execute("SELECT id, module FROM contexts WHERE run = 1"))
    t0 = min(l[0][0] for l in lanes)
    span = max(l[-1][0] for l in lanes) - t0
    # each record: (lane, start, end, ctx) with times in ns since t0
    recs = []
    for k, l in enumerate(lanes):
        for (t, c), (t2, _) in zip(l, l[1:] + [l[-1]]):
            if c:
                recs.append((k, t - t0, t2 - t0, c))

    def window(a, b, skip=lambda c: False):  # skip: records left out (a dropped function's)
        incl, excl = defaultdict(float), defaultdict(float)
        for _, s, e, c in recs:
            d = min(e, b) - max(s, a)
            if d <= 0 or skip(c):
                continue
            chain, x = True, c
            while x is not None:
                incl[x] += d
                if chain:
                    excl[x] += d
                parent, kind, rel, _ = ctx[x]
                if kind in ("root", "function") or rel != "lexical":
                    chain = False
                x = parent
        return incl, excl

    ids = sorted({c for _, _, _, c in recs} | {p for c in {c for _, _, _, c in recs} for p in [ctx[c][0]] if p})
    wins = [(0, span), (0, span / 2), (span / 2, span), (span * 0.1, span * 0.35)]
    got = {}
    for a, b in wins:
        cmds = ["metric trace", "mode csv", "window %.9fs %.9fs" % (a * 1e-9, b * 1e-9)]
        for c in ids:
            cmds += ["center #%d" % c, "topdown 0"]
        out = subprocess.run([cctq, archive, "-c", "; ".join(cmds)], check=True, capture_output=True, text=True).stdout
        vals = {}
        for line in out.splitlines():
            f = line.split(",")
            if len(f) > 12 and f[3] == "center":
                vals[int(f[4][1:])] = (float(f[11]), float(f[12]))
        got[(a, b)] = vals
        incl, excl = window(round(a), round(b))
        for c in ids:
            gi, ge = vals[c]
            wi, we = incl[c] * 1e-9, excl[c] * 1e-9
            if abs(gi - wi) > 1e-9 + 1e-9 * wi or abs(ge - we) > 1e-9 + 1e-9 * we:
                print("check_window: %s: window %g-%g s, context %d: inclusive %r exclusive %r, expected %r %r"
                      % (db, a * 1e-9, b * 1e-9, c, gi, ge, wi, we), file=sys.stderr)
                return 1
    whole, h1, h2 = got[wins[0]], got[wins[1]], got[wins[2]]
    for c in ids:
        if abs(h1[c][0] + h2[c][0] - whole[c][0]) > 1e-9 * max(1, whole[c][0]):
            print("check_window: %s: context %d: halves %r + %r != %r" % (db, c, h1[c][0], h2[c][0], whole[c][0]),
                  file=sys.stderr)
            return 1
    def fail(msg):
        print("check_window: %s: %s" % (db, msg), file=sys.stderr)
        return 1

    def run(cmds):
        return subprocess.run([cctq, archive, "-c", "; ".join(cmds)], check=True, capture_output=True,
                              text=True).stdout

    def key(name, mod):  # a function as flat rows name it: its name without the ' [module]' suffix, and module
        return (name.split(" [")[0] if name else name, mod or "")

    def frame(c):  # a function's frame: a function context, or an instruction entered by a call (no structure)
        return (ctx[c][1] == "function" or (ctx[c][1] == "instruction" and ctx[c][2] == "call")) and ctx[c][3]

    def flat_functions(incl, excl):  # per function key: inclusive of the outermost frames, exclusive of all
        fi, fe = defaultdict(float), defaultdict(float)
        for c, (parent, kind, rel, name) in ctx.items():
            if not frame(c):
                continue
            k, x, outer = key(name, module[c]), parent, True
            while x is not None:
                if frame(x) and key(ctx[x][3], module[x]) == k:
                    outer = False
                x = ctx[x][0]
            if outer:
                fi[k] += incl.get(c, 0) * 1e-9
            fe[k] += excl.get(c, 0) * 1e-9
        return fi, fe

    def flat_rows(out):  # csv rows of 'flat' (after the header) by function key: summed inclusive, exclusive
        rows = defaultdict(lambda: [0.0, 0.0])
        for line in out.splitlines():
            f = line.split(",")
            if len(f) > 12 and f[3] == "function":
                r = rows[key(f[4], f[8])]
                r[0] += float(f[11])
                r[1] += float(f[12])
        return rows

    w1, w2 = (round(span * 0.1), round(span * 0.35)), (round(span / 2), span)
    win1 = "window %.9fs %.9fs" % (w1[0] * 1e-9, w1[1] * 1e-9)
    win2 = "window %.9fs %.9fs" % (w2[0] * 1e-9, w2[1] * 1e-9)
    fi, fe = flat_functions(*window(*w1))
    got = flat_rows(run(["metric trace", "mode csv", win1, "flat 0"]))
    for k in set(fi) | set(got):
        g, want = got.get(k, [0, 0]), (fi.get(k, 0), fe.get(k, 0))
        if any(abs(g[j] - want[j]) > 1e-9 + 1e-9 * abs(want[j]) for j in range(2)):
            return fail("flat in [10%%, 35%%): %r: inclusive %r exclusive %r, expected %r %r" % (k, g[0], g[1], *want))
    # diff window: per context, both windows' top rows and the change
    i1, e1 = window(*w1)
    i2, e2 = window(*w2)
    cmds = ["metric trace", "mode csv", win1]
    for c in ids:
        cmds += ["center #%d" % c, "topdown 0", "diff " + win2]
    out = run(cmds)
    seen = 0
    head = [l.split(",") for l in out.splitlines() if l.startswith("handle,other_handle,")][0]
    cols = [head.index("trace (sec) " + n) for n in ("inclusive", "exclusive", "other inclusive", "other exclusive",
                                                      "change", "exclusive change")]
    rows = [l.split(",") for l in out.splitlines() if l.count(",") > 18 and l.split(",")[3] == "both"]
    if len(rows) != len(ids):
        return fail("diff window: %d top rows for %d contexts" % (len(rows), len(ids)))
    for c, f in zip(ids, rows):
        want = (i1[c] * 1e-9, e1[c] * 1e-9, i2[c] * 1e-9, e2[c] * 1e-9, (i2[c] - i1[c]) * 1e-9, (e2[c] - e1[c]) * 1e-9)
        g = [float(f[j]) for j in cols]
        if any(abs(g[j] - want[j]) > 1e-9 + 1e-9 * abs(want[j]) for j in range(6)):
            return fail("diff window, context %d: %r, expected %r" % (c, g, want))
        seen += 1
    # a flat diff sorted by change: the functions' changes, largest first
    fi1, _ = flat_functions(i1, e1)
    fi2, _ = flat_functions(i2, e2)
    out = run(["metric trace", "mode csv", win1, "flat 0", "diff " + win2 + " sort"])
    head = [l.split(",") for l in out.splitlines() if l.startswith("handle,other_handle,")][0]
    ch = head.index("trace (sec) change")
    changes = [(key(f[6], f[10]), float(f[ch])) for f in (l.split(",") for l in out.splitlines())
               if len(f) > 18 and f[5] == "function"]
    for k, ch in changes:
        want = fi2.get(k, 0) - fi1.get(k, 0)
        if abs(ch - want) > 1e-9 + 1e-9 * abs(want) and sum(1 for x, _ in changes if x == k) == 1:
            return fail("flat diff window sort: %r change %r, expected %r" % (k, ch, want))
    if [abs(c) for _, c in changes] != sorted((abs(c) for _, c in changes), reverse=True):
        return fail("flat diff window sort: not by the absolute change: %r" % changes[:5])
    # the timeline of FUNCTION over the whole run
    def on(c):
        x = c
        while x is not None:
            parent, kind, rel, name = ctx[x]
            if kind == "function" and (name == function or name.startswith(function + " [")):
                return True
            x = parent
        return False
    cols = 100
    # over the whole run, and over a window whose columns' edges fall between records (a record over many
    # columns was cut at the first edge where x / colw rounded below the column: thread 6 of inline.meta.db)
    for a, b in ((0, span), (round(span * 0.33), span)):
        win = "window %.9fs %.9fs; " % (a * 1e-9, b * 1e-9) if a else ""
        out = subprocess.run([cctq, archive, "-c", "mode json; center '%s'; %stimeline 0" % (function, win)],
                             check=True, capture_output=True, text=True).stdout
        tl = json.loads(out[out.index('{"view"'):])
        colw = (b - a) / cols
        for lane in tl["lanes"]:
            k = lane["lane"] - 1
            share = [0.0] * cols
            total = 0
            for kk, s, e, c in recs:
                s, e = max(s, a) - a, min(e, b) - a
                if kk != k or not on(c) or e <= s:
                    continue
                total += e - s
                for j in range(int(s // colw), min(cols, int(e // colw) + 1)):
                    d = min(e, (j + 1) * colw if j < cols - 1 else b - a) - max(s, j * colw)
                    if d > 0:
                        share[j] += d / colw
            if abs(lane["on"] - total * 1e-9) > 1e-9 + 1e-9 * total * 1e-9:
                print("check_window: %s: %slane %d on %r s, expected %r" % (db, win, k + 1, lane["on"], total * 1e-9),
                      file=sys.stderr)
                return 1
            for j in range(cols):
                if abs(lane["shares"][j] - share[j]) > 1e-3:
                    print("check_window: %s: %slane %d column %d share %r, expected %r"
                          % (db, win, k + 1, j, lane["shares"][j], share[j]), file=sys.stderr)
                    return 1
        if not a:
            whole = tl
    # stats of the metric over the profiles: each traced profile's value is its lane's time on FUNCTION
    # in the window [10%, 35%) (lanes bound to profiles by trace_lane.profile)
    a, b = round(span * 0.1), round(span * 0.35)
    out = subprocess.run([cctq, archive, "-c", "mode json; metric trace; center '%s'; window %.9fs %.9fs; stats"
                          % (function, a * 1e-9, b * 1e-9)], check=True, capture_output=True, text=True).stdout
    st = json.loads(out[out.index("{"):])
    prof = dict(con.execute("SELECT lane, profile FROM trace_lane WHERE run = 1 AND profile IS NOT NULL"))
    for p in st["profiles"]:
        lane = [k for k, v in prof.items() if v == p["profile"]]
        want = sum(min(e, b) - max(s, a) for kk, s, e, c in recs
                   if lane and kk == lane[0] - 1 and on(c) and min(e, b) > max(s, a)) * 1e-9
        if abs(p["value"] - want) > 1e-9 + 1e-9 * want:
            print("check_window: %s: stats: profile %d %r s, expected %r" % (db, p["profile"], p["value"], want),
                  file=sys.stderr)
            return 1
    # a filter under the window: 'filter drop FUNCTION' leaves out the records inside its frames, in the
    # flat functions and in each profile's total (stats without a center)
    drop = ["metric trace", "filter drop '%s'" % function, win1]
    fi, fe = flat_functions(*window(*w1, skip=on))
    got = flat_rows(run(drop + ["mode csv", "flat 0"]))
    for k in set(fi) | set(got):
        g, want = got.get(k, [0, 0]), (fi.get(k, 0), fe.get(k, 0))
        if any(abs(g[j] - want[j]) > 1e-9 + 1e-9 * abs(want[j]) for j in range(2)):
            return fail("filter drop %s, flat in [10%%, 35%%): %r: inclusive %r exclusive %r, expected %r %r"
                        % (function, k, g[0], g[1], *want))
    out = run(drop + ["mode json", "stats"])
    st = json.loads(out[out.index("{"):])
    a, b = w1
    for p in st["profiles"]:
        lane = [k for k, v in prof.items() if v == p["profile"]]
        want = sum(min(e, b) - max(s, a) for kk, s, e, c in recs
                   if lane and kk == lane[0] - 1 and not on(c) and min(e, b) > max(s, a)) * 1e-9
        if abs(p["value"] - want) > 1e-9 + 1e-9 * want:
            return fail("filter drop %s: stats: profile %d %r s, expected %r" % (function, p["profile"], p["value"], want))
    ons = [l["on"] for l in whole["lanes"]]
    if ons != sorted(ons, reverse=True):
        print("check_window: %s: lanes not by time on the center" % db, file=sys.stderr)
        return 1
    print("check_window: %s: %d contexts in 4 windows, %d functions, %d diffs, timeline of %s in %d lanes: ok"
          % (db, len(ids), len(fi), seen, function, len(whole["lanes"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
