#!/usr/bin/env python3
"""tui_check.py: checks a pane of a `cctq --tui` screen (text of a tmux
capture-pane) against the shell's JSON output of the same view, an independent
reading: the JSON comes from `cctq -c 'mode json; center X; topdown 30'` and
this script, not the TUI, decides which rows the screen must show.

  tui_check.py flat SCREEN JSON     the flat pane's rows are the first rows of the
                                    JSON flat view, in order (labels, inclusive,
                                    exclusive, '*' on the center's rows)
  tui_check.py tree SCREEN JSON     the tree pane (top-down or bottom-up) shows the
                                    JSON view's rows whose ancestors the screen has
                                    open (marker ▾ / -), in pre-order, each at its
                                    depth with its values; '*' on center rows
  tui_check.py source SCREEN JSON   each source row on screen has the JSON row of
                                    its line: the '>' mark, the values (blank when
                                    all are 0; the center's share last, with a
                                    center) and the text

  tui_check.py timeline SCREEN TEXT DBDIR ARCHIVE
                                    the timeline pane: lanes in the order and with the
                                    strips of the shell's 'timeline' (TEXT, at the same
                                    number of columns; '-' is a blank there); the line
                                    under the axis names the stack the first lane
                                    sampled at the cursor ('^') as the raw trace.db of
                                    DBDIR and the contexts view say; prints its
                                    innermost frame's id
  tui_check.py timeline-window SCREEN DBDIR
                                    the message of two marks names the window from the
                                    start of the first's column to the end of the
                                    second's (the cursor), and the axis shows it

Panes are found by their title line (the value headings, then 'Flat',
'Top-down of', 'Bottom-up of' or 'Source'); the label column starts where the
title word does.  Exit status 0 when the pane matches, else 1 with the first
difference."""
import json
import re
import sys

TITLES = {"flat": ("Flat ",), "tree": ("Top-down of", "Bottom-up of"), "source": ("Source",)}


def fail(msg):
    print("tui_check: " + msg)
    sys.exit(1)


def pane(lines, kind):
    """Returns (label column, rows) of the pane of that kind."""
    starts = []
    for i, l in enumerate(lines):
        if "inclusive" in l and ("exclusive" in l or "excl%" in l):
            for k, words in TITLES.items():
                for w in words:
                    j = l.find(w, l.find("excl"))
                    if j >= 0:
                        starts.append((i, k, j))
    for n, (i, k, j) in enumerate(starts):
        if k != kind:
            continue
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        rows = []
        for l in lines[i + 1:end]:
            if l.strip():
                rows.append(l)
        return j, rows
    fail("no %s pane on the screen" % kind)


def close(shown, value):
    if shown == "-":
        return value is None
    try:
        x = float(shown)
    except ValueError:
        return False
    if "e" in shown.lower():  # 4 significant digits
        return abs(x - value) <= 0.0005001 * abs(value)
    digits = len(shown.split(".")[1]) if "." in shown else 0
    return abs(x - value) <= 0.5001 * 10 ** -digits


def values(j, line):
    """inclusive, exclusive (None: shown as a percentage only, on narrow
    terminals) and '*' of a flat or tree row."""
    cols = line[: j - 2].split()
    if len(cols) not in (3, 4):
        fail("cannot read the values of %r" % line)
    return cols[0], cols[2] if len(cols) == 4 else None, line[j - 2] == "*"


def label_ok(shown, row):
    if row["name"] == "<multiple contexts>":  # json's name; the TUI titles it by its members
        return " + " in shown
    base = row["name"] + (" @ " + row["callsite"] if row.get("callsite") else "")
    if row.get("inlined") and not row.get("callsite") and shown.startswith(row["name"] + " ("):
        return True  # the shortener drops ' [inlined]' before the location that tells rows apart
    base += " [inlined]" if row.get("inlined") else ""
    if shown == base or shown.startswith(base + " ("):
        return True
    if "..." in shown:  # shortened in the middle to fit
        head = shown.split("...")[0]
        return base.startswith(head) or (base + " (").startswith(head)
    return False


def metric_values(row):
    v = list(row["values"].values())[0]
    return v["inclusive"], v["exclusive"]


def same_row(j, line, label, row):
    inc, exc, star = values(j, line)
    ri, re_ = metric_values(row)
    if not label_ok(label, row):
        fail("row %r: label %r, expected %r" % (line, label, row["name"]))
    if not close(inc, ri) or (exc is not None and not close(exc, re_)):
        fail("row %r: values %s %s, expected %s %s" % (line, inc, exc, ri, re_))
    if star != bool(row["center"]):
        fail("row %r: center mark %s, expected %s" % (line, star, row["center"]))


def check_flat(j, rows, view):
    if len(rows) > len(view["rows"]):
        fail("the flat pane shows %d rows, the view has %d" % (len(rows), len(view["rows"])))
    for line, row in zip(rows, view["rows"]):
        same_row(j, line, line[j:].rstrip(), row)


MARK = re.compile(r"^( *)(\u25be |\u25b8 |- |\+ )?(.*)$")


