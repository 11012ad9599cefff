#!/bin/bash
# The timeline as a picture ('timeline 8; export t.svg / t.html') on the traced
# inline.meta.db (8 threads), checked against the raw trace.db read by Python
# (check_traces.py) and the archive's public 'contexts' view: the lanes, their
# order and seconds on the center in the window, each lane's strip column by
# column, the window shaded; then the HTML page in headless Chromium (DevTools
# protocol, devtools.py): a drag over the time axis gives the 'window A B' of
# the times under the mouse, a click on a lane the call stack sampled there
# (innermost frame first) and 'center #ID' of its innermost frame, a click on
# another frame of the stack that frame's; both commands work in cctq.
set -euo pipefail
: "${CCTQ:?} ${CCTINGEST:?} ${CCT_DATA:?} ${CCT_SRC:?}"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
db=$t/inline
mkdir "$db"
ln -s "$CCT_DATA"/v4-hpcviewer-inline.meta.db/* "$CCT_DATA"/traces/v4-hpcviewer-inline.meta.db/* "$db/"
"$CCTINGEST" --quiet "$db" "$t/a.sqlite"
"$CCTQ" "$t/a.sqlite" -c "center gomp_team_barrier_wait_end; window 3 4.5; timeline 8; export $t/t.svg; export $t/t.html; export $t/t.txt" >"$t/out"
cmp -s "$t/t.txt" <(sed -n '2,$p' "$t/out") || { echo "FAIL: export t.txt is not what 'timeline 8' printed"; exit 1; }
if "$CCTQ" "$t/a.sqlite" -c "timeline; export $t/t.csv" >/dev/null 2>"$t/err"; then echo "FAIL: timeline to .csv"; exit 1; fi
grep -q "export of 'timeline' to .csv is not available; use .txt, .json, .svg or .html" "$t/err" || { cat "$t/err"; exit 1; }
[ ! -e "$t/t.csv" ] || { echo "FAIL: a refused export wrote t.csv"; exit 1; }
# the timeline is exported as shown: a new center or window since is refused, a view after it is exported instead
if "$CCTQ" "$t/a.sqlite" -c "timeline 2; center main; export $t/x.svg" >/dev/null 2>"$t/err"; then echo "FAIL: export after a new center"; exit 1; fi
grep -q "the center or the window changed since 'timeline': run it again to export it" "$t/err" || { cat "$t/err"; exit 1; }
"$CCTQ" "$t/a.sqlite" -c "timeline 2; topdown 1; export $t/x.svg" >/dev/null
grep -q 'class="frame' "$t/x.svg" && ! grep -q 'class="lane"' "$t/x.svg" || { echo "FAIL: export after 'topdown' is not the sandwich"; exit 1; }

chrome=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chrome=$(command -v "$c"); break; fi
done

timeout 170 python3 - "$t" "$db" "$chrome" <<'PY'
import math, os, sqlite3, subprocess, sys
import xml.etree.ElementTree as ET
sys.path.insert(0, os.environ['CCT_SRC'] + '/tests/cli')
import check_traces as ct  # noqa: E402
import devtools  # noqa: E402

tmp, db, chrome = sys.argv[1:4]
cctq, archive = os.environ['CCTQ'], os.path.join(tmp, 'a.sqlite')
check = devtools.Checks()


# ---- the truth: records (lane index, start, end, context) in ns since the first record ----
lanes = list(ct.v4_traces(os.path.join(db, 'trace.db')))
t0 = min(l[0][0] for l in lanes)
span = max(l[-1][0] for l in lanes) - t0
records = [[(a - t0, b - t0, c) for (a, c), (b, _) in zip(l, l[1:] + [l[-1]])] for l in lanes]
con = sqlite3.connect(archive)
ctx = {i: (p, k, n) for i, p, k, n in con.execute('SELECT id, parent, kind, name FROM contexts WHERE run = 1')}


def function_frames(c):
    """The function contexts on the stack of context c, innermost first: [(id, name)]."""
    out = []
    while c is not None:
        p, k, n = ctx[c]
        if k == 'function':
            out.append((c, n))
        c = p
    return out


def on_center(c):
    return c != 0 and any(n.split(' [')[0] == 'gomp_team_barrier_wait_end' for _, n in function_frames(c))


W0, W1 = 3e9, 4.5e9
on_win = [sum(max(0, min(b, W1) - max(a, W0)) for a, b, c in r if on_center(c)) * 1e-9 for r in records]

# ---- the SVG ----
for asset, out in [('timeline.js', 't.html'), ('timeline_page.css', 't.html'), ('timeline.css', 't.html'),
                   ('timeline.css', 't.svg')]:
    text = open(os.path.join(os.environ['CCT_SRC'], 'query/picture', asset), encoding='utf-8').read()
    check(text in open(os.path.join(tmp, out), encoding='utf-8').read(), '%s holds %s verbatim' % (out, asset))
S = '{http://www.w3.org/2000/svg}'
svg = ET.parse(os.path.join(tmp, 't.svg')).getroot()
x0, pw, ncols = float(svg.get('data-x0')), float(svg.get('data-plot-width')), int(svg.get('data-columns'))
check(svg.get('data-center') == 'gomp_team_barrier_wait_end', 'the picture names the center')
check(float(svg.get('data-from')) == 0 and abs(float(svg.get('data-to')) - span * 1e-9) < 1e-12 and ncols == 900,
      'columns: 900 over the whole run, 0 to %.9g s (%s to %s)' % (span * 1e-9, svg.get('data-from'), svg.get('data-to')))
win = svg.findall(S + 'rect[@class="window"]')
check(len(win) >= 1 and win[0].get('data-from') == '3' and win[0].get('data-to') == '4.5',
      'the window 3 s - 4.5 s is shaded')
if win:
    xa, wa = float(win[0].get('x')), float(win[0].get('width'))
    check(abs(xa - (x0 + 3e9 / span * pw)) < 0.01 and abs(xa + wa - (x0 + 4.5e9 / span * pw)) < 0.01,
          'the shade spans 3 s to 4.5 s on the axis (x %.2f width %.2f)' % (xa, wa))
gl = svg.findall(S + 'g[@class="lane"]')
check(len(gl) == 8, '8 lanes (%d)' % len(gl))
order = sorted(range(8), key=lambda k: (-on_win[k], k))
got = [int(g.get('data-lane')) - 1 for g in gl]
check([round(on_win[k], 9) for k in got] == sorted((round(v, 9) for v in on_win), reverse=True),
      'lanes by seconds on the center in the window (%s)' % got)
for g in gl:
    k = int(g.get('data-lane')) - 1
    check(abs(float(g.get('data-on')) - on_win[k]) < 1e-9, 'lane %s: %.9g s on it in the window (%s)'
          % (g.get('data-label'), on_win[k], g.get('data-on')))


def heights(d, yb):
    """Per column the height of a strip path 'M x yb (H x | V y)* ... Z' drawn one pixel per column."""
    out, x, y, num = [], x0, yb, ''
    toks = d.replace('H', ' H ').replace('V', ' V ').replace('Z', '').split()[2:]
    for op, v in zip(toks[::2], toks[1::2]):
        if op == 'H':
            out += [yb - y] * int(round(float(v) - x))
            x = float(v)
        else:
            y = float(v)
    return out


colw = span / ncols
for g in gl:
    k, yb = int(g.get('data-lane')) - 1, float(g.get('data-y')) + 20
    share = [0.0] * ncols
    for a, b, c in records[k]:
        if not on_center(c) or b <= a:
            continue
        for j in range(int(a // colw), min(ncols, int(b // colw) + 1)):
            share[j] += max(0, min(b, (j + 1) * colw if j < ncols - 1 else span) - max(a, j * colw)) / colw
    want = [round(2 * min(1, s) * 20) / 2 for s in share]
    path = [p for p in g.findall(S + 'path') if p.get('class') == 'on'][0]
    h = heights(path.get('d'), yb)
    bad = [j for j in range(ncols) if len(h) != ncols or abs(h[j] - want[j]) > 0.5]
    check(not bad, 'lane %s: the strip is the share on the center, column by column (%d columns differ%s)'
          % (g.get('data-label'), len(bad), ', first %d: %r vs %r' % (bad[0], h[bad[0]] if bad[0] < len(h) else None,
                                                                     want[bad[0]]) if bad else ''))

# ---- the HTML page in a browser ----
if not chrome:
    print('skip: no chromium on PATH for the page (scripts/setup installs the chromium package)')
    sys.exit(1 if check.failures else 77)
B = devtools.Browser(chrome, tmp)
try:
    B.load('file://' + os.path.join(tmp, 't.html'))
    left, top = B.js('(() => { const r = document.querySelector("#pic svg").getBoundingClientRect(); '
                     'return [r.left, r.top]; })()')
    axis_y = round(top + float(svg.get('data-axis-y')) + 13)

    def page_x(sec):  # whole pixels: a MouseEvent's clientX is an integer
        return round(left + x0 + sec * 1e9 / span * pw)

    # drag over the axis from 3.5 s to 4 s
    xa, xb = page_x(3.5), page_x(4.0)
    B.mouse('mousePressed', xa, axis_y)
    B.mouse('mouseMoved', (xa + xb) / 2, axis_y)
    B.mouse('mouseMoved', xb, axis_y)
    B.mouse('mouseReleased', xb, axis_y)
    digits = max(0, min(9, math.ceil(-math.log10(colw * 1e-9))))

    def sec_text(x):
        v = ('%.*f' % (digits, (x - left - x0) / pw * span * 1e-9))
        return v.rstrip('0').rstrip('.') if '.' in v else v
    want = 'window %s %s' % (sec_text(xa), sec_text(xb))
    got = B.js('document.getElementById("cmd").value')
    check(got == want, 'a drag from 3.5 s to 4 s over the axis gives %r (%r)' % (want, got))
    sel = B.js('(() => { const r = document.querySelector("#pic rect.sel"); return r ? [+r.getAttribute("x"), '
               '+r.getAttribute("width")] : null; })()')
    check(sel is not None and abs(sel[0] - (xa - left)) < 0.01 and abs(sel[0] + sel[1] - (xb - left)) < 0.01,
          'the dragged span is drawn (%r)' % (sel,))
    r = subprocess.run([cctq, archive, '-c', got], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.startswith('window %s s - %s s' % tuple(got.split()[1:])),
          'cctq takes %r: %r' % (got, r.stdout.strip()))

    # a click on the first lane at 4 s: the stack sampled at the middle of that column
    g = gl[0]
    k = int(g.get('data-lane')) - 1
    x = page_x(4.0)
    B.click_at(x, round(top + float(g.get('data-y')) + 10))
    col = int((x - left - x0) / pw * ncols)
    mid = (col + 0.5) * colw
    leaf = [c for a, b, c in records[k] if a <= mid < b]
    stack = function_frames(leaf[0]) if leaf and leaf[0] else []
    want = 'center #%d' % stack[0][0] if stack else ''
    got = B.js('document.getElementById("cmd").value')
    check(bool(stack) and got == want, 'a click on %s at 4 s gives %r (%r), its innermost frame %s'
          % (g.get('data-label'), want, got, stack[0][1] if stack else '-'))
    shown = B.js('Array.from(document.querySelectorAll("#stack li")).map(li => [+li.dataset.id, li.textContent])')
    check([s[0] for s in shown] == [f[0] for f in stack] and all(s[1].startswith(f[1]) for s, f in zip(shown, stack)),
          'the page lists the sampled stack, innermost first (%d frames: %s)' % (len(stack), ' < '.join(f[1] for f in stack)))
    if len(stack) > 1:
        B.click('#stack li:nth-child(2)')
        got = B.js('document.getElementById("cmd").value')
        check(got == 'center #%d' % stack[1][0], 'a click on its caller %s gives %r' % (stack[1][1], got))
    if stack:
        r = subprocess.run([cctq, archive, '-c', 'center #%d; center' % stack[0][0]], capture_output=True, text=True)
        check(r.returncode == 0 and '#%d' % stack[0][0] in r.stdout, 'cctq centers on #%d: %r'
              % (stack[0][0], r.stdout.strip()[:80]))
    check(not B.blocked, 'no network requests (%s)' % B.blocked[:3])
finally:
    B.close()
check.done('timeline_picture')
PY
