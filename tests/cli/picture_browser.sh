#!/bin/bash
# Pictures in a real browser: renders the SVG sandwich, the stats SVG and the
# interactive HTML page with tests/picture_render.c, screenshots them in
# headless Chromium (a picture must not be blank), then drives the HTML page
# over the DevTools protocol (--remote-debugging-pipe, Python standard library
# only; every request that is not file: or data: is failed and counted): the
# page's first picture must equal the library's views, a click on a frame must
# re-center on its function and draw what the library's topdown / bottomup views
# give for that center (names, values, widths within 0.5px), the search box
# must highlight matching frames and Reset must bring the first picture back.
set -euo pipefail
: "${CCTINGEST:?} ${CCT_DATA:?}"
if [ -z "${CCT_PICTURE_RENDER:-}" ] || [ ! -x "$CCT_PICTURE_RENDER" ]; then
  echo "FAIL: CCT_PICTURE_RENDER (tests/picture_render) is not built"; exit 1
fi
chrome=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chrome=$(command -v "$c"); break; fi
done
if [ -z "$chrome" ]; then
  echo "skip: no chromium on PATH (scripts/setup installs the 'chromium' package)"; exit 77
fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$t/osu.sqlite"
R=$CCT_PICTURE_RENDER
# A: centered on pthread_spin_lock; click psm_isend_pkt (one of its callers).
"$R" "$t/osu.sqlite" -c pthread_spin_lock -d 10 -s "$t/a.svg" -H "$t/a.html" -S "$t/a-stats.svg" -j "$t/a.json"
"$R" "$t/osu.sqlite" -c psm_isend_pkt -d 10 -j "$t/a-click.json"
# B: no center (the whole program); click MPIC_Sendrecv.
"$R" "$t/osu.sqlite" -d 10 -s "$t/b.svg" -H "$t/b.html" -j "$t/b.json"
"$R" "$t/osu.sqlite" -c MPIC_Sendrecv -d 10 -j "$t/b-click.json"
# C: recursion (the outermost rule): no center; click a (main > a > b > a).
"$CCTINGEST" --quiet "$CCT_DATA/handmade-recursion" "$t/rec.sqlite"
"$R" "$t/rec.sqlite" -d 8 -H "$t/c.html" -j "$t/c.json"
"$R" "$t/rec.sqlite" -c a -d 8 -j "$t/c-click.json"

shot() { # shot FILE.png URL
  timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$t/profile-shot" --host-resolver-rules="MAP * ~NOTFOUND" \
    --screenshot="$1" --window-size=1200,800 "$2" >/dev/null 2>&1 || true
}
for f in a.svg a-stats.svg a.html b.svg b.html; do shot "$t/$f.png" "file://$t/$f"; done

timeout 170 python3 - "$chrome" "$t" <<'PY'
import json, os, struct, sys, zlib
sys.path.insert(0, os.environ['CCT_SRC'] + '/tests/cli')
import devtools  # noqa: E402

chrome, tmp = sys.argv[1], sys.argv[2]
check = devtools.Checks()

# ---- screenshots: decode the PNG (zlib + unfiltering) and count colors ----
def png_colors(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), 'unexpected PNG format'
            bpp = 3 if ctype == 2 else 4
        elif typ == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colors, out = bytearray(stride), set(), 0
    for y in range(h):
        f, line = raw[out], bytearray(raw[out + 1:out + 1 + stride])
        out += 1 + stride
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            colors.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 2))
        prev = line
    return len(colors)

for f in ['a.svg', 'a-stats.svg', 'a.html', 'b.svg', 'b.html']:
    p = os.path.join(tmp, f + '.png')
    n = png_colors(p) if os.path.exists(p) else 0
    check(n > 20, 'screenshot of %s is not blank (%d colors)' % (f, n))

# ---- DevTools protocol over a pipe (devtools.py) ----
B = devtools.Browser(chrome, tmp)
send, js, load, click = B.send, B.js, B.load, B.click
blocked = B.blocked

FRAMES = '''Array.from(document.querySelectorAll('#pic g.frame')).map(g => [g.dataset.part, +g.dataset.depth,
  g.dataset.name, +g.dataset.inclusive, +g.querySelector('rect').getAttribute('width'), !!g.querySelector('title'),
  +g.dataset.exclusive])'''