def check_tree(j, rows, view):
    jrows = view["rows"]
    if not jrows:
        fail("the view has no rows")
    kids = [0] * len(jrows)
    parent = [-1] * len(jrows)
    stack = []
    for i, r in enumerate(jrows):
        del stack[r["depth"]:]
        if stack:
            parent[i] = stack[-1]
            kids[stack[-1]] += 1
        stack.append(i)
    shown = [False] * len(jrows)
    opened = [False] * len(jrows)
    k = 0
    for i, r in enumerate(jrows):
        if k == len(rows):
            break
        p = parent[i]
        if p >= 0 and not (shown[p] and opened[p]):
            continue
        line = rows[k]
        m = MARK.match(line[j:])
        indent, marker, label = len(m.group(1)), m.group(2) or "", m.group(3).rstrip()
        if not marker:  # a leaf: two blanks where the marker would be
            indent -= 2
        if indent != 2 * r["depth"]:
            fail("row %r: depth %d, expected %d (%s)" % (line, indent // 2, r["depth"], r["name"]))
        same_row(j, line, label, r)
        is_open = marker.strip() in ("\u25be", "-")
        if is_open and not kids[i]:
            fail("row %r is open but has no children in the view" % line)
        if not marker and kids[i]:
            fail("row %r has no expand marker but has children" % line)
        shown[i] = True
        opened[i] = is_open
        k += 1
    if k < len(rows):
        fail("the tree pane shows more rows than the view: %r" % rows[k])


def check_source(j, rows, view):
    by_line = {r["line"]: r for r in view["rows"]}
    for line in rows:
        m = re.match(r"^ ([> ]) *(\d+)", line)
        if not m:
            fail("cannot read source row %r" % line)
        r = by_line.get(int(m.group(2)))
        if r is None:
            fail("line %s is not in the source view" % m.group(2))
        if (m.group(1) == ">") != bool(r.get("mark")):
            fail("line %s: mark %r, expected %s" % (m.group(2), m.group(1), r.get("mark")))
        cols = line[m.end(): j - 2].split()
        ri, re_ = metric_values(r)
        share = list(r["values"].values())[0].get("center")
        if cols:  # inclusive, %, [exclusive,] %, [center share]
            if share is not None:
                if not close(cols[-1], share):
                    fail("line %s: center share %s, expected %s" % (m.group(2), cols[-1], share))
                cols = cols[:-1]
            if len(cols) not in (3, 4) or not close(cols[0], ri) or (len(cols) == 4 and not close(cols[2], re_)):
                fail("line %s: values %s, expected %s %s" % (m.group(2), cols, ri, re_))
        elif ri or re_ or share:
            fail("line %s: no values shown, expected %s %s %s" % (m.group(2), ri, re_, share))
        text = line[j:].rstrip()
        want = (r.get("text") or "").expandtabs(8).rstrip()
        if text != want and not ("..." not in text and want.startswith(text)):
            fail("line %s: text %r, expected %r" % (m.group(2), text, want))


TL_STRIP = 20  # the timeline pane's strips start at this column, after a blank, an 18-column label and '|'


def timeline_pane(lines):
    """(lanes [(label, strip, on)], axis line, info line) of the timeline pane."""
    top = next((i for i, l in enumerate(lines) if "Timeline of" in l), None)
    if top is None:
        fail("no timeline pane")
    lanes, i = [], top + 1
    while i < len(lines):
        m = re.match(r"^ (.{%d})\|(.*)\| +(\S+)s +(\S+)%%$" % (TL_STRIP - 2), lines[i])
        if not m:
            break
        lanes.append((m.group(1).strip(), m.group(2), float(m.group(3))))
        i += 1
    if not lanes or i + 1 >= len(lines):
        fail("no lanes or no axis in the timeline pane")
    return lanes, lines[i], lines[i + 1]


def raw_span_records(dbdir):
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import check_traces as ct
    lanes = list(ct.v4_traces(os.path.join(dbdir, "trace.db")))
    t0 = min(l[0][0] for l in lanes)
    span = max(l[-1][0] for l in lanes) - t0
    return span, [[(a - t0, b - t0, c) for (a, c), (b, _) in zip(l, l[1:] + [l[-1]])] for l in lanes]


def check_timeline(screen, text, dbdir, archive):
    import sqlite3
    lanes, axis, info = timeline_pane(screen)
    shell = []
    for l in text:
        m = re.match(r"^(.{18}) +(\S+) s +(\S+)% \|(.*)\|$", l)
        if m:
            shell.append((m.group(1).strip(), m.group(4), float(m.group(2))))
    if [l[0] for l in lanes] != [l[0] for l in shell]:
        fail("lanes %r, the shell's %r" % ([l[0] for l in lanes], [l[0] for l in shell]))
    for (label, strip, on), (_, want, won) in zip(lanes, shell):
        if strip.replace("-", " ") != want:
            fail("%s: strip %r, the shell's %r" % (label, strip, want))
        if abs(on - won) > 5e-3 * abs(won):  # the pane shows 3 significant digits
            fail("%s: %r s on it, the shell's %r" % (label, on, won))
    nc, col = len(lanes[0][1]), axis.find("^") - TL_STRIP
    if not 0 <= col < nc:
        fail("no cursor on the axis line %r" % axis)
    span, recs = raw_span_records(dbdir)
    con = sqlite3.connect(archive)
    thread = int(lanes[0][0].split()[-1])
    lane = con.execute("SELECT lane FROM trace_lane WHERE run = 1 AND thread = ?", (thread,)).fetchone()[0]
    mid = (col + 0.5) * span / nc
    leaf = [c for a, b, c in recs[lane - 1] if a <= mid < b]
    ctx = {i: (p, k, n) for i, p, k, n in con.execute("SELECT id, parent, kind, name FROM contexts WHERE run = 1")}
    stack, c = [], leaf[0] if leaf else None
    while c:
        p, k, n = ctx[c]
        if k == "function":
            stack.append((c, n))
        c = p
    if not stack:
        fail("%s is idle at column %d in the trace; pick another time" % (lanes[0][0], col))
    want = "%s at %.4g s: %s" % (lanes[0][0], mid * 1e-9, " < ".join(n for _, n in stack))
    want += "  (c: center #%d)" % stack[0][0]
    if not want.startswith(info.strip()) or len(info.strip()) < min(len(want), len(info) - 2):
        fail("the cursor's line %r, expected %r" % (info.strip(), want))
    print(stack[0][0])


def check_timeline_window(screen, dbdir):
    lanes, axis, info = timeline_pane(screen)
    nc = len(lanes[0][1])
    marks = [i - TL_STRIP for i, ch in enumerate(axis) if ch in "=^" and TL_STRIP <= i < TL_STRIP + nc]
    b = axis.find("^") - TL_STRIP
    a = b - 5
    m = next((re.search(r"^window (\S+) s - (\S+) s: ", l) for l in screen if l.startswith("window ")), None)
    if not m:
        fail("no window message")
    span, _ = raw_span_records(dbdir)
    got, want = (float(m.group(1)), float(m.group(2))), (a * span / nc * 1e-9, (b + 1) * span / nc * 1e-9)
    if any(abs(g - w) > 1e-8 * max(1, w) for g, w in zip(got, want)):
        fail("window %r s, expected %r s (columns %d to %d of %d)" % (got, want, a, b, nc))
    if not set(range(a, b + 1)) <= set(marks) <= set(range(a - 1, b + 2)):
        fail("the axis shows the window over columns %r, expected %d to %d" % (marks, a, b))


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("timeline"):
        texts = []
        for f in sys.argv[2:4 if sys.argv[1] == "timeline" else 3]:
            with open(f, encoding="utf-8") as fh:
                texts.append(fh.read().split("\n"))
        if sys.argv[1] == "timeline" and len(sys.argv) == 6:
            return check_timeline(texts[0], texts[1], sys.argv[4], sys.argv[5])
        if sys.argv[1] == "timeline-window" and len(sys.argv) == 4:
            return check_timeline_window(texts[0], sys.argv[3])
        fail("usage: tui_check.py timeline SCREEN TEXT DBDIR ARCHIVE | timeline-window SCREEN DBDIR")
    if len(sys.argv) == 3 and sys.argv[1] == "batch":
        return check_batch(sys.argv[2])
    if len(sys.argv) != 4 or sys.argv[1] not in TITLES:
        fail("usage: tui_check.py flat|tree|source SCREEN JSON | batch LIST")
    check_pane(*sys.argv[1:4])


def check_pane(kind, screen, view_json):
    """Checks the pane KIND of the screen in file SCREEN against the shell's JSON view."""
    with open(screen, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = lines[:-2]  # the status line and the message line
    with open(view_json, encoding="utf-8") as f:
        view = json.loads(f.read())
    j, rows = pane(lines, kind)
    empty = [r.strip() for r in rows]  # a pane without rows says "(no rows)", or the view's note (cut at the edge)
    if empty == ["(no rows)"] or (len(empty) == 1 and view.get("note") and view["note"].startswith(empty[0])):
        if view["rows"]:
            fail("the %s pane shows no rows, the view has %d" % (kind, len(view["rows"])))
        return
    if not rows:
        fail("the %s pane shows no rows" % kind)
    if view.get("note") and len(rows) > 1 and view["note"].startswith(rows[-1].strip()):
        rows = rows[:-1]  # the view's note, on the first free line below its rows (cut at the edge)
    {"flat": check_flat, "tree": check_tree, "source": check_source}[kind](j, rows, view)


def check_batch(listing):
    """Checks every pane of the file LISTING, a line 'KIND SCREEN JSON WHAT' each (one
    process for them all); prints each that fails with its screen, exits 1 if any did."""
    bad = 0
    with open(listing, encoding="utf-8") as f:
        for line in f:
            kind, screen, view_json, what = line.rstrip("\n").split(" ", 3)
            try:
                check_pane(kind, screen, view_json)
            except SystemExit:
                bad += 1
                print("FAIL: %s pane vs %s" % (kind, what))
                with open(screen, encoding="utf-8") as s:
                    print(s.read())
    if bad:
        sys.exit(1)

main()
