/* page.js: the interactive page of query/picture.c.  Reads the JSON of
 * script element cct-data (the function-granularity tree, the initial views
 * and the function table), redraws the sandwich as SVG in #pic, re-centers on
 * the function of a clicked frame (merging its outermost occurrences, as the
 * library does), and highlights frames matching the search box.  Exposes
 * window.cctRecenter(name) for tests. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('cct-data').textContent);
  var F = D.funcs, T = D.tree, n = T.length;
  var KINDS = ['root', 'function', 'loop', 'line', 'instruction', 'center', 'file', 'module'];
  var W = D.width, M = 10, FW = W - 2 * M, RH = 18, HEAD = 50, CAP = 18, CW = 7.3;
  var pic = document.getElementById('pic'), status = document.getElementById('status');
  var search = document.getElementById('search');
  var kids = [];
  for (var i = 0; i < n; i++) kids.push([]);
  for (i = 1; i < n; i++) kids[T[i][0]].push(i);

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(v) {
    if (isFinite(v) && v === Math.floor(v) && Math.abs(v) < 1e15) return v.toFixed(0);
    return String(Number(v.toPrecision(6)));
  }
  function pct(v, t) { return t > 0 ? (100 * v / t).toFixed(1) + '%' : '-'; }
  function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  /* A view: rows in pre-order {h, p, d, f, incl, excl, c}; rows[0] is the top row. */
  function fromList(list) {
    if (!list) return null;
    return list.map(function (r, k) {
      return { h: k + 1, p: r[0] + 1, d: 0, f: r[1], incl: r[2], excl: r[3], c: r[4] };
    }).map(function (r, k, a) { r.d = k ? a[r.p - 1].d + 1 : 0; return r; });
  }

  /* Merged row tree -> rows, siblings by inclusive descending, ties by label; threshold cut. */
  function mk(f) { return { f: f, incl: 0, excl: 0, kids: new Map(), order: [] }; }
  function flatten(top, centerName) {
    var rows = [], cut = D.threshold * D.total;
    function emit(m, p, d) {
      var h = rows.length + 1;
      rows.push({ h: h, p: p, d: d, f: m.f, incl: m.incl, excl: m.excl,
                  c: d === 0 || (m.f >= 0 && F[m.f][0] === centerName) ? 1 : 0 });
      var ks = m.order.slice();
      ks.forEach(function (k, idx) { k.idx = idx; });
      ks.sort(function (a, b) {
        if (a.incl !== b.incl) return a.incl > b.incl ? -1 : 1;
        var c = cmpStr(F[a.f][0], F[b.f][0]);
        return c ? c : a.idx - b.idx;
      });
      ks.forEach(function (k) { if (!(cut > 0 && k.incl < cut)) emit(k, h, d + 1); });
    }
    emit(top, 0, 0);
    return rows;
  }

  /* Re-centers on every function named name (the library's 'center NAME'):
   * outermost occurrences O*, callee tree = merged children of O*, caller tree
   * = merged caller chains of O*.  Returns a view or null. */
  function recenter(name) {
    var isC = new Uint8Array(n), anc = new Uint8Array(n), outer = [], any = false;
    for (var i = 1; i < n; i++) if (F[T[i][1]][0] === name) { isC[i] = 1; any = true; }
    if (!any) return null;
    for (i = 1; i < n; i++) {
      var p = T[i][0];
      anc[i] = p > 0 && (anc[p] || isC[p]) ? 1 : 0;
      if (isC[i] && !anc[i]) outer.push(i);
    }
    var sub = new Float64Array(n);
    for (i = n - 1; i >= 1; i--) {
      if (isC[i]) sub[i] += T[i][3];
      sub[T[i][0]] += sub[i];
    }
    var depth = D.depth, top = mk(-1), bu = mk(-1);
    for (i = 1; i < n; i++) if (isC[i]) top.excl += T[i][3];
    function add(m, c, d) {
      var f = T[c][1], k = m.kids.get(f);
      if (!k) { k = mk(f); m.kids.set(f, k); m.order.push(k); }
      k.incl += T[c][2];
      k.excl += T[c][3];
      if (d < depth) kids[c].forEach(function (cc) { add(k, cc, d + 1); });
    }
    function step(m, f, incl, excl) {
      var k = m.kids.get(f);
      if (!k) { k = mk(f); m.kids.set(f, k); m.order.push(k); }
      k.incl += incl;
      k.excl += excl;
      return k;
    }
    outer.forEach(function (o) {
      top.incl += T[o][2];
      if (depth > 0) kids[o].forEach(function (c) { add(top, c, 1); });
      var a = T[o][0], node = bu;
      if (depth < 1) return;
      if (a === 0) { step(bu, D.progRoot, T[o][2], sub[o]); return; }
      for (var k = 1; k <= depth; k++) {
        node = step(node, T[a][1], T[o][2], sub[o]);
        if (T[a][0] === 0) break;
        a = T[a][0];
      }
    });
    bu.incl = top.incl;
    bu.excl = top.excl;
    return { label: name, centered: true, callee: flatten(top, name), caller: flatten(bu, name) };
  }

  function color(r) {
    if (r.d === 0) return D.centered ? '#b39ddb' : '#d9d9d9';
    return F[r.f][6];
  }

  /* Lays out one half: x and width per row; returns max depth drawn. */
  function layout(rows) {
    var fill = [], scale = rows[0].incl > 0 ? FW / rows[0].incl : 0, skip = -1, maxd = 0;
    rows.forEach(function (r) {
      r.drawn = false;
      if (r.d === 0) { r.x = M; r.w = FW; fill[0] = M; r.drawn = true; return; }
      if (skip >= 0 && r.d > skip) return;
      skip = -1;
      var w = Math.max(0, r.incl) * scale;
      r.x = fill[r.d - 1];
      fill[r.d - 1] += w;
      r.w = w;
      if (w < D.minWidth) { skip = r.d; return; }
      fill[r.d] = r.x;
      r.drawn = true;
      if (r.d > maxd) maxd = r.d;
    });
    return maxd;
  }

  function label(name, w) {
    var cs = Array.from(name), nfit = Math.floor((w - 6) / CW);
    if (cs.length <= nfit) return name;
    if (nfit < 3) return '';
    return cs.slice(0, nfit - 2).join('') + '..';
  }

  function frame(out, r, part, y, top) {
    var f = r.f >= 0 ? F[r.f] : [view.label, null, -1, null, 5, 0, '#ccc'];
    var name = r.d === 0 ? view.label : f[0];
    var kind = r.d === 0 ? (view.centered ? 'center' : 'root') : KINDS[f[4]];
    var tip = name;
    if (f[1]) tip += '\n' + f[1] + (f[2] >= 0 ? ':' + f[2] : '');
    if (f[3]) tip += '\n[' + f[3] + ']';
    tip += '\ninclusive ' + fmt(r.incl) + ' (' + pct(r.incl, D.total) + ' of program' +
      (view.centered && r.d > 0 ? ', ' + pct(r.incl, top) + ' of center' : '') + ')';
    tip += '\nexclusive ' + fmt(r.excl) + ' (' + pct(r.excl, D.total) + ' of program)';
    out.push('<g class="frame' + (r.c && r.d > 0 ? ' member' : '') + '" data-part="' + part +
      '" data-handle="' + r.h + '" data-parent="' + r.p + '" data-depth="' + r.d + '" data-kind="' + kind +
      '" data-name="' + esc(name) + '" data-inclusive="' + r.incl + '" data-exclusive="' + r.excl +
      '" data-fid="' + r.f + '"><title>' + esc(tip) + '</title><rect x="' + r.x.toFixed(3) + '" y="' + y +
      '" width="' + r.w.toFixed(3) + '" height="' + (RH - 1) + '" rx="2" fill="' + color(r) + '"/>');
    var text = r.d === 0 && view.centered ? name + ' \u2014 ' + pct(r.incl, D.total) + ' of program' : name;
    var t = label(text, r.w);
    if (t) out.push('<text x="' + (r.x + 3).toFixed(3) + '" y="' + (y + 12.5) + '">' + esc(t) + '</text>');
    out.push('</g>');
  }

  var view = null;
  function render(v) {
    view = v;
    D.centered = v.centered;
    var dc = layout(v.callee), db = v.caller ? layout(v.caller) : 0;
    var ytop = HEAD + CAP, yc = ytop + dc * RH, ybot = yc + RH + db * RH;
    var H = ybot + (v.caller ? CAP : 0) + 10;
    var out = [], top = v.callee[0].incl;
    out.push('<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W +
      ' ' + H + '" data-frame-width="' + FW + '" data-center="' + esc(v.label) + '">');
    out.push('<rect width="100%" height="100%" fill="#fffdf8"/>');
    out.push('<text class="title" x="' + M + '" y="22">' + esc(v.centered ? 'center ' + v.label : 'top-down: whole program') + '</text>');
    out.push('<text class="sub" x="' + M + '" y="40">' + esc(D.metric + ', run ' + D.run + ', inclusive ' + fmt(top) +
      ' = ' + pct(top, D.total) + ' of the program total ' + fmt(D.total)) + '</text>');
    out.push('<text class="cap" x="' + M + '" y="' + (ytop - 5) + '">' + esc(v.centered ? (dc ? '\u25b2 callees of ' + v.label + ' (top-down)' : 'no callees: its cost is its own') : '\u25b2 callees (top-down)') + '</text>');
    v.callee.forEach(function (r) { if (r.drawn) frame(out, r, r.d === 0 ? (v.centered ? 'center' : 'root') : 'callee', yc - r.d * RH, top); });
    if (v.caller) {
      v.caller.forEach(function (r) { if (r.drawn && r.d > 0) frame(out, r, 'caller', yc + r.d * RH, top); });
      out.push('<text class="cap" x="' + M + '" y="' + (ybot + 13) + '">' + esc('\u25bc callers of ' + v.label + ' (bottom-up)') + '</text>');
    }
    out.push('</svg>');
    pic.innerHTML = out.join('');
    document.getElementById('center').textContent = v.centered ? v.label : '(none)';
    highlight();
  }

  function highlight() {
    var s = search.value, re = null, count = 0;
    if (s) {
      try { re = new RegExp(s, 'i'); } catch (e) { re = new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); }
    }
    pic.querySelectorAll('g.frame').forEach(function (g) {
      var m = !!re && re.test(g.getAttribute('data-name'));
      g.classList.toggle('match', m);
      if (m) count++;
    });
    status.textContent = s ? count + ' frame(s) match' : (D.truncated ? 'tree truncated to ' + n + ' frames' : '');
  }

  var initial = { label: D.initial.label, centered: D.initial.centered,
                  callee: fromList(D.initial.callee), caller: fromList(D.initial.caller) };
  pic.addEventListener('click', function (e) {
    var g = e.target.closest ? e.target.closest('g.frame') : null;
    if (!g || g.getAttribute('data-depth') === '0') return;
    var f = +g.getAttribute('data-fid');
    if (!(f >= 0)) return;
    var v = recenter(F[f][0]);
    if (!v) { status.textContent = 'no occurrence of ' + F[f][0] + ' in the embedded tree'; return; }
    render(v);
  });
  document.getElementById('reset').addEventListener('click', function () { render(initial); });
  search.addEventListener('input', highlight);
  window.cctRecenter = function (name) { var v = recenter(name); if (v) render(v); return !!v; };
  render(initial);
})();
