#!/bin/bash
# Pictures in a real browser: renders the SVG sandwich, the stats SVG and the
# interactive HTML page with tests/picture_render.c, screenshots them in
# headless Chromium (a picture must not be blank), then drives the HTML page
# over the DevTools protocol (--remote-debugging-pipe, Python standard library
# only; every request that is not file: or data: is failed and counted): the
# page's first picture must equal the library's views, a click on a frame must
# re-center on its function and draw what cct_view_topdown / cct_view_bottomup
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

exec timeout 170 python3 - "$chrome" "$t" <<'PY'
import json, os, struct, subprocess, sys, time, zlib

chrome, tmp = sys.argv[1], sys.argv[2]
failures = []

def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

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

# ---- DevTools protocol over a pipe ----
def fd_high(fd):
    import fcntl
    g = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return g

to_r, to_w = (fd_high(x) for x in os.pipe())
from_r, from_w = (fd_high(x) for x in os.pipe())

def child():
    os.dup2(to_r, 3)
    os.dup2(from_w, 4)

proc = subprocess.Popen([chrome, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                         '--remote-debugging-pipe', '--user-data-dir=' + os.path.join(tmp, 'profile'),
                         '--host-resolver-rules=MAP * ~NOTFOUND', '--window-size=1200,800', 'about:blank'],
                        preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_r)
os.close(from_w)
buf, seq, blocked, events = b'', 0, [], []

def read_msg():
    global buf
    while b'\0' not in buf:
        chunk = os.read(from_r, 1 << 16)
        if not chunk:
            raise SystemExit('FAIL chromium closed the DevTools pipe')
        buf += chunk
    msg, buf = buf.split(b'\0', 1)
    return json.loads(msg)

def send(method, params=None, session=None):
    global seq
    seq += 1
    m = {'id': seq, 'method': method, 'params': params or {}}
    if session:
        m['sessionId'] = session
    os.write(to_w, json.dumps(m).encode() + b'\0')
    my = seq
    while True:
        r = read_msg()
        if r.get('id') == my:
            if 'error' in r:
                raise SystemExit('FAIL %s: %s' % (method, r['error']))
            return r.get('result', {})
        handle_event(r)

def handle_event(r):
    if r.get('method') == 'Fetch.requestPaused':
        p, s = r['params'], r.get('sessionId')
        url = p['request']['url']
        if url.startswith('file:') or url.startswith('data:'):
            send('Fetch.continueRequest', {'requestId': p['requestId']}, s)
        else:
            blocked.append(url)
            send('Fetch.failRequest', {'requestId': p['requestId'], 'errorReason': 'BlockedByClient'}, s)
    elif 'method' in r:
        events.append(r)

def wait_event(name, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        for k, e in enumerate(events):
            if e['method'] == name:
                del events[k]
                return e
        handle_event(read_msg())
    raise SystemExit('FAIL no %s' % name)

target = send('Target.createTarget', {'url': 'about:blank'})['targetId']
S = send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
send('Fetch.enable', {'patterns': [{'urlPattern': '*'}]}, S)
send('Page.enable', {}, S)
send('Runtime.enable', {}, S)
send('Emulation.setDeviceMetricsOverride', {'width': 1200, 'height': 800, 'deviceScaleFactor': 1, 'mobile': False}, S)

def js(expr):
    r = send('Runtime.evaluate', {'expression': expr, 'returnByValue': True, 'awaitPromise': True}, S)
    if 'exceptionDetails' in r:
        raise SystemExit('FAIL javascript: %s' % json.dumps(r['exceptionDetails'])[:500])
    return r['result'].get('value')

def load(url):
    events.clear()
    send('Page.navigate', {'url': url}, S)
    wait_event('Page.loadEventFired')

def click_at(x, y):
    for t in ('mousePressed', 'mouseReleased'):
        send('Input.dispatchMouseEvent', {'type': t, 'x': x, 'y': y, 'button': 'left', 'clickCount': 1}, S)

def click(selector):
    box = js('(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: "center"});'
             ' const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()' % json.dumps(selector))
    if box is None:
        raise SystemExit('FAIL nothing matches %s' % selector)
    click_at(box[0], box[1])

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
    send('Input.insertText', {'text': term}, S)
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
    try:
        send('Browser.close')
    except BaseException:
        pass
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('picture_browser: all checks passed')
PY
