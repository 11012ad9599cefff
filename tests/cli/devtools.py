"""devtools.py: headless Chromium driven over the DevTools protocol
(--remote-debugging-pipe), Python standard library only, for the tests of the
HTML pictures (picture_browser.sh, timeline_picture.sh), and the checks those
tests report (Checks).  Every request that is not file: or data: is failed and
listed in Browser.blocked."""
import json
import os
import subprocess
import sys
import time


class Checks:
    """check(ok, what) prints 'ok   what' or 'FAIL what' and counts the failures;
    check.done(name) ends the test: exit 1 after a failure, else a last line."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(('ok   ' if ok else 'FAIL ') + what)
        if not ok:
            self.failures.append(what)

    def done(self, name):
        if self.failures:
            print('%d failure(s)' % len(self.failures))
            sys.exit(1)
        print(name + ': all checks passed')


def _fd_high(fd):
    import fcntl
    g = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return g


class Browser:
    """One page of a headless Chromium at 1200x800."""

    def __init__(self, chrome, tmp):
        to_r, self.to_w = (_fd_high(x) for x in os.pipe())
        self.from_r, from_w = (_fd_high(x) for x in os.pipe())

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [chrome, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
             '--remote-debugging-pipe', '--user-data-dir=' + os.path.join(tmp, 'profile'),
             '--host-resolver-rules=MAP * ~NOTFOUND', '--window-size=1200,800', 'about:blank'],
            preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.seq, self.blocked, self.events, self.session = b'', 0, [], [], None
        target = self.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.session = self.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        self.send('Fetch.enable', {'patterns': [{'urlPattern': '*'}]})
        self.send('Page.enable')
        self.send('Runtime.enable')
        self.send('Emulation.setDeviceMetricsOverride', {'width': 1200, 'height': 800, 'deviceScaleFactor': 1,
                                                         'mobile': False})

    def _read(self):
        while b'\0' not in self.buf:
            chunk = os.read(self.from_r, 1 << 16)
            if not chunk:
                raise SystemExit('FAIL chromium closed the DevTools pipe')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def send(self, method, params=None):
        """Sends a command to the page (the browser before a page is attached) and returns its result."""
        self.seq += 1
        m = {'id': self.seq, 'method': method, 'params': params or {}}
        if self.session:
            m['sessionId'] = self.session
        os.write(self.to_w, json.dumps(m).encode() + b'\0')
        my = self.seq
        while True:
            r = self._read()
            if r.get('id') == my:
                if 'error' in r:
                    raise SystemExit('FAIL %s: %s' % (method, r['error']))
                return r.get('result', {})
            self._event(r)

    def _event(self, r):
        if r.get('method') == 'Fetch.requestPaused':
            p = r['params']
            url = p['request']['url']
            if url.startswith('file:') or url.startswith('data:'):
                self.send('Fetch.continueRequest', {'requestId': p['requestId']})
            else:
                self.blocked.append(url)
                self.send('Fetch.failRequest', {'requestId': p['requestId'], 'errorReason': 'BlockedByClient'})
        elif 'method' in r:
            self.events.append(r)

    def wait_event(self, name, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            for k, e in enumerate(self.events):
                if e['method'] == name:
                    del self.events[k]
                    return e
            self._event(self._read())
        raise SystemExit('FAIL no %s' % name)

    def js(self, expr):
        """The value of a JavaScript expression in the page (promises awaited)."""
        r = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True, 'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise SystemExit('FAIL javascript: %s' % json.dumps(r['exceptionDetails'])[:500])
        return r['result'].get('value')

    def load(self, url):
        self.events.clear()
        self.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired')

    def mouse(self, kind, x, y):
        """A mouse event (mousePressed, mouseMoved, mouseReleased) at page coordinates, left button."""
        p = {'type': kind, 'x': x, 'y': y, 'button': 'left', 'clickCount': 1}
        if kind == 'mouseMoved':
            p['buttons'] = 1
        self.send('Input.dispatchMouseEvent', p)

    def click_at(self, x, y):
        for t in ('mousePressed', 'mouseReleased'):
            self.mouse(t, x, y)

    def click(self, selector):
        box = self.js('(() => { const e = document.querySelector(%s); if (!e) return null; '
                      'e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); '
                      'return [r.x + r.width / 2, r.y + r.height / 2]; })()' % json.dumps(selector))
        if box is None:
            raise SystemExit('FAIL nothing matches %s' % selector)
        self.click_at(box[0], box[1])

    def close(self):
        try:
            self.session = None
            self.send('Browser.close')
        except BaseException:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