def expected(rows, fw, minw=0.1):
    """The frames the library's rows give: pre-order, narrow ones cut with their subtrees."""
    out, skip, top = [], -1, rows[0]['inclusive']
    for r in rows:
        d = r['depth']
        if d == 0:
            out.append((d, r['name'], r['inclusive'], fw, r['exclusive']))
            continue
        if skip >= 0 and d > skip:
            continue
        skip = -1
        w = max(r['inclusive'], 0) * fw / top if top > 0 else 0
        if w < minw:
            skip = d
            continue
        out.append((d, r['name'], r['inclusive'], w, r['exclusive']))
    return out

def compare(lib, what):
    frames = js(FRAMES)
    fw = lib['frame_width']
    check(all(f[5] for f in frames), what + ': every frame has a <title>')
    up = [f for f in frames if f[0] in ('center', 'root', 'callee')]
    down = [f for f in frames if f[0] == 'caller']
    for part, got, rows in (('callee', up, lib['topdown']), ('caller', down, lib['bottomup'] or [])):
        exp = expected(rows, fw) if rows else []
        if part == 'caller':
            exp = [e for e in exp if e[0] > 0]
        ok = len(got) == len(exp)
        bad = None
        for g, e in zip(got, exp):
            if g[1] != e[0] or g[2] != e[1] or abs(g[3] - e[2]) > 1e-9 * max(1, abs(e[2])) or abs(g[4] - e[3]) > 0.5 \
                    or abs(g[6] - e[4]) > 1e-9 * max(1, abs(e[4])):
                ok, bad = False, (g, e)
                break
        check(ok, '%s: %s frames equal the library view (%d drawn, %d expected)%s'
              % (what, part, len(got), len(exp), '' if bad is None else ' first difference %r vs %r' % bad))

def scenario(page, first, click_name, clicked, reset_label, term):
    load('file://' + os.path.join(tmp, page))
    a = json.load(open(os.path.join(tmp, first)))
    b = json.load(open(os.path.join(tmp, clicked)))
    label = js("document.getElementById('center').textContent")
    check(label == reset_label, '%s: first center label %r' % (page, label))
    compare(a, page + ' first picture')
    click('#pic g.frame[data-depth="%d"][data-name=%s]' % (
        next(r['depth'] for r in (a['bottomup'] or []) + a['topdown'] if r['name'] == click_name),
        json.dumps(click_name)))
    label = js("document.getElementById('center').textContent")
    check(label == click_name, '%s: click re-centers on %s (label %r)' % (page, click_name, label))
    mid = js('''(() => { const g = document.querySelector('#pic g.frame[data-depth="0"]');
      return [g.dataset.name, g.dataset.part, +g.querySelector('rect').getAttribute('width')]; })()''')
    check(mid == [click_name, 'center', b['frame_width']], '%s: the new center fills the middle row %r' % (page, mid))
    compare(b, page + ' after click on ' + click_name)
    # search: type into the box (real key input), frames whose name matches are highlighted
    js("document.getElementById('search').focus()")
    send('Input.insertText', {'text': term})
    hi = js('''[document.querySelectorAll('#pic g.frame.match').length,
      Array.from(document.querySelectorAll('#pic g.frame')).filter(g => new RegExp(%s, 'i').test(g.dataset.name)).length,
      getComputedStyle(document.querySelector('#pic g.frame.match rect') || document.body).fill]''' % json.dumps(term))
    check(hi[0] > 0 and hi[0] == hi[1], '%s: search highlights the %d matching frames (%d)' % (page, hi[1], hi[0]))
    check(hi[2] == 'rgb(224, 86, 253)', '%s: highlighted frames change color (%s)' % (page, hi[2]))
    click('#reset')
    label = js("document.getElementById('center').textContent")
    check(label == reset_label, '%s: Reset returns to %r (%r)' % (page, reset_label, label))
    compare(a, page + ' after Reset')

try:
    scenario('a.html', 'a.json', 'psm_isend_pkt', 'a-click.json', 'pthread_spin_lock', 'sendrecv')
    scenario('b.html', 'b.json', 'MPIC_Sendrecv', 'b-click.json', '(none)', 'sendrecv')
    scenario('c.html', 'c.json', 'a', 'c-click.json', '(none)', '^b$')
    check(not blocked, 'no network requests (%s)' % blocked[:3])
finally:
    B.close()
check.done('picture_browser')
PY
