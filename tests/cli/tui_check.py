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
    base = row["name"] + (" @ " + row["callsite"] if row.get("callsite") else "")
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


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in TITLES:
        fail("usage: tui_check.py flat|tree|source SCREEN JSON")
    with open(sys.argv[2], encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = lines[:-2]  # the status line and the message line
    with open(sys.argv[3], encoding="utf-8") as f:
        view = json.loads(f.read())
    j, rows = pane(lines, sys.argv[1])
    empty = [r.strip() for r in rows]  # a pane without rows says "(no rows)", or the view's note (cut at the edge)
    if empty == ["(no rows)"] or (len(empty) == 1 and view.get("note") and view["note"].startswith(empty[0])):
        if view["rows"]:
            fail("the %s pane shows no rows, the view has %d" % (sys.argv[1], len(view["rows"])))
        return
    if not rows:
        fail("the %s pane shows no rows" % sys.argv[1])
    {"flat": check_flat, "tree": check_tree, "source": check_source}[sys.argv[1]](j, rows, view)


main()
